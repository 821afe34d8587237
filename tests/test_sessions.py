"""EpisodeSession: the one way the harness adapters drive an episode, held to the in-process replay."""

from __future__ import annotations

import json

import pytest

from tests.adapter_paths import ACEBENCH, BANKING, acebench_or_skip, gold_messages, replay_score, wrong_messages
from toolworlds.prebuilt import TaskWorlds
from toolworlds.sessions import EpisodeSession


def play(worlds: TaskWorlds, task_id: str, messages: list[dict]) -> EpisodeSession:
    session = EpisodeSession(worlds, task_id)
    for message in messages:
        session.send(message)
    return session


def test_every_banking_task_scores_its_replay_through_native_calls_and_written_calls() -> None:
    worlds = TaskWorlds("banking")
    for task_id, task in worlds.tasks.items():
        expected = replay_score(worlds, task_id)
        native = play(worlds, task_id, gold_messages(task))
        written = play(worlds, task_id, [{"role": "assistant", "content": text} for text in task.paths[0]]
                       + [{"role": "assistant", "content": "Done."}])
        assert native.score()["reward"] == written.score()["reward"] == expected, task_id
        assert native.over and native.stop_reason in ("agent answered", "user ended")


def test_acebench_tasks_score_their_replay() -> None:
    acebench_or_skip()
    worlds = TaskWorlds("acebench")
    agent_tasks = [task_id for task_id in worlds.tasks if task_id.startswith("agent_")]
    items = [task_id for task_id in worlds.tasks if not task_id.startswith("agent_")][::25]
    for task_id in [*agent_tasks, *items]:
        task = worlds.task(task_id)
        assert play(worlds, task_id, gold_messages(task)).score()["reward"] == replay_score(worlds, task_id), task_id


@pytest.mark.parametrize(("family", "task_id"), [*(("banking", t) for t in BANKING),
                                                 *(("acebench", t) for t in ACEBENCH)])
def test_the_test_paths_gold_one_wrong_zero(family: str, task_id: str) -> None:
    if family == "acebench":
        acebench_or_skip()
    worlds = TaskWorlds(family, [task_id])
    task = worlds.task(task_id)
    assert replay_score(worlds, task_id) == 1.0
    assert play(worlds, task_id, gold_messages(task)).score()["reward"] == 1.0
    assert play(worlds, task_id, wrong_messages(task)).score()["reward"] == 0.0


def test_opening_tools_and_answers_in_chat_shape() -> None:
    worlds = TaskWorlds("banking", ["banking_multi_step_4"])
    session = EpisodeSession(worlds, "banking_multi_step_4")
    opening = session.opening()
    assert [m["role"] for m in opening] == ["system", "user"]
    assert opening[1]["content"] == worlds.task("banking_multi_step_4").question
    assert {tool["function"]["name"] for tool in session.tools} == {f["name"] for f in session.task.functions}
    answers = session.send({"role": "assistant", "content": None, "tool_calls": [
        {"id": "a", "type": "function", "function": {"name": "login_bank", "arguments": "{not json"}},
        {"id": "b", "type": "function", "function": {"name": "no_such_tool", "arguments": "{}"}}]})
    assert [(a["role"], a["tool_call_id"]) for a in answers] == [("tool", "a"), ("tool", "b")]
    assert [json.loads(a["content"])["error"] for a in answers] == ["parse_error", "unknown_tool"]
    assert session.world.state() == worlds.start("banking_multi_step_4").state()
    written = session.send("[no_such_tool(x=1)]")
    assert written[0]["role"] == "user" and written[0]["content"].startswith("execution result: ")
    assert json.loads(session.call("get_balance", {}))["error"]  # a refusal, as the error JSON
    assert session.send("All done.") == [] and session.over
    assert json.loads(session.call("get_balance", {}))["error"] == "episode_over"
    assert "has ended" in session.send("more")[0]["content"]


@pytest.mark.parametrize("message", [
    {"role": "assistant", "content": [{"type": "text", "text": "Done."}]},
    {"role": "assistant", "content": 7},
    {},
])
def test_unreadable_messages_are_answers_never_errors(message: dict) -> None:
    worlds = TaskWorlds("banking", ["banking_multi_step_4"])
    session = EpisodeSession(worlds, "banking_multi_step_4")
    session.send(message)
    assert session.over and session.stop_reason == "agent answered"
    assert session.score()["reward"] == 0.0


def test_malformed_tool_calls_get_a_parse_error_the_agent_can_act_on() -> None:
    """`tool_calls` that are not a list of calls (here a number) are answered in place with a parse_error,
    as runs and ToolEnv answer them (sandbox.chat), and the episode goes on."""
    session = EpisodeSession(TaskWorlds("banking", ["banking_multi_step_4"]), "banking_multi_step_4")
    answered = session.send({"role": "assistant", "content": None, "tool_calls": 5})
    assert [json.loads(m["content"])["error"] for m in answered if m["role"] == "tool"] == ["parse_error"]
    assert not session.over


class BrokenUser:
    def __init__(self, task: object) -> None:
        self.replies = 0

    def respond(self, conversation: object) -> str:
        if self.replies:
            raise ConnectionError("the user's endpoint went away")
        self.replies += 1
        return "Please pay my rent."


def test_a_user_simulator_that_raises_ends_the_episode_failed_never_the_harness() -> None:
    worlds = TaskWorlds("banking", ["banking_multi_turn_0"])
    session = EpisodeSession(worlds, "banking_multi_turn_0", user=BrokenUser)
    assert session.opening()[1]["content"] == "Please pay my rent."
    assert session.send("What is your customer id?") == []
    assert session.over and session.stop_reason == "user failed"
    assert session.episode.error == "user: ConnectionError: the user's endpoint went away"
    assert session.score()["reward"] == 0.0
