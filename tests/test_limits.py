"""Input limits at the engine's boundary, and the promise that nothing escapes `World.call`/`execute`."""

from __future__ import annotations

import decimal
import json
import sys
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from sandbox import Call, ParseError, World, parse_message
from sandbox.input_limits import DEFAULT_LIMITS, InputLimits, LimitExceeded
from sandbox.limit_walk import _Walk, check_integers, checked_copy, redacted_copy
from sandbox.testing.fuzzing import TrickyStr as HostileStr
from scenarios.acebench import ALL_CLASSES, acebench_world
from scenarios.todo import TodoApp, todo_world


def nested(levels: int, leaf: Any = 1) -> Any:
    value = leaf
    for _ in range(levels):
        value = [value]
    return value


def fingerprint(world: World) -> tuple[Any, ...]:
    return (json.dumps(world.state(), sort_keys=True), world.clock.now(), world.rng.draws, dict(world._ids),
            len(world.log))


def refused(world: World, name: str, arguments: Any, limit: str, error_type: str = "invalid_arguments") -> None:
    before = fingerprint(world)
    record = world.call(name, arguments)
    assert record.error is not None and record.error.type == error_type, record
    assert limit in record.error.message
    assert any(d.get("limit") == limit for d in record.error.details), record.error.details
    assert fingerprint(world)[:4] == before[:4]
    json.dumps(record.to_dict(), ensure_ascii=False).encode("utf-8")  # the log can always be stored


@pytest.mark.parametrize(
    ("arguments", "limit"),
    [
        ({"title": "x", "tags": ["a"] * 5, "due": 10**64}, "max_int_digits"),
        ({"title": 10**5000}, "max_int_digits"),
        ({"title": "x" * 10_001}, "max_string_chars"),
        ({"title": "x", "tags": ["y" * 9_000] * 12}, "max_message_chars"),
        ({"title": "x", "tags": nested(32)}, "max_depth"),
        ({"title": "x", "tags": nested(10_000)}, "max_depth"),
        ({"title": "x", "tags": ["t"] * 10_000}, "max_items"),
        ({"title": "bad \ud800 text"}, "unicode_text"),
        ({"title": "x", "tags": [object()]}, "json_data"),
        ({"title": "x", "tags": {(1, 2): "tuple key"}}, "json_data"),
    ],
)
def test_each_limit_is_refused_with_its_name(arguments: dict[str, Any], limit: str) -> None:
    refused(todo_world(tasks=2), "add_task", arguments, limit)


def test_values_at_the_limits_are_accepted() -> None:
    world = todo_world()
    at_limit = {"title": "x", "tags": ["y" * 10_000] * 9, "due": "z" * 9_980}
    assert world.call("add_task", at_limit).ok
    assert world.call("get_task", {"task_id": 10**63}).error.type == "not_found"  # type: ignore[union-attr]
    assert checked_copy({"a": nested(31)}) == {"a": nested(31)}
    with pytest.raises(LimitExceeded) as caught:
        checked_copy({"a": nested(32)})
    assert caught.value.limit == "max_depth" and caught.value.path.startswith("a[0]")


def test_lax_coercion_cannot_smuggle_a_huge_integer() -> None:
    world = todo_world(tasks=1)
    refused(world, "get_task", {"task_id": "9" * 70}, "max_int_digits")
    assert world.call("get_task", {"task_id": 1e300}).error.type == "invalid_arguments"  # type: ignore[union-attr]
    assert world.call("get_task", {"task_id": "1"}).ok


def test_limits_are_per_world_and_survive_forks() -> None:
    tight = InputLimits(max_int_digits=3, max_string_chars=8, max_calls=2, max_message_chars=60, max_depth=2)
    world = World([TodoApp()], limits=tight)
    refused(world, "get_task", {"task_id": 1000}, "max_int_digits")
    refused(world, "add_task", {"title": "much longer"}, "max_string_chars")
    refused(world, "add_task", {"title": "x", "tags": [["a"]]}, "max_depth")
    refused(world.fork(), "get_task", {"task_id": 1000}, "max_int_digits")
    assert world.call("add_task", {"title": "short"}).ok
    assert todo_world().call("add_task", {"title": "much longer"}).ok  # the default world is not affected
    (record,) = world.execute("[list_tasks(), list_tasks(), list_tasks()]")
    assert record.error is not None and record.error.details == ({"limit": "max_calls"},)
    (record,) = world.execute("[add_task(title='x')]" + " " * 60)
    assert record.error is not None and "max_message_chars" in record.error.message
    (record,) = world.execute([Call("list_tasks")] * 3)
    assert record.error is not None and "max_calls" in record.error.message
    world.limits = DEFAULT_LIMITS
    assert world.call("get_task", {"task_id": 1000}).error.type == "not_found"  # type: ignore[union-attr]
    with pytest.raises(ValueError, match="max_depth"):
        InputLimits(max_depth=10_000)
    with pytest.raises(ValueError, match="positive"):
        InputLimits(max_calls=0)


@pytest.mark.parametrize(
    ("text", "limit"),
    [
        ("[add_task(title='x', due=" + "9" * 5000 + ")]", "max_int_digits"),
        ("[add_task(title='x', due=0x" + "f" * 5000 + ")]", "max_int_digits"),
        ('{"name": "add_task", "arguments": {"title": ' + "9" * 5000 + "}}", "max_int_digits"),
        ('{"tool_calls": [{"function": {"name": "add_task", "arguments": "{\\"due\\": ' + "9" * 99 + '}"}}]}',
         "max_int_digits"),
        ("[add_task(tags=" + "[" * 10_000 + "]" * 10_000 + ")]", "max_depth"),
        ('{"name": "add_task", "arguments": ' + '{"a": ' * 10_000 + "1" + "}" * 10_001, "max_depth"),
        ("[" * 100_000, "max_depth"),
        ("[add_task(title='" + "x" * 200_000 + "')]", "max_message_chars"),
        ("[" + ", ".join(["list_tasks()"] * 300) + "]", "max_calls"),
        (json.dumps([{"name": "list_tasks"}] * 300), "max_calls"),
        (f"[{'t' * 200}()]", "max_name_chars"),
    ],
)
def test_hostile_messages_are_parse_errors_naming_the_limit(text: str, limit: str) -> None:
    world = todo_world(tasks=1)
    before = fingerprint(world)
    (record,) = world.execute(text)
    assert record.error is not None and record.error.type == "parse_error", record
    assert limit in record.error.message, record.error.message
    assert fingerprint(world)[:4] == before[:4]
    assert len(json.dumps(record.to_dict())) < 10_000
    with pytest.raises(ParseError) as caught:
        parse_message(text)
    assert caught.value.limit == limit


def test_values_past_a_limit_inside_a_message_reach_no_tool() -> None:
    world = todo_world()
    records = world.execute("[add_task(title='" + "x" * 20_000 + "'), add_task(title='\\ud800')]")
    assert [r.error.type for r in records] == ["invalid_arguments", "invalid_arguments"]  # type: ignore[union-attr]
    assert "max_string_chars" in records[0].error.message  # type: ignore[union-attr]
    assert "unicode_text" in records[1].error.message  # type: ignore[union-attr]
    assert world.state()["Todo"]["tasks"] == []


def test_a_lone_surrogate_in_call_text_is_named_as_such() -> None:
    """A raw lone surrogate (not its escape) in a message: Python's parser cannot take the text at all."""
    world = todo_world()
    records = world.execute("[add_task(title='\ud800')]")
    assert records[0].error is not None and records[0].error.type == "parse_error"
    assert records[0].error.message == "call syntax malformed: text that is not valid Unicode (a lone surrogate)"
    json.dumps(records[0].to_dict(), ensure_ascii=False).encode("utf-8")


class Hostile:
    """An object every way of looking at raises."""

    def __repr__(self) -> str:
        raise RuntimeError("repr refused")

    __str__ = __repr__

    def __hash__(self) -> int:
        raise RuntimeError("hash refused")

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("eq refused")

    def __len__(self) -> int:
        raise RuntimeError("len refused")

    def __iter__(self) -> Any:
        raise RuntimeError("iter refused")


class HostileKey(Hostile):
    """Hashable (so it can be a dict key), hostile in every other way."""

    __hash__ = object.__hash__


class BadMessage(Exception):
    def __str__(self) -> str:
        raise RuntimeError("cannot format")


HOSTILE_NAMES: list[Any] = [None, 7, Hostile(), HostileStr("add_task"), "x" * 1_000_000, "add\ud800task", b"add_task",
                            ["add_task"], "Todo.", ".", ""]
HOSTILE_ARGUMENTS: list[Any] = [
    Hostile(), [1, 2], "title=x", 3, b"\xff", {HostileKey(): 1}, {"title": Hostile()}, {"title": HostileStr("x")},
    {"title": 10**5000}, {"title": -(10**5000)}, {"title": nested(10_000)}, {"title": "\udfff"},
    {"title": float("nan")}, {"title": float("inf")}, {"title": "x" * 1_000_000}, {"title": {"a": {1, 2}}},
    {"title": "x", "tags": ["a"] * 1_000_000}, {"title": "x", "tags": range(10**9)}, {1: 2}, {None: 1},
    {"title": "x", "tags": [BadMessage()]},
]


@pytest.mark.parametrize("name", HOSTILE_NAMES, ids=range(len(HOSTILE_NAMES)))
@pytest.mark.parametrize("arguments", HOSTILE_ARGUMENTS, ids=range(len(HOSTILE_ARGUMENTS)))
def test_nothing_escapes_world_call(name: Any, arguments: Any) -> None:
    world = todo_world(tasks=2)
    before = fingerprint(world)
    record = world.call(name, arguments)
    assert record.error is not None
    assert record.error.type in ("unknown_tool", "invalid_arguments"), record.error
    assert fingerprint(world)[:4] == before[:4]
    text = json.dumps(record.to_dict(), ensure_ascii=False)
    text.encode("utf-8")
    assert len(text) < 30_000


@pytest.mark.parametrize("arguments", HOSTILE_ARGUMENTS, ids=range(len(HOSTILE_ARGUMENTS)))
def test_hostile_arguments_to_a_real_tool_are_refused(arguments: Any) -> None:
    world = todo_world(tasks=2)
    before = fingerprint(world)
    record = world.call("add_task", arguments)
    assert record.error is not None and record.error.type == "invalid_arguments", record.error
    assert fingerprint(world)[:4] == before[:4]
    json.dumps(record.to_dict(), ensure_ascii=False).encode("utf-8")


@pytest.mark.parametrize("message", [None, 12, b"[list_tasks()]", Hostile(), [Hostile()], ["[list_tasks()]"],
                                     {"name": "list_tasks"}, "\ud800", "[list_tasks(x='\\ud800')]", "\x00",
                                     "[f(" * 50_000, '{"name": "' + "\\ud800" * 10 + '"}', "```json\n" + "{" * 5000])
def test_nothing_escapes_world_execute(message: Any) -> None:
    world = todo_world(tasks=1)
    before = fingerprint(world)
    records = world.execute(message)
    assert records and all(r.error is not None and r.error.type != "internal_error" for r in records), records
    assert fingerprint(world)[:4] == before[:4]
    for record in records:
        json.dumps(record.to_dict(), ensure_ascii=False).encode("utf-8")


def test_a_tool_raising_recursion_error_or_an_unprintable_error_is_an_internal_error_record() -> None:
    from sandbox import App, StateModel, tool

    class Counter(StateModel):
        value: int = 0

    class Fragile(App[Counter]):
        @tool
        def recurse(self, depth: int) -> int:
            """Write, then recurse until the interpreter gives up."""
            self.state.value += 1

            def down(n: int) -> int:
                return down(n + 1) + 1

            return down(0)

        @tool
        def unprintable(self) -> int:
            """Write, then fail with an exception whose message cannot be formatted."""
            self.state.value += 1
            raise BadMessage()

        @tool
        def unloggable(self) -> Any:
            """Write, then return a value the call log cannot hold."""
            self.state.value += 1
            return nested(sys.getrecursionlimit() * 2)

    world = World([Fragile()])
    for name, arguments in (("recurse", {"depth": 1}), ("unprintable", {}), ("unloggable", {})):
        record = world.call(name, arguments)
        assert record.error is not None and record.error.type == "internal_error", record
        assert world.state() == {"Fragile": {"value": 0}}


def test_redacted_copies_hold_nothing_hostile() -> None:
    copy = redacted_copy({"a": 10**5000, "b": nested(5000), "c": "x" * 50_000, "d": "\ud800", "e": Hostile(),
                          "f": list(range(50_000))})
    text = json.dumps(copy, ensure_ascii=False)
    text.encode("utf-8")
    assert len(text) < 150_000 and "max" not in copy and "digits" in copy["a"]
    assert redacted_copy(Hostile()) == "<unreadable Hostile>" or "Hostile" in redacted_copy(Hostile())


def test_acebench_world_refuses_hostile_text_in_chinese_too() -> None:
    world = acebench_world(ALL_CLASSES, lang="zh", initial_config={"BaseApi": {"wifi": True, "logged_in": True}})
    before = fingerprint(world)
    (record,) = world.execute("[send_message(sender_name='Eve', receiver_name='Frank', message='你好"
                              + "\\ud800" + "')]")
    assert record.error is not None and "unicode_text" in record.error.message
    assert fingerprint(world)[:4] == before[:4]


def test_typed_python_values_pass_the_boundary_and_are_logged_as_json() -> None:
    """A library caller may pass dates, decimals, enums, sets and models for typed parameters
    (a strict world needs them); they are data, bounded like the rest, and logged as JSON."""
    import datetime as dt
    import decimal
    import enum
    import uuid

    from pydantic import BaseModel

    class Colour(enum.Enum):
        RED = "red"

    class Point(BaseModel):
        x: int

    arguments = {"when": dt.date(2024, 1, 2), "at": dt.datetime(2024, 1, 2, 3, 4), "span": dt.timedelta(seconds=5),
                 "amount": decimal.Decimal("0.01"), "colour": Colour.RED, "tags": {"b", "a"},
                 "frozen": frozenset({2, 1}), "pair": (1, "x"), "point": Point(x=3), "id": uuid.UUID(int=1)}
    copied = checked_copy(arguments)
    assert copied == {"when": "2024-01-02", "at": "2024-01-02T03:04:00", "span": 5.0, "amount": "0.01",
                      "colour": "red", "tags": ["a", "b"], "frozen": [1, 2], "pair": [1, "x"], "point": {"x": 3},
                      "id": "00000000-0000-0000-0000-000000000001"}
    json.dumps(copied)
    for huge in (decimal.Decimal("1e100000"), decimal.Decimal("1" * 100), decimal.Decimal("NaN")):
        with pytest.raises(LimitExceeded) as caught:
            checked_copy({"amount": huge})
        assert caught.value.limit == "max_int_digits"
    with pytest.raises(LimitExceeded) as caught:
        checked_copy({"tags": {1: nested(DEFAULT_LIMITS.max_depth)}})
    assert caught.value.limit == "max_depth"


_SMALL = InputLimits(max_depth=2, max_items=6, max_string_chars=8, max_message_chars=14, max_int_digits=3)
_LEAVES = st.one_of(st.text("abc", max_size=10), st.integers(min_value=-2_000, max_value=2_000), st.floats(),
                    st.booleans(), st.none(), st.sampled_from(["é", "a\udc00", "ok"]))
_TREES = st.recursive(_LEAVES, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.lists(inner, max_size=3).map(tuple),
    st.dictionaries(st.one_of(st.text(max_size=9), st.integers()), inner, max_size=3)), max_leaves=16)


def _walked(arguments: dict[Any, Any], limits: InputLimits) -> Any:
    """The full walk alone: the copy, or the limit it names."""
    try:
        return _Walk(limits, strict=True).mapping(arguments, 1, "")
    except LimitExceeded as exc:
        return exc.limit


@settings(max_examples=500, deadline=None)
@given(st.dictionaries(st.text("xyz", max_size=9), _TREES, max_size=4), st.sampled_from([_SMALL, DEFAULT_LIMITS]))
@example({"a": "abcdefgh", "b": "abcdefgh"}, _SMALL)  # characters over, each string within
@example({"abcdefgh": "abcdefgh"}, _SMALL)  # the key's characters count too
@example({"a": [1, 2, 3], "b": [4, 5]}, _SMALL)  # values over
@example({"a": [[1]]}, _SMALL)  # too deep
@example({"a": [{"b": "ok"}], "c": (True, None, 1.5)}, _SMALL)
def test_the_quick_copy_agrees_with_the_full_walk(arguments: dict[Any, Any], limits: InputLimits) -> None:
    try:
        copied: Any = checked_copy(arguments, limits)
    except LimitExceeded as exc:
        copied = exc.limit
    assert json.dumps(copied) == json.dumps(_walked(arguments, limits))


@pytest.mark.parametrize("arguments", [
    {"title": [0] * 200_000},  # a long list, as a model or a hostile client may send
    {"title": {str(i): 0 for i in range(200_000)}},  # a wide object
    {str(i): 0 for i in range(200_000)},  # a call with that many arguments
])
def test_refusing_a_long_container_reads_no_further_than_the_bound(arguments: dict[str, Any],
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A refusal costs time in proportion to the bound, not to the input: the quick walk does not copy a
    container whose length alone overdraws the values left (before the fix it copied all 200,000, some 80 ms)."""
    import sandbox.limit_walk as module

    visited = 0
    quick_value = module._quick_value

    def counted(*args: Any) -> Any:
        nonlocal visited
        visited += 1
        return quick_value(*args)

    monkeypatch.setattr(module, "_quick_value", counted)
    with pytest.raises(LimitExceeded) as caught:
        checked_copy(arguments)
    assert caught.value.limit == "max_items"
    assert visited <= 2
    world = acebench_world()
    refused(world, "add_reminder", {"description": "d", "time": "2024-07-15 09:30", **arguments}, "max_items")


def test_a_failure_is_one_printable_line_in_a_call_record_and_in_an_episode() -> None:
    """A crashing tool's record and a failed episode say what raised the same way: `Type: message` on one
    line, cut at 500 characters, lone surrogates escaped, the type alone when the message cannot be read."""
    from sandbox import App, StateModel, tool
    from sandbox.input_limits import exception_line
    from scenarios.banking.family import load_tasks
    from toolworlds.episodes import run_episode

    message = "first line\n\tsecond\ud800 " + "x" * 2_000
    line = exception_line(ValueError(message))
    assert line.startswith("ValueError: first line second\\ud800 xxx") and line.endswith("...")
    assert len(line) == len("ValueError: ") + 500 + len("\\ud800") - 1 and "\n" not in line
    assert exception_line(BadMessage()) == "BadMessage"

    class Empty(StateModel):
        pass

    class Crashing(App[Empty]):
        @tool
        def crash(self) -> int:
            """Fail with a long, many-line message."""
            raise ValueError(message)

    record = World([Crashing()]).call("crash", {})
    assert record.error is not None and record.error.message == f"crash failed: {line}"

    class Agent:
        def act(self, conversation: Any, tools: Any) -> Any:
            raise ValueError(message)

    _, episode = run_episode(load_tasks("en")[0], Agent())
    assert episode.error == f"agent: {line}"


# An integer exactly at the bound, in every kind of place each walk looks (issue 43: one inside a list
# once passed): the largest allowed value goes through, one more (either sign) is refused.
_PLACES = {
    "bare": lambda n: n, "list": lambda n: [1, n], "tuple": lambda n: (1, n), "set": lambda n: {1, n},
    "dict": lambda n: {"a": n}, "nested": lambda n: [[{"a": [n]}]],
}


@pytest.mark.parametrize("place", sorted(_PLACES))
def test_an_integer_exactly_at_the_bound_is_refused_wherever_it_sits(place: str) -> None:
    bound = 10 ** DEFAULT_LIMITS.max_int_digits
    wrap = _PLACES[place]
    check_integers(wrap(bound - 1), DEFAULT_LIMITS)
    check_integers(wrap(-(bound - 1)), DEFAULT_LIMITS)
    if place != "set":  # JSON has no sets: the copy at the boundary refuses them before any integer
        assert checked_copy({"x": wrap(bound - 1)}, DEFAULT_LIMITS) == {"x": json.loads(json.dumps(wrap(bound - 1)))}
    for outside in (bound, -bound, 10 * bound, -10 * bound):
        with pytest.raises(LimitExceeded, match="integer"):
            check_integers(wrap(outside), DEFAULT_LIMITS)
        if place != "set":
            with pytest.raises(LimitExceeded, match="integer"):
                checked_copy({"x": wrap(outside)}, DEFAULT_LIMITS)


class _Link(BaseModel):
    """A chain of models: a library caller may pass one where a tool takes nested data."""

    next: _Link | None = None


def _chain(links: int) -> _Link:
    head = _Link()
    for _ in range(links - 1):
        head = _Link(next=head)
    return head


@pytest.mark.parametrize("links", range(DEFAULT_LIMITS.max_depth - 3, DEFAULT_LIMITS.max_depth + 3))
@pytest.mark.parametrize("where", ["top", "in a list"])
def test_a_model_counts_as_deep_as_its_dump(links: int, where: str) -> None:
    """A model passed as an argument is nested exactly as deep as the JSON it dumps to: the same bound
    refuses both, at the same depth."""
    model = _chain(links)
    dump = model.model_dump(mode="json")

    def refused(value: Any) -> bool:
        try:
            checked_copy({"x": [value] if where == "in a list" else value}, DEFAULT_LIMITS)
        except LimitExceeded:
            return True
        return False

    assert refused(model) == refused(dump)


def test_one_value_past_the_count_is_refused_when_the_quick_walk_ran_it_out() -> None:
    """The quick copy counts values down as it goes; a count that ends below zero (the last scalar one
    past `max_items`) must send the call to the full walk, which refuses it."""
    items = DEFAULT_LIMITS.max_items
    assert len(checked_copy({"a": [1] * (items - 2), "b": 5}, DEFAULT_LIMITS)["a"]) == items - 2
    with pytest.raises(LimitExceeded, match="more than"):
        checked_copy({"a": [1] * (items - 1), "b": 5}, DEFAULT_LIMITS)


def test_the_quick_walk_vouches_for_a_string_exactly_at_the_bound() -> None:
    """The quick copy is the lane every ordinary call takes; a string of exactly `max_string_chars` is
    within the bounds, so the lane copies it itself rather than sending the call to the full walk."""
    from sandbox.limit_walk import _UNSURE, _quick_value

    at_bound = "a" * DEFAULT_LIMITS.max_string_chars
    budget = [DEFAULT_LIMITS.max_items, DEFAULT_LIMITS.max_message_chars]
    assert _quick_value(at_bound, 1, DEFAULT_LIMITS, budget) == at_bound
    assert _quick_value(at_bound + "a", 1, DEFAULT_LIMITS, budget) is _UNSURE


def _nested(depth: int, make: Any) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = make(value)
    return value


@pytest.mark.parametrize("max_depth", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("levels", [1, 2, 3, 4, 5, 6])
def test_sets_count_as_deep_as_the_lists_they_are_logged_as(max_depth: int, levels: int) -> None:
    """A frozenset nested in frozensets is logged as lists nested in lists: the same bound refuses both."""
    limits = InputLimits(max_depth=max_depth)

    def refused(value: Any) -> bool:
        try:
            checked_copy({"x": value}, limits)
        except LimitExceeded as exc:
            assert exc.limit == "max_depth"
            return True
        return False

    as_sets, as_lists = _nested(levels, lambda v: frozenset({v})), _nested(levels, lambda v: [v])
    assert refused(as_sets) == refused(as_lists) == (levels >= max_depth)


@pytest.mark.parametrize(("text", "accepted"), [
    ("1E+3", True), ("-1E+3", True), ("1E+4", False), ("1E-3", True), ("1E-4", False), ("999", True),
    ("1234", False), ("0.001", True), ("0.0001", False),
])
def test_a_decimal_is_bounded_by_its_digits_and_its_exponent(text: str, accepted: bool) -> None:
    """At most `max_int_digits` digits and an exponent of at most that size either way, the bound included."""
    limits = InputLimits(max_int_digits=3)
    if accepted:
        assert checked_copy({"amount": decimal.Decimal(text)}, limits) == {"amount": str(decimal.Decimal(text))}
    else:
        with pytest.raises(LimitExceeded) as caught:
            checked_copy({"amount": decimal.Decimal(text)}, limits)
        assert caught.value.limit == "max_int_digits"
