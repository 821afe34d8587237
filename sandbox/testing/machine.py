"""A hypothesis state machine for any world: drawn calls, the engine's promises, your invariants.

Each step runs a call drawn against the world's current state (now and then one with
invalid arguments, now and then time passing), and the machine checks what the engine
promises for every world:

- a call that fails leaves state, clock, random source and id counters exactly as they
  were, and a read-only tool changes nothing;
- arguments labelled invalid are rejected at the door;
- the same call sequence in a fresh world from `factory` gives the same bytes (state and
  call log);
- a fork starts where its parent is, and neither influences the other afterwards;
- `restore(snapshot)` gives back the snapshot, call log included;

and after every step the `invariants` (functions of `world.state()`) and, after every
call, the `postconditions` (functions of the call, its record and the states before
and after). A check fails by returning False or by raising.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Collection, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from ..calllog import CallRecord
from ..parsing import Call
from .arguments import _calls
from .invalid import Invalid, _invalid
from .values import Values

if TYPE_CHECKING:
    from ..world import World

Invariant = Callable[[dict[str, Any]], object]
Postcondition = Callable[[Call, CallRecord, dict[str, Any], dict[str, Any]], object]
Step = tuple[str, Any, Any]  # ("call", tool, arguments) or ("advance", seconds, None)

# No deadline (worlds differ in speed); no explain phase, which reruns every step of a failing
# run many times over and adds little to the printed steps.
DEFAULT_SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
                            phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink])
INVALID_PERCENT = 10  # of drawn calls, how many carry invalid arguments
MAX_SUBSTEPS = 3  # calls made in a fork, or between a snapshot and its restore
PROMISES = frozenset({"atomicity", "determinism", "fork isolation", "restore"})


def world_machine(
    factory: Callable[[], World],
    *,
    invariants: Iterable[Invariant] = (),
    postconditions: Iterable[Postcondition] = (),
    tools: Sequence[str] | None = None,
    invalid_percent: int = INVALID_PERCENT,
    clock: bool = True,
    crashes_allowed: bool = False,
    promises: Collection[str] = PROMISES,
    name: str | None = None,
) -> type[RuleBasedStateMachine]:
    """A `RuleBasedStateMachine` over worlds from `factory` (which must build the same world every time).

    Use its `TestCase` as a test: `TestMyWorld = world_machine(make_world).TestCase`.

    Args:
        factory: Builds a fresh world in its starting state.
        invariants: Checks of `world.state()`, run after every step.
        postconditions: Checks of (call, record, state before, state after), run after every call.
        tools: Only call these tools (default: all of the world's).
        invalid_percent: How many calls in a hundred carry invalid arguments.
        clock: Let simulated time pass between calls (as one of the steps).
        crashes_allowed: Accept tools that crash (internal errors); by default a crash fails the test.
        promises: Which of the engine's promises to check (all by default): "atomicity" (failed
            and read-only calls change nothing), "determinism", "fork isolation", "restore".
        name: The machine's name in hypothesis reports.
    """
    unknown = set(promises) - PROMISES
    if unknown:
        raise ValueError(f"unknown promises {sorted(unknown)}; choose from {sorted(PROMISES)}")
    checks = tuple(invariants)
    after_call = tuple(postconditions)
    drawing: list[_Drawing] = []  # built with the first world, then shared by every run

    class WorldMachine(RuleBasedStateMachine):
        def __init__(self) -> None:
            super().__init__()
            self.world = factory()
            self.history: list[Step] = []
            if not drawing:
                drawing.append(_Drawing(self.world, tools))
            self._drawing = drawing[0]

        # -- the steps ---------------------------------------------------------------------

        @rule(data=st.data())
        def call(self, data: st.DataObject) -> None:
            self._step(self.world, data, remember=True)

        @precondition(lambda _: "restore" in promises)
        @rule(data=st.data())
        def restore_gives_back_the_snapshot(self, data: st.DataObject) -> None:
            world = self.world
            snapshot = world.snapshot()
            expected = whole(world)
            mark = len(self.history)
            for _ in range(data.draw(st.integers(1, MAX_SUBSTEPS), label="calls before restoring")):
                self._step(world, data, remember=True)
            world.restore(snapshot)
            del self.history[mark:]
            _same(expected, whole(world), "restore: the world after restore(snapshot) differs from the snapshot in")

        @precondition(lambda _: "fork isolation" in promises)
        @rule(data=st.data())
        def fork_and_parent_stay_apart(self, data: st.DataObject) -> None:
            parent = self.world
            child = parent.fork()
            start = whole(parent)
            _same(start, whole(child), "fork: a new fork differs from its parent in")
            for _ in range(data.draw(st.integers(1, MAX_SUBSTEPS), label="calls in the fork")):
                self._step(child, data, remember=False)
            _same(start, whole(parent), "fork isolation: calls in a fork changed its parent's")
            forked = whole(child)
            for _ in range(data.draw(st.integers(1, MAX_SUBSTEPS), label="calls in the parent")):
                self._step(parent, data, remember=True)
            _same(forked, whole(child), "fork isolation: calls in the parent changed its fork's")

        @precondition(lambda _: "determinism" in promises)
        @rule()
        def same_calls_give_the_same_bytes(self) -> None:
            twin = factory()
            replay(twin, self.history)
            _same(whole(twin), whole(self.world),
                  "determinism: the same calls in a fresh world gave different bytes in")

        if clock:
            @rule(seconds=st.integers(1, 3 * 24 * 3600))
            def time_passes(self, seconds: int) -> None:
                self.world.clock.advance(seconds)
                self.history.append(("advance", seconds, None))

        @invariant()
        def invariants_hold(self) -> None:
            state = self.world.state()
            for check in checks:
                _expect(check(state), f"invariant {_name(check)} does not hold")

        # -- one call, checked --------------------------------------------------------------

        def _step(self, world: World, data: st.DataObject, *, remember: bool) -> None:
            drawn, label = self._draw(world, data)
            before_state = world.state()
            before = fingerprint(world, before_state)
            size = len(world.log)
            record = world.call(drawn.name, copy.deepcopy(drawn.arguments))
            if remember:
                self.history.append(("call", drawn.name, copy.deepcopy(drawn.arguments)))
            after_state = world.state()
            assert len(world.log) == size + 1, f"call log: {drawn.name} added {len(world.log) - size} records, not 1"
            error = record.error
            if label is not None:
                assert error is not None and error.type == "invalid_arguments", (
                    f"validation: {label.why}, yet {drawn.name} accepted {drawn.arguments!r}")
            if error is not None and error.type == "internal_error" and not crashes_allowed:
                raise AssertionError(f"crash: {error.message}")
            if error is not None and "atomicity" in promises:
                _same(before, fingerprint(world, after_state), f"atomicity: the failed call {drawn.name} "
                      f"({error.type}: {error.message}) changed the world's")
            elif error is None and "atomicity" in promises and not world.tools[drawn.name].mutates:
                _same(before["state"], _bytes(after_state), f"read-only: {drawn.name} changed the state")
            for check in after_call:
                _expect(check(drawn, record, before_state, after_state),
                        f"postcondition {_name(check)} does not hold after {drawn.name}({drawn.arguments!r})")

        def _draw(self, world: World, data: st.DataObject) -> tuple[Call, Invalid | None]:
            # Drawn so that shrinking (towards 0) makes a call valid: the simplest failing run is
            # one of valid calls, and the shrinker can drop an invalid one it no longer needs.
            if invalid_percent and data.draw(st.integers(0, 99), label="invalid?") >= 100 - invalid_percent:
                tool = data.draw(st.sampled_from(self._drawing.names), label="tool")
                wrong = data.draw(self._drawing.invalid(world, tool), label="invalid arguments")
                return Call(tool, wrong.arguments), wrong
            return data.draw(self._drawing.valid(world), label="call"), None

    WorldMachine.__name__ = WorldMachine.__qualname__ = name or f"{getattr(factory, '__name__', 'world')}_machine"
    WorldMachine.TestCase.settings = DEFAULT_SETTINGS
    return WorldMachine


class _Drawing:
    """The machine's strategies, built once: building and validating strategies costs more than
    drawing from them, and every run of the machine calls the same tools. They read references
    from whichever world `values.world` names at the moment of drawing (a world, or its fork)."""

    def __init__(self, world: World, tools: Sequence[str] | None) -> None:
        self.names = tuple(tools) if tools is not None else tuple(world.tools)
        self.values = Values(world, python=world.coercion == "strict")
        self._valid = _calls(world, self.names, self.values)
        self._invalid: dict[str, st.SearchStrategy[Invalid]] = {}

    def valid(self, world: World) -> st.SearchStrategy[Call]:
        self.values.world = world
        return self._valid

    def invalid(self, world: World, tool: str) -> st.SearchStrategy[Invalid]:
        self.values.world = world
        if tool not in self._invalid:
            self._invalid[tool] = _invalid(world.tools[tool], self.values)
        return self._invalid[tool]


def fingerprint(world: World, state: dict[str, Any] | None = None) -> dict[str, Any]:
    """What a failed call must leave untouched: state bytes, clock, random source, id counters."""
    return {
        "state": _bytes(world.state() if state is None else state),
        "clock": world.clock.now().isoformat(),
        "random source": world.rng.draws,
        "id counters": json.dumps(dict(world.ids), default=str),
    }


def whole(world: World) -> dict[str, Any]:
    """The fingerprint and the call log's bytes."""
    return {**fingerprint(world), "call log": _bytes([record.to_dict() for record in world.log])}


def replay(world: World, history: Iterable[Step]) -> None:
    """Run recorded steps on `world`: calls, and time passing."""
    for kind, what, arguments in history:
        if kind == "call":
            world.call(what, copy.deepcopy(arguments))
        else:
            world.clock.advance(what)


def _bytes(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _same(expected: Any, actual: Any, message: str) -> None:
    if expected == actual:
        return
    if isinstance(expected, dict) and isinstance(actual, dict):
        parts = [key for key in expected if expected.get(key) != actual.get(key)]
        raise AssertionError(f"{message} {', '.join(parts)}")
    raise AssertionError(message)


def _expect(result: object, message: str) -> None:
    if result is False:
        raise AssertionError(message)


def _name(check: Callable[..., object]) -> str:
    return getattr(check, "__name__", repr(check))
