"""Tracked state: every container operation is journaled and undone exactly."""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable
from typing import Any

import pytest

from sandbox.errors import ReadOnlyViolation
from sandbox.journal import Journal, begin, end
from sandbox.state import StateModel, TrackedDict, TrackedList, TrackedSet, clone, plain, track


class Leaf(StateModel):
    name: str
    values: list[int] = []


class Root(StateModel):
    items: list[Leaf] = []
    lookup: dict[str, int] = {}
    tags: set[str] = set()
    pair: tuple[int, int] = (0, 0)
    nested: list[list[int]] = []


def make() -> Root:
    return Root(items=[Leaf(name="a", values=[1, 2]), Leaf(name="b")], lookup={"a": 1, "b": 2},
                tags={"x", "y"}, nested=[[1], [2, 3]])


def run_and_undo(op: Callable[[Root], Any]) -> None:
    root = make()
    before = root.model_dump()
    journal = Journal("test", read_only=False)
    token = begin(journal)
    try:
        op(root)
    finally:
        end(token)
    assert journal.changed
    journal.rollback()
    assert root.model_dump() == before


OPS: dict[str, Callable[[Root], Any]] = {
    "list.append": lambda r: r.items.append(Leaf(name="c")),
    "list.extend": lambda r: r.items.extend([Leaf(name="c")]),
    "list.insert": lambda r: r.items.insert(0, Leaf(name="c")),
    "list.pop": lambda r: r.items.pop(),
    "list.remove": lambda r: r.items.remove(r.items[0]),
    "list.clear": lambda r: r.items.clear(),
    "list.sort": lambda r: r.items.sort(key=lambda leaf: leaf.name, reverse=True),
    "list.reverse": lambda r: r.items.reverse(),
    "list.setitem": lambda r: r.items.__setitem__(0, Leaf(name="z")),
    "list.setslice": lambda r: r.items.__setitem__(slice(0, 2), [Leaf(name="z")]),
    "list.delitem": lambda r: r.items.__delitem__(0),
    "list.iadd": lambda r: r.items.__iadd__([Leaf(name="c")]),
    "list.imul": lambda r: r.items.__imul__(2),
    "dict.setitem": lambda r: r.lookup.__setitem__("c", 3),
    "dict.delitem": lambda r: r.lookup.__delitem__("a"),
    "dict.pop": lambda r: r.lookup.pop("a"),
    "dict.popitem": lambda r: r.lookup.popitem(),
    "dict.clear": lambda r: r.lookup.clear(),
    "dict.update": lambda r: r.lookup.update({"a": 9, "z": 0}),
    "dict.setdefault": lambda r: r.lookup.setdefault("q", 5),
    "dict.ior": lambda r: r.lookup.__ior__({"w": 1}),
    "set.add": lambda r: r.tags.add("z"),
    "set.discard": lambda r: r.tags.discard("x"),
    "set.remove": lambda r: r.tags.remove("x"),
    "set.pop": lambda r: r.tags.pop(),
    "set.clear": lambda r: r.tags.clear(),
    "set.update": lambda r: r.tags.update({"q"}),
    "set.difference_update": lambda r: r.tags.difference_update({"x"}),
    "set.intersection_update": lambda r: r.tags.intersection_update({"x"}),
    "set.symmetric_difference_update": lambda r: r.tags.symmetric_difference_update({"x", "q"}),
    "set.ior": lambda r: r.tags.__ior__({"q"}),
    "set.iand": lambda r: r.tags.__iand__({"x"}),
    "set.isub": lambda r: r.tags.__isub__({"x"}),
    "set.ixor": lambda r: r.tags.__ixor__({"x"}),
    "attr": lambda r: setattr(r, "pair", (5, 6)),
    "nested attr": lambda r: setattr(r.items[0], "name", "renamed"),
    "nested list": lambda r: r.items[0].values.append(3),
    "list in list": lambda r: r.nested[1].append(4),
    "replaced then changed": lambda r: (setattr(r, "items", []), r.items.append(Leaf(name="n"))),
    "many ops": lambda r: (r.items.append(Leaf(name="c")), r.items[0].values.clear(),
                           r.lookup.update({"z": 1}), r.tags.add("z"), r.items.pop(0)),
}


@pytest.mark.parametrize("name", list(OPS))
def test_every_operation_is_undone(name: str) -> None:
    run_and_undo(OPS[name])


def test_containers_become_tracked_on_build_and_assignment() -> None:
    root = make()
    assert type(root.items) is TrackedList and type(root.lookup) is TrackedDict
    assert type(root.tags) is TrackedSet and type(root.nested[0]) is TrackedList
    root.items = [Leaf(name="x")]
    assert type(root.items) is TrackedList
    root.items.append(Leaf(name="y", values=[1]))
    assert type(root.items[1].values) is TrackedList
    root.lookup["k"] = 3
    assert type(track({"a": [1]})["a"]) is TrackedList


def test_read_only_journal_refuses_writes_before_they_happen() -> None:
    root = make()
    token = begin(Journal("reader", read_only=True))
    try:
        with pytest.raises(ReadOnlyViolation):
            root.items.append(Leaf(name="c"))
        with pytest.raises(ReadOnlyViolation):
            root.pair = (1, 1)
    finally:
        end(token)
    assert root.model_dump() == make().model_dump()


def test_no_journal_means_plain_mutation() -> None:
    root = make()
    root.items.append(Leaf(name="c"))
    assert len(root.items) == 3


def test_clone_is_deep_and_equal() -> None:
    root = make()
    twin = clone(root)
    assert twin == root and twin is not root
    assert twin.items[0] is not root.items[0] and twin.items[0].values is not root.items[0].values
    twin.items[0].values.append(9)
    assert root.items[0].values == [1, 2]
    assert type(twin.items) is TrackedList


def test_tracked_containers_pickle_and_deepcopy() -> None:
    root = make()
    assert pickle.loads(pickle.dumps(root)) == root
    assert copy.deepcopy(root) == root


def test_plain_shares_nothing_and_is_json_ready() -> None:
    root = make()
    out = plain({"root": root, 1: {"s": {"b", "a"}}, "t": (1, 2)})
    assert out["root"]["items"][0]["values"] == [1, 2]
    assert out["1"] == {"s": ["a", "b"]} and out["t"] == [1, 2]
    out["root"]["items"][0]["values"].append(5)
    assert root.items[0].values == [1, 2]


def test_state_fields_cannot_be_deleted() -> None:
    with pytest.raises(AttributeError):
        del make().items


SEQUENCES: dict[str, Callable[[Root], Any]] = {
    "append then sort": lambda r: (r.items.append(Leaf(name="0")), r.items.sort(key=lambda x: x.name)),
    "sort then append": lambda r: (r.items.sort(key=lambda x: x.name, reverse=True), r.items.append(Leaf(name="0"))),
    "append, pop, append": lambda r: (r.items.append(Leaf(name="c")), r.items.pop(0), r.items.append(Leaf(name="d"))),
    "extend then clear": lambda r: (r.items.extend([Leaf(name="c")]), r.items.clear()),
    "new key then delete another": lambda r: (r.lookup.__setitem__("z", 9), r.lookup.__delitem__("a")),
    "delete then re-add same key": lambda r: (r.lookup.__delitem__("a"), r.lookup.__setitem__("a", 1)),
    "replace value then pop": lambda r: (r.lookup.__setitem__("a", 7), r.lookup.pop("b")),
    "new key twice": lambda r: (r.lookup.__setitem__("n", 1), r.lookup.__setitem__("n", 2)),
}


@pytest.mark.parametrize("name", list(SEQUENCES))
def test_mixed_sequences_undo_exactly_including_order(name: str) -> None:
    root = make()
    items_before = [leaf.name for leaf in root.items]
    lookup_before = list(root.lookup.items())
    journal = Journal("test", read_only=False)
    token = begin(journal)
    try:
        SEQUENCES[name](root)
    finally:
        end(token)
    journal.rollback()
    assert [leaf.name for leaf in root.items] == items_before
    assert list(root.lookup.items()) == lookup_before


def test_appending_to_a_long_list_does_not_copy_it() -> None:
    root = Root(items=[Leaf(name=str(i)) for i in range(1000)])
    journal = Journal("test", read_only=False)
    token = begin(journal)
    try:
        root.items.append(Leaf(name="new"))
    finally:
        end(token)
    ((_kind, _, _, saved),) = journal._entries  # type: ignore[misc]
    assert saved == 1000  # only the old length is kept
    journal.rollback()
    assert len(root.items) == 1000


def test_rollback_restores_which_fields_count_as_set() -> None:
    leaf = Leaf(name="a")
    assert leaf.model_dump(exclude_unset=True) == {"name": "a"}
    journal = Journal("test", read_only=False)
    token = begin(journal)
    try:
        leaf.values = [1]
    finally:
        end(token)
    journal.rollback()
    assert leaf.model_dump(exclude_unset=True) == {"name": "a"}
