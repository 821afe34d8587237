"""Hypothesis properties of the engine: atomicity, snapshots, forks, parsing."""

from __future__ import annotations

import json
import string
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sandbox import Call, CallRecord, ParseError, World, parse_calls, render_calls
from sandbox.testing import calls, world_machine
from scenarios.todo import todo_world
from tests.chaos import STEPS, chaos_world
from tests.worlds import bundled

pytestmark = pytest.mark.long_running  # collected first: see tests/conftest.py

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

chaos_call = st.builds(
    lambda steps, value, fail_at, crash: ("mutate", {"steps": steps, "value": value,
                                                     "fail_at": fail_at, "crash": crash}),
    st.lists(st.sampled_from(STEPS), max_size=8),
    st.integers(-5, 50),
    st.one_of(st.none(), st.integers(0, 8)),
    st.booleans(),
)
junk_call = st.one_of(
    st.tuples(st.sampled_from(["mutate", "peek", "sneaky_write", "nope", "Chaos.mutate"]),
              st.dictionaries(st.sampled_from(["steps", "value", "fail_at", "crash", "x"]),
                              st.one_of(st.integers(), st.text(max_size=5), st.none(),
                                        st.lists(st.sampled_from([*STEPS, "bogus"]), max_size=3)),
                              max_size=4)),
)
any_call = st.one_of(chaos_call, chaos_call, junk_call)


def fingerprint(world: World) -> tuple[Any, ...]:
    return world.state(), world.clock.now(), world.rng.draws, dict(world._ids)


@SETTINGS
@given(st.lists(any_call, max_size=12))
def test_a_failed_call_leaves_the_world_exactly_as_it_was(calls: list[tuple[str, dict]]) -> None:
    world = chaos_world()
    for name, arguments in calls:
        before = fingerprint(world)
        record = world.call(name, arguments)
        if record.error is not None:
            assert fingerprint(world) == before
            assert not record.changed


@SETTINGS
@given(st.lists(any_call, max_size=6), st.lists(any_call, max_size=10))
def test_restore_gives_back_the_snapshot(prefix: list, later: list) -> None:
    world = chaos_world()
    for name, arguments in prefix:
        world.call(name, arguments)
    snapshot = world.snapshot()
    expected = fingerprint(world), [r.to_dict() for r in world.log]
    for name, arguments in later:
        world.call(name, arguments)
    world.restore(snapshot)
    assert (fingerprint(world), [r.to_dict() for r in world.log]) == expected
    # and the restored world behaves exactly like a never-diverged one
    replay = chaos_world()
    for name, arguments in prefix + later:
        replay.call(name, arguments)
    for name, arguments in later:
        world.call(name, arguments)
    assert fingerprint(world) == fingerprint(replay)


@SETTINGS
@given(st.lists(any_call, max_size=5), st.lists(st.tuples(st.booleans(), any_call), max_size=14))
def test_a_fork_and_its_parent_never_influence_each_other(prefix: list, steps: list) -> None:
    parent = chaos_world()
    for name, arguments in prefix:
        parent.call(name, arguments)
    child = parent.fork()
    parent_calls = [call for in_child, call in steps if not in_child]
    child_calls = [call for in_child, call in steps if in_child]
    for in_child, (name, arguments) in steps:
        (child if in_child else parent).call(name, arguments)

    for target, own in ((parent, parent_calls), (child, child_calls)):
        reference = chaos_world()
        for name, arguments in prefix + own:
            reference.call(name, arguments)
        assert fingerprint(target) == fingerprint(reference)
        assert [r.to_dict() for r in target.log] == [r.to_dict() for r in reference.log]


def task_ids_unique_and_below_the_counter(state: dict[str, Any]) -> bool:
    todo = state["Todo"]
    ids = [t["id"] for t in todo["tasks"]]
    return len(ids) == len(set(ids)) and all(i < todo["next_id"] for i in ids)


def archived_tasks_stay_archived(call: Call, record: CallRecord, before: dict[str, Any],
                                 after: dict[str, Any]) -> bool:
    status = {t["id"]: t["status"] for t in after["Todo"]["tasks"]}
    return all(status.get(t["id"], "archived") == "archived" for t in before["Todo"]["tasks"]
               if t["status"] == "archived")


TodoMachine = world_machine(lambda: todo_world(tasks=2), invariants=[task_ids_unique_and_below_the_counter],
                            postconditions=[archived_tasks_stay_archived], name="todo")
TodoMachine.TestCase.settings = settings(TodoMachine.TestCase.settings, max_examples=15, stateful_step_count=30,
                                         database=None)
test_todo_world_keeps_its_promises = TodoMachine.TestCase


def drawn_calls(*worlds: World) -> st.SearchStrategy[list[Call]]:
    """Lists of valid calls of these worlds' tools, as the kit draws them (against their starting state)."""
    return st.lists(st.one_of([calls(world) for world in worlds]), min_size=1, max_size=5)


CALL_WORLDS = (todo_world(tasks=2), chaos_world(), *(entry.configured() for entry in bundled()[1:5]))


@settings(max_examples=200, deadline=None)
@given(drawn_calls(*CALL_WORLDS))
def test_rendered_calls_parse_back_to_the_same_calls(drawn: list[Call]) -> None:
    assert parse_calls(render_calls(drawn)) == drawn
    as_json = json.dumps([{"name": c.name, "arguments": c.arguments} for c in drawn], ensure_ascii=False)
    assert parse_calls(as_json) == drawn


code_like = st.text(alphabet=string.printable, max_size=200)
fragments = st.lists(
    st.sampled_from(["[", "]", "(", ")", "{", "}", "'", '"', ",", "=", ":", "f", "g", "a", "1", "-",
                     "__import__", "os", ".", "system", "lambda", "+", "*", "true", "null", " ",
                     '"name"', '"arguments"', "```", "\n", "\\"]),
    max_size=60,
).map("".join)
# Well-formed messages of real calls (the chaos world's, so `execute` runs them), and the same
# messages with a fragment spliced in somewhere: text that is valid, or nearly so.
rendered = drawn_calls(chaos_world()).map(render_calls)


@st.composite
def spliced(draw: st.DrawFn) -> str:
    text = draw(rendered)
    at = draw(st.integers(0, len(text)))
    return text[:at] + draw(fragments) + text[at:]


model_output = st.one_of(rendered, spliced(), code_like, fragments)


@settings(max_examples=400, deadline=None)
@given(model_output)
def test_parse_calls_raises_nothing_but_parse_error(text: str) -> None:
    try:
        calls = parse_calls(text)
    except ParseError:
        return
    assert isinstance(calls, list)
    for call in calls:
        assert isinstance(call, Call) and isinstance(call.name, str)
        assert isinstance(call.arguments, dict)


@settings(max_examples=200, deadline=None)
@given(model_output)
def test_execute_never_raises_on_any_text(text: str) -> None:
    world = chaos_world()
    before = world.state()
    records = world.execute(text)
    if not records:  # only a message that really holds zero calls, such as "[]"
        assert parse_calls(text) == []
    assert [r.seq for r in records] == list(range(len(records)))
    if all(r.error is not None for r in records):
        assert world.state() == before
