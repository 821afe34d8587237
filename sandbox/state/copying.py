"""Copies of state that share nothing with it: deep clones (`clone`) and JSON-ready dumps (`plain`).

A call's results and arguments go into the call log, and `World.state()` reports dumps; a copy that
aliased live state would change when the state changes later.
"""

from __future__ import annotations

import copy
import datetime as _dt
import decimal
import enum
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

from ..dumps import SERIALIZER_ATTRIBUTE, serializer_of
from .containers import TrackedDict, TrackedList, TrackedSet
from .model import StateModel
from .ownership import ATOMIC_TYPES


def clone(value: Any) -> Any:
    """A deep copy of state, several times faster than `copy.deepcopy` for state-shaped data.

    This is the one-off cost a forked world pays on its first write to an app, so it
    checks atomic values inline instead of recursing into them.
    """
    kind = type(value)
    if kind in ATOMIC_TYPES:
        return value
    if kind is TrackedList or kind is list:
        return TrackedList([v if type(v) in ATOMIC_TYPES else clone(v) for v in list.__iter__(value)])
    if kind is TrackedDict or kind is dict:
        return TrackedDict({k: v if type(v) in ATOMIC_TYPES else clone(v) for k, v in dict.items(value)})
    if isinstance(value, StateModel):
        return _clone_model(value, kind)
    if kind is TrackedSet or kind is set:
        return TrackedSet(value)
    if kind is tuple:
        return tuple(clone(v) for v in value)
    if isinstance(value, enum.Enum):
        return value
    return copy.deepcopy(value)


def _clone_model(value: StateModel, kind: type[StateModel]) -> StateModel:
    new = object.__new__(kind._tw_real or kind)
    setter = object.__setattr__
    setter(new, "__dict__", {
        k: v if type(v) in ATOMIC_TYPES else clone(v) for k, v in value.__dict__.items()
    })
    setter(new, "__pydantic_fields_set__", value.__pydantic_fields_set__)  # never changed in place
    extra = value.__pydantic_extra__
    setter(new, "__pydantic_extra__", None if extra is None else clone(extra))
    private = value.__pydantic_private__
    setter(new, "__pydantic_private__", None if private is None else copy.deepcopy(private))
    return new


def plain(value: Any) -> Any:
    """A JSON-ready copy of a result or argument that shares nothing with the state.

    Results go into the call log; a log entry that aliased live state would change
    when the state changes later.
    """
    kind = type(value)
    if kind is str or kind is int or kind is float or kind is bool or value is None:
        return value
    if kind is dict or kind is TrackedDict:
        out = {}
        for key, item in dict.items(value):
            item_kind = type(item)
            out[key if type(key) is str else _plain_key(key)] = (
                item if item_kind is str or item_kind is int or item_kind is float
                or item_kind is bool or item is None else plain(item)
            )
        return out
    if kind is TrackedList:
        return [plain(v) for v in list.__iter__(value)]
    if kind in (list, tuple):
        return [plain(v) for v in value]
    # `model_dump(mode="json")` without its Python wrapper, and without `StateModel`'s wrap serializer
    # where it has nothing to do (`sandbox.dumps`): the same output, the same defaults. The class's
    # serializer is looked up before `isinstance`, which costs more on pydantic's ABC metaclass.
    known = getattr(kind, SERIALIZER_ATTRIBUTE, None)
    if known is not None and known[0] is kind:
        return known[1].to_python(value, mode="json")
    if isinstance(value, BaseModel):
        return serializer_of(kind, _idle_wrapper).to_python(value, mode="json")
    return _plain_other(value, kind)


def _plain_other(value: Any, kind: type) -> Any:
    """`plain` of a value that is none of JSON's own types, a container or a model."""
    if kind in (set, frozenset, TrackedSet):
        items = [plain(v) for v in value]
        try:
            return sorted(items)
        except TypeError:
            return items
    if isinstance(value, enum.Enum):
        return plain(value.value)
    if isinstance(value, (_dt.datetime, _dt.date, _dt.time)):
        return value.isoformat()
    if isinstance(value, _dt.timedelta):
        return value.total_seconds()
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    for base in (bool, int, float, str):
        if isinstance(value, base):
            return base(value)
    return repr(value)


def plain_fields(model: StateModel, names: Sequence[str]) -> dict[str, Any]:
    """`plain(model)` restricted to the top-level fields `names`: the same values under those keys (the
    same serializer, told to include only them), without serializing the other fields."""
    dumped: dict[str, Any] = serializer_of(type(model), _idle_wrapper).to_python(model, mode="json",
                                                                                 include=set(names))
    return dumped


def _idle_wrapper(model: type, function: Any) -> bool:
    """Whether `function` is `StateModel`'s wrap serializer with nothing to do for `model`'s dumps."""
    return (function is StateModel._serialize and issubclass(model, StateModel) and not model._set_fields
            and not model.omit_if_none and not model.internal_fields)


def _plain_key(key: Any) -> Any:
    if type(key) is str:
        return key
    if isinstance(key, enum.Enum):
        key = key.value
    return key if isinstance(key, str) else str(key)
