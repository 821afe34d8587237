"""The fuzzer, short: a few thousand seeded valid, boundary and hostile calls per bundled world.

The long run (100,000 per world) is `scripts/fuzz.py`; its figures are in docs/reliability.md.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from sandbox import CallRecord, World
from sandbox.input_limits import type_name
from sandbox.testing.fuzzing import Generator, ValuePool, fuzz_world, valid_arguments
from scenarios.fuzz_targets import TARGETS

pytestmark = pytest.mark.long_running  # collected first: see tests/conftest.py

CALLS = 2_000

# API-Bank tool crashes fixed on the `apibank` branch (MovieRecommendations on list
# arguments). Once that branch is merged this set must be emptied.
KNOWN_TOOL_CRASHES = frozenset({"MovieRecommendations"})


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_a_short_fuzz_run_finds_nothing(target: str) -> None:
    report = fuzz_world(TARGETS[target], CALLS, seed=11, name=target)
    assert report.operations == CALLS
    assert report.escaped == 0, report.examples
    assert report.atomicity_violations == 0, report.examples
    assert report.nondeterministic == 0, report.examples
    assert report.unstorable == 0, report.examples
    crashes = [e for e in report.examples if "failed:" in e and not any(t in e for t in KNOWN_TOOL_CRASHES)]
    assert crashes == []
    # The mix reaches every outcome: successes, refusals, and each kind of malformed input.
    for outcome in ("ok", "invalid_arguments", "parse_error", "unknown_tool"):
        assert report.outcomes[outcome] > 0, (outcome, report.outcomes)


def test_the_same_seed_generates_the_same_operations_and_another_seed_does_not() -> None:
    make = TARGETS["banking-en"]

    def operations(seed: int) -> list[str]:
        generator = Generator(make(), seed)
        return [repr((op.kind, op.name if type(op.name) is str else type_name(op.name),
                      op.message if type(op.message) is str else type_name(op.message)))[:300]
                for op in (generator.next() for _ in range(300))]

    assert operations(5) == operations(5)
    assert operations(5) != operations(6)


def test_valid_arguments_match_each_tools_schema() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    rnd = random.Random(3)
    refused = total = 0
    for target in ("acebench-en", "banking-en", "apibank", "todo"):
        world = TARGETS[target]()
        pool = ValuePool.of(world)
        for name, spec in sorted(world.tools.items()):
            for _ in range(5):
                arguments = valid_arguments(spec.parameters, rnd, pool)
                jsonschema.validate(arguments, spec.parameters)
                record = world.call(name, arguments)
                assert record.error is None or record.error.type != "unknown_tool"
                total += 1
                refused += record.error is not None and record.error.type == "invalid_arguments"
    # Schemas say less than validators check (a decimal amount is "a string"), so a few are refused.
    assert refused < total * 0.1, (refused, total)


def test_the_checks_catch_a_world_that_breaks_its_promises() -> None:
    from tests.chaos import chaos_world

    report = fuzz_world(chaos_world, 300, seed=1, name="chaos")
    # The engine's own test app keeps every promise (its sneaky_write is a deliberate internal error).
    assert (report.escaped, report.atomicity_violations, report.nondeterministic, report.unstorable) == (0, 0, 0, 0)

    class MovesRandomOnFailure(World):
        """A world whose failed calls move the random source: the atomicity check must see it."""

        __slots__ = ()

        def call(self, name: Any, arguments: Any = None) -> CallRecord:
            record = super().call(name, arguments)
            if record.error is not None:
                self.rng.draws += 1
            return record

    def broken() -> World:
        world = chaos_world()
        world.__class__ = MovesRandomOnFailure
        return world

    caught = fuzz_world(broken, 300, seed=1, name="broken")
    assert caught.atomicity_violations > 0


def test_fuzz_runs_in_episodes_of_fresh_worlds_and_repeats_itself() -> None:
    """Long runs stay fast because worlds start afresh every `episode` operations; the run is
    still one seeded sequence, so the same seed gives the same report."""
    built: list[World] = []

    def counted() -> World:
        built.append(TARGETS["todo"]())
        return built[-1]

    first = fuzz_world(counted, 250, seed=3, name="todo", episode=100)
    assert len(built) == 6  # three episodes, a world and its twin each
    assert first.operations == 250 and first.clean
    again = fuzz_world(TARGETS["todo"], 250, seed=3, name="todo", episode=100)
    assert (again.outcomes, again.records) == (first.outcomes, first.records)
