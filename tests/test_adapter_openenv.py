"""toolworlds.openenv served locally and driven through OpenEnv's own clients (its WebSocket sessions).

Runs where openenv-core is installed (`.ci/run` installs it in the adapters' own venv).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("openenv", reason="openenv-core is not installed: pip install -e '.[openenv]'")
uvicorn = pytest.importorskip("uvicorn")

from openenv.core import GenericEnvClient  # noqa: E402

from tests.adapter_paths import (  # noqa: E402
    ACEBENCH,
    BANKING,
    acebench_or_skip,
    gold_messages,
    replay_score,
    served,
    wrong_messages,
)
from toolworlds.openenv import ToolworldsAction, ToolworldsClient, create_app  # noqa: E402
from toolworlds.prebuilt import TaskWorlds  # noqa: E402


@pytest.fixture(scope="module")
def banking_url() -> Iterator[str]:
    with served(create_app("banking", list(BANKING))) as url:
        yield url


@pytest.fixture(scope="module")
def acebench_url() -> Iterator[str]:
    acebench_or_skip()
    with served(create_app("acebench", list(ACEBENCH))) as url:
        yield url


async def play(url: str, task_id: str, messages: list[dict[str, Any]]) -> tuple[Any, list[Any]]:
    """Reset to the task, send the messages until the episode is done; the reset and every step."""
    async with ToolworldsClient(base_url=url) as client:
        started = await client.reset(task=task_id)
        steps = []
        for message in messages:
            steps.append(await client.step(ToolworldsAction(content=message.get("content") or "",
                                                            tool_calls=message.get("tool_calls") or [])))
            if steps[-1].done:
                break
        return started, steps


@pytest.mark.parametrize("task_id", BANKING)
def test_banking_gold_one_wrong_zero(banking_url: str, task_id: str) -> None:
    check_paths(banking_url, "banking", task_id)


@pytest.mark.parametrize("task_id", ACEBENCH)
def test_acebench_gold_one_wrong_zero(acebench_url: str, task_id: str) -> None:
    check_paths(acebench_url, "acebench", task_id)


def check_paths(url: str, family: str, task_id: str) -> None:
    task = TaskWorlds(family, [task_id]).task(task_id)
    started, steps = asyncio.run(play(url, task_id, gold_messages(task)))
    assert started.observation.task["id"] == task_id and started.observation.tools
    assert [m["role"] for m in started.observation.messages][:2] == ["system", "user"]
    assert steps[-1].done and steps[-1].reward == 1.0
    assert sum(step.reward or 0.0 for step in steps) == 1.0  # 0 until the end: the sum is the score
    assert steps[-1].observation.info["score"]["end_state"] is True  # kept, though OpenEnv drops `metadata`
    _, wrong = asyncio.run(play(url, task_id, wrong_messages(task)))
    assert wrong[-1].done and wrong[-1].reward == 0.0


def test_concurrent_sessions_each_have_their_own_world(banking_url: str) -> None:
    """Two clients interleave on one task: one plays the gold path, the other only reads and
    answers; each is scored on its own world."""
    task = TaskWorlds("banking", ["banking_multi_step_4"]).task("banking_multi_step_4")
    gold = gold_messages(task)

    async def both() -> tuple[list[Any], list[Any]]:
        async with ToolworldsClient(base_url=banking_url) as solver, \
                GenericEnvClient(base_url=banking_url) as idler:
            await solver.reset(task="banking_multi_step_4")
            await idler.reset(task="banking_multi_step_4")
            solved, idled = [], []
            for message in gold[:-1]:
                solved.append(await solver.step(ToolworldsAction(tool_calls=message["tool_calls"])))
                idled.append(await idler.step({"content": "[get_balance(account_id='A001')]"}))
            solved.append(await solver.step(ToolworldsAction(content="Done.")))
            idled.append(await idler.step({"content": "Done."}))
            return solved, idled

    solved, idled = asyncio.run(both())
    assert solved[-1].reward == 1.0 and idled[-1].reward == 0.0
    assert idled[-1].observation["info"]["score"]["end_state"] is False  # the generic client reads plain JSON


def test_tool_results_and_refusals_in_observations(banking_url: str) -> None:
    async def run() -> list[Any]:
        async with ToolworldsClient(base_url=banking_url) as client:
            await client.reset(task="banking_multi_step_4")
            return [await client.step(ToolworldsAction(tool_calls=[
                {"id": "a", "type": "function", "function": {"name": "transfer", "arguments": '{"amount": "lots"}'}},
                {"id": "b", "type": "function", "function": {"name": "no_such_tool", "arguments": "{oops"}}]))]

    step = asyncio.run(run())[0]
    assert [m["tool_call_id"] for m in step.observation.messages] == ["a", "b"]
    assert step.observation.info["call_errors"] == ["invalid_arguments", "parse_error"]
    assert not step.done and step.reward == 0.0


def test_reset_without_a_task_draws_from_a_seeded_source(banking_url: str) -> None:
    async def draws(seed: int) -> list[str]:
        async with ToolworldsClient(base_url=banking_url) as client:
            return [(await client.reset(seed=seed + i)).observation.task["id"] for i in range(6)]

    first, again = asyncio.run(draws(3)), asyncio.run(draws(3))
    assert first == again and set(first) <= set(BANKING)


def test_serving_an_unknown_family_or_task_is_an_error_not_a_traceback(capsys: pytest.CaptureFixture[str]) -> None:
    from toolworlds.openenv import main

    for argv in (["no_such_family"], ["banking", "--task", "no_such_task"]):
        with pytest.raises(SystemExit) as exited:
            main(argv)
        assert exited.value.code == 2
        assert capsys.readouterr().err.startswith("error: ")


@pytest.mark.parametrize("family", ["banking", "acebench"])
def test_gold_paths_score_their_in_process_replay_over_openenv(family: str) -> None:
    """Every banking task; every ACEBench agent task and every 25th item."""
    if family == "acebench":
        acebench_or_skip()
    worlds = TaskWorlds(family)
    chosen = [t for t in worlds.tasks if t.startswith("agent_")] + [t for t in worlds.tasks if not t.startswith(
        "agent_")][::25] if family == "acebench" else list(worlds.tasks)
    with served(create_app(family, chosen)) as url:
        for task_id in chosen:
            _, steps = asyncio.run(play(url, task_id, gold_messages(worlds.task(task_id))))
            assert steps[-1].done and steps[-1].reward == replay_score(worlds, task_id), task_id
