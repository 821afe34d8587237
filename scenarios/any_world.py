"""Generated tasks for any world a user writes: `toolworlds generate world:package.module:factory`.

Nothing about the world is known but what the engine can read: its tools (which change state,
their parameters and types, the `Ref`s saying where valid values live, and their docstrings).
A candidate is a run of state-changing calls drawn against a fresh world from the factory, each
argument drawn as the property-testing kit reads parameters (`sandbox.testing.parameters`, in the
order their references need): a `Ref`'d parameter takes a value the state holds now, a `Literal` one
of its choices, a number one inside its bounds, a text a plain word. Calls the world refuses, or that
change nothing, are drawn again. The instruction is written from the docstrings: each call's
first docstring line and its arguments, an entity named by its title or name when it has one (so
the agent looks its id up, with the world's listing tool, which the gold path calls first).

Levels: the number of state-changing calls is the level; from 2 on, entities are named, not
numbered; there are no special cases (nothing is known of what a user could leave out). English
only: docstrings are the only words a world gives. Needs the `testing` extra (hypothesis), as the kit does.
"""

from __future__ import annotations

import inspect
import random
import re
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from sandbox import Call, World
from sandbox.tools import ToolSpec

from .family import WorldFamily
from .generation import Candidate
from .named import named_callable
from .world_tasks import WorldTask, world_task

PREFIX = "world:"
VERSION = "1"
NAME_FIELDS = ("title", "name", "user_name", "product", "label")
WORDS = ("groceries", "report", "meeting notes", "invoice", "holiday plans", "birthday party", "car repair",
         "budget", "reading list", "garden work", "tax return", "dentist visit", "team lunch", "gym plan",
         "book order", "flight check-in", "rent payment", "school trip", "bike service", "photo album")
QUALIFIERS = ("for Monday", "for the team", "before Friday", "for mum", "next week", "for the office", "this weekend",
              "for the trip", "for the kids", "at home")
_UNSET = object()


def load_factory(path: str) -> Callable[..., World]:
    """The world factory named `package.module:function` (called with `seed=`); `LookupError` saying why not."""
    return _seeded(named_callable(path, kind="a world factory", form="package.module:function"))


def _seeded(factory: Callable[..., World]) -> Callable[..., World]:
    """`factory` called as `factory(seed=...)`; the seed is left out for a factory that takes none."""
    try:
        parameters = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return factory
    takes_seed = "seed" in parameters or any(p.kind is p.VAR_KEYWORD for p in parameters.values())
    return factory if takes_seed else _Unseeded(factory)


@dataclass(frozen=True)
class _Unseeded:
    """A factory that takes no seed, called as one that does (a class, not a closure: worker processes
    receive tasks, and their world builders, pickled)."""

    factory: Callable[[], World]

    def __call__(self, seed: int = 0) -> World:
        return self.factory()


def world_family(name: str) -> WorldFamily:
    """A family for `world:package.module:factory`, which the registry does not list: its factory,
    English, and this module's generator (so generated files of it load, run and are checked)."""
    path = name.removeprefix(PREFIX)
    factory = load_factory(path)
    return WorldFamily(name=name, description=f"the world {path} builds", build_world=factory,
                       generator=lambda: WorldGenerator(path))


@dataclass(frozen=True)
class WorldGenerator:
    """The `scenarios.generation.TaskGenerator` of any world, from its factory's import path."""

    path: str
    version: str = VERSION
    languages: tuple[str, ...] = ("en",)

    @property
    def family(self) -> str:
        return PREFIX + self.path

    def factory(self) -> Callable[..., World]:
        return load_factory(self.path)

    def propose(self, rng: random.Random, difficulty: int, lang: str) -> Candidate:
        for _ in range(1000):
            candidate = _Draft(rng, self.factory()(seed=0), difficulty).write()
            if candidate is not None:
                return candidate
        raise LookupError(f"{self.path}: no {difficulty} state-changing calls in a row succeed in its world")

    def world(self, candidate: Candidate, lang: str) -> World:
        return self.factory()(seed=0)

    def end_state(self, world: World, candidate: Candidate) -> Any:
        return world.state()

    def task(self, record: Mapping[str, Any], functions: list[dict[str, Any]], lang: str) -> WorldTask:
        return world_task(record, functions, lang, self.family, self.factory())


class _Draft:
    def __init__(self, rng: random.Random, world: World, difficulty: int) -> None:
        from sandbox.testing import parameters  # the kit (hypothesis): only when generating for a user's world

        self.rng, self.world, self.difficulty = rng, world, difficulty
        self.parameters = parameters
        self.writers = [spec for spec in world.tools.values() if spec.mutates]
        self.listers = [spec for spec in world.tools.values()
                        if not spec.mutates and not spec.args_model.model_json_schema().get("required")]
        self.calls: list[Call] = []
        self.sentences: list[str] = []
        self.named = False
        self.first_named: int | None = None  # the first call naming an entity: the listing goes before it
        self.calls_state = world.state()  # the state after the calls kept so far

    def write(self) -> Candidate | None:
        if not self.writers:
            return None
        while len(self.calls) < self.difficulty:
            if not any(self.step() for _ in range(30)):
                return None
        messages: list[tuple[Call, ...]] = [(call,) for call in self.calls]
        if self.first_named is not None and self.listers:
            messages.insert(self.first_named, (Call(self.rng.choice(self.listers).name, {}),))
        question = " ".join(self.sentences) if len(self.sentences) == 1 else \
            "Please do this, in order: " + " ".join(f"({n}) {s}" for n, s in enumerate(self.sentences, start=1))
        return Candidate("multi_step", question, tuple(self.world.apps), {}, tuple(messages),
                         {name: state for name, state in self.world.state().items()})

    def step(self) -> bool:
        spec = self.rng.choice(self.writers)
        previous, self.named = self.named, False  # `entity` sets it while this call's arguments are drawn
        drawn = self.arguments(spec)
        record = None if drawn is None else self.world.call(spec.name, drawn[0])
        before = self.calls_state
        if drawn is None or record is None or record.error is not None \
                or (isinstance(record.result, dict) and record.result.get("status") is False) \
                or self.world.state() == before:
            self.named = previous
            return False
        arguments, said = drawn
        if self.named and self.first_named is None:
            self.first_named = len(self.calls)
        self.named = self.named or previous
        self.calls_state = self.world.state()
        self.calls.append(Call(spec.name, arguments))
        self.sentences.append(_sentence(spec, said))
        return True

    def arguments(self, spec: ToolSpec) -> tuple[dict[str, Any], list[str]] | None:
        from sandbox.testing.arguments import drawing_order

        bound: dict[str, Any] = {}
        said: list[str] = []
        for param in drawing_order(self.parameters(spec)):
            if not param.required and self.rng.random() < 0.5:
                continue
            value, words = self.value(param.info.annotation, tuple(param.info.metadata), param.refs, bound,
                                      param.name, param.info.description or "")
            if value is _UNSET:
                if param.required:
                    return None
                continue
            bound[param.key] = value
            described = re.split(r",? e\.g\.", param.info.description or param.name)[0]
            said.append(described.rstrip(".").lower() + ": " + words)
        return bound, said

    def value(self, annotation: Any, metadata: tuple[Any, ...], refs: tuple[Any, ...], bound: dict[str, Any],
              name: str = "", description: str = "") -> tuple[Any, str]:
        base, extra = _unwrap(annotation)
        metadata += extra
        for ref in refs:
            found = [v for v in ref.values(self.world, bound) if isinstance(v, (str, int, float))]
            if found:
                chosen = self.rng.choice(found)
                if typing.get_origin(base) is list:
                    return [chosen], self.entity(ref, chosen)
                return chosen, self.entity(ref, chosen)
        origin = typing.get_origin(base)
        if origin is Literal:
            choice = self.rng.choice(typing.get_args(base))
            return choice, repr(choice)
        if origin is list:
            inner = typing.get_args(base)[0] if typing.get_args(base) else str
            value, words = self.value(inner, (), (), bound, name, description)
            return ([value], f"[{words}]") if value is not _UNSET else (_UNSET, "")
        limits = {k: getattr(m, k) for m in metadata for k in ("ge", "gt", "le", "lt", "max_length", "pattern")
                  if getattr(m, k, None) is not None}
        if base is bool:
            choice = self.rng.random() < 0.5
            return choice, "yes" if choice else "no"
        if base is int:
            low = int(limits.get("ge", limits.get("gt", 0) + 1 if "gt" in limits else 1))
            high = int(limits.get("le", limits.get("lt", low + 10) - 1 if "lt" in limits else low + 9))
            number = self.rng.randint(low, max(low, high))
            return number, str(number)
        if base is float or getattr(base, "__name__", "") == "Decimal":
            amount = round(self.rng.uniform(5, 500), 2)
            return amount, str(amount)
        if base is str and "pattern" not in limits:
            hint = f"{name} {description}".lower()
            if "yyyy-mm-dd" in hint or "date" in hint:
                day = f"2024-08-{self.rng.randrange(1, 29):02d}"
                word = day + (f" {self.rng.randrange(8, 20):02d}:00" if "hh:mm" in hint else "")
            else:
                word = self.rng.choice(WORDS)
                if self.rng.random() < 0.6:
                    word += " " + self.rng.choice(QUALIFIERS)
            word = word[: int(limits.get("max_length", 60))]
            return word, repr(word)
        return _UNSET, ""

    def entity(self, ref: Any, value: Any) -> str:
        """How the user names what `value` points at: its title or name when it has one (the agent then
        looks the id up: the gold path starts with a listing), else the value itself."""
        if self.difficulty < 2:
            return repr(value)
        state = self.world.state().get(ref.app)
        node: Any = state
        for part in ref.segments:
            node = node.get(part) if isinstance(node, dict) else None
        entries = list(node.values()) if isinstance(node, dict) and ref.field else \
            [node[value]] if isinstance(node, dict) and value in node else node if isinstance(node, list) else []
        for entry in entries:
            if isinstance(entry, dict) and (ref.field is None or entry.get(ref.field) == value):
                for key in NAME_FIELDS:
                    if isinstance(entry.get(key), str):
                        self.named = True
                        return f"the one called '{entry[key]}'"
        return repr(value)


def _unwrap(annotation: Any) -> tuple[Any, tuple[Any, ...]]:
    """The type under `Annotated` and `Optional`, with the metadata met on the way."""
    metadata: tuple[Any, ...] = ()
    while True:
        if typing.get_origin(annotation) is typing.Annotated:
            annotation, *more = typing.get_args(annotation)
            metadata += tuple(more)
            continue
        args = typing.get_args(annotation)
        if type(None) in args and len(args) == 2:
            annotation = next(a for a in args if a is not type(None))
            continue
        return annotation, metadata


def _sentence(spec: ToolSpec, said: list[str]) -> str:
    action = spec.description.strip().splitlines()[0].rstrip(".") if spec.description.strip() else spec.name
    return action + (f" ({'; '.join(said)})." if said else ".")


__all__ = ["WorldGenerator", "load_factory", "world_family"]
