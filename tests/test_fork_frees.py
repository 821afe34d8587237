"""A dropped world goes by reference counting alone: nothing among a world, its apps, their states, a call's
journal and claims, and the call log refers back to what holds it. A cycle would keep a dropped fork and the
copies its calls made alive until a cyclic collection, which would then pass over every container they hold
(issue 41: a fork's first write at 1 MB was charged that pass)."""

from __future__ import annotations

import gc
import random
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest

from sandbox import App, StateModel, ToolError, World, tool
from sandbox.schemas import export_all
from sandbox.testing.fuzzing import ValuePool, valid_arguments
from scenarios.fuzz_targets import TARGETS


@contextmanager
def collector_off() -> Iterator[None]:
    """The collector off (a dropped world must go without it), on again afterwards if it was."""
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def cyclic_garbage(run: Callable[[], None]) -> int:
    """How many objects `run` left that only the cyclic collector frees."""
    with collector_off():
        run()
        return gc.collect()


class Lane(StateModel):
    cards: list[str] = []
    owners: set[str] = set()


class BoardState(StateModel):
    """Three nested fields or more: a fork's first writing call claims them on read (`claim_on_read`), and
    the generation of its top holds the call's claims."""

    lanes: dict[str, Lane] = {}
    archive: list[str] = []
    tags: dict[str, int] = {}
    moves: int = 0


class Board(App[BoardState]):
    @tool()
    def add(self, lane: str, card: str) -> int:
        """Add a card to a lane, creating the lane.

        Args:
            lane: The lane.
            card: The card.
        """
        lanes = self.state.lanes
        if lane not in lanes:
            lanes[lane] = Lane()
        lanes[lane].cards.append(card)
        self.state.moves += 1
        return self.world.next_id("card")

    @tool()
    def archive(self, lane: str) -> int:
        """Move a lane's cards to the archive and delete the lane.

        Args:
            lane: The lane.
        """
        if lane not in self.state.lanes:
            raise ToolError(f"no lane {lane!r}", code="not_found")
        self.state.archive.extend(self.state.lanes[lane].cards)
        del self.state.lanes[lane]
        return self.world.rng.randint(1, 6)

    @tool()
    def shuffle_then_fail(self, lane: str) -> None:
        """Change a lane, then fail (undone).

        Args:
            lane: The lane.
        """
        self.state.lanes[lane].cards.reverse()
        self.state.tags[lane] = 1
        raise ToolError("not today", code="refused")

    @tool()
    def crash(self, lane: str) -> None:
        """Change a lane, then crash (undone).

        Args:
            lane: The lane.
        """
        self.state.lanes[lane].owners.add("x")
        raise RuntimeError("a bug")

    @tool(mutates=False)
    def lanes(self) -> list[str]:
        """The lanes."""
        return sorted(self.state.lanes)


def board() -> World:
    return World([Board({"lanes": {"a": {"cards": ["1", "2"]}, "b": {"cards": ["3"]}}, "tags": {"a": 0}})], seed=1)


def test_a_dropped_fork_and_everything_its_calls_did_go_by_reference_counting() -> None:
    """Every kind of call (writing, deleting, failing, crashing, reading, counting ids, drawing numbers),
    snapshots, restores and forks of forks: the collector finds nothing once the worlds are dropped. Each
    world and the state its calls copied are gone the moment the last reference goes."""
    template = board()
    gone: list[weakref.ref[object]] = []

    def episode() -> None:
        fork = template.fork()
        records = [fork.call("add", {"lane": "c", "card": "4"}), fork.call("shuffle_then_fail", {"lane": "a"}),
                   fork.call("crash", {"lane": "b"}), fork.call("lanes"), fork.call("nope")]
        snapshot = fork.snapshot()
        records.append(fork.call("archive", {"lane": "a"}))
        fork.restore(snapshot)
        inner = fork.fork()
        records.append(inner.call("archive", {"lane": "b"}))
        assert [r.error.type if r.error else None for r in records] == [
            None, "refused", "internal_error", None, "unknown_tool", None, None]
        gone.extend(weakref.ref(each) for each in (fork, inner, fork.app(Board).read_only_state,
                                                  inner.app(Board).read_only_state))

    assert cyclic_garbage(episode) == 0
    assert all(ref() is None for ref in gone)
    assert template.state() == board().state()  # and the template saw none of it


def test_a_cycle_through_a_world_would_be_caught() -> None:
    """The check above can fail: a world kept in a cycle (here, by a list holding it and itself) is found."""

    def cycle() -> None:
        held: list[object] = [board().fork()]
        held.append(held)

    assert cyclic_garbage(cycle) > 0


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_no_family_s_forks_need_the_collector(name: str) -> None:
    """Every tool of every bundled family, called on a fork with valid arguments (drawn from the world's own
    values, so many calls succeed and change the state, and others fail and are undone), twice, across a
    snapshot and restore and in a fork of the fork: nothing is left for the collector."""
    template = TARGETS[name]()
    pool, draw = ValuePool.of(template), random.Random(41)
    before = template.state()
    outcomes: set[str] = set()
    drawn = [(spec.name, valid_arguments(export_all([spec], "jsonschema")[0]["parameters"], draw, pool))
             for spec in template.tools.values()]

    def calls() -> None:
        for name_of_tool, arguments in drawn:
            fork = template.fork()
            first = fork.call(name_of_tool, arguments)
            outcomes.add("error" if first.error else "changed" if first.changed else "read")
            snapshot = fork.snapshot()
            fork.call(name_of_tool, arguments)
            fork.restore(snapshot)
            fork.fork().call(name_of_tool, arguments)

    assert cyclic_garbage(calls) == 0
    # The drawn calls reached the tools (API-Bank's level 3 writes only with a token none of its tools hands out).
    assert outcomes >= ({"read"} if name == "apibank-l3" else {"changed", "read"})
    assert template.state() == before


def test_an_app_kept_without_its_world_says_so() -> None:
    """An app refers to its world weakly (`App.world`): kept alone, it keeps its state, and a tool that needs
    the world (its clock, counters, other apps) raises a clear error instead of acting on a world gone."""
    with collector_off():
        app = board().app(Board)
        assert app.read_only_state.lanes["a"].cards == ["1", "2"]
        assert app.dump()["moves"] == 0
        with pytest.raises(RuntimeError, match="not part of a world any more"):
            app.add("a", "9")
        with pytest.raises(RuntimeError, match="not part of a world any more"):
            app.world  # noqa: B018
        with pytest.raises(ValueError, match="already belongs to another world"):
            World([app])  # nor does another world take it
