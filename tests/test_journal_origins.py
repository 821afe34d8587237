"""Undo without a copy of a large container: one claimed in the same call (`Journal.origin`) is undone
from its shared original, and a key deleted near either end of a dict (`Journal.dict_delete`) is put
back in its place. Either way undo puts back exactly the contents, in the order, that the plain path
(a copy of the container before its first change) puts back."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sandbox import App, StateModel, ToolError, World, journal, tool
from sandbox.state import TrackedDict


class Note(StateModel):
    text: str
    tags: list[str] = []


class ShelfState(StateModel):
    notes: dict[int, Note] = {}
    order: list[int] = []
    seen: set[int] = set()


class Shelf(App[ShelfState]):
    """Notes by id, an order list and a set: every container kind, changed as a whole and key by key."""

    @tool
    def add(self, key: int, text: str) -> None:
        """Add or replace a note.

        Args:
            key: The note's id.
            text: Its text.
        """
        self.state.notes[key] = Note(text=text)
        self.state.order.append(key)
        self.state.seen.add(key)

    @tool
    def tag(self, key: int, label: str) -> None:
        """Tag a note (claims it), then delete every other note with the same text.

        Args:
            key: The note's id.
            label: The tag.
        """
        notes = self.state.notes
        if key not in notes:
            raise ToolError("no such note")
        notes[key].tags.append(label)
        for other in [k for k in dict.keys(notes) if k != key and dict.__getitem__(notes, k).text == notes[key].text]:
            del notes[other]

    @tool
    def delete(self, key: int, fail: bool) -> None:
        """Delete a note, its place in the order and its mark, then fail if asked (the call is undone).

        Args:
            key: The note's id.
            fail: Whether to fail after deleting.
        """
        notes = self.state.notes
        if key in notes:
            notes[key].tags.append("deleted")  # an item claimed before its container changes as a whole
            del notes[key]
            order = self.state.order
            while key in order:
                order.remove(key)
            self.state.seen.discard(key)
        if fail:
            raise ToolError("refused after deleting")

    @tool
    def drop_ends(self, fail: bool) -> None:
        """Drop the newest note (`popitem`) and the oldest (`pop`), then fail if asked.

        Args:
            fail: Whether to fail after dropping.
        """
        notes = self.state.notes
        if notes:
            notes.popitem()
        if notes:
            notes.pop(next(iter(dict.keys(notes))))
        notes.pop(99, None)  # absent: nothing deleted
        if fail:
            raise ToolError("refused after dropping")

    @tool
    def read_then_delete(self, key: int, other: int) -> None:
        """Read one note (claims it, unchanged), delete another (changes the dict as a whole), then fail.

        Args:
            key: The note read.
            other: The note deleted.
        """
        notes = self.state.notes
        text = notes[key].text
        del notes[other]
        raise ToolError(f"refused after reading {text!r}")

    @tool
    def sort_then_fail(self) -> None:
        """Sort the order, add a note at its end and fail.

        Args:
        """
        self.state.order.sort(reverse=True)
        self.state.notes[-1] = Note(text="late")
        raise ToolError("refused after sorting")


def _ordered(value: Any) -> str:
    """A dump that tells key order apart (`==` on dicts does not)."""
    return json.dumps(value, default=sorted)


# The journal lanes' sizes with the speed lanes on (`journal_origin`, `journal_place`).
LANE_ORIGIN_FROM, LANE_PLACE_WITHIN = 64, 32


@contextmanager
def _lanes(origin_from: int, place_within: int) -> Iterator[None]:
    before = journal.ORIGIN_FROM, journal.PLACE_WITHIN
    journal.ORIGIN_FROM, journal.PLACE_WITHIN = origin_from, place_within
    try:
        yield
    finally:
        journal.ORIGIN_FROM, journal.PLACE_WITHIN = before


def _seeded() -> World:
    world = World([Shelf()])
    for key in range(6):
        world.call("add", {"key": key, "text": "abc"[key % 3]})
    return world


KEYS = st.integers(0, 7)
CALLS = st.one_of(
    st.tuples(st.just("add"), st.fixed_dictionaries({"key": KEYS, "text": st.sampled_from("abc")})),
    st.tuples(st.just("tag"), st.fixed_dictionaries({"key": KEYS, "label": st.sampled_from("xy")})),
    st.tuples(st.just("delete"), st.fixed_dictionaries({"key": KEYS, "fail": st.booleans()})),
    st.tuples(st.just("drop_ends"), st.fixed_dictionaries({"fail": st.booleans()})),
    st.tuples(st.just("sort_then_fail"), st.just({})),
)
STEPS = st.lists(st.one_of(
    st.tuples(st.just("call"), st.integers(0, 5), CALLS),
    st.tuples(st.just("fork"), st.integers(0, 5), st.none()),
    st.tuples(st.just("snapshot"), st.integers(0, 5), st.none()),
    st.tuples(st.just("restore"), st.integers(0, 5), st.none()),
), min_size=1, max_size=30)


def _run(steps: list[tuple[str, int, Any]]) -> list[str]:
    """Every world's ordered dump after each step."""
    worlds = [_seeded()]
    snapshots: dict[int, Any] = {}
    dumps = []
    for kind, which, payload in steps:
        index = which % len(worlds)
        world = worlds[index]
        if kind == "call":
            world.call(*payload)
        elif kind == "fork":
            worlds.append(world.fork())
        elif kind == "snapshot":
            snapshots[index] = world.snapshot()
        elif kind == "restore" and index in snapshots:
            world.restore(snapshots[index])
        dumps.append(_ordered([each.state() for each in worlds]))
    return dumps


@settings(max_examples=100, deadline=None)
@given(STEPS)
def test_undo_from_the_original_puts_back_what_undo_from_a_copy_does(steps: list[tuple[str, int, Any]]) -> None:
    # Every claimed container noted with its original; a deleted key's place looked for within 2 of
    # either end of a dict of more than 4 keys (the seeded dict has 6).
    with _lanes(0, 2):
        noted = _run(steps)
    with _lanes(10**9, 0):  # neither: the plain path, a copy before the first change as a whole
        plain = _run(steps)
    assert noted == plain


@pytest.mark.parametrize(("origin_from", "place_within"), [(0, 0), (0, 2), (10**9, 0)])
def test_a_failed_call_in_a_fork_gives_back_the_shared_notes_it_only_read(origin_from: int,
                                                                        place_within: int) -> None:
    """Undone from the shared original, the dict holds the original note again where the call had claimed a
    copy it never changed: that copy is dropped, and the fork shares the notes again, as it did before."""
    with _lanes(origin_from, place_within):
        base = _seeded()
        fork = base.fork()
        before = _ordered(fork.state())
        shared = base.app("Shelf").read_only_state.notes
        assert fork.app("Shelf").read_only_state.notes is shared
        record = fork.call("read_then_delete", {"key": 1, "other": 4})
        assert record.error is not None and record.error.message == "refused after reading 'b'"
        assert _ordered(fork.state()) == before == _ordered(base.state())
        assert fork.app("Shelf").read_only_state.notes is shared
        assert fork.call("delete", {"key": 4, "fail": False}).ok  # the put-back state takes further calls
        assert "4" not in fork.state()["Shelf"]["notes"] and "4" in base.state()["Shelf"]["notes"]


def _inbox_world(messages: int) -> World:
    from scenarios.acebench.base import BaseApi
    from scenarios.acebench.message import MessageApi

    state = MessageApi().state.model_dump()
    inbox = {index: {"sender_id": "USR100", "receiver_id": "USR101", "message": f"m{index}", "time": "2024-01-01"}
             for index in range(1, messages + 1)}
    state.update(inbox=inbox, message_id_counter=messages, max_capacity=10**9)
    world = World([BaseApi(), MessageApi("en", state)])
    world.load({"BaseApi": {"wifi": True}})
    return world


@pytest.mark.parametrize("how", ["fork", "restore"])
def test_a_delete_after_a_fork_or_restore_saves_the_shared_original(how: str, monkeypatch: Any) -> None:
    monkeypatch.setattr(journal, "ORIGIN_FROM", LANE_ORIGIN_FROM)  # the lane itself, whatever the switch says
    world = _inbox_world(LANE_ORIGIN_FROM + 10)
    shared = world.app("MessageApi").read_only_state.inbox
    order = list(shared)
    if how == "fork":
        world = world.fork()
    else:
        world.restore(world.snapshot())
    saved: list[Any] = []
    real = journal.Journal.container

    def container(self: journal.Journal, obj: Any) -> None:
        real(self, obj)
        saved.append(self._entries[-1][3] if self._entries else None)  # type: ignore[index]

    monkeypatch.setattr(journal.Journal, "container", container)
    assert world.call("delete_message", {"message_id": 3}).result["status"] is True
    assert saved and saved[0] is shared  # no copy of the inbox beside the claim's own
    inbox = world.app("MessageApi").read_only_state.inbox
    assert type(inbox) is TrackedDict and inbox is not shared and 3 not in inbox
    assert list(shared) == order  # the original, still another world's, untouched


def test_a_failed_delete_after_a_restore_puts_the_key_back_in_its_place(monkeypatch: Any) -> None:
    monkeypatch.setattr(journal, "ORIGIN_FROM", LANE_ORIGIN_FROM)
    monkeypatch.setattr(journal, "PLACE_WITHIN", LANE_PLACE_WITHIN)
    world = _inbox_world(LANE_ORIGIN_FROM + 10)
    before = _ordered(world.state())
    world.restore(world.snapshot())
    messages = world.app("MessageApi")

    def delete_then_fail() -> None:
        inbox = messages.state.inbox
        del inbox[5]
        del inbox[1]
        raise ToolError("refused after deleting")

    with pytest.raises(ToolError), _call_of(world, "delete_message"):
        delete_then_fail()
    assert _ordered(world.state()) == before


@contextmanager
def _call_of(world: World, tool_name: str) -> Iterator[None]:
    """Run a block as the body of a writing call: its journal active, rolled back if the block raises."""
    record = journal.Journal(tool_name, False)
    token = journal.begin(record)
    try:
        yield
    except BaseException:
        record.rollback()
        raise
    finally:
        journal.end(token)


@pytest.mark.parametrize("keys", [[1], [3, 1], [120], [119, 1, 120], [2, 60]])
def test_a_failed_delete_from_a_dict_of_its_own_puts_each_key_back_in_its_place(keys: list[int],
                                                                              monkeypatch: Any) -> None:
    monkeypatch.setattr(journal, "PLACE_WITHIN", LANE_PLACE_WITHIN)  # the lane itself, whatever the switch says
    world = _inbox_world(120)
    world.call("send_message", {"sender_name": "Eve", "receiver_name": "Frank", "message": "hi"})  # its own now
    inbox = world.app("MessageApi").read_only_state.inbox
    before = _ordered(world.state())
    journal_of_call = journal.Journal("delete_message", False)
    token = journal.begin(journal_of_call)
    try:
        for key in keys:
            del inbox[key]
        near = all(key in (1, 2, 3, 119, 120, 121) for key in keys)
        assert (journal_of_call._saved == journal._NONE) is near  # near either end: no copy of the dict
        journal_of_call.rollback()
    finally:
        journal.end(token)
    assert _ordered(world.state()) == before
