"""Gold and wrong paths as the messages a model would send, for the harness adapters' tests.

Each adapter test plays these through its library (inspect_ai's mockllm, OpenEnv's client,
verifiers' rollout) and holds the score it reports to what the in-process replay of the same
task scores (`run_episode` with the oracle agent).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from sandbox.parsing import parse_message
from scenarios.datasets import dataset_dir
from scenarios.family import Task, task_hook
from toolworlds.agents import OracleAgent
from toolworlds.episode_score import episode_score
from toolworlds.episodes import run_episode
from toolworlds.prebuilt import TaskWorlds

# Tasks whose gold path the in-process replay scores 1.0: each category the adapters handle
# differently (native calls, a scripted user, a single written reply, special phrases).
BANKING = ("banking_multi_step_4", "banking_multi_turn_0")
ACEBENCH = ("agent_multi_step_2", "agent_multi_turn_0", "normal_single_turn_parallel_function_0",
            "special_irrelevant_0")


def acebench_or_skip() -> None:
    if dataset_dir("acebench") is None:
        pytest.skip("ACEBench data not found: set TOOLWORLDS_DATA to the shared datasets folder")


def replay_score(worlds: TaskWorlds, task_id: str) -> float:
    """What the in-process replay of the task's first gold path scores."""
    task = worlds.task(task_id)
    world, episode = run_episode(task, OracleAgent(task), world=worlds.fork(task_id))
    return float(episode_score(worlds.family.name, task, world, episode.process, episode.records,
                               worlds.mode)["reward"])


def single_reply(task: Task) -> bool:
    return bool(task_hook(task, "single_reply", False))


def gold_messages(task: Task) -> list[dict[str, Any]]:
    """The first gold path as assistant messages: native tool calls per milestone message, then an
    answer; a single-reply task's gold reply as the text it is."""
    if single_reply(task):
        return [{"role": "assistant", "content": task.paths[0][0]}]
    messages: list[dict[str, Any]] = []
    for step, text in enumerate(task.paths[0]):
        calls = parse_message(text).calls
        messages.append({"role": "assistant", "content": "", "tool_calls": [
            {"id": f"call_{step}_{index}", "type": "function",
             "function": {"name": call.name, "arguments": json.dumps(call.arguments, ensure_ascii=False)}}
            for index, call in enumerate(calls)]})
    messages.append({"role": "assistant", "content": "Done."})
    return messages


def wrong_messages(task: Task) -> list[dict[str, Any]]:
    """A path that cannot solve the task (each test task's ground truth needs a change of state):
    an answer with no call; a single-reply task's, a call to a tool it does not have."""
    if single_reply(task):
        return [{"role": "assistant", "content": "[no_such_tool(value=1)]"}]
    return [{"role": "assistant", "content": "Done."}]


def as_texts(messages: list[dict[str, Any]], task: Task) -> list[str]:
    """A path as the text replies of a model offered no tools: each gold message's calls written in
    the bracket syntax (the task's own milestone text), answers as they are."""
    calls = iter(task.paths[0])
    return [next(calls) if message.get("tool_calls") else str(message.get("content") or "") for message in messages]


@contextmanager
def served(app: Any) -> Iterator[str]:
    """An ASGI app served by uvicorn on a free loopback port, for the block: its base URL."""
    import uvicorn

    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
