"""Hypothesis properties of the engine: atomicity, snapshots, forks, parsing."""

from __future__ import annotations

import string
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sandbox import Call, ParseError, World, parse_calls
from scenarios.todo import todo_world
from tests.chaos import STEPS, chaos_world

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


@SETTINGS
@given(st.lists(st.tuples(st.sampled_from(["add_task", "complete_task", "reopen_task", "archive_task",
                                           "tag_tasks", "delete_task", "list_tasks"]),
                          st.fixed_dictionaries({}, optional={
                              "title": st.text(max_size=4), "task_id": st.integers(0, 4),
                              "task_ids": st.lists(st.integers(0, 4), max_size=3),
                              "tag": st.text(max_size=3)})), max_size=15))
def test_todo_world_failed_calls_are_atomic(calls: list) -> None:
    world = todo_world(tasks=2)
    ids_seen: set[int] = set()
    for name, arguments in calls:
        before = world.state()
        record = world.call(name, arguments)
        if not record.ok:
            assert world.state() == before
        ids = [t["id"] for t in world.state()["Todo"]["tasks"]]
        assert len(ids) == len(set(ids))
        ids_seen.update(ids)


code_like = st.text(alphabet=string.printable, max_size=200)
fragments = st.lists(
    st.sampled_from(["[", "]", "(", ")", "{", "}", "'", '"', ",", "=", ":", "f", "g", "a", "1", "-",
                     "__import__", "os", ".", "system", "lambda", "+", "*", "true", "null", " ",
                     '"name"', '"arguments"', "```", "\n", "\\"]),
    max_size=60,
).map("".join)


@settings(max_examples=400, deadline=None)
@given(st.one_of(code_like, fragments))
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
@given(st.one_of(code_like, fragments))
def test_execute_never_raises_on_any_text(text: str) -> None:
    world = chaos_world()
    before = world.state()
    records = world.execute(text)
    if not records:  # only a message that really holds zero calls, such as "[]"
        assert parse_calls(text) == []
    assert [r.seq for r in records] == list(range(len(records)))
    if all(r.error is not None for r in records):
        assert world.state() == before
