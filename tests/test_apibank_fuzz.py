"""Seeded fuzzing of every API-Bank tool (levels 1-2 and level 3): no call may crash.

Arguments mix values of the declared types (some drawn from the world's own data, so
token-gated and look-up paths are reached) with hostile ones: huge integers, deep
nesting in structures and in strings, long strings, wrong types, odd unicode. After every
call: nothing raised, nothing ended in `internal_error`, a failed call changed nothing,
and the record and its envelope are JSON-ready.
"""

from __future__ import annotations

import json
import random
import types
import typing
from typing import Any

import pytest

from sandbox import World
from scenarios.apibank import apibank_world
from scenarios.apibank.replay import envelope

CALLS_PER_TOOL = 60


def _nested(depth: int, leaf: Any) -> Any:
    value = leaf
    for _ in range(depth):
        value = [value]
    return value


# Integers up to 4000 digits: the most a model's text can carry (the parser refuses more).
HOSTILE: tuple[Any, ...] = (
    None, True, False, 0, -1, 2**63, -(2**63), 10**4000, -(10**4000), 0.5, -1e308, float("inf"), float("nan"),
    "", " ", "None", "True", "-5", "1e999", "x" * 20_000, "😀" * 2000, "\u202e\x00\ud800\ufeff", "日本語のテキスト",
    "[", "[{'name': 1}]", "[[[]]]", "{'a': 1}", "(" * 3000 + "1+1" + ")" * 3000, "-" * 3000 + "1", "1/0",
    "(" * 500 + "2*3" + ")" * 500, "1+" * 3000 + "1", "0" * 5000 + "1+1", "[" * 3000 + "]" * 3000,
    "2023-02-30 25:61:61", "99999-1-1", "-1-1-1", "a" * 30_000 + "@",
    [], [None], [{}], [[1]], [{"name": {"a": 1}, "value": []}], [{"name": [1], "description": {}}],
    _nested(200, "deep"), {"a": {"b": {"c": [1, 2, {"d": None}]}}}, {}, ["Action", {"x": 1}],
)

PLAIN_TEXT = ("", "John", "JohnDoe", "Action", "Comedy", "fever", "lamp", "Movie Night", "New York", "London",
              "San Francisco", "Doctor", "Alibaba", "Tom", "1", "Forgot Password", "Verification Code",
              "Meeting with the client", "https://example.org/images/cat.png", "set an alarm", "calculator")
TIMES = ("2023-03-31 09:00:00", "2023-3-5 8:0:0", "2023-04-02", "23-4-1", "2022-01-04", "2021-01-01 10:00:00",
         "tomorrow")


def _texts(world: World) -> list[str]:
    """Strings that reach past validation: names, tokens and keys from the world's own state."""
    found: list[str] = []

    def walk(value: Any, depth: int) -> None:
        if depth > 3 or len(found) > 400:
            return
        if isinstance(value, dict):
            for key, item in value.items():
                found.append(str(key))
                walk(item, depth + 1)
        elif isinstance(value, list):
            for item in value[:5]:
                walk(item, depth + 1)
        elif isinstance(value, str) and len(value) < 80:
            found.append(value)

    walk(world.state(), 0)
    return [*PLAIN_TEXT, *TIMES, *found]


def _typed(name: str, annotation: Any, rng: random.Random, texts: list[str]) -> Any:
    """A value of the declared type (for lists: the shapes the APIs expect, and others)."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _typed(name, typing.get_args(annotation)[0], rng, texts)
    if origin is typing.Union or origin is types.UnionType:
        return _typed(name, rng.choice(typing.get_args(annotation)), rng, texts)
    if annotation is str and ("time" in name or "date" in name) and rng.random() < 0.8:
        return rng.choice(TIMES)
    if annotation is bool:
        return rng.choice((True, False, "true", "False"))
    if annotation is int:
        return rng.choice((0, 1, 5, 15, -3, 970420, rng.randint(-10**6, 10**6), "7"))
    if annotation is float:
        return rng.choice((0.0, 40.7128, 74.006, -48.8566, 5000, 100000.5, "51.5074"))
    if origin is list or annotation is list:
        leaf = rng.choice(texts) if rng.random() < 0.7 else rng.choice(HOSTILE)  # hostile inside a good shape
        return rng.choice((
            [rng.choice(texts), leaf][:rng.randint(0, 2)],
            [{"name": leaf, "value": rng.randint(0, 200)}],
            [{"name": rng.choice(texts), "description": leaf}],
            str([rng.choice(texts)]),
        ))
    return rng.choice(texts)


def _arguments(parameters: dict[str, Any], rng: random.Random, texts: list[str]) -> dict[str, Any]:
    """All arguments well typed, or one hostile among well-typed ones (to reach past the
    first check), or any mix; sometimes one missing, sometimes one extra."""
    names = list(parameters)
    mode = rng.random()
    hostile = set(names) if mode > 0.8 else {rng.choice(names)} if names and mode > 0.3 else set()
    arguments = {name: rng.choice(HOSTILE) if name in hostile and rng.random() < 0.8
                 else _typed(name, parameters[name], rng, texts) for name in names}
    if names and rng.random() < 0.05:
        del arguments[rng.choice(names)]
    if rng.random() < 0.05:
        arguments["unexpected"] = rng.choice(HOSTILE)
    return arguments


@pytest.mark.parametrize("level", [1, 3])
def test_no_tool_crashes_on_hostile_arguments(level: int) -> None:
    world = apibank_world(level=level)
    rng = random.Random(f"apibank-fuzz-{level}")
    texts = _texts(world)
    plans = [(name, world.apps[spec.app or ""],
              {field: info.annotation for field, info in spec.args_model.model_fields.items()})
             for name, spec in sorted(world.tools.items())]
    crashes: list[str] = []
    for _ in range(CALLS_PER_TOOL):
        for name, app, parameters in plans:
            arguments = _arguments(parameters, rng, texts)
            before = app.dump()  # an API-Bank tool writes only to its own app
            try:
                record = world.call(name, arguments)
            except Exception as exc:  # World.call must never raise
                crashes.append(f"{name} raised {type(exc).__name__}: {exc}"[:300])
                continue
            if record.error is not None and record.error.type == "internal_error":
                crashes.append(record.error.message[:300])
            if record.error is not None:
                assert app.dump() == before, f"a failed {name} call changed the state"
            json.dumps(record.to_dict())
            json.dumps(envelope(world, record), default=str)
    assert not crashes, "\n".join(sorted(set(crashes)))
    assert len(world.log) == CALLS_PER_TOOL * len(plans)
