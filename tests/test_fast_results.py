"""The `results` speed lane (`World.call`): a dict reply of plain values is logged as `plain` would log it.

A tool's dict reply whose keys are all text and whose values are all text, numbers, booleans or
None is copied whole; any other dict goes to `plain`. Both ways must log the same value, of the
same types, in the same key order, sharing nothing with what the tool returned (or kept).
"""

from __future__ import annotations

import enum
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sandbox.world as world_module
from sandbox import App, StateModel, World, tool
from sandbox.state import plain


class Colour(enum.Enum):
    RED = "red"


class Level(enum.IntEnum):
    HIGH = 3


class _Kept(StateModel):
    count: int = 0


class _Replies(App[_Kept]):
    """Hands back whatever reply it is told to, and keeps it (as a careless tool might)."""

    app_name = "replies"

    def __init__(self, reply: Any) -> None:
        super().__init__(_Kept())
        self.reply = reply

    @tool(mutates=False)
    def answer(self) -> dict[str, Any]:
        """Answer with the reply."""
        return self.reply  # type: ignore[no-any-return]


SCALARS = st.one_of(st.text(max_size=8), st.integers(), st.floats(allow_nan=False), st.booleans(), st.none())
# Values past the lane, each alone enough to send a reply to `plain`.
OTHERS = st.one_of(st.lists(SCALARS, max_size=2), st.dictionaries(st.text(max_size=3), SCALARS, max_size=2),
                   st.sampled_from([Colour.RED, Level.HIGH, (1, 2), {3}, b"x", math.pi]),
                   st.builds(_Kept, count=st.integers()))
KEYS = st.one_of(st.text(max_size=6), st.integers(), st.sampled_from([True, None, 2.5, Colour.RED]))
REPLIES = st.one_of(
    st.dictionaries(st.text(max_size=6), SCALARS, max_size=5),  # what the lane takes
    st.dictionaries(KEYS, st.one_of(SCALARS, OTHERS), max_size=5),  # what it passes on
)


def _same(a: Any, b: Any) -> bool:
    """Equal values of equal types all the way down, dicts in the same key order."""
    if type(a) is not type(b):
        return False
    if type(a) is dict:
        return list(a) == list(b) and all(_same(a[key], b[key]) for key in a)
    if type(a) is list:
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return a == b or (isinstance(a, float) and math.isnan(a) and math.isnan(b))


def _logged(reply: Any, lane: bool, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setattr(world_module, "LANES_ON", lane)
    app = _Replies(reply)
    record = World([app]).call("answer", {})
    assert record.ok, record.error
    assert record.result is not reply, "the log holds a copy, never the tool's own dict"
    return record.result


@settings(max_examples=300, deadline=None)
@given(REPLIES)
def test_the_lane_logs_what_plain_logs(reply: dict[Any, Any]) -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        fast = _logged(reply, True, monkeypatch)
        full = _logged(reply, False, monkeypatch)
    assert _same(fast, full) and _same(fast, plain(reply)), (reply, fast, full)


def test_a_reply_the_tool_changes_afterwards_leaves_the_log_as_it_was(monkeypatch: pytest.MonkeyPatch) -> None:
    reply = {"status": True, "message": "done"}
    logged = _logged(reply, True, monkeypatch)
    reply["message"] = "changed"
    assert logged == {"status": True, "message": "done"}


@pytest.mark.parametrize("reply", [{"status": True, "message": "x"}, {}, {"n": 1, "f": 0.5, "none": None}])
def test_the_lane_takes_plain_replies(reply: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """A reply the lane takes is a copy of the tool's dict: `plain` is never called for it."""
    monkeypatch.setattr(world_module, "plain", _refuse)
    assert _logged(reply, True, monkeypatch) == reply


@pytest.mark.parametrize("reply", [{1: "x"}, {"e": Colour.RED}, {"i": Level.HIGH}, {"l": [1]}, {"t": (1,)}])
def test_anything_else_goes_to_plain(reply: dict[Any, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(world_module, "plain", _refuse)
    record = World([_Replies(reply)]).call("answer", {})
    assert record.error is not None and record.error.type == "internal_error"


def _refuse(value: Any) -> Any:
    raise AssertionError(f"plain called for {value!r}")
