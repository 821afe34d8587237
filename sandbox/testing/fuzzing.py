"""Fuzzing a world as an attacker would: seeded valid, boundary and hostile calls, each checked.

`fuzz_world` drives two fresh worlds in lockstep with the same seed. Every operation is
either `World.call` with named values or `World.execute` with model text (bracket syntax
or JSON tool calls, well-formed or hostile). After each one it checks the engine's
promises: no exception escaped; a call that failed left state, clock, random source and
id counters as they were; every record can be stored (UTF-8 JSON); the second world,
fed the same seed, produced the same bytes. It counts outcomes and times each operation.

Generation is schema-driven: `valid_arguments` builds an argument object from a tool's
JSON Schema (the one function a property-testing kit can later wrap as a strategy), and
`boundary_value` / `hostile_value` give the edge and attack values mixed in.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import re
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..calllog import CallRecord
from ..input_limits import DEFAULT_LIMITS, InputLimits
from ..parsing import Call, render_calls
from ..world import World

# Error types that are the world refusing a well-formed request (not a malformed one).
_MALFORMED = frozenset({"invalid_arguments", "parse_error", "unknown_tool", "internal_error"})
EPISODE_CALLS = 1_000  # operations per fresh pair of worlds (see `fuzz_world`)
_SLOW_MS = 100.0  # CPU time; process_time counts this process's work, not time spent descheduled
_POOL_SIZE = 400

# -- values ----------------------------------------------------------------------------------------

_TEXTS = ("", " ", "a", "Eve", "hello world", "2024-07-14", "2024-07-14 10:00:00", "C001", "A001", "yes",
          "0", "-1", "1.5", "null", "true", "你好 世界", "ÅÄÖ", "emoji 🙂", "ﷺ", "e\u0301", "\u200b", "\t\n")
_ATTACK_TEXTS = (
    "'; DROP TABLE episodes; --", "__import__('os').system('echo pwned')", "{{7*7}}", "${jndi:ldap://x}",
    "%s%s%s%n", "../../../../etc/passwd", "<script>alert(1)</script>", "\x00", "\x1b[2J", "\u202eevil",
    "\ufeff", "'\"\\", "Robert'); --", "\r\n\r\nHTTP/1.1 200 OK",
)


class Unprintable:
    """An object whose `repr`, `str`, equality and length all raise: a model cannot send one, a
    Python caller can."""

    def __repr__(self) -> str:
        raise RuntimeError("repr refused")

    def __str__(self) -> str:
        raise RuntimeError("str refused")

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("eq refused")

    def __len__(self) -> int:
        raise RuntimeError("len refused")

    __hash__ = object.__hash__


class TrickyStr(str):
    """Text that is a `str` subclass with a hash and repr that raise."""

    def __hash__(self) -> int:
        raise RuntimeError("hash refused")

    def __repr__(self) -> str:
        raise RuntimeError("repr refused")


def harvest_pool(state: Any, limit: int = _POOL_SIZE) -> tuple[list[str], list[int]]:
    """Strings and integers found in a world's state (ids, names, dates): values a tool may accept."""
    texts: set[str] = set()
    numbers: set[int] = set()
    stack = [state]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            for key, item in value.items():
                if isinstance(key, str) and len(key) <= 64:
                    texts.add(key)
                stack.append(item)
        elif isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, str) and len(value) <= 64:
            texts.add(value)
        elif type(value) is int:
            numbers.add(value)
    return sorted(texts)[:limit], sorted(numbers)[:limit]


@dataclass(frozen=True)
class ValuePool:
    """Values worth trying, from the world's own state plus generic ones."""

    texts: Sequence[str]
    numbers: Sequence[int]

    @classmethod
    def of(cls, world: World) -> ValuePool:
        texts, numbers = harvest_pool(world.state())
        return cls((*texts, *_TEXTS), (*numbers, 0, 1, 2, 3, 5, 10, 100))


def valid_arguments(schema: Mapping[str, Any], rnd: random.Random, pool: ValuePool | None = None,
                    *, optional: float = 0.5) -> dict[str, Any]:
    """An argument object that matches a tool's JSON Schema (types, enums, bounds, required keys).

    Each optional parameter is included with probability `optional`. Values come from
    `pool` where the schema allows (so ids and names that exist in the world turn up).
    """
    pool = pool or ValuePool((), ())
    required = set(schema.get("required", ()))
    out: dict[str, Any] = {}
    for name, sub in schema.get("properties", {}).items():
        if name in required or rnd.random() < optional:
            out[name] = valid_value(sub, rnd, pool)
    return out


def valid_value(schema: Mapping[str, Any], rnd: random.Random, pool: ValuePool, depth: int = 0) -> Any:
    """One value matching a JSON Schema fragment."""
    if "enum" in schema:
        return rnd.choice(list(schema["enum"]))
    if "const" in schema:
        return schema["const"]
    options = schema.get("anyOf") or schema.get("oneOf")
    if options:
        return valid_value(rnd.choice(options), rnd, pool, depth)
    kind = schema.get("type", "string")
    if isinstance(kind, list):
        kind = rnd.choice(kind)
    if kind == "null":
        return None
    if kind == "boolean":
        return rnd.random() < 0.5
    if kind == "integer":
        return _number_in(schema, rnd, pool, integer=True)
    if kind == "number":
        return _number_in(schema, rnd, pool, integer=False)
    if kind == "array":
        items = schema.get("items", {})
        fewest = schema.get("minItems", 0)
        count = rnd.randint(fewest, max(fewest, min(schema.get("maxItems", 4), 4)))
        return [valid_value(items, rnd, pool, depth + 1) for _ in range(count)] if depth < 4 else []
    if kind == "object":
        if "properties" in schema:
            return valid_arguments(schema, rnd, pool)
        return {rnd.choice(pool.texts or ("key",)): valid_value({}, rnd, pool, depth + 1)} if depth < 4 else {}
    return _text_in(schema, rnd, pool)


def _number_in(schema: Mapping[str, Any], rnd: random.Random, pool: ValuePool, *, integer: bool) -> Any:
    low = schema.get("minimum", schema.get("exclusiveMinimum", -1000))
    high = schema.get("maximum", schema.get("exclusiveMaximum", 100_000))
    if "exclusiveMinimum" in schema:
        low = low + (1 if integer else 0.01)
    candidates = [n for n in pool.numbers if low <= n <= high]
    if candidates and rnd.random() < 0.5:
        value: Any = rnd.choice(candidates)
    elif integer:
        value = rnd.randint(math.ceil(low), math.floor(high))
    else:
        value = round(rnd.uniform(low, min(high, 10_000)), 2)
    return int(value) if integer else value


def _text_in(schema: Mapping[str, Any], rnd: random.Random, pool: ValuePool) -> str:
    shortest: int = schema.get("minLength", 0)
    longest: int = schema.get("maxLength", 10_000)
    pattern: str | None = schema.get("pattern")
    if schema.get("format") == "date":
        return f"{rnd.randint(2020, 2026)}-{rnd.randint(1, 12):02d}-{rnd.randint(1, 28):02d}"
    if schema.get("format") == "date-time":
        return f"{rnd.randint(2020, 2026)}-{rnd.randint(1, 12):02d}-{rnd.randint(1, 28):02d}T10:00:00"
    fitting = [t for t in pool.texts if shortest <= len(t) <= longest
               and (pattern is None or re.search(pattern, t) is not None)]
    if fitting:
        return rnd.choice(fitting)
    if pattern is not None and r"\d{4}-" in pattern:
        return f"{rnd.randint(2020, 2026)}-{rnd.randint(1, 12):02d}"
    return "x" * max(shortest, 1)


def boundary_value(schema: Mapping[str, Any], rnd: random.Random, limits: InputLimits = DEFAULT_LIMITS) -> Any:
    """A value at an edge: of the schema's bounds, of the world's limits, or of the value's type."""
    kind = schema.get("type") or rnd.choice(["string", "integer", "number", "array", "object"])
    largest = limits.int_bound - 1
    if kind == "integer":
        edges = [0, -1, 1, largest, -largest, 2**31, 2**63, -(2**63)]
        for key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
            if isinstance(schema.get(key), (int, float)):
                edges += [int(schema[key]) - 1, int(schema[key]), int(schema[key]) + 1]
        return rnd.choice(edges)
    if kind == "number":
        return rnd.choice([0.0, -0.0, 1e-9, 0.005, 0.01, 12.505, 999999999.99, 1e308, -1e308, 5e-324,
                           float("nan"), float("inf"), -float("inf"), 1000000000.0, 1000000000.01])
    if kind == "boolean":
        return rnd.choice([True, False, 0, 1, "true", "false", None])
    if kind == "array":
        return rnd.choice([[], [None], [""], ["x"] * 1000, _nested(limits.max_depth - 2, []), [[]] * 50])
    if kind == "object":
        return rnd.choice([{}, {"": ""}, {"a": None}, _nested_dict(limits.max_depth - 2)])
    longest = schema.get("maxLength")
    choices = ["", " ", "\t", " x ", "x" * limits.max_string_chars, "界" * min(limits.max_string_chars, 5000),
               rnd.choice(_TEXTS), rnd.choice(_ATTACK_TEXTS), "0" * 64, "-0", "1e999", "NaN"]
    if isinstance(longest, int):
        choices += ["x" * longest, "x" * (longest + 1)]
    return rnd.choice(choices)


def hostile_value(rnd: random.Random, limits: InputLimits = DEFAULT_LIMITS) -> Any:
    """A value past a limit, of a type a model cannot send, or built to break whoever reads it."""
    pick = rnd.randrange(18)
    if pick == 0:
        return 10 ** rnd.choice([limits.max_int_digits, 4300, 5000, 20_000])
    if pick == 1:
        return -(10 ** rnd.choice([limits.max_int_digits + 1, 4301]))
    if pick == 2:
        return _nested(rnd.choice([limits.max_depth, 1000, 10_000]), 1)
    if pick == 3:
        return _nested_dict(rnd.choice([limits.max_depth + 1, 5000]))
    if pick == 4:
        return "x" * rnd.choice([limits.max_string_chars + 1, 1_000_000])
    if pick == 5:
        return rnd.choice(["\ud800", "ok\udfffok", "\udc80" * 10, "a\ud83d"])
    if pick == 6:
        return Unprintable()
    if pick == 7:
        return TrickyStr("C001")
    if pick == 8:
        return rnd.choice([b"\xff\xfe", bytearray(b"x"), {1, 2}, frozenset(), (1, 2), range(3), 3 + 4j])
    if pick == 9:
        return [0] * rnd.choice([limits.max_items + 1, 200_000])
    if pick == 10:
        return {(1, 2): "tuple key"} if rnd.random() < 0.5 else {Unprintable(): 1}
    if pick == 11:
        return rnd.choice([float("nan"), float("inf"), -float("inf"), 1e300, -1e300])
    if pick == 12:
        return rnd.choice(_ATTACK_TEXTS)
    if pick == 13:
        return {"nested": ["object", {"with": [None, True, 1.5]}]}
    if pick == 14:
        return rnd.choice([None, True, False, 0, -1, "", [], {}])
    if pick == 15:
        return "9" * rnd.choice([limits.max_int_digits + 1, 4000])  # lax coercion's way in
    if pick == 16:
        return ["y" * limits.max_string_chars] * (limits.max_message_chars // limits.max_string_chars + 1)
    return rnd.choice([ValueError("an exception as a value"), object(), type, len, Ellipsis])


def _nested(levels: int, leaf: Any) -> Any:
    value = leaf
    for _ in range(max(levels, 0)):
        value = [value]
    return value


def _nested_dict(levels: int) -> Any:
    value: Any = "leaf"
    for _ in range(max(levels, 0)):
        value = {"a": value}
    return value


# -- operations ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Operation:
    """One thing done to a world: `World.call(name, arguments)`, or `World.execute(message)`."""

    kind: str  # "valid", "boundary", "hostile", "message"
    name: Any = None
    arguments: Any = None
    message: Any = None

    def run(self, world: World) -> list[CallRecord]:
        if self.message is not None:
            return world.execute(self.message)
        return [world.call(self.name, self.arguments)]


class Generator:
    """Seeded operations for one world: the mix of valid, boundary, hostile calls and messages."""

    def __init__(self, world: World, seed: int) -> None:
        self.rnd = random.Random(f"toolworlds-fuzz:{seed}")
        self.specs = [world.tools[name] for name in sorted(world.tools)]
        self.pool = ValuePool.of(world)
        self.limits = world.limits

    def __iter__(self) -> Iterator[Operation]:
        while True:
            yield self.next()

    def next(self) -> Operation:
        roll = self.rnd.random()
        if roll < 0.40:
            return self._valid()
        if roll < 0.58:
            return self._boundary()
        if roll < 0.80:
            return self._hostile()
        return self._message()

    def _spec_and_valid(self) -> tuple[str, dict[str, Any], Mapping[str, Any]]:
        spec = self.rnd.choice(self.specs)
        return spec.name, valid_arguments(spec.parameters, self.rnd, self.pool), spec.parameters

    def _valid(self) -> Operation:
        name, arguments, _ = self._spec_and_valid()
        return Operation("valid", name, arguments)

    def _boundary(self) -> Operation:
        name, arguments, schema = self._spec_and_valid()
        properties = schema.get("properties", {})
        if properties:
            key = self.rnd.choice(sorted(properties))
            arguments[key] = boundary_value(properties[key], self.rnd, self.limits)
        return Operation("boundary", name, arguments)

    def _hostile(self) -> Operation:
        rnd = self.rnd
        name: Any
        name, arguments, schema = self._spec_and_valid()
        shape = rnd.randrange(8)
        if shape == 0:  # a hostile value for a real parameter, or for a new one
            key = rnd.choice(sorted(schema.get("properties", {})) or ["extra"])
            arguments[key] = hostile_value(rnd, self.limits)
        elif shape == 1:
            arguments[rnd.choice(["extra", "__class__", "", "x" * 500, "\ud800"])] = hostile_value(rnd, self.limits)
        elif shape == 2 and arguments:
            del arguments[rnd.choice(sorted(arguments))]
        elif shape == 3:
            name = rnd.choice([name.upper(), name + "_", f"Nope.{name}", "", ".", None, 7, Unprintable(),
                               TrickyStr(name), "t" * 100_000, name + "\ud800", b"x"])
        elif shape == 4:
            return Operation("hostile", name, rnd.choice([None, [], "x=1", 3, Unprintable(), [("a", 1)],
                                                          hostile_value(rnd, self.limits)]))
        elif shape == 5:  # every parameter hostile
            arguments = {key: hostile_value(rnd, self.limits) for key in arguments}
        else:
            key = rnd.choice(sorted(arguments) or ["extra"])
            arguments[key] = hostile_value(rnd, self.limits)
        return Operation("hostile", name, arguments)

    def _message(self) -> Operation:
        rnd = self.rnd
        calls = [self._valid() if rnd.random() < 0.7 else self._boundary() for _ in range(rnd.randint(1, 3))]
        parsed = [Call(op.name, op.arguments) for op in calls]
        form = rnd.randrange(10)
        if form < 3:
            try:
                text = render_calls(parsed)
            except Exception:
                text = "[broken()]"
        elif form < 5:
            text = json.dumps({"tool_calls": [
                {"id": f"call_{i}", "type": "function",
                 "function": {"name": c.name, "arguments": json.dumps(c.arguments, ensure_ascii=rnd.random() < 0.5)}}
                for i, c in enumerate(parsed)]}, ensure_ascii=False)
        elif form < 6:
            return Operation("message", message=parsed + [Call(rnd.choice(["", "nope"]), {})] * rnd.randint(0, 1))
        else:
            text = hostile_message(rnd, parsed, self.limits)
        return Operation("message", message=text)


def hostile_message(rnd: random.Random, calls: Sequence[Call], limits: InputLimits = DEFAULT_LIMITS) -> str:
    """Model text built to break a parser: past every limit, not text at all, or code instead of calls."""
    name = calls[0].name if calls else "f"
    pick = rnd.randrange(20)
    if pick == 0:
        return f"[{name}(x={'9' * rnd.choice([limits.max_int_digits + 1, 4300, 5000])})]"
    if pick == 1:
        return f"[{name}(x=0x{'f' * 5000})]"
    if pick == 2:
        return f"[{name}(x={'[' * 10_000}{']' * 10_000})]"
    if pick == 3:
        return json.dumps({"name": name, "arguments": {"x": 1}})[:-2] + '{"a": ' * 5000 + "1" + "}" * 5002
    if pick == 4:
        return f"[{name}(x='{'x' * rnd.choice([limits.max_message_chars, 1_000_000])}')]"
    if pick == 5:
        return f"[{name}(x='\ud800')]" if rnd.random() < 0.5 else '{"name": "' + name + '", "arguments": "\\ud800"}'
    if pick == 6:
        return rnd.choice(["I'm sorry, I can't do that.", "<html><body>502 Bad Gateway</body></html>", "", " ",
                           "```json\n{", "{'name': 'x'}", "null", "[]", "[1, 2, 3]", '"just a string"', "\x00" * 10])
    if pick == 7:
        return rnd.choice(["__import__('os').system('echo pwned')", f"[{name}(x=__import__('os'))]",
                           f"[{name}(x=lambda: 1)]", f"[{name}(x=open('/etc/passwd').read())]",
                           f"[{name}(**{{'x': 1}})]", f"[{name}(x=f'{{1}}')]", f"[{name}(x=(y := 1))]",
                           f"[{name}(1, 2)]", f"[{name}(x=1, x=2)]", "[a.b.c.d()]", f"[{name}()()]"])
    if pick == 8:
        return "[" + ", ".join([f"{name}()"] * (limits.max_calls + 1)) + "]"
    if pick == 9:
        return json.dumps([{"name": name, "arguments": {}}] * (limits.max_calls + 1))
    if pick == 10:
        return "[" * rnd.choice([100, 1000, 100_000])
    if pick == 11:
        return f"[{'x' * 10_000}()]"
    if pick == 12:
        return json.dumps({"tool_calls": [{"function": {"name": name, "arguments": '{"x": ' + "9" * 5000 + "}"}}]})
    if pick == 13:
        return json.dumps({"tool_calls": [{"function": {"name": name, "arguments": "{not json"}}]})
    if pick == 14:
        return bytes(rnd.randrange(256) for _ in range(200)).decode("latin-1")
    if pick == 15:
        return f"[{name}(x='Domino's', y='it's')]"
    if pick == 16:
        return "```\n" + (render_calls(list(calls)) if calls else "[]") + "\n```" + " trailing" * rnd.randint(0, 3)
    if pick == 17:
        return json.dumps({"tool_calls": {"not": "a list"}}) if rnd.random() < 0.5 else '{"tool_calls": [1, 2]}'
    if pick == 18:
        return f"[{name}(x=1e999, y=-1e999, z=1_000, w=0b1010, v=0o17, u=1j)]"
    return f"[{name}(x={{1: 2, (1, 2): 3}})]"


# -- checking --------------------------------------------------------------------------------------


@dataclass
class FuzzReport:
    """What a fuzz run found; every figure but the timings must be 0 for a healthy world."""

    world: str
    seed: int
    operations: int = 0
    records: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    escaped: int = 0
    atomicity_violations: int = 0
    nondeterministic: int = 0
    unstorable: int = 0
    slow: int = 0  # operations whose CPU time passed _SLOW_MS
    max_ms: float = 0.0  # wall-clock time of the slowest operation
    max_cpu_ms: float = 0.0  # CPU time of the most expensive operation
    p99_ms: float = 0.0
    examples: list[str] = field(default_factory=list)

    @property
    def internal_errors(self) -> int:
        return self.outcomes["internal_error"]

    @property
    def clean(self) -> bool:
        return not (self.escaped or self.atomicity_violations or self.nondeterministic or self.unstorable
                    or self.internal_errors)

    def note(self, text: str) -> None:
        if len(self.examples) < 20:
            self.examples.append(text[:500])

    def rows(self) -> list[tuple[str, str]]:
        o = self.outcomes
        return [
            ("world", self.world), ("seed", str(self.seed)), ("operations", str(self.operations)),
            ("call records", str(self.records)), ("ok", str(o["ok"])), ("refused by world", str(o["refused"])),
            ("invalid arguments", str(o["invalid_arguments"])), ("parse errors", str(o["parse_error"])),
            ("unknown tools", str(o["unknown_tool"])), ("internal errors", str(o["internal_error"])),
            ("escaped exceptions", str(self.escaped)), ("atomicity violations", str(self.atomicity_violations)),
            ("non-deterministic replays", str(self.nondeterministic)), ("unstorable records", str(self.unstorable)),
            ("max call time (wall)", f"{self.max_ms:.1f} ms"), ("max call time (CPU)", f"{self.max_cpu_ms:.1f} ms"),
            ("p99 call time (wall)", f"{self.p99_ms:.2f} ms"), (f"calls over {_SLOW_MS:.0f} ms CPU", str(self.slow)),
        ]


def _fingerprint(world: World) -> tuple[Any, ...]:
    return world.clock.now(), world.rng.draws, dict(world.ids)


def _state_bytes(world: World) -> bytes:
    return json.dumps(world.state(), sort_keys=True, ensure_ascii=True, default=repr).encode()


def record_digest(record: CallRecord) -> bytes:
    """The bytes a record stands for; `default=repr` lets a stray object show up as a difference."""
    text = json.dumps(record.to_dict(), sort_keys=True, ensure_ascii=True, default=repr)
    return hashlib.sha256(text.encode()).digest()


def storable(record: CallRecord) -> bool:
    """Whether a run store can hold the record: JSON text (typed values such as a validated
    `Decimal` written with `str`, as the runner writes them) that encodes as UTF-8."""
    try:
        json.dumps(record.to_dict(), ensure_ascii=False, default=str).encode("utf-8")
    except Exception:
        return False
    return True


def fuzz_world(make_world: Callable[[], World], calls: int, seed: int, *, name: str = "world",
               progress: Callable[[int], None] | None = None, episode: int = EPISODE_CALLS) -> FuzzReport:
    """Run `calls` seeded operations against a world and a twin replaying the same seed; check each.

    Every `episode` operations both worlds start afresh, as worlds do in real use: a world
    that lived through 100,000 calls would hold whatever the valid ones added (megabytes of
    boundary-sized text), and checking its whole state after each call would cost time in
    proportion to that, not to the call.
    """
    report = FuzzReport(name, seed)
    operations: Generator | None = None
    replay: Generator | None = None
    times: list[float] = []
    for first in range(0, calls, episode):
        world, twin = make_world(), make_world()
        if operations is None or replay is None:
            operations, replay = Generator(world, seed), Generator(twin, seed)
        else:
            operations.pool, replay.pool = ValuePool.of(world), ValuePool.of(twin)
        ended = _fuzz_episode(world, twin, operations, replay, range(first, min(calls, first + episode)), report,
                              times, progress)
        if ended is not None and _state_bytes(world) != _state_bytes(ended):
            report.nondeterministic += 1
            report.note(f"#{first}: the end states differ")
    if times:
        times.sort()
        report.max_ms = times[-1]
        report.p99_ms = times[min(len(times) - 1, int(len(times) * 0.99))]
    return report


def _fuzz_episode(world: World, twin: World, operations: Generator, replay: Generator, indices: range,
                  report: FuzzReport, times: list[float], progress: Callable[[int], None] | None) -> World | None:
    """One episode of the fuzz run; the twin at its end (None when an escape cut the episode short)."""
    state = _state_bytes(world)
    for index in indices:
        operation, again = operations.next(), replay.next()
        before = _fingerprint(world)
        started, cpu = time.perf_counter(), time.process_time()
        try:
            records = operation.run(world)
        except BaseException as exc:
            if isinstance(exc, KeyboardInterrupt):
                raise
            report.escaped += 1
            report.note(f"#{index} {operation.kind}: {type(exc).__name__} escaped")
            for _ in range(index + 1, indices.stop):  # keep both generators on the seed's sequence
                operations.next(), replay.next()
            return None
        elapsed = (time.perf_counter() - started) * 1000
        spent = (time.process_time() - cpu) * 1000
        times.append(elapsed)
        report.max_cpu_ms = max(report.max_cpu_ms, spent)
        _count(report, index, operation, records, spent)
        if [record_digest(r) for r in records] != [record_digest(r) for r in _twin_run(again, twin)]:
            report.nondeterministic += 1
            report.note(f"#{index} {operation.kind} {records[0].tool}: the replay differs")
            twin = world.fork()  # resynchronise, so one difference is counted once
        if all(r.error is not None for r in records):
            ticks = world.clock.tick * len(records)
            after = _fingerprint(world)
            unchanged = (after[0] - ticks, *after[1:]) == before
            if not unchanged or _state_bytes(world) != state:
                report.atomicity_violations += 1
                report.note(f"#{index} {operation.kind} {records[0].tool}: a failed call changed the world")
                state = _state_bytes(world)
        elif any(r.changed for r in records) or any(r.ok for r in records):
            state = _state_bytes(world)
        if progress is not None and index % 1000 == 999:
            progress(index + 1)
    return twin


def _count(report: FuzzReport, index: int, operation: Operation, records: list[CallRecord], spent: float) -> None:
    """One operation's records in the report: outcomes, slow work, internal errors, unstorable records."""
    report.operations += 1
    report.records += len(records)
    if spent > _SLOW_MS:  # work, not waiting: a busy machine must not make a fast call look slow
        report.slow += 1
        report.note(f"#{index} {operation.kind} {records[0].tool}: {spent:.0f} ms of CPU")
    for record in records:
        error = record.error
        outcome = "ok" if error is None else (error.type if error.type in _MALFORMED else "refused")
        report.outcomes[outcome] += 1
        if error is not None and outcome == "internal_error":
            report.note(f"#{index} {record.tool}: {error.message}")
        if not storable(record):
            report.unstorable += 1
            report.note(f"#{index} {record.tool}: record cannot be stored")


def _twin_run(operation: Operation, twin: World) -> list[CallRecord]:
    """The twin's records for the same operation; none when something escaped (the digests then differ)."""
    try:
        return operation.run(twin)
    except BaseException as exc:
        if isinstance(exc, KeyboardInterrupt):
            raise
        return []
