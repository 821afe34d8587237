"""toolworlds.verifiers through verifiers 0.4 itself: its environment loading, serving, interception and
null harness (a chat program verifiers runs with uv), against a scripted OpenAI-compatible endpoint.

verifiers pins `mcp==2.0.0`, which the dev extra's `mcp>=2.3` cannot share, so this runs in the
adapters' own venv (`.ci/run`) and skips in the main suite.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import AsyncIterator
from typing import Any

import pytest

pytest.importorskip("verifiers.v1", reason="verifiers is not installed: it pins mcp==2.0.0, so .ci/run tests "
                                          "it in a venv of its own (pip install -e '.[verifiers]')")
if shutil.which("uv") is None:
    pytest.skip("uv is not on PATH: verifiers runs its harness programs with uv (pip install uv)",
                allow_module_level=True)
pytest.importorskip("uvicorn")

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.routing import Route
from verifiers.v1.clients import EvalClientConfig, ModelContext

from tests.adapter_paths import (
    ACEBENCH,
    BANKING,
    acebench_or_skip,
    as_texts,
    gold_messages,
    served,
    wrong_messages,
)
from toolworlds.prebuilt import TaskWorlds
from toolworlds.sessions import EpisodeSession
from toolworlds.verifiers import load_environment

LOCAL_PLAYER = {"harness": {"id": "null"}, "runtime": {"type": "subprocess"}}


def scripted_endpoint(scripts: dict[str, dict[str, list[str]]]) -> Starlette:
    """An OpenAI-compatible chat endpoint that plays scripts: the model name picks the script set
    (gold or wrong), the conversation's first user message the task, and the number of assistant
    messages so far the reply. Streams, as verifiers' chat program asks."""
    async def chat(request: Request) -> StreamingResponse:
        body = await request.json()
        messages = body["messages"]
        opening = next(m["content"] for m in messages if m["role"] == "user")
        replies = scripts[body["model"]][opening]
        text = replies[min(sum(m["role"] == "assistant" for m in messages), len(replies) - 1)]
        base = {"id": "scripted", "object": "chat.completion.chunk", "created": 0, "model": body["model"]}
        chunks = [{**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": text},
                                        "finish_reason": None}]},
                  {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
                  {**base, "choices": [], "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}]

        async def events() -> AsyncIterator[str]:
            for chunk in chunks:
                yield f"data: {json.dumps(chunk)}\n\n"
            yield "data: [DONE]\n\n"

        return StreamingResponse(events(), media_type="text/event-stream")

    return Starlette(routes=[Route("/v1/chat/completions", chat, methods=["POST"])])


def scripts_for(family: str, task_ids: tuple[str, ...]) -> dict[str, dict[str, list[str]]]:
    worlds = TaskWorlds(family, list(task_ids))
    scripts: dict[str, dict[str, list[str]]] = {"gold": {}, "wrong": {}}
    for task_id in task_ids:
        task = worlds.task(task_id)
        opening = "\n\n".join(m["content"] for m in EpisodeSession(worlds, task_id).opening()[1:])
        scripts["gold"][opening] = as_texts(gold_messages(task), task)
        scripts["wrong"][opening] = as_texts(wrong_messages(task), task)
    return scripts


def rewards(family: str, task_ids: tuple[str, ...]) -> dict[str, dict[str, float]]:
    """Every task played through verifiers by the gold and the wrong script, all episodes at once:
    the `toolworlds` reward per script and task id."""
    with served(scripted_endpoint(scripts_for(family, task_ids))) as url:
        env = load_environment(family, task_ids, player=LOCAL_PLAYER)
        contexts = {model: ModelContext(model=model, client=EvalClientConfig(base_url=url + "/v1",
                                                                             api_key_var="SCRIPTED_KEY"))
                    for model in ("gold", "wrong")}
        planned = [(model, slot) for model in contexts for task in env.taskset for slot in env.slots(task, 1)]

        async def play() -> list[Any]:
            async with env.serving():
                return await asyncio.gather(*(env.run_slot(slot, contexts[model]) for model, slot in planned))

        episodes = asyncio.run(asyncio.wait_for(play(), timeout=600))
    found: dict[str, dict[str, float]] = {model: {} for model in contexts}
    for (model, _), episode in zip(planned, episodes, strict=True):
        assert not episode.errors, episode.errors
        (trace,) = episode.traces
        assert not trace.errors, trace.errors
        found[model][str(trace.task.data.id)] = trace.rewards["toolworlds"].score
    return found


@pytest.mark.parametrize(("family", "task_ids"), [("banking", BANKING), ("acebench", ACEBENCH)])
def test_gold_paths_score_one_and_wrong_paths_zero_through_verifiers(family: str, task_ids: tuple[str, ...]) -> None:
    if family == "acebench":
        acebench_or_skip()
    assert rewards(family, task_ids) == {"gold": dict.fromkeys(task_ids, 1.0), "wrong": dict.fromkeys(task_ids, 0.0)}


def test_the_taskset_is_what_verifiers_resolves_by_id() -> None:
    import verifiers.v1 as vf

    from toolworlds.verifiers import TASKSET_ID, ToolworldsEnv, ToolworldsTaskset

    env = load_environment("banking", categories=["multi_turn"], limit=2)
    assert isinstance(env, ToolworldsEnv) and isinstance(env.taskset, ToolworldsTaskset)
    assert env.config.player.harness.id == "null"  # a chat program with no tools of its own
    assert env.config.taskset.id == TASKSET_ID
    assert [task.data.category for task in env.taskset] == ["multi_turn", "multi_turn"]
    assert vf.load_environment(env.config).__class__ is ToolworldsEnv  # the config alone finds it again
