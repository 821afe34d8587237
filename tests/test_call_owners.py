"""What `World.call` asks of the engine's owners: the journal opens and closes every call (`end`, `abort`),
the clock is put back and moved on through its own methods, counters are read through `World.ids`, and the
engine's modules import one another without a cycle."""

from __future__ import annotations

import datetime as dt

import grimp
import pytest

from sandbox import App, StateModel, World, tool
from sandbox.clock import SimClock
from sandbox.journal import Journal, active_journal, begin, end
from scenarios.todo import todo_world
from tests.chaos import chaos_world
from tests.test_state import make


def test_end_says_whether_the_call_changed_anything() -> None:
    writer, reader = Journal("writer", read_only=False), Journal("reader", read_only=False)
    root = make()
    token = begin(writer)
    root.items.append(root.items[0].model_copy())
    assert end(token) is True and active_journal() is None
    token = begin(reader)
    assert len(root.items) == 3
    assert end(token) is False and active_journal() is None


def test_end_with_no_active_journal_only_resets() -> None:
    outer = Journal("outer", read_only=False)
    outer_token = begin(outer)
    token = begin(None)  # what a caller running outside any call sets
    assert end(token) is False and active_journal() is outer
    assert end(outer_token) is False and active_journal() is None


def test_abort_undoes_the_call_and_ends_it() -> None:
    journal = Journal("writer", read_only=False)
    root = make()
    before = root.model_dump()
    token = begin(journal)
    root.items.clear()
    root.lookup["c"] = 3
    journal.abort(token)
    assert root.model_dump() == before and active_journal() is None and not journal.changed


class _BrokenUndo(Journal):
    def rollback(self) -> None:
        raise RuntimeError("undo failed")


def test_abort_ends_the_call_even_when_the_undo_fails() -> None:
    outer = Journal("outer", read_only=False)
    outer_token = begin(outer)
    broken = _BrokenUndo("broken", read_only=False)
    token = begin(broken)
    with pytest.raises(RuntimeError, match="undo failed"):
        broken.abort(token)
    assert active_journal() is outer  # the failed call's journal is no longer the one writes go to
    end(outer_token)


class _Counter(StateModel):
    value: int = 0


class _Interrupting(App[_Counter]):
    app_name = "Interrupting"

    @tool
    def bump_then_stop(self) -> int:
        """Change the state and move the clock, then stop as a Ctrl-C would."""
        self.state.value += 1
        self.world.clock.advance(60)
        raise KeyboardInterrupt

    @tool
    def bump(self) -> int:
        """Change the state."""
        self.state.value += 1
        return self.state.value


def test_every_way_a_call_ends_leaves_no_journal_active() -> None:
    world = chaos_world()
    world.call("mutate", {"steps": ["append", "counter"]})
    world.call("mutate", {"steps": ["append", "counter"], "fail_at": 1})
    world.call("mutate", {"steps": ["append", "counter"], "fail_at": 1, "crash": True})
    world.call("sneaky_write")
    world.call("peek")
    assert active_journal() is None


def test_an_interrupt_inside_a_tool_is_undone_ended_and_raised() -> None:
    world = World([_Interrupting()], tick=dt.timedelta(seconds=5))
    now = world.clock.now()
    with pytest.raises(KeyboardInterrupt):
        world.call("bump_then_stop")
    assert active_journal() is None
    assert world.state() == {"Interrupting": {"value": 0}} and world.clock.now() == now and len(world.log) == 0
    record = world.call("bump")
    assert record.changed and record.result == 1 and record.time == now
    assert world.clock.now() == now + dt.timedelta(seconds=5)


def test_a_failed_call_is_recorded_at_its_start_and_the_tick_still_moves_the_clock() -> None:
    world = World([_Interrupting()], tick=dt.timedelta(seconds=5))
    start = world.clock.now()
    world.call("bump")
    failed = world.call("bump", {"unexpected": 1})
    assert failed.error is not None and failed.time == start + dt.timedelta(seconds=5)
    assert world.clock.now() == start + dt.timedelta(seconds=10)


def test_clock_set_and_step() -> None:
    start = dt.datetime(2025, 1, 1)
    clock = SimClock(start, dt.timedelta(minutes=1))
    clock.step()
    assert clock.now() == start + dt.timedelta(minutes=1)
    clock.set(start)  # back as well as forward: the world's undo and restore
    assert clock.now() == start


def test_world_ids_shows_the_counters_read_only() -> None:
    world = todo_world(tasks=0)
    assert dict(world.ids) == {}
    world.next_id("ticket")
    world.next_id("ticket")
    assert world.ids["ticket"] == 3
    with pytest.raises(TypeError):
        world.ids["ticket"] = 1  # type: ignore[index]
    fork = world.fork()
    fork.next_id("ticket")
    assert world.ids["ticket"] == 3 and fork.ids["ticket"] == 4


def test_the_engine_has_no_import_cycle() -> None:
    graph = grimp.build_graph("sandbox")
    cycles = sorted((importer, imported) for importer in graph.modules
                    for imported in graph.find_modules_directly_imported_by(importer)
                    if graph.chain_exists(importer=imported, imported=importer))
    assert cycles == []
