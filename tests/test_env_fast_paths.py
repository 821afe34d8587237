"""The shortcuts an environment step takes, each held to the path it stands in for.

`Turn.from_text` reads a message in the engine's syntaxes without building `read_reply`'s `Reply`;
`ChatMessage` sets its fields at once; `ToolEnv` keeps what a task's episodes start from.
"""

from __future__ import annotations

import dataclasses
import inspect

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sandbox.input_limits import DEFAULT_LIMITS
from toolworlds.agents import ChatMessage, Turn
from toolworlds.env import ToolEnv

TEXTS = [
    "[login_bank(customer_id='C001', password='eve2024')]",
    "[f(a=1), g(b='x')]",
    "[f(a=1), g(b=]",  # one call reads, one does not
    "[]",
    "f(a=1)",
    "Sure: [f(a=1)]",
    "<think>[f(a=1)]</think>[g(b=2)]",
    '{"name": "f", "arguments": {"a": 1}}',
    '[{"name": "f", "arguments": {"a": 1}}, {"name": "g", "arguments": "{"}]',
    '<tool_call>{"name": "f", "arguments": {}}</tool_call>',
    "```json\n[{\"name\": \"f\", \"arguments\": {}}]\n```",
    "The balance is (as of today) 12.",
    "[f(a=" + "[" * 500 + "]" * 500 + ")]",  # past max_depth
    "[f(a='" + "x" * (DEFAULT_LIMITS.max_message_chars + 10) + "')]",  # past the message bound
    "[" + ", ".join(f"f(a={i})" for i in range(DEFAULT_LIMITS.max_calls + 5)) + "]",  # past max_calls
    "[f(a=().__class__)]",
    "[f(**{'a': 1})]",
    "[f(1, 2)]",
    "[f(a=1), g(1)]",  # the frame reads: one call read, one refused in its place
    '[{"name": "f", "arguments": {}}, {"name": 3}]',
]


@pytest.mark.parametrize("text", TEXTS)
def test_from_text_gives_what_read_reply_gives(text: str) -> None:
    turn = Turn.from_text(text)
    assert turn == Turn.from_reply(text)
    assert dataclasses.asdict(turn) == dataclasses.asdict(Turn.from_reply(text))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="[](){}'\"=,:ab1 _.<>/\\", max_size=40))
def test_from_text_gives_what_read_reply_gives_on_any_call_shaped_text(text: str) -> None:
    assert Turn.from_text(text) == Turn.from_reply(text)


def test_a_turn_read_by_the_shortcut_is_a_frozen_turn_like_any() -> None:
    turn = Turn.from_text("[f(a=1)]")
    with pytest.raises(dataclasses.FrozenInstanceError):
        turn.raw = "x"  # type: ignore[misc]
    assert dataclasses.replace(turn, usage={"tokens": 1}).calls == turn.calls


def test_chat_message_init_takes_the_fields_in_order_with_their_defaults() -> None:
    parameters = list(inspect.signature(ChatMessage).parameters.values())
    fields = dataclasses.fields(ChatMessage)
    assert [p.name for p in parameters] == [f.name for f in fields]
    for parameter, field in zip(parameters, fields, strict=True):
        assert parameter.default == (inspect.Parameter.empty if field.default is dataclasses.MISSING
                                     else field.default)
    message = ChatMessage("tool", "ok", (), (), "call_1", "world", None, {"tokens": 3})
    assert dataclasses.astuple(message) == ("tool", "ok", (), (), "call_1", "world", None, {"tokens": 3})
    assert dataclasses.replace(message, content="no") == ChatMessage("tool", "no", tool_call_id="call_1",
                                                                     source="world", usage={"tokens": 3})
    with pytest.raises(dataclasses.FrozenInstanceError):
        message.content = "x"  # type: ignore[misc]


def test_a_protocol_changed_between_resets_is_the_next_episodes() -> None:
    env = ToolEnv("banking", ["banking_multi_step_4"])
    observation, info = env.reset(options={"task": "banking_multi_step_4"})
    assert info["protocol"] == "native"
    assert "[tool_name(" not in observation["messages"][0]["content"]
    env.protocol = "bracket"
    observation, info = env.reset(options={"task": "banking_multi_step_4"})
    assert info["protocol"] == "bracket"
    assert "[tool_name(" in observation["messages"][0]["content"]
    assert observation["tools"] is env.worlds.shared_offered("banking_multi_step_4")


def test_an_observation_edited_by_its_user_leaves_the_next_episode_alone() -> None:
    """The per-task start is kept between episodes; the message dicts an episode hands out are its own."""
    env = ToolEnv("banking")
    first, _ = env.reset(options={"task": "banking_multi_step_4"})
    for message in first["messages"]:
        message["content"] = "edited"
    again, _ = env.reset(options={"task": "banking_multi_step_4"})
    assert all(message["content"] != "edited" for message in again["messages"])
