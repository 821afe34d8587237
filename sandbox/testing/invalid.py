"""Argument dicts that must be rejected, each labelled with the one thing wrong with it.

Each starts from a valid dict (so exactly one thing is wrong) and then leaves out a
required parameter, adds one the tool does not have, gives one a value of the wrong
kind, or gives one a value of the right kind outside what its type allows.
"""

from __future__ import annotations

import copy
import decimal
import enum
import re
import string
import types
import typing
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from hypothesis import strategies as st
from pydantic import AliasChoices

from ..tools import ToolSpec
from .arguments import Parameter, _arguments, parameters
from .values import Values, constraints

if TYPE_CHECKING:
    from ..world import World

Problem = Literal["missing", "extra", "wrong_type", "out_of_range"]

# One value of each JSON kind; a parameter's wrong values are those its type rejects.
WRONG_KINDS: tuple[Any, ...] = ({"unexpected": ["object"]}, [["nested", "list"]], "not the right kind", 2.5, True,
                                None)


@dataclass(frozen=True)
class Invalid:
    """Arguments with exactly one problem: `problem` at `parameter`, explained by `why`."""

    arguments: dict[str, Any]
    problem: Problem
    parameter: str
    why: str


def invalid_arguments(spec: ToolSpec, world: World | None = None) -> st.SearchStrategy[Invalid]:
    """Labelled argument dicts that `spec`'s validation rejects (for every tool: at least an extra parameter)."""
    return _invalid(spec, Values(world, python=world is not None and world.coercion == "strict"))


def _invalid(spec: ToolSpec, values: Values) -> st.SearchStrategy[Invalid]:
    params = parameters(spec)
    valid = _arguments(spec, values)
    required = [p for p in params if p.required]
    wrong = {p.key: kinds for p in params if (kinds := _wrong_kinds(p, values))}
    outside = {p.key: found for p in params if (found := _out_of_range(p, values)) is not None}
    taken = _taken_names(params)
    problems: list[Problem] = ["extra"]
    if required:
        problems.append("missing")
    if wrong:
        problems.append("wrong_type")
    if outside:
        problems.append("out_of_range")

    extra_names = st.text(alphabet=string.ascii_lowercase + "_", min_size=1, max_size=12).filter(
        lambda name: name not in taken)
    extra_values = st.none() | st.booleans() | st.integers() | st.text(max_size=8)
    return _draw_invalid(spec.name, tuple(problems), valid, tuple(required), wrong, outside,
                         st.tuples(extra_names, extra_values))


@st.composite
def _draw_invalid(draw: st.DrawFn, tool: str, problems: tuple[Problem, ...],
                  valid: st.SearchStrategy[dict[str, Any]], required: tuple[Parameter, ...],
                  wrong: dict[str, list[Any]], outside: dict[str, st.SearchStrategy[Any]],
                  extra: st.SearchStrategy[tuple[str, Any]]) -> Invalid:
    problem = draw(st.sampled_from(problems))
    arguments = dict(draw(valid))
    if problem == "missing":
        param = draw(st.sampled_from(required))
        arguments.pop(param.key, None)
        return Invalid(arguments, problem, param.key, f"required parameter {param.key!r} is missing")
    if problem == "extra":
        name, value = draw(extra)
        arguments[name] = value
        return Invalid(arguments, problem, name, f"{tool} has no parameter {name!r}")
    if problem == "wrong_type":
        key = draw(st.sampled_from(sorted(wrong)))
        arguments[key] = copy.deepcopy(draw(st.sampled_from(wrong[key])))  # never hand out the shared samples
        kind = type(arguments[key]).__name__
        return Invalid(arguments, problem, key, f"{key!r} given a {kind}, which its type does not accept")
    key = draw(st.sampled_from(sorted(outside)))
    arguments[key] = draw(outside[key])
    return Invalid(arguments, problem, key, f"{key!r} given {arguments[key]!r}, outside what its type allows")


def _taken_names(params: list[Parameter]) -> frozenset[str]:
    names = {p.name for p in params} | {p.key for p in params}
    for param in params:
        alias = param.info.validation_alias
        if isinstance(alias, AliasChoices):
            names.update(choice for choice in alias.choices if isinstance(choice, str))
        if param.info.alias:
            names.add(param.info.alias)
    return frozenset(names)


def _wrong_kinds(param: Parameter, values: Values) -> list[Any]:
    accepts = values.accepts(param.info.annotation, tuple(param.info.metadata))
    return [value for value in WRONG_KINDS if not accepts(value)]


def _unwrap(annotation: Any, metadata: tuple[Any, ...]) -> tuple[Any, tuple[Any, ...]]:
    """The type under `Annotated` and `Optional`, with all the metadata met on the way."""
    while True:
        origin = typing.get_origin(annotation)
        if origin is typing.Annotated:
            base, *extra = typing.get_args(annotation)
            annotation, metadata = base, (*metadata, *extra)
        elif origin is typing.Union or origin is types.UnionType:
            members = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
            if len(members) != 1:
                return annotation, metadata
            annotation = members[0]
        else:
            return annotation, metadata


def _out_of_range(param: Parameter, values: Values) -> st.SearchStrategy[Any] | None:
    """Values of the parameter's kind that its constraints or choices rule out; None when nothing does."""
    tp, metadata = _unwrap(param.info.annotation, tuple(param.info.metadata))
    limits = constraints(metadata)
    accepts = values.accepts(param.info.annotation, tuple(param.info.metadata))
    origin = typing.get_origin(tp)
    candidates: list[st.SearchStrategy[Any]] = []
    if origin is typing.Literal or (isinstance(tp, type) and issubclass(tp, enum.Enum)):
        candidates.append(st.sampled_from(["not-an-option", "", "OTHER"]))
    elif isinstance(tp, type) and issubclass(tp, (int, float, decimal.Decimal)) and not issubclass(tp, bool):
        candidates.extend(_numbers_outside(tp, limits, values))
    elif tp is str:
        candidates.extend(_texts_outside(limits))
    elif origin in (list, set, frozenset, tuple, dict) or tp in (list, dict):
        low, high = limits.get("min_length"), limits.get("max_length")
        empty: Any = {} if (origin or tp) is dict else []
        if low:
            candidates.append(st.just(empty))
        if high is not None and (origin or tp) is not dict:
            item = typing.get_args(tp)[0] if typing.get_args(tp) else Any
            items = values.of(item)
            candidates.append(st.lists(items, min_size=high + 1, max_size=high + 3, unique_by=repr))
    checked = [strategy.filter(lambda v: not accepts(v)) for strategy in candidates]
    return st.one_of(checked) if checked else None


def _numbers_outside(tp: type, limits: dict[str, Any], values: Values) -> list[st.SearchStrategy[Any]]:
    found: list[Any] = []
    for name in ("gt", "ge", "lt", "le"):
        if name not in limits:
            continue
        bound = limits[name]
        away = -1 if name in ("gt", "ge") else 1
        if name in ("gt", "lt"):
            found.append(bound)  # the excluded bound itself
        found.extend([bound + away, bound + away * 1000])
    places = limits.get("decimal_places")
    if places is not None:
        found.append(decimal.Decimal(1) + decimal.Decimal(1).scaleb(-(places + 1)))
    spelled = []
    for number in found:
        if issubclass(tp, int):
            value: Any = int(number)
        elif issubclass(tp, decimal.Decimal):
            value = decimal.Decimal(number) if values.python else str(decimal.Decimal(number))
        else:
            value = float(number)
        spelled.append(value)
    return [st.sampled_from(spelled)] if spelled else []


def _texts_outside(limits: dict[str, Any]) -> list[st.SearchStrategy[str]]:
    found: list[st.SearchStrategy[str]] = []
    low, high, pattern = limits.get("min_length"), limits.get("max_length"), limits.get("pattern")
    if low:
        found.append(st.text(max_size=low - 1))
    if high is not None:
        found.append(st.text(min_size=high + 1, max_size=high + 6))
    if pattern is not None:
        compiled = re.compile(pattern)
        found.append(st.text(max_size=12).filter(lambda s: compiled.search(s) is None))
    return found
