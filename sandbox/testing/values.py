"""Strategies for the values of one parameter, read from its annotation.

The annotation is the tool's own (what pydantic validates against), so values pass
validation by construction: `Literal` and enums give their members; `Annotated`
constraints (bounds, lengths, patterns, decimal places) bound the draws; models give
dicts of their fields; optionals, unions, lists, sets, tuples and dicts nest. Numbers
lean towards small non-negative values (two draws in three; what agents pass) while still
reaching the whole allowed range.

A parameter marked with a `Ref` draws, when a world is given, mostly from the values the
world's current state holds there, sometimes a value that is certainly absent, sometimes
any value of its type. With several `Ref`s, the first that holds any value is used (a
logged-in customer if there is one, else any customer).
"""

from __future__ import annotations

import datetime as dt
import decimal
import enum
import json
import types
import typing
from collections import abc
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hypothesis import strategies as st
from pydantic import AliasChoices, BaseModel, TypeAdapter, ValidationError
from pydantic.fields import FieldInfo

from ..refs import Ref, refs_of
from ..state import plain

if TYPE_CHECKING:
    from ..world import World

CONSTRAINTS = ("gt", "ge", "lt", "le", "multiple_of", "min_length", "max_length", "pattern", "decimal_places",
               "max_digits")
TEXT_SIZE = 12  # longest text drawn when the type sets no length
LIST_SIZE = 4  # longest list, set or dict drawn when the type sets no length
SMALL_SPAN = 20  # "small" integers run from the lowest allowed non-negative value this far
REJECTED = object()  # what `Values.coercer` gives for a value the type does not accept
EXISTING, ABSENT = 18, 19  # of twenty draws for a referenced value: 18 existing, 1 absent, 1 any


def constraints(metadata: Iterable[Any]) -> dict[str, Any]:
    """The validation constraints among a type's metadata (annotated-types, `Field(...)`, pydantic's own)."""
    found: dict[str, Any] = {}
    for meta in metadata:
        if isinstance(meta, FieldInfo):
            found.update(constraints(meta.metadata))
            continue
        if isinstance(meta, Ref):
            continue
        for name in CONSTRAINTS:
            value = getattr(meta, name, None)
            if value is not None:
                found[name] = value
    return found


def input_key(name: str, info: FieldInfo) -> str:
    """The key a caller must use for a field (its validation alias, when it has one)."""
    alias = info.validation_alias
    if isinstance(alias, str):
        return alias
    if isinstance(alias, AliasChoices):
        for choice in alias.choices:
            if isinstance(choice, str):
                return choice
    return info.alias or name


@dataclass
class Values:
    """Builds value strategies for one world (or none) and one way of spelling values.

    `python=False` gives JSON-ready values (a Decimal as text, a date as ISO text), which
    is what agents send and what lax worlds accept; strict worlds get Python objects.
    """

    world: World | None = None
    python: bool = False
    _adapters: dict[tuple[int, ...], Callable[[Any], Any]] = field(default_factory=dict)
    # Strategies that read no state are built once per type (keyed by the identity of the
    # annotation and its metadata, which live as long as the tools that declare them).
    _static: dict[tuple[int, ...], st.SearchStrategy[Any]] = field(default_factory=dict)

    def of(self, annotation: Any, metadata: tuple[Any, ...] = (), bound: Mapping[str, Any] | None = None
           ) -> st.SearchStrategy[Any]:
        """Values of `annotation` (with `metadata`); `bound` holds the call's arguments drawn so far."""
        refs, base, unreferenced, plain_values = self._parts(annotation, metadata, bound or {})
        if refs and self.world is not None:
            return _referenced(self, refs, plain_values, self.coercer(base, unreferenced), dict(bound or {}))
        return plain_values

    def draw(self, draw: st.DrawFn, annotation: Any, metadata: tuple[Any, ...], bound: Mapping[str, Any]) -> Any:
        """Draw one value as `of` would, without building a strategy for a referenced value each time."""
        refs, base, unreferenced, plain_values = self._parts(annotation, metadata, bound)
        if refs and self.world is not None:
            return self.referenced(draw, refs, plain_values, self.coercer(base, unreferenced), bound)
        return draw(plain_values)

    def referenced(self, draw: st.DrawFn, refs: tuple[Ref, ...], fallback: st.SearchStrategy[Any],
                   coerce: Callable[[Any], Any], bound: Mapping[str, Any]) -> Any:
        """Mostly a value that exists now at the first of `refs` that holds any; else one certainly
        absent from there; else any value of the type."""
        assert self.world is not None
        existing: list[Any] = []
        for ref in refs:
            existing = [value for found in ref.values(self.world, bound)
                        if (value := coerce(self.spelled(found))) is not REJECTED]
            if existing:
                break
        roll = draw(st.integers(0, 19))
        if existing and roll < EXISTING:
            return existing[draw(st.integers(0, len(existing) - 1))]
        if existing and roll < ABSENT:
            return draw(fallback.filter(lambda v: v not in existing))
        return draw(fallback)

    def _parts(self, annotation: Any, metadata: tuple[Any, ...], bound: Mapping[str, Any]
               ) -> tuple[tuple[Ref, ...], Any, tuple[Any, ...], st.SearchStrategy[Any]]:
        """The references on a type, the type under them, its other metadata, and its values ignoring the references."""
        while typing.get_origin(annotation) is typing.Annotated:
            annotation, *extra = typing.get_args(annotation)
            metadata = (*metadata, *extra)
        refs = tuple(meta for meta in metadata if isinstance(meta, Ref))
        unreferenced = tuple(meta for meta in metadata if not isinstance(meta, Ref))
        key = (id(annotation), *(id(meta) for meta in unreferenced))
        plain_values = self._static.get(key)
        if plain_values is None:
            plain_values = self._of_type(annotation, unreferenced, bound)
            if self.world is None or not refs_of(annotation):
                self._static[key] = plain_values
        return refs, annotation, unreferenced, plain_values

    def accepts(self, annotation: Any, metadata: tuple[Any, ...]) -> Callable[[Any], bool]:
        """A check that a value validates as `annotation` would validate it in this world."""
        coerce = self.coercer(annotation, metadata)
        return lambda value: coerce(value) is not REJECTED

    def coercer(self, annotation: Any, metadata: tuple[Any, ...]) -> Callable[[Any], Any]:
        """Validates a value as `annotation` would in this world: the value it becomes, spelled as
        this builder spells values (a key "3" read from state for an int parameter becomes 3), or `REJECTED`."""
        key = (id(annotation), *(id(meta) for meta in metadata))
        coerce = self._adapters.get(key)
        if coerce is None:
            parts = (annotation, *metadata)
            target: Any = typing.Annotated[parts] if metadata else annotation
            adapter: TypeAdapter[Any] = TypeAdapter(target)
            strict = self.python

            def coerce(value: Any) -> Any:
                try:
                    valid = adapter.validate_python(value, strict=strict)
                except (ValidationError, TypeError, ValueError):
                    return REJECTED
                return self.spelled(valid)

            self._adapters[key] = coerce
        return coerce

    def spelled(self, value: Any) -> Any:
        """A value read from state, spelled as this builder spells drawn values."""
        return value if self.python else plain(value)

    # -- by type ---------------------------------------------------------------------------

    def _of_type(self, tp: Any, metadata: tuple[Any, ...], bound: Mapping[str, Any]) -> st.SearchStrategy[Any]:
        origin = typing.get_origin(tp)
        args = typing.get_args(tp)
        limits = constraints(metadata)
        if tp is Any or tp is object:
            return json_values()
        if tp is None or tp is type(None):
            return st.none()
        if origin is typing.Literal:
            return st.sampled_from(args)
        if origin is typing.Union or origin is types.UnionType:
            return st.one_of([self.of(arg, metadata, bound) for arg in args])
        if origin in (list, tuple, set, frozenset, dict) or origin in _ABSTRACT:
            return self._container(_ABSTRACT.get(origin, origin), args, limits, metadata, bound)
        if tp in (list, tuple, set, frozenset, dict):
            return self._container(tp, (), limits, metadata, bound)
        if isinstance(tp, type):
            return self._scalar(tp, limits, bound)
        raise TypeError(f"no strategy for values of {tp!r}")

    def _scalar(self, tp: type, limits: Mapping[str, Any], bound: Mapping[str, Any]) -> st.SearchStrategy[Any]:
        if issubclass(tp, bool):
            return st.booleans()
        if issubclass(tp, enum.Enum):
            members = list(tp)
            return st.sampled_from(members if self.python else [plain(m) for m in members])
        if issubclass(tp, int):
            return integers(limits)
        if issubclass(tp, float):
            return floats(limits)
        if issubclass(tp, decimal.Decimal):
            amounts = decimals(limits)
            return amounts if self.python else amounts.map(str)
        if issubclass(tp, str):
            return texts(limits)
        if issubclass(tp, bytes):
            raw = st.binary(max_size=TEXT_SIZE)
            return raw if self.python else raw.map(lambda b: b.decode("latin-1"))
        if issubclass(tp, dt.datetime):
            moments = st.datetimes(min_value=dt.datetime(1970, 1, 1), max_value=dt.datetime(2100, 1, 1))
            return moments if self.python else moments.map(lambda m: m.isoformat())
        if issubclass(tp, dt.date):
            days = st.dates(min_value=dt.date(1970, 1, 1), max_value=dt.date(2100, 1, 1))
            return days if self.python else days.map(lambda d: d.isoformat())
        if issubclass(tp, dt.time):
            return st.times() if self.python else st.times().map(lambda t: t.isoformat())
        if issubclass(tp, dt.timedelta):
            spans = st.timedeltas(min_value=dt.timedelta(0), max_value=dt.timedelta(days=400))
            return spans if self.python else spans.map(lambda d: d.total_seconds())
        if issubclass(tp, BaseModel):
            return self.model(tp, bound)
        raise TypeError(f"no strategy for values of {tp.__name__}")

    def model(self, model: type[BaseModel], bound: Mapping[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
        """A nested model as the dict a caller sends: required fields always, optional ones sometimes."""
        required: dict[str, st.SearchStrategy[Any]] = {}
        optional: dict[str, st.SearchStrategy[Any]] = {}
        for name, info in model.model_fields.items():
            values = self.of(info.annotation, tuple(info.metadata), bound)
            (required if info.is_required() else optional)[input_key(name, info)] = values
        return st.fixed_dictionaries(required, optional=optional)

    def _container(self, kind: Any, args: tuple[Any, ...], limits: Mapping[str, Any], metadata: tuple[Any, ...],
                   bound: Mapping[str, Any]) -> st.SearchStrategy[Any]:
        low = limits.get("min_length", 0)
        high = limits.get("max_length", max(low, LIST_SIZE))
        if kind is dict:
            key_type, value_type = args if len(args) == 2 else (str, Any)
            keys = self.of(key_type, (), bound)
            if not self.python:
                keys = keys.map(_json_key)
            return st.dictionaries(keys, self.of(value_type, (), bound), min_size=low, max_size=high)
        if kind is tuple and args and args[-1] is not Ellipsis:
            parts = st.tuples(*(self.of(arg, (), bound) for arg in args))
            return parts if self.python else parts.map(list)
        item = self.of(args[0], (), bound) if args else json_values()
        if kind in (set, frozenset):
            items = st.lists(item, min_size=low, max_size=high, unique_by=_identity)
            return items.map(kind) if self.python else items
        items = st.lists(item, min_size=low, max_size=high)
        return items.map(tuple) if self.python and kind is tuple else items


# What `typing.get_origin` gives for abstract container types, and the concrete kind drawn for each.
_ABSTRACT: Mapping[Any, Any] = types.MappingProxyType({
    abc.Sequence: list, abc.MutableSequence: list, abc.Iterable: list, abc.Collection: list,
    abc.Mapping: dict, abc.MutableMapping: dict, abc.Set: set, abc.MutableSet: set,
})


@st.composite
def _referenced(draw: st.DrawFn, values: Values, refs: tuple[Ref, ...], fallback: st.SearchStrategy[Any],
                coerce: Callable[[Any], Any], bound: dict[str, Any]) -> Any:
    return values.referenced(draw, refs, fallback, coerce, bound)


# -- scalars -------------------------------------------------------------------------------


def _bounds(limits: Mapping[str, Any], step: Any) -> tuple[Any, Any]:
    """Inclusive bounds from gt/ge/lt/le, exclusive ones moved in by `step` (None when open)."""
    low = limits.get("ge")
    if low is None and limits.get("gt") is not None:
        low = limits["gt"] + step
    high = limits.get("le")
    if high is None and limits.get("lt") is not None:
        high = limits["lt"] - step
    return low, high


def _small(low: Any, high: Any, span: Any) -> tuple[Any, Any]:
    """A small range inside [low, high]: from the least allowed non-negative value, `span` wide."""
    start = low if low is not None and low > 0 else 0
    if high is not None and start > high:
        start = high if low is None else max(low, high - span)
    end = start + span if high is None else min(high, start + span)
    return start, end


def integers(limits: Mapping[str, Any]) -> st.SearchStrategy[int]:
    low, high = _bounds(limits, 1)
    low = None if low is None else int(low)
    high = None if high is None else int(high)
    step = limits.get("multiple_of")
    if step:
        step = int(step)
        first = None if low is None else -(-low // step)
        last = None if high is None else high // step
        return st.integers(first, last).map(lambda k: k * step)
    start, end = _small(low, high, SMALL_SPAN)
    small = st.integers(start, end)
    return st.one_of(small, small, st.integers(low, high))


def floats(limits: Mapping[str, Any]) -> st.SearchStrategy[float]:
    low = limits.get("ge", limits.get("gt"))
    high = limits.get("le", limits.get("lt"))
    low = None if low is None else float(low)
    high = None if high is None else float(high)
    above = "gt" in limits and "ge" not in limits  # the lower bound itself is excluded
    below = "lt" in limits and "le" not in limits
    start, end = _small(low, high, 1000.0)
    small = st.floats(start, end, allow_nan=False, allow_infinity=False,
                      exclude_min=above and start == low, exclude_max=below and end == high)
    wide = st.floats(low, high, allow_nan=False, allow_infinity=False, exclude_min=above, exclude_max=below)
    return st.one_of(small, small, wide)


def decimals(limits: Mapping[str, Any]) -> st.SearchStrategy[decimal.Decimal]:
    places = limits.get("decimal_places")
    digits = limits.get("max_digits")
    if digits is not None and places is None:
        places = 0  # whole numbers always fit a digit limit that leaves no room for decimals
    step = decimal.Decimal(1).scaleb(-places) if places is not None else decimal.Decimal("1e-6")
    low, high = _bounds(limits, step)
    if digits is not None:
        most = decimal.Decimal(10) ** (digits - places) - step
        high = most if high is None else min(high, most)
        low = -most if low is None else max(low, -most)
    start, end = _small(low, high, decimal.Decimal(1000))
    small = st.decimals(start, end, places=places, allow_nan=False, allow_infinity=False)
    wide = st.decimals(low, high, places=places, allow_nan=False, allow_infinity=False)
    if places is None:  # without a step the exclusive bounds need checking
        def inside(value: decimal.Decimal) -> bool:
            return ("gt" not in limits or value > limits["gt"]) and ("lt" not in limits or value < limits["lt"])

        return st.one_of(small, small, wide).filter(inside)
    return st.one_of(small, small, wide)


def texts(limits: Mapping[str, Any]) -> st.SearchStrategy[str]:
    low = limits.get("min_length", 0)
    high = limits.get("max_length")
    pattern = limits.get("pattern")
    if pattern is not None:
        matching = st.from_regex(pattern, fullmatch=True)
        if low or high is not None:
            return matching.filter(lambda s: low <= len(s) and (high is None or len(s) <= high))
        return matching
    most = high if high is not None else max(low, TEXT_SIZE)
    if low == 0 and most > 0:  # agents rarely send empty text: two draws in three are not
        filled = st.text(min_size=1, max_size=most)
        return st.one_of(filled, filled, st.text(max_size=most))
    return st.text(min_size=low, max_size=most)


def json_values() -> st.SearchStrategy[Any]:
    """Any JSON value, kept small (for parameters typed `Any`)."""
    scalars = (st.none() | st.booleans() | st.integers(-1000, 1000)
               | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8))
    return st.recursive(scalars, lambda inner: st.lists(inner, max_size=3)
                        | st.dictionaries(st.text(max_size=6), inner, max_size=3), max_leaves=6)


def _json_key(key: Any) -> str:
    if isinstance(key, str):
        return key
    value = plain(key)
    return value if isinstance(value, str) else json.dumps(value)


def _identity(value: Any) -> str:
    return json.dumps(plain(value), sort_keys=True, default=str)
