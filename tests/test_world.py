"""World.call and friends: records, error kinds, atomicity, ids, randomness, time travel."""

from __future__ import annotations

import datetime as dt

import pytest

from sandbox import App, CallRecord, StateModel, ToolError, World, tool
from sandbox.state import WITH_INTERNAL
from scenarios.todo import TodoApp, TodoState, todo_world
from tests.chaos import ChaosApp, chaos_world


def test_successful_call_is_recorded_with_validated_arguments() -> None:
    world = todo_world()
    record = world.call("add_task", {"title": "buy milk", "tags": ["home"]})
    assert isinstance(record, CallRecord)
    assert record.ok and record.error is None
    assert record.seq == 0 and record.tool == "add_task" and record.app == "Todo"
    assert record.arguments == {"title": "buy milk", "tags": ["home"]}
    assert record.validated == {"title": "buy milk", "tags": ["home"], "due": None}
    assert record.result == {"id": 1, "status": "open"}
    assert record.changed is True
    assert record.time == world.clock.now()
    assert list(world.log) == [record]
    assert world.state()["Todo"]["tasks"][0]["title"] == "buy milk"


def test_read_only_call_reports_no_change() -> None:
    world = todo_world(tasks=2)
    record = world.call("list_tasks")
    assert record.ok and not record.changed
    assert [t["id"] for t in record.result] == [1, 2]


def test_unknown_tool_suggests_close_names_and_changes_nothing() -> None:
    world = todo_world(tasks=1)
    before = world.state()
    record = world.call("add_tsk", {"title": "x"})
    assert record.error is not None and record.error.type == "unknown_tool"
    assert "add_task" in record.error.message
    assert world.state() == before and len(world.log) == 1


@pytest.mark.parametrize(
    ("arguments", "parameter", "problem"),
    [
        ({}, "title", "missing required argument"),
        ({"title": "x", "colour": "red"}, "colour", "unexpected argument"),
        ({"title": 5}, "title", "valid string"),
        ({"title": "x", "tags": "home"}, "tags", "valid list"),
        ({"title": ""}, "title", "at least 1 character"),
    ],
)
def test_invalid_arguments_name_the_parameter(arguments: dict, parameter: str, problem: str) -> None:
    world = todo_world(tasks=1)
    before = world.state()
    record = world.call("add_task", arguments)
    assert record.error is not None and record.error.type == "invalid_arguments"
    assert any(d["parameter"] == parameter and problem in d["problem"] for d in record.error.details)
    assert f"'{parameter}'" in record.error.message
    assert world.state() == before


def test_a_refusal_lists_the_first_problems_and_counts_the_rest() -> None:
    """1,500 bad values in a 7 KB call: the agent reads back ten problems and a count, not 1,500 of them."""
    world = todo_world(tasks=1)
    before = world.state()
    record = world.call("tag_tasks", {"task_ids": ["x"] * 1_500, "tag": ""})
    assert record.error is not None and record.error.type == "invalid_arguments"
    details = record.error.details
    assert [d["parameter"] for d in details[:10]] == [f"task_ids.{i}" for i in range(10)]
    assert details[-1] == {"parameter": "(arguments)", "problem": "1491 more problems, not listed",
                           "type": "not_listed", "count": 1491}
    assert len(details) == 11
    assert record.error.message.endswith("; and 1491 more problems like these, not listed")
    assert "task_ids.10" not in record.error.message and len(record.error.message) < 1_500
    assert world.state() == before
    few = world.call("tag_tasks", {"task_ids": ["x"] * 9, "tag": ""})  # ten problems: all listed, none counted
    assert few.error is not None and len(few.error.details) == 10 and "not listed" not in few.error.message


def test_arguments_that_are_not_an_object_are_an_error() -> None:
    world = todo_world()
    record = world.call("add_task", ["buy milk"])  # type: ignore[arg-type]
    assert record.error is not None and record.error.type == "invalid_arguments"


def test_non_string_tool_name_is_an_error_not_a_crash() -> None:
    world = todo_world()
    record = world.call(None, {})  # type: ignore[arg-type]
    assert record.error is not None and record.error.type == "unknown_tool"


def test_lax_coercion_accepts_numeric_strings_strict_does_not() -> None:
    lax = todo_world(tasks=1)
    assert lax.call("complete_task", {"task_id": "1"}).ok
    strict = World([TodoApp(TodoState(tasks=[{"id": 1, "title": "t"}], next_id=2))], coercion="strict")
    record = strict.call("complete_task", {"task_id": "1"})
    assert record.error is not None and record.error.type == "invalid_arguments"
    assert strict.call("complete_task", {"task_id": 1}).ok


def test_tool_error_rolls_back_partial_changes() -> None:
    world = todo_world(tasks=3)
    before = world.state()
    record = world.call("tag_tasks", {"task_ids": [1, 2, 99], "tag": "urgent"})
    assert record.error is not None and record.error.type == "not_found"
    assert world.state() == before
    assert not record.changed


def test_crash_inside_a_tool_is_an_internal_error_and_rolls_back() -> None:
    world = chaos_world()
    before = world.state()
    record = world.call("mutate", {"steps": ["append", "counter", "index_set"], "fail_at": 2, "crash": True})
    assert record.error is not None and record.error.type == "internal_error"
    assert "ZeroDivisionError" in record.error.message
    assert world.state() == before


def test_read_only_tool_that_writes_is_refused_and_rolled_back() -> None:
    world = chaos_world()
    before = world.state()
    record = world.call("sneaky_write")
    assert record.error is not None and record.error.type == "internal_error"
    assert "read-only" in record.error.message
    assert world.state() == before


def test_a_read_only_tool_shares_one_journal_that_a_refused_write_leaves_empty() -> None:
    # One journal serves every call of a read-only tool, in every world: it must hold nothing.
    first, second = chaos_world(), chaos_world()
    journal = first.tools["sneaky_write"].read_journal
    for world in (first, second, first):
        before = world.state()
        record = world.call("sneaky_write")
        assert record.error is not None and "read-only" in record.error.message
        assert world.state() == before
        assert world.tools["sneaky_write"].read_journal is journal and not journal.changed
        assert journal._entries is None and journal._saved is None and journal._grown is None


def test_ids_rng_and_clock_are_restored_after_a_failed_call() -> None:
    world = chaos_world(seed=3)
    now, draws = world.clock.now(), world.rng.draws
    record = world.call("mutate", {"steps": ["next_id", "rng", "clock", "counter"], "fail_at": 3})
    assert not record.ok
    assert world.clock.now() == now and world.rng.draws == draws
    assert world.next_id("chaos") == 1


def test_same_seed_same_calls_same_bytes() -> None:
    calls = [("mutate", {"steps": ["rng", "append", "next_id"], "value": 3}),
             ("mutate", {"steps": ["rng", "meta_first"], "value": 1})]

    def run(seed: int) -> list:
        world = chaos_world(seed=seed)
        return [world.call(name, args).result for name, args in calls] + [world.state()]

    assert run(7) == run(7)
    assert run(7) != run(8)


def test_execute_runs_every_call_in_order() -> None:
    world = todo_world()
    records = world.execute("[add_task(title='a'), add_task(title='b'), complete_task(task_id=1)]")
    assert [r.ok for r in records] == [True, True, True]
    assert [r.seq for r in records] == [0, 1, 2]
    assert world.state()["Todo"]["tasks"][0]["status"] == "done"


def test_execute_unreadable_message_is_one_parse_error_record() -> None:
    world = todo_world()
    records = world.execute("I think I should add a task")
    assert len(records) == 1 and records[0].error is not None
    assert records[0].error.type == "parse_error"
    assert records[0].tool is None and len(world.log) == 1


def test_dotted_names_resolve_to_the_app() -> None:
    world = todo_world()
    assert world.call("Todo.add_task", {"title": "x"}).ok
    assert world.call("Other.add_task", {"title": "x"}).error.type == "unknown_tool"  # type: ignore[union-attr]


def test_duplicate_tool_names_across_apps_are_rejected() -> None:
    with pytest.raises(ValueError, match="defined by both"):
        World([TodoApp(), TodoApp(name="Todo2")])


def test_an_app_belongs_to_one_world() -> None:
    app = TodoApp()
    World([app])
    with pytest.raises(ValueError, match="another world"):
        World([app])


def test_clock_tick_advances_per_call() -> None:
    world = World([TodoApp()], start=dt.datetime(2025, 1, 1), tick=dt.timedelta(seconds=30))
    first = world.call("list_tasks")
    second = world.call("list_tasks")
    assert second.time - first.time == dt.timedelta(seconds=30)


def test_results_do_not_alias_the_state() -> None:
    world = todo_world(tasks=1)
    result = world.call("get_task", {"task_id": 1}).result
    world.call("complete_task", {"task_id": 1})
    assert result["status"] == "open"


class _Entry(StateModel):
    name: str
    tags: list[str] = []


class _DatedEntry(_Entry):
    when: dt.date | None = None


class _Entries(StateModel):
    entries: list[_Entry] = []


class _EntriesApp(App[_Entries]):
    @tool(mutates=False)
    def entry(self, index: int) -> _Entry:
        """One entry as it is.

        Args:
            index: Its position.
        """
        return self.state.entries[index]


def test_model_results_are_the_dump_of_their_own_class() -> None:
    # The call path dumps a model with its class's lean serializer; a subclass inherits the attribute
    # holding its parent's, which must not serve it (its extra fields would be lost).
    world = World([_EntriesApp({"entries": [_Entry(name="a", tags=["x"]),
                                            _DatedEntry(name="b", when=dt.date(2024, 5, 1))]})])
    first, second = (world.call("entry", {"index": i}).result for i in (0, 1))
    assert first == {"name": "a", "tags": ["x"]}
    assert second == {"name": "b", "tags": [], "when": "2024-05-01"}
    assert world.call("entry", {"index": 0}).result == first
    first["tags"].append("y")  # a result is the log's own
    assert world.state()["_EntriesApp"]["entries"][0]["tags"] == ["x"]


def test_load_applies_initial_config_per_app() -> None:
    world = todo_world()
    world.load({"Todo": {"tasks": [{"id": 5, "title": "loaded"}], "next_id": 6}})
    assert world.call("add_task", {"title": "next"}).result == {"id": 6, "status": "open"}
    with pytest.raises(KeyError):
        world.load({"Nope": {}})


def test_snapshot_restore_rewinds_state_clock_ids_and_log() -> None:
    world = chaos_world()
    world.call("mutate", {"steps": ["append"]})
    snap = world.snapshot()
    state, log_len = world.state(), len(world.log)
    world.call("mutate", {"steps": ["append", "clock", "next_id", "tag_first"]})
    world.restore(snap)
    assert world.state() == state
    assert len(world.log) == log_len
    assert world.next_id("chaos") == 1
    assert world.clock.now() == snap.now
    # restoring twice works: the snapshot itself was never written to
    world.call("mutate", {"steps": ["clear_items"]})
    world.restore(snap)
    assert world.state() == state


def test_restore_rejects_a_snapshot_of_a_different_world() -> None:
    with pytest.raises(ValueError):
        todo_world().restore(chaos_world().snapshot())


def test_fork_is_independent_both_ways() -> None:
    parent = chaos_world()
    parent.call("mutate", {"steps": ["append"]})
    child = parent.fork()
    child.call("mutate", {"steps": ["tag_first", "meta_first", "flag_add", "counter"], "value": 5})
    assert parent.state() != child.state()
    parent_state = parent.state()
    parent.call("mutate", {"steps": ["rename_first"], "value": 1})
    assert child.state()["Chaos"]["items"][0]["name"] == "seed"
    assert parent.state() != parent_state
    assert len(parent.log) == 2 and len(child.log) == 2
    assert parent.log[1].tool == "mutate" and child.log[1].arguments["value"] == 5


def test_direct_state_access_outside_calls_never_leaks_into_a_fork() -> None:
    parent = chaos_world()
    child = parent.fork()
    parent.app(ChaosApp).state.counter = 99
    assert child.state()["Chaos"]["counter"] == 0


def test_deep_fork_chains_keep_the_whole_log() -> None:
    world = todo_world()
    for i in range(100):
        world = world.fork()
        world.call("add_task", {"title": f"t{i}"})
    assert len(world.log) == 100
    assert [r.seq for r in world.log] == list(range(100))
    assert world.log[57].arguments == {"title": "t57"}
    assert world.log[-1].arguments == {"title": "t99"}


def test_two_worlds_of_the_same_app_share_nothing() -> None:
    first, second = todo_world(), todo_world()
    first.call("add_task", {"title": "only here"})
    assert second.state()["Todo"]["tasks"] == []
    assert second.call("add_task", {"title": "x"}).result["id"] == 1  # type: ignore[index]


def test_diff_names_each_field() -> None:
    world = todo_world(tasks=2)
    expected = world.state()
    world.call("complete_task", {"task_id": 2})
    diff = world.diff(expected)
    assert diff and len(diff) == 1
    assert diff.differences[0].path == "Todo.tasks[1].status"
    assert str(diff) == 'Todo.tasks[1].status: expected "open", got "done"'
    assert diff.to_dict()[0]["actual"] == "done"
    world.call("reopen_task", {"task_id": 2})
    assert not world.diff(expected) and world.diff(expected).equal


def test_record_to_dict_is_json_ready() -> None:
    import json

    world = todo_world()
    world.call("add_task", {"title": "x"})
    world.call("complete_task", {"task_id": 9})
    text = json.dumps(world.log.to_list())
    assert '"not_found"' in text


def test_state_bytes_do_not_depend_on_the_process_hash_seed() -> None:
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    code = ("import json; from tests.chaos import chaos_world; w = chaos_world(); "
            "w.call('mutate', {'steps': ['flag_add', 'flag_add', 'flag_add', 'flags_update', 'index_set']}); "
            "print(json.dumps(w.state()))")
    root = Path(__file__).resolve().parents[1]
    outputs = {
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=root,
                       env={**os.environ, "PYTHONHASHSEED": str(seed)}).stdout
        for seed in (1, 2, 3, 4)
    }
    assert len(outputs) == 1
    assert json.loads(outputs.pop())["Chaos"]["flags"] == ["f0", "f3", "item0", "item1", "item2"]


class _Counter(StateModel):
    """A state with an internal field: state for the engine, absent from dumps."""

    internal_fields = frozenset({"pending"})

    count: int = 0
    pending: tuple[int, ...] = ()


class _CounterApp(App[_Counter]):
    def __init__(self, label: str = "fixed") -> None:
        super().__init__()
        self.label = label  # fixed data, set before the app joins a world

    @tool
    def bump(self, fail: bool = False) -> int:
        """Add the next pending amount (or 1) to the count.

        Args:
            fail: Fail after taking the amount.
        """
        state = self.state
        amount, state.pending = (state.pending[0], state.pending[1:]) if state.pending else (1, ())
        state.count += amount
        if fail:
            raise ToolError("refused after taking")
        return state.count


def test_an_app_refuses_attributes_once_it_has_joined_a_world() -> None:
    app = _CounterApp(label="set in the constructor")
    app.note = "still allowed: not in a world yet"  # type: ignore[attr-defined]
    world = World([app])
    with pytest.raises(AttributeError, match=r"'note'.*state model \(_Counter\)"):
        app.note = "changed"  # type: ignore[attr-defined]
    with pytest.raises(AttributeError, match="'label'"):
        del app.label
    with pytest.raises(AttributeError, match="'name'"):
        app.name = "renamed"
    fork = world.fork()
    forked = fork.app(_CounterApp)
    assert forked.label == "set in the constructor" and forked.note == "still allowed: not in a world yet"  # type: ignore[attr-defined]
    with pytest.raises(AttributeError, match="'label'"):
        forked.label = "x"
    assert fork.call("bump").result == 1 and world.call("bump").result == 1  # engine bookkeeping still works


def test_internal_fields_are_state_but_not_in_dumps() -> None:
    world = World([_CounterApp()])
    app = world.app(_CounterApp)
    assert world.state() == {"_CounterApp": {"count": 0}}
    snapshot = world.snapshot()
    app.state.pending = (10,)
    world.restore(snapshot)
    assert world.call("bump").result == 1  # the restore took the queued amount back out
    app.state.pending = (10, 20)
    fork = world.fork()
    assert world.call("bump", {"fail": True}).error is not None
    assert world.call("bump").result == 11  # the failed call gave its amount back
    assert fork.call("bump").result == 11 and fork.call("bump").result == 31  # the fork has its own queue
    world.load({"_CounterApp": {"count": 0}})
    assert app.state.pending == (20,)  # loading other fields keeps internal ones
    assert world.state() == {"_CounterApp": {"count": 0}}
    assert app.state.model_dump(context=WITH_INTERNAL) == {"count": 0, "pending": (20,)}


def test_forks_share_id_counters_until_one_counts() -> None:
    world = World([])
    assert world.next_id("order") == 1
    fork = world.fork()
    assert fork._ids is world._ids  # shared, copy-on-write
    assert fork.next_id("order") == 2 and fork.next_id("order") == 3
    assert world.next_id("order") == 2
    other = world.fork()
    assert world.next_id("order") == 3 and other.next_id("order") == 3 and fork.next_id("order") == 4


def test_a_dropped_fork_is_freed_without_the_cyclic_collector() -> None:
    """An app refers to its world weakly: a fork and the copies its calls made go as soon as the
    fork does, not at the next collection (a world that were a cycle would cost one a pass over
    every container it holds)."""
    import gc
    import weakref

    template = todo_world(tasks=5)
    enabled = gc.isenabled()
    gc.disable()
    try:
        fork = template.fork()
        fork.call("complete_task", {"task_id": 2})
        gone, state = weakref.ref(fork), weakref.ref(fork.app(TodoApp).read_only_state)
        del fork
        assert gone() is None and state() is None
        other = template.fork()
        app = other.app(TodoApp)
        assert app.world is other
        del other  # an app alone does not keep its world alive
        with pytest.raises(RuntimeError, match="not part of a world any more"):
            app.world  # noqa: B018
    finally:
        if enabled:
            gc.enable()
    assert template.app(TodoApp).read_only_state.tasks[1].status != "done"


def test_execute_of_parsed_calls_is_execute_of_the_text() -> None:
    """A list of `Call`s (what `parse_message` gives) runs as its text does; a list holding anything else runs
    nothing and is one parse_error; a `ParseError` in it stands for a call that could not be read."""
    from sandbox import parse_message
    from sandbox.errors import ParseError
    from sandbox.parsing import Call

    text = "[add_task(title='a'), list_tasks(), complete_task(task_id=99)]"
    by_text, by_calls = todo_world(tasks=3), todo_world(tasks=3)
    assert by_calls.execute(parse_message(text).calls) == by_text.execute(text)
    assert by_calls.state() == by_text.state()

    world = todo_world(tasks=3)
    before = world.state()
    (record,) = world.execute([Call("add_task", {"title": "b"}), "add_task(title='c')"])  # type: ignore[list-item]
    assert record.error is not None and record.error.type == "parse_error" and world.state() == before

    records = world.execute([ParseError("could not read this one"), Call("add_task", {"title": "d"})])
    assert [r.error.type if r.error else None for r in records] == ["parse_error", None]
    assert len(world.state()["Todo"]["tasks"]) == len(before["Todo"]["tasks"]) + 1
