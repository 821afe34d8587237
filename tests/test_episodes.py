"""Episodes: oracle, noisy, async and LLM agents; scripted and LLM users; limits."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest

from sandbox.parsing import Call
from scenarios.banking.family import load_tasks
from tests.fake_chat import chat_endpoint
from toolworlds.agents import NoisyAgent, OracleAgent, ToolCall, Turn
from toolworlds.episodes import arun_episode, run_episode, start_episode, task_opening
from toolworlds.llm import ChatClient, LLMAgent, LLMUser

TASKS = {task.id: task for task in load_tasks()}
STEP = TASKS["banking_multi_step_4"]  # move 5000 from A002 to A001
TURN = TASKS["banking_multi_turn_2"]  # deposit and pay off the loan


def test_oracle_multi_step_reaches_the_ground_truth() -> None:
    world, episode = run_episode(STEP, OracleAgent(STEP))
    assert STEP.end_state(world) == STEP.ground_truth
    assert episode.finished and episode.stop_reason == "agent answered"
    assert episode.process == STEP.paths[0]
    assert [m.role for m in episode.messages] == ["user", "assistant", "tool", "assistant", "tool", "assistant"]


def test_oracle_multi_turn_with_the_scripted_user() -> None:
    world, episode = run_episode(TURN, OracleAgent(TURN))
    assert TURN.end_state(world) == TURN.ground_truth
    assert episode.messages[0].content == TURN.question
    assert episode.stop_reason == "user ended" and episode.turns == 1


def test_noisy_agent_is_seeded() -> None:
    def outcome(seed: int) -> list[list[str]]:
        return [run_episode(t, NoisyAgent(t, noise=0.5, seed=seed))[1].process for t in TASKS.values()]

    assert outcome(3) == outcome(3)
    assert outcome(3) != outcome(4)
    assert outcome(3) != [t.paths[0] for t in TASKS.values()]


class Chatty:
    """Never stops calling a read-only tool."""

    def act(self, conversation: Any, tools: Any) -> Turn:
        return Turn(calls=(Call("list_accounts", {"customer_id": "C001"}),))


class Asker:
    """Only ever talks."""

    def act(self, conversation: Any, tools: Any) -> Turn:
        return Turn(text="Could you tell me more?")


def test_step_and_turn_limits() -> None:
    _, looping = run_episode(STEP, Chatty(), max_steps=5)
    assert looping.steps == 5 and not looping.finished and looping.stop_reason == "step limit"

    class Patient:
        def respond(self, conversation: Any) -> str:
            return "Please go on."

    _, chat = run_episode(TURN, Asker(), user=Patient(), max_turns=3)
    assert chat.turns == 3 and chat.stop_reason == "turn limit" and not chat.finished


def test_a_reply_past_the_call_limit_is_answered_once_and_ends_the_episode() -> None:
    """A reply of 10,000 native calls is refused whole and each call answered with that refusal, as the
    protocol asks; going on sent every call and answer back with each later request (95 MB requests,
    900,000 stored messages for three episodes). Now the episode ends there."""
    class Flooding:
        def act(self, conversation: Any, tools: Any) -> Turn:
            return Turn(tool_calls=tuple(ToolCall(f"c{i}", "list_accounts", '{"customer_id": "C001"}')
                                         for i in range(300)))

    world, flooded = run_episode(STEP, Flooding(), max_steps=5)
    assert flooded.steps == 1 and flooded.stop_reason == "call limit" and not flooded.finished
    answers = [m for m in flooded.messages if m.role == "tool"]
    assert len(answers) == 300 and len({m.content for m in answers}) == 1 and "256" in answers[0].content
    assert len(world.log) == 1 and world.log[0].error is not None and world.log[0].error.type == "parse_error"


def test_async_agent() -> None:
    class AsyncOracle:
        def __init__(self) -> None:
            self.inner = OracleAgent(STEP)

        async def act(self, conversation: Any, tools: Any) -> Turn:
            await asyncio.sleep(0)
            return self.inner.act(conversation, tools)

    world, episode = asyncio.run(arun_episode(STEP, AsyncOracle()))
    assert STEP.end_state(world) == STEP.ground_truth and episode.finished


def banking_model(body: dict[str, Any]) -> dict[str, Any]:
    """The fake model: deposits once, then answers; as a user, ends politely."""
    system = body["messages"][0]["content"]
    if "You play a user" in system:
        return {"role": "assistant", "content":
                "finish conversation" if len(body["messages"]) > 2 else "Please deposit 10 into A001 for C001."}
    if not any(m["role"] == "tool" for m in body["messages"]):
        assert body["tools"] and body["tools"][0]["type"] == "function"
        assert all(t["function"]["parameters"]["type"] == "object" for t in body["tools"])
        arguments = json.dumps({"customer_id": "C001", "account_id": "A001", "amount": 10})
        return {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "deposit", "arguments": arguments}}]}
    # The native protocol: the model's call comes back as it sent it, answered by a tool message with its id.
    assistant, result = body["messages"][-2:]
    assert assistant["tool_calls"][0]["id"] == "call_1" and assistant["tool_calls"][0]["function"]["name"] == "deposit"
    assert result["role"] == "tool" and result["tool_call_id"] == "call_1" and "12010.00" in result["content"]
    return {"role": "assistant", "content": "Done: 10 deposited."}


@pytest.fixture
def fake_endpoint() -> Iterator[str]:
    with chat_endpoint(banking_model) as url:
        yield url


def test_llm_agent_and_user_over_an_openai_compatible_endpoint(fake_endpoint: str) -> None:
    pytest.importorskip("openai")
    client = ChatClient(fake_endpoint, "fake-model", api_key="test")
    login = TASKS["banking_multi_step_1"].model_copy(update={"category": "multi_turn"})
    world = login.world()
    world.call("login_bank", {"customer_id": "C001", "password": "eve2024"})
    world, episode = run_episode(login, LLMAgent(client), user=LLMUser(client, login.question), world=world)
    assert episode.messages[0].content == "Please deposit 10 into A001 for C001."
    assert episode.records[-1].ok and episode.records[-1].tool == "deposit"
    assert world.state()["Bank"]["accounts"]["A001"]["balance"] == "12010.00"
    assert episode.stop_reason == "user ended"


class _Opened:
    """A task with an opening conversation (task hook `opening_messages`), as API-Bank's samples have."""

    id, category, question = "opened", "multi_step", "pay the rent"
    functions: list[dict[str, Any]] = []
    opening_messages = (("system", "be brief"), {"role": "user", "content": "pay the rent"})

    def world(self, seed: int = 0) -> Any:
        return STEP.world(seed)


def test_an_opening_read_once_starts_every_episode_as_reading_it_each_time() -> None:
    """`ToolEnv` reads a task's `Opening` once and passes it to `start_episode`: each episode starts the same as
    one that reads the hooks itself, in a conversation of its own."""
    for task in (STEP, TURN, _Opened()):
        opening = task_opening(task)
        starts = []
        for given in (None, opening, opening):
            _, episode, _, steps, request = start_episode(task, opening=given)
            assert request is not None
            starts.append((request[0], list(request[1])))
            if request[0] == "agent":
                with pytest.raises(StopIteration):
                    steps.send(Turn(text="done"))
                assert episode.stop_reason == "agent answered"
        assert starts[0] == starts[1] == starts[2], task.id
    assert [(m.role, m.content, m.source) for m in task_opening(_Opened()).messages] == [
        ("system", "be brief", "task"), ("user", "pay the rent", "task")]
    assert task_opening(TURN).multi_turn and not task_opening(TURN).messages

