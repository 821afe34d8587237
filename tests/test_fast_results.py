"""The `results` speed lane (`World.call`): a dict reply of plain values is logged as `plain` would log it.

A tool's dict reply whose keys are all text and whose values are all text, numbers, booleans or
None is copied whole; any other dict goes to `plain`. Both ways must log the same value, of the
same types, in the same key order, sharing nothing with what the tool returned (or kept).
"""

from __future__ import annotations

import enum
import math
import warnings
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

import sandbox.results as results_module
import sandbox.world as world_module
from sandbox import App, StateModel, World, tool
from sandbox.dumps import list_serializer_of
from sandbox.input_limits import exception_line
from sandbox.lanes import LANES_ON
from sandbox.results import reply_copy
from sandbox.state import TrackedDict, TrackedList, _idle_wrapper, plain
from tests import test_fast_dumps as fast_dumps


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
    """Values neither plain, nor entities, nor lists of them: `plain` copies them (through `reply_copy`)."""
    monkeypatch.setattr(world_module, "plain", _refuse)
    monkeypatch.setattr(results_module, "plain", _refuse)
    record = World([_Replies(reply)]).call("answer", {})
    assert record.error is not None and record.error.type == "internal_error"


def _refuse(value: Any) -> Any:
    raise AssertionError(f"plain called for {value!r}")


# Entities as read tools return them: alone in a dict, in lists of one class (`reply_copy` dumps such a list in
# one serializer call: `dumps.list_serializer_of`), in mixed lists, with wrong values put past validation.
_MODEL_CLASSES = (fast_dumps.Leaf, fast_dumps.Plain, fast_dumps.Sparse, fast_dumps.Hidden, fast_dumps.Tagged,
                  fast_dumps.Custom, fast_dumps.Child, fast_dumps.Root, _Kept)


@st.composite
def _entities(draw: st.DrawFn, kind: type[BaseModel] | None = None) -> BaseModel:
    kind = kind or draw(st.sampled_from(_MODEL_CLASSES))
    instance = kind() if kind not in (fast_dumps.Leaf, fast_dumps.Child) else kind(name="x")
    for name in draw(st.lists(st.sampled_from(sorted(kind.model_fields)), max_size=2, unique=True)):
        instance.__dict__[name] = draw(fast_dumps._values)
    return instance


def _wrong(kind: type[BaseModel], **values: Any) -> BaseModel:
    """An entity of `kind` with `values` put past validation, as `_entities` draws them."""
    instance = kind()
    instance.__dict__.update(values)
    return instance


_one_class = st.sampled_from(_MODEL_CLASSES).flatmap(lambda kind: st.lists(_entities(kind), max_size=4))
_lists = st.one_of(_one_class, st.lists(_entities(), max_size=3),
                   st.lists(st.dictionaries(st.text(max_size=3), st.one_of(SCALARS, _entities()), max_size=3),
                            max_size=3))
_REPLIES = st.one_of(
    _lists, _lists.map(TrackedList), _entities(),
    st.dictionaries(st.one_of(st.text(max_size=4), st.integers()),
                    st.one_of(SCALARS, _entities(), _lists, _lists.map(TrackedList)), max_size=4),
    st.dictionaries(st.text(max_size=4), st.one_of(SCALARS, _entities()), max_size=3).map(TrackedDict),
)


@settings(max_examples=300, deadline=None)
@given(_REPLIES)
@example([_wrong(fast_dumps.Custom, alias_me=""), _wrong(fast_dumps.Custom, secret=None)])  # warns, then fails
def test_reply_copy_gives_what_plain_gives(reply: Any) -> None:
    """`reply_copy` (the lane's copy of every reply not a dict of plain values) is `plain`: the same values of the
    same types in the same order, the same problems warned of, and nothing shared with the reply; or the same
    error, which is all a failed call's record holds. (A list dumped in one serializer call that fails on an item
    warns of nothing, where `plain` has warned of the items before it: warnings are not part of a record.)"""
    ours, theirs = _copied(reply, reply_copy), _copied(reply, plain)
    assert ours[0] == theirs[0]
    if ours[0] == "value":
        assert ours[2] == theirs[2]
        assert _same(ours[1], theirs[1]), (reply, ours, theirs)
        assert not _shares(ours[1], reply)
    else:
        assert ours[1] == theirs[1]


def test_a_list_of_one_state_class_is_dumped_in_one_call() -> None:
    """With the lanes on, the serializer of lists of the class dumps it (built once, kept on the class)."""
    leaves = TrackedList([fast_dumps.Leaf(name="a"), fast_dumps.Leaf(name="b", ratio=float("inf"))])
    assert reply_copy(leaves) == plain(leaves) == [leaf.model_dump(mode="json") for leaf in leaves]
    serializer = list_serializer_of(fast_dumps.Leaf, _idle_wrapper)
    assert (serializer is not None) is LANES_ON
    assert list_serializer_of(fast_dumps.Leaf, _idle_wrapper) is serializer
    assert list_serializer_of(fast_dumps.Tagged, _idle_wrapper) is None  # its wrapper sorts sets: not idle


def _copied(value: Any, copy: Any) -> tuple[str, Any, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            outcome: tuple[str, Any] = ("value", copy(value))
        except Exception as exc:  # what the call's error record would say
            outcome = ("raised", exception_line(exc))
    return (*outcome, sorted({line.strip() for w in caught for line in str(w.message).splitlines()[1:]}))


def _shares(copy: Any, value: Any) -> bool:
    """Whether a container of `copy` is one of `value`'s."""
    seen = {id(value)}
    stack = [value]
    while stack:
        item = stack.pop()
        inner = list(item.values()) if isinstance(item, dict) else list(item) if isinstance(item, list) else \
            list(item.__dict__.values()) if isinstance(item, BaseModel) else []
        for each in inner:
            if id(each) not in seen and isinstance(each, (dict, list, BaseModel)):
                seen.add(id(each))
                stack.append(each)
    stack = [copy]
    while stack:
        item = stack.pop()
        if isinstance(item, (dict, list)):
            if id(item) in seen:
                return True
            stack.extend(item.values() if isinstance(item, dict) else item)
    return False
