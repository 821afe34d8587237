"""Malformed `tool_calls` and Anthropic content, at every door that takes them (`World.run_openai`,
`World.run_anthropic`, `ToolEnv.step`): a `parse_error` result in place of each call that is not one, the
calls beside it run, the state untouched by the junk, and never an exception."""

from __future__ import annotations

import json
from typing import Any

import pytest

from toolworlds import banking_world

LIST = {"id": "call_ok", "type": "function", "function": {"name": "list_accounts",
                                                         "arguments": json.dumps({"customer_id": "C001"})}}
JUNK: list[Any] = [5, 2.5, True, "junk", b"bytes", object(), [1], ["x", None], [{"function": 3}],
                   [{"function": {"name": 5, "arguments": "{}"}}], [{"function": {"name": "f", "arguments": {1, 2}}}],
                   [{"function": {"name": "list_accounts", "arguments": [object()]}}]]


def errors_of(messages: list[dict[str, Any]]) -> list[str]:
    return [json.loads(m["content"])["error"] for m in messages]


@pytest.mark.parametrize("tool_calls", JUNK, ids=[type(j).__name__ + str(i) for i, j in enumerate(JUNK)])
def test_run_openai_answers_junk_with_parse_errors_and_never_raises(tool_calls: Any) -> None:
    world = banking_world()
    before = world.state()
    messages = world.run_openai(tool_calls)
    assert messages and errors_of(messages) == ["parse_error"] * len(messages)
    assert all(m["role"] == "tool" and m["tool_call_id"] for m in messages)
    assert world.state() == before


def test_junk_beside_a_call_is_refused_in_place_and_the_call_runs() -> None:
    world = banking_world()
    messages = world.run_openai([7, LIST, {"function": None}])
    assert [m["tool_call_id"] for m in messages] == ["call_0", "call_ok", "call_2"]
    first, middle, last = (json.loads(m["content"]) for m in messages)
    assert first["error"] == last["error"] == "parse_error"
    assert middle.get("error") != "parse_error"  # it ran (the world says what it makes of it)
    assert [r.tool for r in world.log][-3:] == [None, "list_accounts", None]


@pytest.mark.parametrize("content", [5, b"x", object(), {"content": 7}, [1, None, "x"],
                                     [{"type": "tool_use", "id": "t1", "name": 3, "input": {}}],
                                     [{"type": "tool_use", "id": "t2", "name": "list_accounts", "input": 5}]])
def test_run_anthropic_answers_junk_with_errors_and_never_raises(content: Any) -> None:
    world = banking_world()
    blocks = world.run_anthropic(content)
    assert all(b["type"] == "tool_result" and b["is_error"] for b in blocks)
    assert all(json.loads(b["content"])["error"] == "parse_error" for b in blocks)


def test_anthropic_content_as_text_holds_no_calls() -> None:
    assert banking_world().run_anthropic("Just words.") == []


@pytest.mark.parametrize("tool_calls", [5, "junk", [1, None, {"function": 3}], 2.5, [{"function": {"name": None}}]])
def test_tool_env_step_answers_malformed_tool_calls_with_parse_errors(tool_calls: Any) -> None:
    pytest.importorskip("gymnasium")
    from toolworlds.env import ToolEnv

    env = ToolEnv("banking")
    env.reset(options={"task": env.task_ids[0]})
    observation, _, _, _, info = env.step({"role": "assistant", "content": None, "tool_calls": tool_calls})
    assert info["call_errors"] and set(info["call_errors"]) == {"parse_error"}
    assert json.loads(observation["messages"][-1]["content"])["error"] == "parse_error"
    assert not env.over  # the agent can act on the error


def test_tool_env_reads_a_text_action_in_any_reply_format() -> None:
    pytest.importorskip("gymnasium")
    from toolworlds.env import ToolEnv

    env = ToolEnv("banking")
    env.reset(options={"task": env.task_ids[0]})
    action = "<think>List them.</think>\n<tool_call>\n" + json.dumps(
        {"name": "list_accounts", "arguments": {"customer_id": "C001"}}) + "\n</tool_call><|im_end|>"
    _, _, _, _, info = env.step(action)
    assert [r.tool for r in env.world.log] == ["list_accounts"]
    assert "parse_error" not in info["call_errors"]
    _, _, _, _, info = env.step("<tool_call>{\"name\": \"list_accounts\", \"arguments\": {</tool_call>")
    assert info["call_errors"] == ["parse_error"] and not env.over
