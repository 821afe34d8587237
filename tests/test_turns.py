"""How an agent's text becomes a turn: calls to run, calls the world must refuse, or the answer."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sandbox.errors import ParseError
from sandbox.input_limits import DEFAULT_LIMITS
from sandbox.parsing import Call, parse_message
from toolworlds.agents import Turn


def test_calls_in_text_are_read() -> None:
    turn = Turn.from_text("[get_balance(account_id='A001')]")
    assert turn.calls == (Call("get_balance", {"account_id": "A001"}),) and turn.text == "" and turn.call_text is None


@pytest.mark.parametrize("text", [
    "Done.",
    "I've moved 1,200 from A001 to A003; the rent is paid, and your balance is 3,800.",
    "[note] nothing to do",
    "x" * (DEFAULT_LIMITS.max_message_chars + 1),  # past a limit, yet no call could be in it
    "a, " * (DEFAULT_LIMITS.max_items + 1),
])
def test_text_that_cannot_hold_a_call_is_the_answer(text: str) -> None:
    assert Turn.from_text(text) == Turn(text=text, raw=text)


@pytest.mark.parametrize("text", [
    "[f(x=" + "[" * (DEFAULT_LIMITS.max_depth + 1) + "1" + "]" * (DEFAULT_LIMITS.max_depth + 1) + ")]",
    "[f(x='" + "y" * DEFAULT_LIMITS.max_message_chars + "')]",
])
def test_call_text_past_a_limit_goes_to_the_world(text: str) -> None:
    assert Turn.from_text(text) == Turn(raw=text, call_text=text)


@pytest.mark.parametrize("text", ["[f(x=)]", "get_balance(account_id=A001)", '{"name": "f", "arguments": {"a": 1}',
                                  '<tool_call>{"name": "f"</tool_call>', "I'll pay: [transfer(amount=)]"])
def test_call_shaped_text_that_does_not_read_goes_to_the_world_never_as_the_answer(text: str) -> None:
    assert Turn.from_text(text) == Turn(raw=text, call_text=text)


def test_a_turn_given_text_alone_reads_its_calls_as_a_reply_is_read() -> None:
    assert Turn(text="[get_balance(account_id='A001')]").calls == (Call("get_balance", {"account_id": "A001"}),)
    broken = Turn(text="[f(x=)]")
    assert broken.call_text == "[f(x=)]" and not broken.calls
    assert Turn(text="Done.") == Turn(text="Done.")  # an answer stays one
    assert Turn(text="[f(a=1)]", raw="[f(a=1)]").calls == ()  # text and raw given: an answer, as given


@pytest.mark.parametrize("text", ["[]", " [ ] ", "```json\n[]\n```"])
def test_an_empty_list_of_calls_is_a_turn_with_no_calls_and_no_answer(text: str) -> None:
    assert Turn.from_text(text) == Turn(raw=text)


@settings(max_examples=300, deadline=None)
@given(st.text(st.characters(blacklist_characters="({[", blacklist_categories=("Cs",)), max_size=300)
       | st.lists(st.sampled_from(["]", "}", ")", "'", '"', ",", "=", ":", "f", "x", "1", " ", "```", "```json\n",
                                   "\n", "true", "null", "-", "."]), max_size=40).map("".join))
def test_the_parser_reads_nothing_where_there_is_no_parenthesis_brace_or_bracket(text: str) -> None:
    with pytest.raises(ParseError):
        parse_message(text)
