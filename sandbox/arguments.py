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

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from pydantic import BaseModel

from .input_limits import InputLimits

_FLOAT_BOUND = float("inf")
# The pydantic-core scalar schemas a plan handles, and the Python type each accepts as is.
_SCALAR_TYPES = MappingProxyType({"str": str, "int": int, "float": float, "bool": bool})
# Keys a scalar schema may hold besides `type`: the bounds a plan checks itself.
_STR_BOUNDS = frozenset({"min_length", "max_length"})
_NUMBER_BOUNDS = frozenset({"ge", "gt", "le", "lt"})
# No default: the parameter must be passed.
REQUIRED = object()
_NO_LIMIT = 2**63
# How pydantic-core makes a model instance: a bare object, its four slots set past the model's `__setattr__`
# (through the slots' own descriptors: `object.__setattr__` would look each one up first).
_new_object = object.__new__
_set_dict = BaseModel.__dict__["__dict__"].__set__
_set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__


def fill_slots(model: BaseModel, fields: dict[str, Any], fields_set: set[str]) -> None:
    """Give `model`, an instance no validation has filled, the four slots pydantic-core gives one it validated:
    `fields` as its dict (taken as it is), `fields_set`, no extra and no private values. The one writer of that
    layout for every instance made without validation (argument models, the `build` lane's entities, a worker's
    episode records); the caller vouches that `fields` is what validation would have kept."""
    _set_dict(model, fields)
    _set_fields_set(model, fields_set)
    _set_extra(model, None)
    _set_private(model, None)


@dataclass(frozen=True, slots=True)
class Parameter:
    """What one parameter accepts without coercion: exact types, maybe a fixed set of values, maybe bounds."""

    types: frozenset[type]
    choices: frozenset[Any] | None
    bounds: dict[str, Any] | None
    default: Any
    # Neither choices nor bounds: the type check is the whole check (the common case, tested first).
    free: bool = True
    # For a list of small argument models: how each item is checked and built (then `types` holds `list`).
    items: ItemModel | None = None


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


def fits(parameter: Parameter, value: Any, kind: type) -> bool:
    """Whether a value of a type the parameter takes is one of its choices and within its bounds
    (None, where the parameter takes it, always is: choices and bounds are of the other type)."""
    if value is None:
        return True
    if parameter.choices is not None and value not in parameter.choices:
        return False
    return parameter.bounds is None or _within(value, kind, parameter.bounds)


def _in_order(given: dict[str, Any], defaults: tuple[tuple[str, Any], ...]) -> dict[str, Any] | None:
    """The values pydantic keeps, in declaration order with defaults filled in; None when a required one is missing.

    (Callers first try the common case inline: every name given, in declaration order, is a copy.)
    """
    ordered = {name: given.get(name, default) for name, default in defaults}
    if len(given) < len(ordered) and REQUIRED in ordered.values():
        return None
    return ordered


# What `ItemModel.build` makes of a list: the log's copy of the items, the model instances, their dumped
# form, and the characters and values the items add to the walk's counts.
_BuiltItems = tuple[list[Any], list[Any], list[Any], int, int]


@dataclass(frozen=True, slots=True)
class ItemModel:
    """A list parameter's small argument model, and how many items the list may hold."""

    cls: type[BaseModel]
    fields: dict[str, Parameter]
    defaults: tuple[tuple[str, Any], ...]
    names: tuple[str, ...]
    min_items: int
    max_items: int
    # The longest field name, and all names' characters: bounds on what the keys add to the walk's counts.
    longest_name: int
    name_chars: int
    name_list: list[str]  # `names` as a list, which `list(an_item)` is compared to

    def build(self, value: list[Any], limits: InputLimits) -> _BuiltItems | None:
        """(the log's copy of the items, the model instances, their dumped form, characters, values), or None.

        The instances are what pydantic-core makes: the field values in declaration order as
        `__dict__`, the keys given as `model_fields_set`, no extra and no private values.
        """
        count = len(value)
        # The walk meets the list at depth 1 and its items at depth 2: both must be under `max_depth`.
        if not self.min_items <= count <= self.max_items or count > limits.max_items or limits.max_depth < 3 \
                or self.longest_name > limits.max_string_chars:
            return None
        fields, name_list, cls = self.fields, self.name_list, self.cls
        chars = self.name_chars * count
        values = count
        max_chars, int_bound = limits.max_string_chars, limits.int_bound
        copies, models, dumped = [], [], []
        for item in value:
            if type(item) is not dict:
                return None
            copy = item.copy()  # checked, then kept: the log's copy
            for key, field_value in copy.items():
                if type(key) is not str:
                    return None
                field = fields.get(key)
                if field is None:
                    return None
                kind = type(field_value)
                if kind not in field.types:
                    return None
                # As in `ArgumentPlan.check`, inline for the same reason.
                if kind is str:
                    if len(field_value) > max_chars or not field_value.isascii():
                        return None
                    chars += len(field_value)
                elif kind is int:
                    if not -int_bound < field_value < int_bound:
                        return None
                elif kind is float and not -_FLOAT_BOUND < field_value < _FLOAT_BOUND:
                    return None
                if not field.free and not fits(field, field_value, kind):
                    return None
            values += len(copy)
            own: dict[str, Any] | None
            if list(copy) == name_list:  # every field given, in order (each key text: tested above)
                own = copy.copy()
            else:
                own = _in_order(copy, self.defaults)
                if own is None:
                    return None
            model = _new_object(cls)
            fill_slots(model, own, set(copy))
            copies.append(copy)
            models.append(model)
            dumped.append(own.copy())
        return copies, models, dumped, chars, values


@dataclass(frozen=True, slots=True)
class ArgumentPlan:
    """The parameters of one tool whose arguments can all take the fast lane."""

    parameters: dict[str, Parameter]
    # (name, default) of every parameter in declaration order; `REQUIRED` for those without one.
    defaults: tuple[tuple[str, Any], ...]
    names: tuple[str, ...]
    longest_name: int
    name_chars: int
    # `str` or `int` when every parameter is a required one of that type alone (no None, choices or bounds):
    # then a call giving each of them, in declaration order, is checked a shorter way (`_one_type`).
    one_type: type | None
    name_list: list[str]  # `names` as a list, which `list(a_dict)` is compared to

    def check(
        self, arguments: dict[Any, Any], limits: InputLimits
    ) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]] | None:
        """(the log's copy of the arguments, the keyword arguments for the tool, the log's validated copy),
        or None for the full path.

        None is no verdict: the call may be fine (a value that needs coercion) or not (an
        unknown parameter, a missing one, a value past a limit); the full path decides and says why.
        """
        if not arguments and not self.names:  # a tool of no parameters, called with none: nothing to check
            empty: dict[str, Any] = {}
            return {}, empty, empty
        one_type = self.one_type
        if one_type is not None and len(arguments) == len(self.names):
            # The common call of a tool of texts (or of integers) alone: the loop below without looking up each
            # parameter, then the names compared all at once (in C, and only once every key is known to be text,
            # so no code of the caller's runs); given in another order, the loop below decides.
            given = arguments.copy()
            max_chars = limits.max_string_chars
            total = self.name_chars
            if one_type is str:
                for key, value in given.items():
                    if type(key) is not str or type(value) is not str or (size := len(value)) > max_chars \
                            or not value.isascii():
                        return None
                    total += size
            else:
                bound = limits.int_bound
                for key, value in given.items():
                    if type(key) is not str or type(value) is not int or not -bound < value < bound:
                        return None
            if list(given) == self.name_list:
                if total > limits.max_message_chars or len(given) > limits.max_items or self.longest_name > max_chars:
                    return None
                passed = given.copy()
                return given, passed, passed
        parameters = self.parameters
        total = self.name_chars
        values = len(arguments)
        lists: tuple[tuple[str, _BuiltItems], ...] = ()  # grown only by list arguments: no allocation otherwise
        max_chars = limits.max_string_chars
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
            # The scalar checks inline: most calls are a few scalars, and this loop is most of their check
            # (text first, the commonest).
            if kind is str:
                size = len(value)
                if size > max_chars or not value.isascii():
                    return None
                total += size
            elif kind is int:
                if not -limits.int_bound < value < limits.int_bound:
                    return None
            elif kind is list:
                built = parameter.items.build(value, limits)  # type: ignore[union-attr]
                if built is None:
                    return None
                lists += ((key, built),)
                total += built[3]
                values += built[4]
                continue
            elif kind is float and not -_FLOAT_BOUND < value < _FLOAT_BOUND:
                return None
            if not parameter.free and not fits(parameter, value, kind):
                return None
        # Parameter names count as text in the walk: all of them, a bound on those given.
        if total > limits.max_message_chars or values > limits.max_items or self.longest_name > max_chars:
            return None
        raw = arguments.copy()
        names = self.names
        kwargs: dict[str, Any] | None
        if len(raw) == len(names) and (len(names) == 1 or tuple(raw) == names):
            kwargs = raw.copy()
        else:
            kwargs = _in_order(raw, self.defaults)
            if kwargs is None:
                return None
        if not lists:
            return raw, kwargs, kwargs
        return _with_items(raw, kwargs, lists)


def _with_items(raw: dict[str, Any], kwargs: dict[str, Any], lists: tuple[tuple[str, _BuiltItems], ...]
                ) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """`ArgumentPlan.check`'s result where lists of argument models were given: each list's log copy,
    its model instances for the tool, and their dumped form for the validated copy."""
    validated = kwargs.copy()
    for key, (copies, models, dumped, _, _) in lists:
        raw[key] = copies
        kwargs[key] = models
        validated[key] = dumped
    return raw, kwargs, validated


def plan_for(core_schema: Any) -> ArgumentPlan | None:
    """The plan for an argument model's pydantic-core schema; None when any part of it is past what a plan handles."""
    fields = _fields(core_schema, ("forbid",))
    if fields is None:
        return None
    names = tuple(fields)
    return ArgumentPlan(fields, tuple((name, p.default) for name, p in fields.items()), names,
                        max(map(len, names), default=0), sum(map(len, names)), _one_type(fields), list(names))


def _one_type(fields: dict[str, Parameter]) -> type | None:
    """`str` or `int` when every parameter is a required one of that type and nothing else (`ArgumentPlan.one_type`)."""
    kinds = {next(iter(p.types)) if len(p.types) == 1 and p.free and p.items is None and p.default is REQUIRED
             else None for p in fields.values()}
    kind = kinds.pop() if len(kinds) == 1 else None
    return kind if kind is str or kind is int else None


# The keys of a model's schema, and of its config, that a plan knows to change nothing it checks.
_MODEL_KEYS = frozenset({"type", "cls", "config", "custom_init", "metadata", "ref", "root_model", "schema"})
_CONFIG_KEYS = frozenset({"extra_fields_behavior", "title"})
# A state model's besides: its post-init hook (run by the builder too: see `scalar_fields`), its serializer, and
# `revalidate_instances`, which applies only to an instance of the model given whole, never to field values.
_STATE_MODEL_KEYS = _MODEL_KEYS | {"post_init", "serialization"}
_STATE_CONFIG_KEYS = _CONFIG_KEYS | {"revalidate_instances"}
_NONE_READ: Mapping[str, Parameter] = MappingProxyType({})


def scalar_fields(core_schema: Any, read: Mapping[str, Parameter] = _NONE_READ) -> dict[str, Parameter] | None:
    """The fields of a state model's pydantic-core schema, each as a `Parameter`, when each one takes plain
    scalars the lane handles (no list of models), or is one of `read`, fields the caller has read itself (a
    state model's containers: `sandbox.state.model`), taken as given; None otherwise. For building instances
    without validation from values each already of its field's type (the `build` lane): the model's post-init
    hook and serializer are allowed here, the builder standing for the one post-init hook it knows.

    `extra="allow"` is left out: pydantic would give the instance an empty dict of extra values."""
    fields = _fields(core_schema, (None, "ignore", "forbid"), _STATE_MODEL_KEYS, _STATE_CONFIG_KEYS, read)
    if fields is None or any(field.items is not None for field in fields.values()):
        return None
    return fields


def _fields(core_schema: Any, extra: tuple[str | None, ...], model_keys: frozenset[str] = _MODEL_KEYS,
            config_keys: frozenset[str] = _CONFIG_KEYS, read: Mapping[str, Parameter] = _NONE_READ
            ) -> dict[str, Parameter] | None:
    """The fields of a model schema, each as a `Parameter`; None when the model or a field is past the lane.

    `extra` is what the model's own `extra` setting may be: the full path validates with
    `extra="forbid"`, which holds for nested models too, but an argument model must say so itself.
    """
    if not isinstance(core_schema, dict) or core_schema.get("type") != "model":
        return None
    if set(core_schema) - model_keys or core_schema.get("custom_init") or core_schema.get("root_model"):
        return None
    config = core_schema.get("config", {})
    if config.get("extra_fields_behavior") not in extra or set(config) - config_keys:
        return None
    fields_schema = core_schema.get("schema", {})
    if fields_schema.get("type") != "model-fields" or fields_schema.get("computed_fields") \
            or set(fields_schema) - {"type", "fields", "model_name", "computed_fields"}:
        return None
    parameters: dict[str, Parameter] = {}
    for name, field in fields_schema.get("fields", {}).items():
        if set(field) - {"type", "schema", "metadata"} or field.get("type") != "model-field":
            return None
        parameter = read[name] if name in read else _parameter(field["schema"])
        if parameter is None:
            return None
        parameters[name] = parameter
    return parameters


def _item_model(schema: dict[str, Any]) -> ItemModel | None:
    """A `list[SomeModel]` schema's plan, when the model is a plain one of fields the lane handles."""
    if set(schema) - {"type", "items_schema", "min_length", "max_length", "metadata"}:
        return None
    model = schema.get("items_schema")
    fields = _fields(model, (None, "ignore", "forbid"))
    if fields is None:
        return None
    cls = model["cls"]  # type: ignore[index]
    # What `_new_object` and the four attributes make is exactly pydantic-core's instance only for these.
    if not (isinstance(cls, type) and issubclass(cls, BaseModel)) or cls.__new__ is not object.__new__ \
            or cls.__pydantic_post_init__ is not None or cls.__private_attributes__ or not fields:
        return None
    # One level of lists only: an item's own list would be shared, not copied, by `ItemModel.build`.
    if any(field.items is not None for field in fields.values()):
        return None
    low, high = schema.get("min_length", 0), schema.get("max_length", _NO_LIMIT)
    if type(low) is not int or type(high) is not int:
        return None
    names = tuple(fields)
    return ItemModel(cls, fields, tuple((name, p.default) for name, p in fields.items()), names, low, high,
                     max(map(len, names)), sum(map(len, names)), list(names))


def unwrapped(schema: dict[str, Any]) -> tuple[dict[str, Any], Any, bool] | None:
    """A field's schema without its default and nullable wrappers: (the schema inside, the default or `REQUIRED`,
    whether None is taken); None when a wrapper holds anything else (a default factory, say)."""
    default = REQUIRED
    if schema.get("type") == "default":
        if set(schema) - {"type", "schema", "default", "metadata"} or "default" not in schema:
            return None
        default = schema["default"]
        schema = schema["schema"]
    nullable = schema.get("type") == "nullable"
    if nullable:
        if set(schema) - {"type", "schema", "metadata"}:
            return None
        schema = schema["schema"]
    return schema, default, nullable


def _parameter(schema: dict[str, Any]) -> Parameter | None:
    parts = unwrapped(schema)
    if parts is None:
        return None
    schema, default, nullable = parts
    if type(default) not in (str, int, float, bool, type(None)) and default is not REQUIRED:
        return None
    kind: str = schema.get("type", "")
    choices: frozenset[Any] | None = None
    bounds: dict[str, Any] = {}
    items: ItemModel | None = None
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
    elif kind == "list":
        items = _item_model(schema)
        if items is None:
            return None
        types = {list}
    else:
        return None
    if nullable:
        types.add(type(None))
    return Parameter(frozenset(types), choices, bounds or None, default, choices is None and not bounds, items)
