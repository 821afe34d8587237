"""Generated tasks for any world a user writes: `toolworlds generate world:package.module:factory`.

Nothing about the world is known but what the engine can read: its tools (which change state,
their parameters and types, the `Ref`s saying where valid values live, and their docstrings).
A candidate is a run of state-changing calls drawn against a fresh world from the factory, each
argument drawn as the property-testing kit reads parameters (`sandbox.testing.parameters`, in the
order their references need): a `Ref`'d parameter takes a value the state holds now, a `Literal` one
of its choices, a number one inside its bounds, a text a plain word. Calls the world refuses, or that
change nothing, are drawn again. Each call becomes a request a person would write, in en or zh: the
world's own words for the tool when its factory's module has them (`TASK_PHRASES`: language -> tool ->
paraphrases with `{parameter}` slots), else a drawn frame around the docstring's first line and its
arguments' descriptions (`any_world_phrases`); an entity is named by its title or name when it has one
(so the agent looks its id up, with the world's listing tool, which the gold path calls first).

Levels: the number of state-changing calls is the level (6 at level 5); from 2 on, entities are named,
not numbered; at 5 one candidate in twenty is one of ACEBench's special cases (a call's required text or
number left unsaid, an impossible date for a date parameter, a request no tool serves), scored by its
one reply as banking's are. Needs the `testing` extra (hypothesis), as the kit does.
"""

from __future__ import annotations

import importlib
import inspect
import random
import re
import string
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

from sandbox import Call, World
from sandbox.tools import ToolSpec

from . import any_world_phrases as words
from .family import WorldFamily
from .generation import SPECIAL_CATEGORIES, Candidate, draws_special, one_request, special_category
from .named import named_callable
from .world_tasks import WorldTask, world_task

PREFIX = "world:"
VERSION = "2"
LANGUAGES = ("en", "zh")
NAME_FIELDS = ("title", "name", "user_name", "product", "label")
# State-changing calls per level: 4 has two more than 3 and 5 three more than 4, so the noisy agent (which passes
# the special cases) does worse at every level, in both languages (bench/generation.py; 4 calls at 4 did not).
CALLS = MappingProxyType({1: 1, 2: 2, 3: 3, 4: 5, 5: 8})
PHRASEBOOK = "TASK_PHRASES"  # the factory module's own words for its tools: {lang: {tool: (paraphrase, ...)}}
_UNSET = object()
Phrasebook = Mapping[str, Mapping[str, tuple[str, ...]]]


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
                       languages=LANGUAGES, generator=lambda: WorldGenerator(path), scorers="evaluators.generated")


def phrasebook(path: str) -> Phrasebook:
    """The world's own words for its tools (`TASK_PHRASES` in the factory's module), or none."""
    module = importlib.import_module(path.partition(":")[0])
    found = getattr(module, PHRASEBOOK, None)
    return found if isinstance(found, Mapping) else {}


@dataclass(frozen=True)
class WorldGenerator:
    """The `scenarios.generation.TaskGenerator` of any world, from its factory's import path."""

    path: str
    version: str = VERSION
    languages: tuple[str, ...] = LANGUAGES

    @property
    def family(self) -> str:
        return PREFIX + self.path

    def factory(self) -> Callable[..., World]:
        return load_factory(self.path)

    def propose(self, rng: random.Random, difficulty: int, lang: str) -> Candidate:
        special = draws_special(rng, difficulty)
        book = phrasebook(self.path)
        for _ in range(1000):
            draft = _Draft(rng, self.factory()(seed=0), difficulty, lang, book)
            candidate = draft.special() if special else draft.write()
            if candidate is not None:
                return candidate
        raise LookupError(f"{self.path}: no {CALLS[difficulty]} state-changing calls in a row succeed in its world")

    def world(self, candidate: Candidate, lang: str) -> World:
        return self.factory()(seed=0)

    def end_state(self, world: World, candidate: Candidate) -> Any:
        return world.state()

    def task(self, record: Mapping[str, Any], functions: list[dict[str, Any]], lang: str) -> WorldTask:
        return world_task(record, functions, lang, self.family, self.factory())


Said = list[tuple[str, str, str]]  # per argument given: its key, how the user names it, and its value in words
_ALONE = "\x00"  # marks a value said as an entity's name, which stands without the parameter's description


class _Draft:
    def __init__(self, rng: random.Random, world: World, difficulty: int, lang: str = "en",
                 book: Phrasebook | None = None) -> None:
        from sandbox.testing import parameters  # the kit (hypothesis): only when generating for a user's world

        self.rng, self.world, self.difficulty, self.lang = rng, world, difficulty, lang
        self.book = (book or {}).get(lang, {})
        self.parameters = parameters
        self.writers = [spec for spec in world.tools.values() if spec.mutates]
        self.listers = [spec for spec in world.tools.values()
                        if not spec.mutates and not spec.args_model.model_json_schema().get("required")]
        self.calls: list[Call] = []
        self.requests: list[str] = []
        self.named = False
        self.first_named: int | None = None  # the first call naming an entity: the listing goes before it
        self.calls_state = world.state()  # the state after the calls kept so far

    def write(self) -> Candidate | None:
        if not self.writers:
            return None
        while len(self.calls) < CALLS[self.difficulty]:
            if not any(self.step() for _ in range(30)):
                return None
        messages: list[tuple[Call, ...]] = [(call,) for call in self.calls]
        if self.first_named is not None and self.listers:
            messages.insert(self.first_named, (Call(self.rng.choice(self.listers).name, {}),))
        question = one_request(self.requests, self.lang, self.rng, ordered=True)
        return Candidate("multi_step", question, tuple(self.world.apps), {}, tuple(messages),
                         {name: state for name, state in self.world.state().items()})

    def special(self) -> Candidate | None:
        """One of ACEBench's special cases asked of this world: a call's required text or number left
        unsaid, an impossible date given for a date parameter, or a request no tool serves; None when the
        world has nothing to leave out or get wrong there (drawn again)."""
        category = special_category(self.rng, 0.4, 0.7)
        plain = [(spec, p) for spec in self.writers for p in self.parameters(spec)
                 if p.required and not p.refs and _unwrap(p.info.annotation)[0] in (str, int, float)]
        answer: dict[str, list[str]] = {}
        if category == SPECIAL_CATEGORIES[0]:
            if not plain:
                return None
            spec, left_out = self.rng.choice(plain)
            drawn = self.arguments(spec, leave_out=left_out.key)
            if drawn is None:
                return None
            request, answer = self.request(spec, drawn[1]), {spec.name: [left_out.key]}
        elif category == SPECIAL_CATEGORIES[1]:
            dated = [(spec, p) for spec in self.writers for p in self.parameters(spec)
                     if not p.refs and _unwrap(p.info.annotation)[0] is str and _is_date(p)]
            if not dated:
                return None
            spec, wrong = self.rng.choice(dated)
            bad = self.rng.choice(words.IMPOSSIBLE_DAYS)
            drawn = self.arguments(spec, fixed=(wrong.key, bad))
            if drawn is None:
                return None
            request, answer = self.request(spec, drawn[1]), {wrong.key: [bad]}
        else:
            names = " ".join(self.world.tools).lower()
            served = [text for text, topic in words.IRRELEVANT[self.lang] if topic not in names]
            if not served:
                return None
            request = self.rng.choice(served)
        question = one_request([request], self.lang, self.rng)
        return Candidate(category, question, tuple(self.world.apps), {}, special=answer)

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
        self.requests.append(self.request(spec, said))
        return True

    def arguments(self, spec: ToolSpec, leave_out: str = "", fixed: tuple[str, Any] = ("", None)
                  ) -> tuple[dict[str, Any], Said] | None:
        """Arguments drawn for `spec` and what the user says of them (`leave_out` is left unsaid and ungiven,
        `fixed` given as it is: a special case's missing detail and wrong value)."""
        from sandbox.testing.arguments import drawing_order

        bound: dict[str, Any] = {}
        said: Said = []
        for param in drawing_order(self.parameters(spec)):
            if param.key == leave_out or (not param.required and param.key != fixed[0] and self.rng.random() < 0.5):
                continue
            if param.key == fixed[0]:
                value, spoken = fixed[1], str(fixed[1])
            else:
                value, spoken = self.value(param.info.annotation, tuple(param.info.metadata), param.refs, bound,
                                           param.name, param.info.description or "")
            if value is _UNSET:
                if param.required:
                    return None
                continue
            bound[param.key] = value
            said.append((param.key, _noun(param.info.description or param.name), spoken))
        return bound, said

    def request(self, spec: ToolSpec, said: Said) -> str:
        """What the user asks for this call: the world's own words for the tool when it has some that fit
        (every `{slot}` a given argument), else a drawn frame around the docstring's action; the arguments
        its words leave out follow as details."""
        given = {key: spoken.split(_ALONE)[-1] for key, _, spoken in said}  # a slot takes the bare name
        fitting = [t for t in self.book.get(spec.name, ()) if set(_slots(t)) <= set(given)]
        if fitting:
            most = max(len(set(_slots(t))) for t in fitting)  # the words that say the most of what is given
            template = self.rng.choice([t for t in fitting if len(set(_slots(t))) == most])
            action, rest = template.format(**given), [s for s in said if s[0] not in _slots(template)]
            frame = "{action}{details}"
        else:
            first = re.split(r"[;(]", spec.description.strip().splitlines()[0])[0].strip().rstrip(".") \
                if spec.description.strip() else spec.name
            action, rest = first[:1].lower() + first[1:], said
            frame = self.rng.choice(words.FRAMES[self.lang])
        details = ""
        if rest:
            parts = [self.rng.choice(words.ARGUMENT[self.lang]).format(noun=noun, value=spoken)
                     if _ALONE not in spoken else spoken.split(_ALONE)[0] for _, noun, spoken in rest]
            comma, last = words.AND[self.lang]
            joined = parts[0] if len(parts) == 1 else comma.join(parts[:-1]) + last + parts[-1]
            details = self.rng.choice(words.DETAILS[self.lang]).format(args=joined)
        return frame.format(action=action, details=details)

    def quoted(self, text: str) -> str:
        left, right = words.QUOTES[self.lang]
        return left + text + right

    def value(self, annotation: Any, metadata: tuple[Any, ...], refs: tuple[Any, ...], bound: dict[str, Any],
              name: str = "", description: str = "") -> tuple[Any, str]:
        base, extra = _unwrap(annotation)
        for ref in refs:
            found = [v for v in ref.values(self.world, bound) if isinstance(v, (str, int, float))]
            if found:
                chosen = self.rng.choice(found)
                return ([chosen] if typing.get_origin(base) is list else chosen), self.entity(ref, chosen)
        if refs:
            return _UNSET, ""  # nothing in the state it could name: this call is not drawn now
        origin = typing.get_origin(base)
        if origin is Literal:
            choice = self.rng.choice(typing.get_args(base))
            return choice, self.quoted(str(choice)) if isinstance(choice, str) else str(choice)
        if origin is list:
            inner = typing.get_args(base)[0] if typing.get_args(base) else str
            value, spoken = self.value(inner, (), (), bound, name, description)
            return ([value], spoken) if value is not _UNSET else (_UNSET, "")
        limits = {k: getattr(m, k) for m in metadata + extra for k in ("ge", "gt", "le", "lt", "max_length", "pattern")
                  if getattr(m, k, None) is not None}
        return self.plain(base, limits, f"{name} {description}".lower())

    def plain(self, base: Any, limits: Mapping[str, Any], hint: str) -> tuple[Any, str]:
        """A value of a plain type inside its bounds, and how the user says it."""
        if base is bool:
            choice = self.rng.random() < 0.5
            return choice, words.YES_NO[self.lang][0 if choice else 1]
        if base is int:
            low = int(limits.get("ge", limits.get("gt", 0) + 1 if "gt" in limits else 1))
            high = int(limits.get("le", limits.get("lt", low + 10) - 1 if "lt" in limits else low + 9))
            number = self.rng.randint(low, max(low, high))
            return number, str(number)
        if base is float or getattr(base, "__name__", "") == "Decimal":
            amount = round(self.rng.uniform(5, 500), 2)
            return amount, str(amount)
        if base is not str or "pattern" in limits:
            return _UNSET, ""
        if "yyyy-mm-dd" in hint or "date" in hint:
            text = f"2024-08-{self.rng.randrange(1, 29):02d}"
            text += f" {self.rng.randrange(8, 20):02d}:00" if "hh:mm" in hint else ""
            return text, text  # a date is said as it is, not quoted
        else:
            text = self.rng.choice(words.WORDS[self.lang])
            if self.rng.random() < 0.6:
                qualifier = self.rng.choice(words.QUALIFIERS[self.lang])
                text = qualifier + text if self.lang == "zh" else text + " " + qualifier
        text = text[: int(limits.get("max_length", 60))]
        return text, self.quoted(text)

    def entity(self, ref: Any, value: Any) -> str:
        """How the user names what `value` points at: its title or name when it has one (the agent then
        looks the id up: the gold path starts with a listing), else the value itself. A name is said as
        "the one called 'X'" where it stands alone and as 'X' in the world's own words (`_ALONE` parts)."""
        if self.difficulty < 2:
            return self.quoted(str(value)) if isinstance(value, str) else str(value)
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
                        name = self.quoted(entry[key])
                        return self.rng.choice(words.ENTITY[self.lang]).format(name=name) + _ALONE + name
        return self.quoted(str(value)) if isinstance(value, str) else str(value)


def _slots(template: str) -> list[str]:
    return [name for _, name, _, _ in string.Formatter().parse(template) if name]


def _noun(description: str) -> str:
    """A parameter's description as the thing the user names ("The book's title." -> "the book's title"),
    without examples and format notes."""
    text = re.split(r",? e\.g\.", description)[0].strip().rstrip(".")
    text = re.sub(r"\s+as\s+[A-Z][A-Z:\- ]*$", "", text)
    return text[:1].lower() + text[1:] if text[1:2].islower() or len(text) < 2 else text


def _is_date(param: Any) -> bool:
    hint = f"{param.name} {param.info.description or ''}".lower()
    return "yyyy-mm-dd" in hint or "date" in hint


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


__all__ = ["WorldGenerator", "load_factory", "phrasebook", "world_family"]
