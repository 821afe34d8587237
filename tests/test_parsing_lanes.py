"""The parsing and argument speed lanes held to their plain paths in one process, on the same inputs.

`sandbox.lanes.LANES_ON` is read where each lane decides (`sandbox.parsing.brackets`,
`ToolSpec.fast_arguments`), so flipping it here switches the lane for the messages and specs
made after. A lane that is silently disabled, or a plain path that is broken, fails here
whichever way `TOOLWORLDS_SPEED_LANES` runs the suite.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from pydantic import Field

from sandbox import App, ParseError, StateModel, World, lanes, parse_message, tool
from sandbox.input_limits import InputLimits
from sandbox.parsing import brackets
from sandbox.tools import build_spec
from tests.test_fast_parsing import LIMITS, call_texts, near_misses, typed

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
APOSTROPHES = st.sampled_from(["[f(a='Domino's')]", "[f(a='Domino's', b=1)]", "f(a='it's')", "[f(a='x')",
                               "f(a='x')]", "[f(a='Joe's', b='Ann's pizza')]", "[f(a='x's' if)]"])


@contextmanager
def lanes_set(on: bool) -> Iterator[None]:
    before = lanes.LANES_ON
    lanes.LANES_ON = on  # type: ignore[misc]  # Final for the library; a test switches it to compare both ways
    try:
        yield
    finally:
        lanes.LANES_ON = before  # type: ignore[misc]


def outcome(text: str, limits: InputLimits, on: bool) -> Any:
    with lanes_set(on):
        try:
            message = parse_message(text, limits=limits)
        except ParseError as error:
            return ("error", str(error), error.limit, error.position)
    return (message.format, message.repairs, [(call.name, typed(call.arguments)) for call in message.calls])


@SETTINGS
@given(call_texts() | near_misses() | APOSTROPHES, LIMITS)
@example("[f(a='Domino's')]", InputLimits())
@example("[send(to='Bob', text='It\\'s 5\\n'), a.b(x=[1, 2.5, [False]], y={1: 'one'},)]", InputLimits())
def test_a_message_reads_the_same_with_the_lanes_on_and_off(text: str, limits: InputLimits) -> None:
    assert outcome(text, limits, True) == outcome(text, limits, False)


class _Spy:
    def __init__(self, real: Any) -> None:
        self.real, self.calls = real, 0

    def __call__(self, *args: Any) -> Any:
        self.calls += 1
        return self.real(*args)


@pytest.mark.parametrize(("text", "repaired"), [("[f(a='x', b=[1, {'k': None}])]", False),
                                                ("[f(a='Domino's')]", True)])
def test_the_bracket_lane_is_taken_when_on_and_skipped_when_off(
        monkeypatch: pytest.MonkeyPatch, text: str, repaired: bool) -> None:
    grammar = _Spy(brackets._ast_brackets)
    lane = _Spy(brackets._fast_brackets)
    monkeypatch.setattr(brackets, "_ast_brackets", grammar)
    monkeypatch.setattr(brackets, "_fast_brackets", lane)
    with lanes_set(True):
        fast = parse_message(text)
    assert (grammar.calls, lane.calls) == (0, 1)  # the lane read it (the repair too), the grammar never ran
    with lanes_set(False):
        plain = parse_message(text)
    assert lane.calls == 1 and grammar.calls == 1 + repaired  # the grammar read it (and its repair)
    assert fast == plain and bool(plain.repairs) is repaired


def _find(self: Any, query: str, limit: int = 5, exact: bool = False) -> dict[str, Any]:
    """Find.

    Args:
        query: Text.
        limit: How many.
        exact: Whole words.
    """
    return {"query": query, "limit": limit, "exact": exact}


def test_a_tool_takes_the_argument_lane_only_when_the_lanes_are_on() -> None:
    with lanes_set(True):
        on = build_spec(_find, name="find")
        assert on.fast_arguments is not None and on.fast_arguments is on.argument_plan
    with lanes_set(False):
        off = build_spec(_find, name="find")
        assert off.fast_arguments is None and off.argument_plan is not None


def _shop() -> Any:
    """A new app class each time: a tool's spec (and whether it takes the lane) is made once per class."""

    class Empty(StateModel):
        pass

    class Shop(App[Empty]):
        app_name = "Shop"

        @tool(mutates=False)
        def find(self, query: Annotated[str, Field(min_length=1)], limit: int = 5, exact: bool = False) -> dict:
            """Find.

            Args:
                query: Text.
                limit: How many.
                exact: Whole words.
            """
            return {"query": query, "limit": limit, "exact": exact}

    return Shop()


@pytest.mark.parametrize("arguments", [
    {"query": "tea"}, {"limit": 3, "query": "tea", "exact": True}, {"query": ""}, {"query": "tea", "limit": "3"},
    {"query": "tea", "x": 1}, {"limit": 1}, {"query": "é" * 3, "exact": 1}, {"query": "t" * 40},
    {"query": "a", "limit": 2.0},
])
@pytest.mark.parametrize("coercion", ["lax", "strict"])
def test_a_world_records_the_same_call_with_the_lanes_on_and_off(arguments: dict[str, Any], coercion: Any) -> None:
    records = []
    for on in (True, False):
        with lanes_set(on):
            world = World([_shop()], coercion=coercion, limits=InputLimits(max_string_chars=32))
            assert (world.tools["find"].fast_arguments is not None) is on
            records.append(world.call("find", arguments).to_dict())
    assert records[0] == records[1]
