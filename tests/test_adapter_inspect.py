"""toolworlds.inspect through inspect_ai itself: `eval` with its mockllm model replaying gold and wrong paths.

Runs where inspect_ai is installed (`.ci/run` installs it in the adapters' own venv).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

inspect_ai = pytest.importorskip("inspect_ai", reason="inspect_ai is not installed: pip install -e '.[inspect]'")

from inspect_ai.model import (  # noqa: E402
    ChatCompletionChoice,
    ChatMessageAssistant,
    ModelOutput,
    ModelUsage,
    get_model,
)
from inspect_ai.solver import generate  # noqa: E402
from inspect_ai.tool import ToolCall  # noqa: E402

from tests.adapter_paths import ACEBENCH, BANKING, acebench_or_skip, gold_messages, wrong_messages  # noqa: E402
from toolworlds import inspect as tw_inspect  # noqa: E402
from toolworlds.prebuilt import TaskWorlds  # noqa: E402

MODEL = "mockllm/model"


def outputs(messages: list[dict[str, Any]]) -> list[ModelOutput]:
    """The messages as mockllm's outputs (with usage given, so mockllm counts no tokens: its
    tokenizer would be downloaded)."""
    made = []
    for message in messages:
        calls = [ToolCall(id=call["id"], function=call["function"]["name"],
                          arguments=json.loads(call["function"]["arguments"]))
                 for call in message.get("tool_calls") or []]
        reply = ChatMessageAssistant(content=message.get("content") or "", tool_calls=calls or None, model=MODEL)
        made.append(ModelOutput(model=MODEL, choices=[ChatCompletionChoice(
            message=reply, stop_reason="tool_calls" if calls else "stop")],
            usage=ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)))
    return made


def evaluate(task: Any, messages: list[dict[str, Any]], tmp_path: Path, **options: Any) -> dict[str, Any]:
    logs = inspect_ai.eval(task, model=get_model(MODEL, custom_outputs=outputs(messages)), display="none",
                           log_dir=str(tmp_path), **options)
    assert logs[0].status == "success", logs[0].error
    sample = logs[0].samples[0]
    score = sample.scores["world_score"]
    tools = [event.tools for event in sample.events if event.event == "model"]
    return {"value": score.value, "metadata": score.metadata, "messages": sample.messages,
            "tools": tools[0] if tools else None}


@pytest.mark.parametrize(("family", "task_id"), [*(("banking", t) for t in BANKING),
                                                 *(("acebench", t) for t in ACEBENCH)])
def test_gold_path_scores_one_and_a_wrong_path_below_one(family: str, task_id: str, tmp_path: Path) -> None:
    if family == "acebench":
        acebench_or_skip()
    task = TaskWorlds(family, [task_id]).task(task_id)
    factory = getattr(tw_inspect, family)
    gold = evaluate(factory(tasks=task_id), gold_messages(task), tmp_path)
    assert gold["value"]["reward"] == 1.0
    assert gold["metadata"]["end_state"] is True
    wrong = evaluate(factory(tasks=task_id), wrong_messages(task), tmp_path)
    assert wrong["value"]["reward"] < 1.0


def test_the_conversation_is_the_runs(tmp_path: Path) -> None:
    task = TaskWorlds("banking", ["banking_multi_step_4"]).task("banking_multi_step_4")
    result = evaluate(tw_inspect.banking(tasks="banking_multi_step_4"), gold_messages(task), tmp_path)
    messages = result["messages"]
    assert messages[0].role == "system" and messages[1].role == "user"
    assert messages[1].text == task.question
    tool_messages = [m for m in messages if m.role == "tool"]
    assert tool_messages and all(m.tool_call_id and m.function for m in tool_messages)
    assert result["metadata"]["calls"] == len(tool_messages)


def test_the_tools_bound_to_the_sample_world_serve_inspects_own_tool_loop(tmp_path: Path) -> None:
    """With inspect's `generate()` (its tool loop over `state.tools`) as the solver, the tools
    act on the sample's world, one call per message, and the scorer reads that world."""
    task = TaskWorlds("banking", ["banking_multi_step_4"]).task("banking_multi_step_4")
    result = evaluate(tw_inspect.banking(tasks="banking_multi_step_4"), gold_messages(task), tmp_path,
                      solver=generate())
    assert result["value"]["reward"] == 1.0


def test_two_samples_each_have_their_own_world(tmp_path: Path) -> None:
    task = TaskWorlds("banking", ["banking_multi_step_4"]).task("banking_multi_step_4")
    logs = inspect_ai.eval(tw_inspect.banking(tasks="banking_multi_step_4"), epochs=2, max_samples=1,
                           model=get_model(MODEL, custom_outputs=outputs(gold_messages(task) * 2)),
                           display="none", log_dir=str(tmp_path))
    assert [s.scores["world_score"].value["reward"] for s in logs[0].samples] == [1.0, 1.0]


def test_inspect_finds_the_tasks_by_name(tmp_path: Path) -> None:
    """A fresh interpreter, as a user's: `eval("toolworlds/banking")` resolves through the installed
    package's entry point. It runs outside the checkout, whose `toolworlds.egg-info` (left by an editable
    install) would hide the install record inspect reads to name a package's tasks."""
    script = (
        "import sys, inspect_ai\n"
        "from inspect_ai.model import get_model, ModelOutput, ModelUsage\n"
        "out = ModelOutput.from_content('mockllm/model', 'I am done.')\n"
        "out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)\n"
        "log = inspect_ai.eval('toolworlds/banking', task_args={'tasks': 'banking_multi_step_4'},\n"
        "    model=get_model('mockllm/model', custom_outputs=[out]), display='none', log_dir=sys.argv[1])[0]\n"
        "print(log.eval.task, log.status, log.samples[0].scores['world_score'].value['reward'])\n")
    environment = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True,
                          timeout=180, cwd=tmp_path, env=environment)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["toolworlds/banking", "success", "0.0"]


def test_task_sets_are_chosen_with_task_arguments() -> None:
    every = tw_inspect.banking()
    assert len(every.dataset) == len(TaskWorlds("banking").tasks)
    multi_turn = tw_inspect.banking(categories="multi_turn", limit=3)
    assert len(multi_turn.dataset) == 3
    assert {s.metadata["category"] for s in multi_turn.dataset} == {"multi_turn"}
    with pytest.raises(LookupError, match="no task"):
        tw_inspect.banking(tasks="no_such_task")


def test_tools_follow_the_tasks_protocol(tmp_path: Path) -> None:
    """Banking's samples get the tools as schemas; an ACEBench item's prompt lists them instead, as
    its runs do, and its gold reply written as text scores 1.0."""
    acebench_or_skip()
    banking_task = TaskWorlds("banking", ["banking_multi_step_4"]).task("banking_multi_step_4")
    banking = evaluate(tw_inspect.banking(tasks="banking_multi_step_4"), gold_messages(banking_task), tmp_path)
    assert banking["tools"]
    item = "normal_single_turn_parallel_function_0"
    ace_task = TaskWorlds("acebench", [item]).task(item)
    ace = evaluate(tw_inspect.acebench(tasks=item), gold_messages(ace_task), tmp_path)
    assert ace["tools"] == [] and ace["value"]["reward"] == 1.0
    assert all(f["name"] in ace["messages"][0].text for f in ace_task.functions)
