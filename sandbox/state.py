"""Typed, journaled world state.

An app's state is a `StateModel`: a pydantic model whose attribute writes, and whose
lists, dicts and sets, report to the active undo journal before they change. That is
what lets the world roll a failed call back without copying the state first.

State may hold `StateModel`s, lists, dicts, sets, tuples and immutable values (str,
numbers, bool, None, datetime, Decimal, enums). Containers are converted to their
tracked twins when a model is built or an attribute is assigned, so tool code uses
ordinary Python (`self.state.items.append(x)`, `order.status = "cancelled"`).
"""

from __future__ import annotations

import copy
import datetime as _dt
import decimal
import enum
import types
import typing
from typing import Any, ClassVar, SupportsIndex

from pydantic import BaseModel, ConfigDict, SerializationInfo, SerializerFunctionWrapHandler, model_serializer

from .journal import active_journal


def _note_container(obj: Any) -> None:
    journal = active_journal()
    if journal is not None:
        journal.container(obj)


def _note_growth(obj: Any) -> None:
    journal = active_journal()
    if journal is not None:
        journal.list_growth(obj)


class TrackedList(list):
    """A list that records its old contents in the active journal before changing."""

    __slots__ = ()

    def append(self, value: Any) -> None:
        _note_growth(self)
        list.append(self, track(value))

    def extend(self, values: Any) -> None:
        _note_growth(self)
        list.extend(self, [track(v) for v in values])

    def insert(self, index: SupportsIndex, value: Any) -> None:
        _note_container(self)
        list.insert(self, index, track(value))

    def pop(self, index: SupportsIndex = -1) -> Any:
        _note_container(self)
        return list.pop(self, index)

    def remove(self, value: Any) -> None:
        _note_container(self)
        list.remove(self, value)

    def clear(self) -> None:
        _note_container(self)
        list.clear(self)

    def sort(self, *args: Any, **kwargs: Any) -> None:
        _note_container(self)
        list.sort(self, *args, **kwargs)

    def reverse(self) -> None:
        _note_container(self)
        list.reverse(self)

    def __setitem__(self, index: Any, value: Any) -> None:
        _note_container(self)
        if isinstance(index, slice):
            list.__setitem__(self, index, [track(v) for v in value])
        else:
            list.__setitem__(self, index, track(value))

    def __delitem__(self, index: Any) -> None:
        _note_container(self)
        list.__delitem__(self, index)

    def __iadd__(self, values: Any) -> TrackedList:  # type: ignore[misc]
        self.extend(values)
        return self

    def __imul__(self, count: SupportsIndex) -> TrackedList:
        _note_container(self)
        list.__imul__(self, count)
        return self

    def __reduce_ex__(self, protocol: SupportsIndex) -> Any:
        return (TrackedList, (list(self),))


class TrackedDict(dict):
    """A dict that records its old contents in the active journal before changing."""

    __slots__ = ()

    def __setitem__(self, key: Any, value: Any) -> None:
        journal = active_journal()
        if journal is not None:
            journal.dict_key(self, key)
        dict.__setitem__(self, key, track(value))

    def __delitem__(self, key: Any) -> None:
        _note_container(self)
        dict.__delitem__(self, key)

    def pop(self, *args: Any) -> Any:
        _note_container(self)
        return dict.pop(self, *args)

    def popitem(self) -> Any:
        _note_container(self)
        return dict.popitem(self)

    def clear(self) -> None:
        _note_container(self)
        dict.clear(self)

    def update(self, *args: Any, **kwargs: Any) -> None:
        _note_container(self)
        for key, value in dict(*args, **kwargs).items():
            dict.__setitem__(self, key, track(value))

    def setdefault(self, key: Any, default: Any = None) -> Any:
        if key in self:
            return dict.__getitem__(self, key)
        _note_container(self)
        value = track(default)
        dict.__setitem__(self, key, value)
        return value

    def __ior__(self, other: Any) -> TrackedDict:  # type: ignore[misc]
        self.update(other)
        return self

    def __reduce_ex__(self, protocol: SupportsIndex) -> Any:
        return (TrackedDict, (dict(self),))


class TrackedSet(set):
    """A set that records its old contents in the active journal before changing."""

    __slots__ = ()

    def add(self, value: Any) -> None:
        _note_container(self)
        set.add(self, value)

    def discard(self, value: Any) -> None:
        _note_container(self)
        set.discard(self, value)

    def remove(self, value: Any) -> None:
        _note_container(self)
        set.remove(self, value)

    def pop(self) -> Any:
        _note_container(self)
        return set.pop(self)

    def clear(self) -> None:
        _note_container(self)
        set.clear(self)

    def update(self, *others: Any) -> None:
        _note_container(self)
        set.update(self, *others)

    def difference_update(self, *others: Any) -> None:
        _note_container(self)
        set.difference_update(self, *others)

    def intersection_update(self, *others: Any) -> None:
        _note_container(self)
        set.intersection_update(self, *others)

    def symmetric_difference_update(self, other: Any) -> None:
        _note_container(self)
        set.symmetric_difference_update(self, other)

    def __ior__(self, other: Any) -> TrackedSet:  # type: ignore[misc]
        self.update(other)
        return self

    def __iand__(self, other: Any) -> TrackedSet:  # type: ignore[misc]
        self.intersection_update(other)
        return self

    def __isub__(self, other: Any) -> TrackedSet:  # type: ignore[misc]
        self.difference_update(other)
        return self

    def __ixor__(self, other: Any) -> TrackedSet:  # type: ignore[misc]
        self.symmetric_difference_update(other)
        return self

    def __reduce_ex__(self, protocol: SupportsIndex) -> Any:
        return (TrackedSet, (set(self),))


ATOMIC_TYPES: frozenset[type] = frozenset(
    {str, int, float, bool, type(None), bytes, _dt.datetime, _dt.date, _dt.time,
     _dt.timedelta, decimal.Decimal}
)


def track(value: Any) -> Any:
    """Return `value` with plain containers (recursively) replaced by tracked ones."""
    kind = type(value)
    if kind in ATOMIC_TYPES or kind in _TRACKED or isinstance(value, StateModel):
        return value
    if kind is list:
        return TrackedList([track(v) for v in value])
    if kind is dict:
        return TrackedDict({k: track(v) for k, v in value.items()})
    if kind is set:
        return TrackedSet(value)
    if kind is tuple:
        return tuple(track(v) for v in value)
    return value


_TRACKED = frozenset({TrackedList, TrackedDict, TrackedSet})


class StateModel(BaseModel):
    """Base class for app state and the entities inside it.

    Attribute writes go to the undo journal of the call in progress; assignment is not
    re-validated (tools are trusted code; their inputs were validated at the boundary).
    """

    model_config = ConfigDict(validate_assignment=False, extra="forbid", revalidate_instances="never")

    _field_names: ClassVar[frozenset[str]] = frozenset()
    _container_fields: ClassVar[tuple[str, ...]] = ()
    _set_fields: ClassVar[tuple[str, ...]] = ()
    # Optional fields left out of dumps while None. Some benchmark records simply lack a
    # key (ACEBench's sent messages have no `time`); a typed field that is None would
    # otherwise dump as `null` and break comparisons with ground truths recorded without it.
    omit_if_none: ClassVar[frozenset[str]] = frozenset()
    # Fields that are state (calls journal them; snapshots, forks and restores carry them)
    # but not facts of the world: left out of dumps, so `World.state()`, diffs and end-state
    # comparisons never see them. For what a harness feeds a world to steer how it behaves,
    # like the recorded random values a replay queues: the world's random source is not in
    # its dumps either, and two worlds that differ only in such input are in the same state.
    # `model_dump(context=WITH_INTERNAL)` keeps them (what `App.load` needs).
    internal_fields: ClassVar[frozenset[str]] = frozenset()

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        cls._field_names = frozenset(cls.model_fields)
        cls._container_fields = tuple(
            name for name, info in cls.model_fields.items() if _may_hold_container(info.annotation)
        )
        cls._set_fields = tuple(name for name, info in cls.model_fields.items() if _is_set(info.annotation))

    @model_serializer(mode="wrap")
    def _serialize(self, handler: SerializerFunctionWrapHandler, info: SerializationInfo) -> Any:
        """Dumps are the same bytes in every process: sets are sorted (their iteration order
        follows per-process string hashing), and `omit_if_none` fields are left out while None.
        `internal_fields` are left out unless the context asks for them."""
        data = handler(self)
        if isinstance(data, dict):
            for name in self._set_fields:
                value = data.get(name)
                if isinstance(value, (list, set, frozenset)):
                    data[name] = _sorted(value)
            for name in self.omit_if_none:
                if name in data and data[name] is None:
                    del data[name]
            if self.internal_fields and info.context != WITH_INTERNAL:
                for name in self.internal_fields:
                    data.pop(name, None)
        return data

    def model_post_init(self, context: Any, /) -> None:
        values = self.__dict__
        for name in self._container_fields:
            value = values.get(name)
            if type(value) in _PLAIN_CONTAINERS:
                values[name] = track(value)

    def __setattr__(self, name: str, value: Any) -> None:
        if name in self._field_names:
            journal = active_journal()
            if journal is not None:
                journal.attribute(self, name)
            self.__dict__[name] = track(value)
            self.__pydantic_fields_set__.add(name)
        else:
            super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"state field {name!r} cannot be deleted")


_PLAIN_CONTAINERS = frozenset({list, dict, set, tuple})

WITH_INTERNAL: typing.Final = "with internal fields"
"""The `model_dump` context that keeps `internal_fields` (a string, so the context is immutable)."""


def _alternatives(annotation: Any) -> tuple[Any, ...] | None:
    """The types a union stands for (or an `Annotated` type's own type); None for other annotations."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return typing.get_args(annotation)[:1]
    if origin is typing.Union or origin is types.UnionType:
        return typing.get_args(annotation)
    return None


def _is_set(annotation: Any) -> bool:
    if (typing.get_origin(annotation) or annotation) in (set, frozenset):
        return True
    alternatives = _alternatives(annotation)
    return alternatives is not None and any(_is_set(arg) for arg in alternatives)


def _sorted(values: Any) -> list[Any]:
    items = list(values)
    try:
        return sorted(items)
    except TypeError:
        return sorted(items, key=repr)


def _may_hold_container(annotation: Any) -> bool:
    """False only for annotations whose values can never be a list, dict, set or tuple."""
    if annotation in ATOMIC_TYPES:
        return False
    if isinstance(annotation, type) and issubclass(annotation, (BaseModel, enum.Enum)):
        return False
    if typing.get_origin(annotation) is typing.Literal:
        return False
    alternatives = _alternatives(annotation)
    return alternatives is None or any(_may_hold_container(arg) for arg in alternatives)


def clone(value: Any) -> Any:
    """A deep copy of state, several times faster than `copy.deepcopy` for state-shaped data.

    This is the one-off cost a forked world pays on its first write to an app, so it
    checks atomic values inline instead of recursing into them.
    """
    kind = type(value)
    if kind in ATOMIC_TYPES:
        return value
    if kind is TrackedList or kind is list:
        return TrackedList([v if type(v) in ATOMIC_TYPES else clone(v) for v in value])
    if kind is TrackedDict or kind is dict:
        return TrackedDict({k: v if type(v) in ATOMIC_TYPES else clone(v) for k, v in value.items()})
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
    new = object.__new__(kind)
    setter = object.__setattr__
    setter(new, "__dict__", {
        k: v if type(v) in ATOMIC_TYPES else clone(v) for k, v in value.__dict__.items()
    })
    setter(new, "__pydantic_fields_set__", set(value.__pydantic_fields_set__))
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
        for key, item in value.items():
            item_kind = type(item)
            out[key if type(key) is str else _plain_key(key)] = (
                item if item_kind is str or item_kind is int or item_kind is float
                or item_kind is bool or item is None else plain(item)
            )
        return out
    if kind in (list, tuple, TrackedList):
        return [plain(v) for v in value]
    if isinstance(value, BaseModel):
        # `model_dump(mode="json")` without its Python wrapper (the same serializer, the same defaults).
        return kind.__pydantic_serializer__.to_python(value, mode="json")
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


def _plain_key(key: Any) -> Any:
    if type(key) is str:
        return key
    if isinstance(key, enum.Enum):
        key = key.value
    return key if isinstance(key, str) else str(key)
