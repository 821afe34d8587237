"""The fast lane for the common call: a few plain scalar arguments, bounded, checked and validated in one pass.

Most calls pass a handful of short ASCII strings and small numbers to parameters typed
`str`, `int`, `float`, `bool` (maybe optional, maybe a `Literal`, maybe with a length or
range bound). For those, the limit walk (`checked_copy`), pydantic's validation and the
lax-coercion integer check all come to "every value is already what the parameter wants",
and running them one after the other costs more than the tool itself.

`ArgumentPlan` is read once per tool from the argument model's pydantic-core schema, so it
never guesses at a type: any field whose schema holds a key the plan does not understand
(a validator function, a pattern, strictness, an alias, a nested model) leaves the tool
without a plan. A plan only ever *accepts*: a value it is not sure about (a type that would
need coercion, a string past a bound, text that is not ASCII) sends the whole call down the
full path, which gives the refusal or coercion its own exact words. So the fast lane cannot
accept what the full path refuses, and never words an error of its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from .limits import InputLimits

_FLOAT_BOUND = float("inf")
# The pydantic-core scalar schemas a plan handles, and the Python type each accepts as is.
_SCALAR_TYPES = MappingProxyType({"str": str, "int": int, "float": float, "bool": bool})
# Keys a scalar schema may hold besides `type`: the bounds a plan checks itself.
_STR_BOUNDS = frozenset({"min_length", "max_length"})
_NUMBER_BOUNDS = frozenset({"ge", "gt", "le", "lt"})
# No default: the parameter must be passed.
_REQUIRED = object()


@dataclass(frozen=True, slots=True)
class Parameter:
    """What one parameter accepts without coercion: exact types, maybe a fixed set of values, maybe bounds."""

    types: frozenset[type]
    choices: frozenset[Any] | None
    bounds: dict[str, Any] | None
    default: Any
    # Neither choices nor bounds: the type check is the whole check (the common case, tested first).
    free: bool = True


def _within(value: Any, kind: type, bounds: dict[str, Any]) -> bool:
    size = len(value) if kind is str else value
    for key, limit in bounds.items():
        if key == "min_length" or key == "ge":
            if not size >= limit:
                return False
        elif key == "max_length" or key == "le":
            if not size <= limit:
                return False
        elif key == "gt":
            if not size > limit:
                return False
        elif not size < limit:  # lt
            return False
    return True


@dataclass(frozen=True, slots=True)
class ArgumentPlan:
    """The parameters of one tool whose arguments can all take the fast lane."""

    parameters: dict[str, Parameter]
    # (name, default) of every parameter in declaration order; `_REQUIRED` for those without one.
    defaults: tuple[tuple[str, Any], ...]
    names: tuple[str, ...]

    def check(self, arguments: dict[Any, Any], limits: InputLimits) -> tuple[dict[str, Any], dict[str, Any]] | None:
        """(the log's copy of the arguments, the keyword arguments for the tool), or None for the full path.

        None is no verdict: the call may be fine (a value that needs coercion) or not (an
        unknown parameter, a missing one, a value past a limit); the full path decides and says why.
        """
        parameters = self.parameters
        total = 0
        for key, value in arguments.items():
            # The key's type first: no code of the caller's (a key's own `__eq__`) runs during the check,
            # so the arguments cannot change between the check and the copy below.
            if type(key) is not str:
                return None
            parameter = parameters.get(key)
            if parameter is None:
                return None
            kind = type(value)
            if kind not in parameter.types:
                return None
            if kind is str:
                if len(value) > limits.max_string_chars or not value.isascii():
                    return None
                total += len(value)
            elif kind is int:
                if not -limits.int_bound < value < limits.int_bound:
                    return None
            elif kind is float and not -_FLOAT_BOUND < value < _FLOAT_BOUND:
                return None
            if parameter.free or value is None:
                continue
            if parameter.choices is not None and value not in parameter.choices:
                return None
            if parameter.bounds is not None and not _within(value, kind, parameter.bounds):
                return None
        if total > limits.max_message_chars:
            return None
        raw = arguments.copy()
        names = self.names
        if len(raw) == len(names) and (len(names) == 1 or tuple(raw) == names):
            return raw, raw.copy()
        # In declaration order, as pydantic gives them, so the log reads the same either way.
        kwargs = {name: raw.get(name, default) for name, default in self.defaults}
        if len(raw) < len(kwargs) and _REQUIRED in kwargs.values():
            return None
        return raw, kwargs


def plan_for(core_schema: Any) -> ArgumentPlan | None:
    """The plan for an argument model's pydantic-core schema; None when any part of it is past what a plan handles."""
    if not isinstance(core_schema, dict) or core_schema.get("type") != "model":
        return None
    if core_schema.get("custom_init") or core_schema.get("root_model") or "post_init" in core_schema:
        return None
    config = core_schema.get("config", {})
    if config.get("extra_fields_behavior") != "forbid" or set(config) - {"extra_fields_behavior", "title"}:
        return None
    fields_schema = core_schema.get("schema", {})
    if fields_schema.get("type") != "model-fields" or fields_schema.get("computed_fields") \
            or set(fields_schema) - {"type", "fields", "model_name", "computed_fields"}:
        return None
    parameters: dict[str, Parameter] = {}
    for name, field in fields_schema.get("fields", {}).items():
        if set(field) - {"type", "schema", "metadata"} or field.get("type") != "model-field":
            return None
        parameter = _parameter(field["schema"])
        if parameter is None:
            return None
        parameters[name] = parameter
    return ArgumentPlan(parameters, tuple((name, p.default) for name, p in parameters.items()), tuple(parameters))


def _parameter(schema: dict[str, Any]) -> Parameter | None:
    default = _REQUIRED
    if schema.get("type") == "default":
        if set(schema) - {"type", "schema", "default", "metadata"} or "default" not in schema:
            return None
        default = schema["default"]
        if type(default) not in (str, int, float, bool, type(None)):
            return None
        schema = schema["schema"]
    nullable = schema.get("type") == "nullable"
    if nullable:
        if set(schema) - {"type", "schema", "metadata"}:
            return None
        schema = schema["schema"]
    kind: str = schema.get("type", "")
    choices: frozenset[Any] | None = None
    bounds: dict[str, Any] = {}
    if kind == "literal":
        if set(schema) - {"type", "expected", "metadata"}:
            return None
        expected = schema["expected"]
        # Only text choices: pydantic matches 1 to True among numbers and booleans.
        if not expected or any(type(value) is not str for value in expected):
            return None
        types: set[type] = {str}
        choices = frozenset(expected)
    elif kind in _SCALAR_TYPES:
        allowed = _STR_BOUNDS if kind == "str" else _NUMBER_BOUNDS if kind in ("int", "float") else frozenset()
        extra = set(schema) - {"type", "metadata"}
        if extra - allowed:
            return None
        bounds = {key: schema[key] for key in extra}
        if any(type(value) not in (int, float) for value in bounds.values()):
            return None
        types = {_SCALAR_TYPES[kind]}
    else:
        return None
    if nullable:
        types.add(type(None))
    return Parameter(frozenset(types), choices, bounds or None, default, choices is None and not bounds)
