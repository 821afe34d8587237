"""JSON-mode dumps of models without the wrap serializers that change nothing in them.

Every `StateModel` carries a Python wrap serializer (sorted sets, `omit_if_none`,
`internal_fields`). For most classes it has nothing to do, yet pydantic-core still calls
into Python for it once per model instance, which costs twice what the dump itself does:
a read call that returns one state entity spent most of its time there.

`serializer_of` builds, once per class whose own wrapper is idle, a pydantic-core serializer
from the class's own core schema with exactly those wrappers taken out: a wrapper stays wherever
the caller's `idle` test does not vouch that it returns the handler's output unchanged for that
class. The one thing a wrapper does besides calling its function is to serialize the result
once more by inference, which in JSON mode writes infinite and NaN floats as null; the lean
schema does that for floats itself. Every other part of the schema (field serializers, aliases,
exclusions, config) is the class's own, so the dump is the serializer's own output.
tests/test_fast_dumps.py checks the two against each other on every state class of the
scenarios and on generated models and values, wrong types included.

This is the `dumps` speed lane (`sandbox.lanes`): with the lanes off, `serializer_of` gives each
class's own serializer, so every dump is `model_dump(mode="json")`'s.
"""

from __future__ import annotations

from collections.abc import Callable
from math import isfinite
from typing import Any

from pydantic import BaseModel
from pydantic_core import SchemaSerializer

from .lanes import LANES_ON

SERIALIZER_ATTRIBUTE = "_tw_plain_serializer"
"""The class attribute holding `(class, serializer)`; the class is checked, as subclasses inherit it."""
LIST_SERIALIZER_ATTRIBUTE = "_tw_plain_list_serializer"
"""The class attribute holding `(class, serializer of a list of it, or None)` (`list_serializer_of`)."""

# Whether a wrap serializer function is known to change nothing in the dumps of a model class.
IdleTest = Callable[[type, Any], bool]


def serializer_of(kind: type[BaseModel], idle: IdleTest) -> SchemaSerializer:
    """The serializer giving `kind.__pydantic_serializer__`'s output with idle wrappers left out
    (the class's own serializer when its own wrapper is not idle, or while the class is not fully built),
    kept on the class. This is the `dumps` speed lane (`sandbox.lanes`): with the lanes off, the class's
    own serializer, every time."""
    if not LANES_ON:
        return kind.__pydantic_serializer__
    entry: tuple[type, SchemaSerializer] | None = getattr(kind, SERIALIZER_ATTRIBUTE, None)
    if entry is not None and entry[0] is kind:
        return entry[1]
    if not kind.__dict__.get("__pydantic_complete__", False):
        return kind.__pydantic_serializer__  # not built yet (an unresolved forward reference): ask again later
    serializer = lean_serializer(kind, idle)
    type.__setattr__(kind, SERIALIZER_ATTRIBUTE, (kind, serializer))
    return serializer


def list_serializer_of(kind: type[BaseModel], idle: IdleTest) -> SchemaSerializer | None:
    """A serializer of a list of `kind` giving what the lean serializer (`serializer_of`) gives for each item,
    in one call instead of one per item; None where the lean one is the class's own (its wrapper does work),
    while the class is not fully built, or with the lanes off. Kept on the class; its caller vouches that
    every item is of exactly this class (`sandbox.results`)."""
    if not LANES_ON:
        return None
    entry: tuple[type, SchemaSerializer | None] | None = getattr(kind, LIST_SERIALIZER_ATTRIBUTE, None)
    if entry is not None and entry[0] is kind:
        return entry[1]
    if not kind.__dict__.get("__pydantic_complete__", False):
        return None
    serializer = None
    schema = kind.__pydantic_core_schema__
    top = _model_schema(schema)
    if serializer_of(kind, idle) is not kind.__pydantic_serializer__ and top is not None:
        lean = _lean(schema, idle)
        # A schema with definitions keeps them at its top, the list inside.
        items = ({**lean, "schema": {"type": "list", "items_schema": lean["schema"]}}
                 if lean.get("type") == "definitions" else {"type": "list", "items_schema": lean})
        serializer = SchemaSerializer(items, top.get("config"))
    type.__setattr__(kind, LIST_SERIALIZER_ATTRIBUTE, (kind, serializer))
    return serializer


def lean_serializer(kind: type[BaseModel], idle: IdleTest) -> SchemaSerializer:
    """A new serializer for the fully built `kind`, built from its core schema without the wrappers `idle`
    vouches for (the class's own serializer when its own wrapper is not idle): the lane itself, whatever
    the switch says, so that tests can hold it to the class's serializer in one process."""
    schema = kind.__pydantic_core_schema__
    top = _model_schema(schema)
    if top is not None and _idle_wrapper(top, idle) and not _sets_float_output(schema):
        return SchemaSerializer(_lean(schema, idle), top.get("config"))
    return kind.__pydantic_serializer__


def _model_schema(schema: Any) -> dict[str, Any] | None:
    while isinstance(schema, dict) and schema.get("type") == "definitions":
        schema = schema["schema"]
    return schema if isinstance(schema, dict) and schema.get("type") == "model" else None


def _sets_float_output(node: Any) -> bool:
    """Whether a config in the schema changes how non-finite floats are written (see `_null_if_not_finite`)."""
    if isinstance(node, dict):
        return "ser_json_inf_nan" in node or any(_sets_float_output(value) for value in node.values())
    if isinstance(node, list):
        return any(_sets_float_output(value) for value in node)
    return False


def _null_if_not_finite(value: Any, handler: Any) -> Any:
    """A wrap serializer's result is serialized once more by inference, which writes an infinite or NaN
    float as null in JSON mode (the typed float serializer does not); this does the same where the
    wrapper is left out. Under the class's own wrapper, every value of the dump goes through it.
    (An enum's: its value is known only after the handler; a float field's takes `_finite_or_none`.)"""
    dumped = handler(value)
    return None if type(dumped) is float and dumped - dumped != 0.0 else dumped


def _finite_or_none(value: Any) -> Any:
    """`_null_if_not_finite` for a float field, as a plain serializer whose return schema is the field's own
    float schema (made nullable): the value itself goes to the typed float serializer, as the handler would
    give it, except a non-finite float (a subclass's too: the typed serializer writes it as a plain float),
    which is None. Cheaper than the wrap, which makes a handler object and calls back into it, per float."""
    if type(value) is float:
        return value if value - value == 0.0 else None
    return None if isinstance(value, float) and not isfinite(value) else value


def _lean(node: Any, idle: IdleTest) -> Any:
    """A copy of a core schema without the idle wrap serializers of its model schemas, and with floats
    and enums (whose values may be floats) written as the wrapper would have left them; the very node
    when nothing under it changes (so the original schema is never modified)."""
    if isinstance(node, dict):
        changed = {}
        for key, value in node.items():
            lean = _lean(value, idle)
            if lean is not value:
                changed[key] = lean
        kind = node.get("type")
        drop = kind == "model" and _idle_wrapper(node, idle)
        finite = kind in ("float", "enum") and "serialization" not in node
        if not changed and not drop and not finite:
            return node
        copy = {**node, **changed}
        if drop:
            del copy["serialization"]
        if kind == "float" and finite:
            # The float's own schema serializes what the function gives (None: as null), so what a wrong
            # type gives, and its warning, are the typed serializer's own, as under the wrap.
            copy["serialization"] = {"type": "function-plain", "function": _finite_or_none, "info_arg": False,
                                     "return_schema": {"type": "nullable", "schema": {
                                         key: value for key, value in copy.items() if key not in ("ref", "metadata")}}}
        elif finite:
            copy["serialization"] = {"type": "function-wrap", "function": _null_if_not_finite, "info_arg": False}
        return copy
    if isinstance(node, list):
        items = [_lean(value, idle) for value in node]
        return node if all(a is b for a, b in zip(items, node, strict=True)) else items
    return node


def _idle_wrapper(model_schema: dict[str, Any], idle: IdleTest) -> bool:
    serialization = model_schema.get("serialization")
    # Only a wrapper whose handler is the model's own serializer, run every time.
    return (isinstance(serialization, dict) and serialization.get("type") == "function-wrap"
            and not set(serialization) - {"type", "function", "info_arg", "return_schema"}
            and isinstance(model_schema.get("cls"), type) and idle(model_schema["cls"], serialization.get("function")))
