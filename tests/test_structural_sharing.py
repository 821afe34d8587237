"""Structural sharing: forks and snapshots share state objects, a world copies only the path it
writes to, and no world ever sees another's writes, whatever mix of nested containers, models,
failing calls, snapshots and restores it goes through."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from pydantic import PrivateAttr

from sandbox import App, StateModel, ToolError, World, tool
from sandbox.journal import ALL_OWNED
from sandbox.state import TrackedDict, TrackedList, _owner
from scenarios.acebench.base import BaseApi
from scenarios.acebench.message import MessageApi


class Card(StateModel):
    title: str
    votes: int = 0
    labels: list[str] = []
    notes: dict[str, list[int]] = {}


class Lane(StateModel):
    name: str
    cards: list[Card] = []
    owners: set[str] = set()
    pinned: tuple[Card, ...] = ()


class BoardState(StateModel):
    lanes: dict[str, Lane] = {}
    archive: list[Card] = []
    grid: list[dict[str, list[int]]] = []
    counter: int = 0


class Board(App[BoardState]):
    """A kanban board: lanes of cards, every kind of nesting the engine tracks."""

    @tool
    def add_card(self, lane: str, title: str) -> int:
        """Add a card at the end of a lane (made if missing).

        Args:
            lane: The lane.
            title: The card's title.
        """
        lanes = self.state.lanes
        if lane not in lanes:
            lanes[lane] = Lane(name=lane)
        lanes[lane].cards.append(Card(title=title))
        self.state.counter += 1
        return len(lanes[lane].cards)

    @tool
    def vote(self, lane: str, index: int) -> int:
        """Vote for a card.

        Args:
            lane: The lane.
            index: The card's position.
        """
        card = self._card(lane, index)
        card.votes += 1
        card.notes.setdefault("votes", []).append(card.votes)
        return card.votes

    @tool
    def label(self, lane: str, index: int, label: str) -> None:
        """Label a card and note who owns the lane.

        Args:
            lane: The lane.
            index: The card's position.
            label: The label.
        """
        self._card(lane, index).labels.append(label)
        self.state.lanes[lane].owners.add(label)

    @tool
    def move(self, lane: str, index: int, to: str) -> None:
        """Move a card to another lane (made if missing).

        Args:
            lane: The lane it is in.
            index: The card's position.
            to: The lane it goes to.
        """
        self._card(lane, index)
        card = self.state.lanes[lane].cards.pop(index)
        lanes = self.state.lanes
        if to not in lanes:
            lanes[to] = Lane(name=to)
        lanes[to].cards.insert(0, card)

    @tool
    def archive(self, lane: str) -> int:
        """Archive a lane's cards, a copy of the first one pinned on the lane (state is a tree:
        one object in two places would be two objects after a fork, as in any dump).

        Args:
            lane: The lane.
        """
        if lane not in self.state.lanes:
            raise ToolError(f"no lane {lane!r}")
        the_lane = self.state.lanes[lane]
        cards = list(the_lane.cards)
        the_lane.pinned = tuple(card.model_copy(deep=True) for card in cards[:1])
        self.state.archive.extend(cards)
        the_lane.cards.clear()
        return len(cards)

    @tool
    def retitle_everything(self, suffix: str) -> None:
        """Add a suffix to every card, then fail if the suffix is "!" (the call is undone).

        Args:
            suffix: What to add.
        """
        for lane in self.state.lanes.values():
            for card in lane.cards:
                card.title += suffix
            for card in lane.pinned:
                card.votes += 1
        for card in self.state.archive:
            card.title += suffix
        self.state.grid.append({"row": [len(self.state.archive)]})
        for row in self.state.grid:
            row["row"].append(1)
        if suffix == "!":
            raise ToolError("refused after writing")

    @tool
    def reverse_then_fail(self, lane: str) -> None:
        """Reverse a lane, vote for all its cards, then fail (the call is undone: undo puts back
        cards that may still be shared).

        Args:
            lane: The lane.
        """
        if lane in self.state.lanes:
            cards = self.state.lanes[lane].cards
            cards.reverse()
            for card in cards:
                card.votes += 1
        raise ToolError("refused after writing")

    @tool
    def first_with_votes(self, lane: str) -> str:
        """Scan a lane for the first card with votes and mark it (a scan that stops early).

        Args:
            lane: The lane.
        """
        for card in self.state.lanes[lane].cards if lane in self.state.lanes else []:
            if card.votes:
                card.title += "*"
                return card.title
        return ""

    @tool(mutates=False)
    def count(self, lane: str) -> int:
        """How many cards a lane has.

        Args:
            lane: The lane.
        """
        lane_state = self.state.lanes.get(lane)
        return 0 if lane_state is None else len(lane_state.cards)

    def _card(self, lane: str, index: int) -> Card:
        lane_state = self.state.lanes.get(lane)
        if lane_state is None or not 0 <= index < len(lane_state.cards):
            raise ToolError("no such card")
        card: Card = lane_state.cards[index]
        return card


LANES = st.sampled_from(["todo", "doing", "done"])
CALLS = st.one_of(
    st.tuples(st.just("add_card"), st.fixed_dictionaries({"lane": LANES, "title": st.sampled_from("abc")})),
    st.tuples(st.just("vote"), st.fixed_dictionaries({"lane": LANES, "index": st.integers(0, 2)})),
    st.tuples(st.just("label"), st.fixed_dictionaries({"lane": LANES, "index": st.integers(0, 2),
                                                       "label": st.sampled_from("xy")})),
    st.tuples(st.just("move"), st.fixed_dictionaries({"lane": LANES, "index": st.integers(0, 2), "to": LANES})),
    st.tuples(st.just("archive"), st.fixed_dictionaries({"lane": LANES})),
    st.tuples(st.just("retitle_everything"), st.fixed_dictionaries({"suffix": st.sampled_from(["+", "!"])})),
    st.tuples(st.just("count"), st.fixed_dictionaries({"lane": LANES})),
    st.tuples(st.just("reverse_then_fail"), st.fixed_dictionaries({"lane": LANES})),
    st.tuples(st.just("first_with_votes"), st.fixed_dictionaries({"lane": LANES})),
)
STEPS = st.lists(st.one_of(
    st.tuples(st.just("call"), st.integers(0, 7), CALLS),
    st.tuples(st.just("fork"), st.integers(0, 7), st.none()),
    st.tuples(st.just("snapshot"), st.integers(0, 7), st.none()),
    st.tuples(st.just("restore"), st.integers(0, 7), st.none()),
    st.tuples(st.just("poke"), st.integers(0, 7), st.sampled_from(["todo", "doing"])),
), min_size=1, max_size=40)


def _seeded() -> World:
    world = World([Board()])
    for lane, title in (("todo", "a"), ("todo", "b"), ("doing", "c")):
        world.call("add_card", {"lane": lane, "title": title})
    world.call("label", {"lane": "todo", "index": 0, "label": "x"})
    return world


def _replayed(history: list[tuple[str, Any]]) -> dict[str, Any]:
    """The state a world that never forked, snapshotted or restored reaches with the same history."""
    world = _seeded()
    for kind, step in history:
        if kind == "call":
            world.call(*step)
        else:  # a direct write outside any call
            card = world.app(Board).state.lanes[step].cards[0]
            card.votes += 100
    return world.state()


@settings(max_examples=150, deadline=None)
@given(STEPS)
@example([("fork", 0, None), ("call", 1, ("reverse_then_fail", {"lane": "todo"})),  # undo puts shared cards
          ("call", 1, ("retitle_everything", {"suffix": "+"}))])  # back: the next full scan must claim them
@example([("fork", 0, None), ("call", 1, ("retitle_everything", {"suffix": "+"}))])
def test_forks_snapshots_and_restores_never_leak_writes(steps: list[tuple[str, int, Any]]) -> None:
    base = _seeded()
    worlds: list[tuple[World, list[tuple[str, Any]]]] = [(base, [])]
    snapshots: dict[int, tuple[Any, list[tuple[str, Any]]]] = {}
    for kind, which, payload in steps:
        index = which % len(worlds)
        world, history = worlds[index]
        if kind == "call":
            world.call(*payload)
            history.append(("call", payload))
        elif kind == "fork":
            worlds.append((world.fork(), list(history)))
        elif kind == "snapshot":
            snapshots[index] = (world.snapshot(), list(history))
        elif kind == "restore" and index in snapshots:
            snapshot, saved = snapshots[index]
            world.restore(snapshot)
            worlds[index] = (world, list(saved))
        elif kind == "poke":
            lane = world.app(Board).state.lanes.get(payload)
            if lane is not None and lane.cards:
                lane.cards[0].votes += 100
                history.append(("poke", payload))
        for each, each_history in worlds:
            assert each.state() == _replayed(each_history)


def test_a_first_write_after_a_fork_copies_only_its_path() -> None:
    world = World([Board()])
    for number in range(300):
        world.call("add_card", {"lane": f"lane{number % 3}", "title": f"card {number}"})
    parent = world.app(Board).state
    fork = world.fork()
    assert fork.call("vote", {"lane": "lane1", "index": 5}).ok
    child = fork.app(Board).state
    assert child is not parent and child.lanes is not parent.lanes
    changed = child.lanes["lane1"].cards[5]
    assert changed is not parent.lanes["lane1"].cards[5] and changed.votes == 1
    assert parent.lanes["lane1"].cards[5].votes == 0
    # Every other lane and every other card is the parent's own object.
    shared_lanes = [name for name in ("lane0", "lane2") if dict.__getitem__(child.lanes, name) is
                    dict.__getitem__(parent.lanes, name)]
    assert shared_lanes == ["lane0", "lane2"]
    siblings = list.copy(dict.__getitem__(child.lanes, "lane1").cards)
    originals = list.copy(dict.__getitem__(parent.lanes, "lane1").cards)
    assert sum(a is b for a, b in zip(siblings, originals, strict=True)) == len(originals) - 1


def test_a_scan_that_stops_early_keeps_a_copy_only_of_what_it_changed() -> None:
    world = World([Board()])
    for number in range(50):
        world.call("add_card", {"lane": "todo", "title": f"card {number}"})
    world.call("vote", {"lane": "todo", "index": 3})
    fork = world.fork()
    assert fork.call("first_with_votes", {"lane": "todo"}).result == "card 3*"
    mine = list.copy(dict.__getitem__(fork.app(Board)._state.lanes, "todo").cards)
    theirs = list.copy(dict.__getitem__(world.app(Board)._state.lanes, "todo").cards)
    # The scan copied the four cards it passed (and no more); the call kept the one it changed.
    assert [a is b for a, b in zip(mine, theirs, strict=True)] == [True] * 3 + [False] + [True] * 46
    assert world.state()["Board"]["lanes"]["todo"]["cards"][3]["title"] == "card 3"


def test_a_writing_call_keeps_no_copy_of_what_it_only_read() -> None:
    world = _seeded()
    fork = world.fork()
    parent = world.app(Board)._state
    # Scans every card of a lane and finds none with votes: everything it copied is given back.
    assert fork.call("first_with_votes", {"lane": "doing"}).result == ""
    assert fork.app(Board)._state is parent
    fork = world.fork()
    assert fork.call("vote", {"lane": "todo", "index": 0}).ok
    child = fork.app(Board)._state
    # The card voted for and the path to it are the fork's own; what the call did not change is the parent's.
    assert child is not parent and child.lanes is not parent.lanes
    assert child.archive is parent.archive and child.grid is parent.grid
    assert dict.__getitem__(child.lanes, "doing") is dict.__getitem__(parent.lanes, "doing")
    # Later calls write into what was given back: copied again, never changed in place.
    assert fork.call("label", {"lane": "doing", "index": 0, "label": "y"}).ok
    assert fork.call("retitle_everything", {"suffix": "?"}).ok
    assert world.state() == _seeded().state()
    assert fork.state()["Board"]["lanes"]["doing"]["cards"][0] == {
        "title": "c?", "votes": 0, "labels": ["y"], "notes": {}}


def test_a_restored_world_keeps_what_its_first_call_copied() -> None:
    # A reset loop restores one world over and over: it replaces its own state, so giving copies back
    # saves nothing there, and its first call after each restore skips the release.
    world = _seeded()
    snapshot = world.snapshot()
    saved = world.app(Board)._state
    for _ in range(2):
        world.restore(snapshot)
        assert world.call("first_with_votes", {"lane": "doing"}).result == ""
        mine = world.app(Board)._state
        assert mine is not saved and mine.lanes is not saved.lanes
        assert world.state() == _seeded().state()
    world.restore(snapshot)
    assert world.call("vote", {"lane": "todo", "index": 0}).ok
    world.restore(snapshot)
    assert world.state() == _seeded().state()


def test_a_failed_call_of_a_fork_keeps_no_copy() -> None:
    world = _seeded()
    fork = world.fork()
    assert not fork.call("retitle_everything", {"suffix": "!"}).ok
    assert fork.app(Board)._state is world.app(Board)._state
    assert fork.state() == world.state()


def test_read_only_calls_of_a_fork_copy_nothing() -> None:
    world = _seeded()
    fork = world.fork()
    assert fork.call("count", {"lane": "todo"}).result == 2
    assert fork.app(Board)._state is world.app(Board)._state


def test_fresh_values_are_adopted_and_shared_ones_are_copied_before_handed_out() -> None:
    world = _seeded()
    fork = world.fork()
    lanes = fork.app(Board).state.lanes
    assert isinstance(lanes, TrackedDict)
    cards = lanes["todo"].cards
    assert isinstance(cards, TrackedList)
    first = cards[0]
    assert first is not dict.__getitem__(world.app(Board).state.lanes, "todo").cards[0]
    assert cards[0] is first  # copied once, then its own
    first.labels.append("z")
    assert world.state()["Board"]["lanes"]["todo"]["cards"][0]["labels"] == ["x"]
    assert fork.state()["Board"]["lanes"]["todo"]["cards"][0]["labels"] == ["x", "z"]


class Sloppy(App[BoardState]):
    """Writes past the undo journal: a bug, whose effect a release must keep rather than hide."""

    @tool
    def sneak(self, title: str) -> None:
        """Archive a card with `list.append`, which no journal sees.

        Args:
            title: The card's title.
        """
        list.append(self.state.archive, Card(title=title))

    @tool
    def forget(self, lane: str) -> None:
        """Drop a lane with `dict.pop`, which no journal sees.

        Args:
            lane: The lane.
        """
        dict.pop(self.state.lanes, lane)


def test_a_copy_shortened_past_the_journal_is_kept() -> None:
    """The last lane dropped: the copy is what the original was, less its end, and still differs."""
    world = World([Sloppy(BoardState(lanes={"a": Lane(name="a"), "b": Lane(name="b")}))])
    fork = world.fork()
    assert fork.call("forget", {"lane": "b"}).ok
    assert list(fork.state()["Sloppy"]["lanes"]) == ["a"]
    assert list(world.state()["Sloppy"]["lanes"]) == ["a", "b"]


def test_a_copy_changed_past_the_journal_is_kept() -> None:
    world = World([Sloppy()])
    fork = world.fork()
    assert fork.call("sneak", {"title": "x"}).ok
    assert [card["title"] for card in fork.state()["Sloppy"]["archive"]] == ["x"]
    assert world.state()["Sloppy"]["archive"] == []


def _stop_after(values: TrackedList, count: int) -> None:
    """A scan that stops early, as a lookup does: the list remembers the prefix it claimed."""
    for number, _ in enumerate(values, 1):
        if number == count:
            return


@pytest.mark.parametrize("shift", [
    lambda cards: cards.pop(0),
    lambda cards: cards.remove(cards[0]),
    lambda cards: cards.__delitem__(1),
    lambda cards: cards.__delitem__(slice(0, 2)),
    lambda cards: cards.__setitem__(slice(0, 2), []),
    lambda cards: cards.reverse(),
    lambda cards: cards.sort(key=lambda card: card.title, reverse=True),
    lambda cards: cards.insert(0, list.__getitem__(cards, 5)),
    lambda cards: cards.__setitem__(0, list.__getitem__(cards, 5)),
])
def test_a_scan_hands_out_only_owned_items_after_an_early_stop_and_a_shift(shift: Any) -> None:
    world = World([Board()])
    for number in range(8):
        world.call("add_card", {"lane": "todo", "title": f"card {number}"})
    before = world.state()
    fork = world.fork()
    cards = fork.app(Board).state.lanes["todo"].cards
    _stop_after(cards, 3)
    _stop_after(cards, 4)  # reads the first three as they are, claims the fourth
    shift(cards)  # moves a shared card (or puts one) before the claimed prefix
    for card in cards:
        assert _owner(card) is _owner(cards)
        card.votes += 1
    assert world.state() == before
    assert all(card["votes"] == 1 for card in fork.state()["Board"]["lanes"]["todo"]["cards"])


def test_an_owned_prefix_survives_appends_and_is_read_without_copies() -> None:
    world = World([Board()])
    for number in range(6):
        world.call("add_card", {"lane": "todo", "title": f"card {number}"})
    fork = world.fork()
    cards = fork.app(Board).state.lanes["todo"].cards
    _stop_after(cards, 3)
    claimed = list.copy(cards)[:3]
    cards.append(Card(title="new"))
    _stop_after(cards, 5)
    assert all(a is b for a, b in zip(list.copy(cards)[:3], claimed, strict=True))
    assert [_owner(card) is _owner(cards) for card in list.copy(cards)] == [True] * 5 + [False, True]
    assert len(list(cards)) == 7 and getattr(cards, ALL_OWNED) is _owner(cards)  # a full pass: all owned


def test_a_phone_app_reads_the_device_without_taking_a_copy() -> None:
    world = World([BaseApi(), MessageApi()])
    world.load({"BaseApi": {"wifi": True}})
    snapshot = world.snapshot()
    for _ in range(2):  # after a snapshot, and after a restore (whose first call keeps what it copies)
        device = world.app("BaseApi")._state
        deleted = world.call("delete_message", {"message_id": 1})
        assert deleted.ok and deleted.result["status"] is True
        assert world.app("BaseApi")._state is device
        world.restore(snapshot)


@pytest.mark.parametrize("shared_by", ["snapshot", "fork"])
def test_a_write_to_a_shared_state_s_own_scalar_field_is_kept(shared_by: str) -> None:
    """The call copies the shared top model to write its `wifi` (a field set at construction, so the copy's
    set of given fields is the original's); the journal names the top model itself though no nested field
    differs, and releasing what the call copied for nothing must not give that copy back."""
    world = World([BaseApi(state={"wifi": False, "logged_in": False})])
    other = world.snapshot() if shared_by == "snapshot" else world.fork()
    assert world.call("turn_on_wifi").ok
    assert world.state()["BaseApi"]["wifi"] is True
    if shared_by == "snapshot":
        world.restore(other)  # type: ignore[arg-type]
        assert world.state()["BaseApi"]["wifi"] is False
    else:
        assert other.state()["BaseApi"]["wifi"] is False  # type: ignore[union-attr]


class Shelf(StateModel):
    items: list[Card] = []


class ShelfApp(App[Shelf]):
    """Reads one item (any index, negative too), then takes the last one off."""

    app_name = "Shelf"

    @tool
    def read_then_pop(self, index: int, pops: int = 1) -> str:
        """Read an item's title, then remove the last items.

        Args:
            index: Which item to read first.
            pops: How many items to remove from the end.
        """
        title = self.state.items[index].title
        for _ in range(pops):
            self.state.items.pop()
        return title


@pytest.mark.parametrize(("titles", "index", "pops"), [
    ("ab", 1, 1), ("ab", -2, 1), ("abc", 2, 2),
], ids=["last, by position", "first, from the end", "past the new end"])
def test_a_claimed_item_whose_list_shrank_below_its_index_stays_claimed(titles: str, index: int, pops: int) -> None:
    """The item the call read (and so copied from the shared list) sits at an index the list no longer
    has when the call ends; the release must see that and leave the list alone."""
    world = World([ShelfApp(Shelf(items=[Card(title=t, labels=[t]) for t in titles]))])
    snapshot = world.snapshot()
    record = world.call("read_then_pop", {"index": index, "pops": pops})
    assert record.ok and record.result == titles[index]
    assert [item["title"] for item in world.state()["Shelf"]["items"]] == list(titles[:-pops])
    world.restore(snapshot)
    assert [item["title"] for item in world.state()["Shelf"]["items"]] == list(titles)


def test_ending_a_journal_outside_a_world_releases_its_claims_and_restores_the_previous_one() -> None:
    from sandbox.journal import Journal, active_journal, begin, end

    outer, inner = Journal("outer", False), Journal("inner", False)
    outer_token = begin(outer)
    inner.record_claims()
    token = begin(inner)
    assert active_journal() is inner
    end(token)
    assert active_journal() is outer and inner.claims is None  # released: nothing left to give back
    end(outer_token)
    assert active_journal() is None


class Pins(App[BoardState]):
    """Votes for a lane's pinned card: a model inside a tuple, copied with the tuple."""

    @tool
    def vote_pinned(self, lane: str) -> int:
        """Vote for the lane's first pinned card.

        Args:
            lane: The lane.
        """
        card = self.state.lanes[lane].pinned[0]
        card.votes += 1
        return card.votes


def test_a_change_inside_a_copied_tuple_is_kept() -> None:
    board = BoardState(lanes={"a": Lane(name="a", pinned=(Card(title="p"),))})
    world = World([Pins(board)])
    fork = world.fork()
    assert fork.call("vote_pinned", {"lane": "a"}).result == 1
    assert fork.state()["Pins"]["lanes"]["a"]["pinned"][0]["votes"] == 1
    assert fork.call("vote_pinned", {"lane": "a"}).result == 2
    assert world.state()["Pins"]["lanes"]["a"]["pinned"][0]["votes"] == 0


class NotedCard(StateModel):
    title: str
    labels: list[str] = []
    _note: str = PrivateAttr(default="")


class Notes(StateModel):
    cards: list[NotedCard] = []


class Noting(App[Notes]):
    """Keeps a private note on a card: private attributes are no field, so no journal entry records them."""

    @tool
    def note(self, index: int, text: str) -> None:
        """Note something on a card.

        Args:
            index: The card.
            text: The note.
        """
        self.state.cards[index]._note = text

    @tool(mutates=False)
    def read_note(self, index: int) -> str:
        """Read a card's note.

        Args:
            index: The card.
        """
        return self.state.cards[index]._note


def test_a_copy_with_private_attributes_is_kept_by_the_release() -> None:
    """A copy holding private attributes may have changed unseen, so the release never gives it back."""
    world = World([Noting(Notes(cards=[NotedCard(title="a", labels=["x"])]))])
    fork = world.fork()
    assert fork.call("note", {"index": 0, "text": "remember"}).ok
    assert fork.call("read_note", {"index": 0}).result == "remember"
    assert world.call("read_note", {"index": 0}).result == ""
