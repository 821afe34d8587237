"""Typed, journaled world state.

An app's state is a `StateModel`: a pydantic model whose attribute writes, and whose
lists, dicts and sets, report to the active undo journal before they change. That is
what lets the world roll a failed call back without copying the state first.

State may hold `StateModel`s, lists, dicts, sets, tuples and immutable values (str,
numbers, bool, None, datetime, Decimal, enums). Containers are converted to their
tracked twins when a model is built or an attribute is assigned, so tool code uses
ordinary Python (`self.state.items.append(x)`, `order.status = "cancelled"`).

Structural sharing: forks and snapshots of a world share its state objects, and a world
copies only what it touches. Every tracked container and state model carries an owner, the
generation (an opaque token) of the one app state allowed to change it in place. An app
that may write copies its top-level state model with a fresh generation (`own`: the model,
its nested models and its containers, shallowly, never the items inside the containers);
a container of that generation then hands out each item (`d[k]`, `d.get`, `d.values()`,
`lst[i]`, iteration, `pop`...) only once it is of the same generation, replacing a shared
item by a shallow copy of its own first. So a first write after a fork copies the path
from the state to the entity it changes, whatever the size of the rest. Values put into a
container or model are adopted by its generation when they are fresh (no owner yet);
readers that bypass Python methods (dumps, `==`, `dict(...)`) see the shared objects, whose
values are right: what must never happen, and cannot through these methods, is an in-place
write to an object another world can reach. State is a tree, as its dumps are: the same
object put in two places is two objects once a fork has copied either path.

Copies made in the first writing call after a fork or snapshot are recorded as
claims in the call's journal (`_note_claim`); the ones the call did not change are given
back when it ends (`Journal.release`), so a world keeps copies only of what it changed.
That call does not claim the fields of a top with three or more (`CLAIM_ON_READ_FROM`) up front
either (`claim_on_read`): each is claimed when the call first reads it, so one that reads two of
five collections copies, compares and gives back two. During it, `vars()` and `__dict__` of the
top may show fields still shared.
"""

from __future__ import annotations

import abc
import copy
import datetime as _dt
import decimal
import enum
import types
import typing
from collections.abc import Sequence
from itertools import chain as _chain
from itertools import islice as _islice
from typing import Any, ClassVar, SupportsIndex

from pydantic import BaseModel, ConfigDict, SerializationInfo, SerializerFunctionWrapHandler, model_serializer

from . import journal as journal_module
from .dumps import SERIALIZER_ATTRIBUTE, serializer_of
from .journal import ALL_OWNED, CLAIM_FIELD, CLAIM_SLOT, active_journal

OWNER = "_tw_owner"
"""The slot holding an object's generation; unset (read as None) means fresh: owned by no state yet."""


class Generation:
    """The token of one app state's right to change objects in place (see the module docstring).

    A generation made for a call that claims its top's fields on read holds that call's claims
    (`claims`, set by `App._take`, emptied by its release): a field claimed while another call runs
    inside it is still that call's to give back."""

    __slots__ = ("claims",)

    claims: list[Any] | None


def _owner(obj: Any) -> Any:
    return getattr(obj, OWNER, None)


def _reading_only() -> bool:
    journal = active_journal()
    return journal is not None and journal.read_only


def _note_container(obj: Any) -> None:
    journal = active_journal()
    if journal is not None:
        journal.container(obj)


def _note_delete(obj: Any, key: Any) -> None:
    journal = active_journal()
    if journal is not None:
        journal.dict_delete(obj, key)


def _note_growth(obj: Any) -> None:
    journal = active_journal()
    if journal is not None:
        journal.list_growth(obj)


class TrackedList(list):
    """A list that records its old contents in the active journal before changing, and hands
    out only items of its own generation (copying a shared one in place first)."""

    __slots__ = (OWNER, ALL_OWNED)

    def __getitem__(self, index: Any) -> Any:
        value = list.__getitem__(self, index)
        if type(value) in ATOMIC_TYPES:
            return value
        if type(index) is slice:
            _own_list_items(self, range(*index.indices(len(self))))
            return list.__getitem__(self, index)
        owner = getattr(self, OWNER, None)  # `_owner`, inline here and below: these run on every state lookup
        if getattr(value, OWNER, None) is owner:
            return value
        return _claim_slot(self, list.__setitem__, index, value, owner)

    def __iter__(self) -> Any:
        owner = getattr(self, OWNER, None)
        mark = getattr(self, ALL_OWNED, None)
        if owner is not None and mark is owner:
            return list.__iter__(self)
        journal = active_journal()
        if journal is not None and journal.read_only:
            return list.__iter__(self)
        # Items are claimed as they are reached: a scan that stops early copies only its prefix,
        # and the next scan reads the prefix claimed so far as it is (`_OwnedPrefix`).
        if type(mark) is _OwnedPrefix and owner is not None:
            return _chain(_islice(list.__iter__(self), mark.count), _claiming(self, owner, mark.count, mark))
        return _claiming(self, owner, 0, None)

    def __reversed__(self) -> Any:
        if not _reading_only():
            _own_all_items(self)
        return list.__reversed__(self)

    def copy(self) -> list[Any]:
        _own_all_items(self)
        return list.copy(self)

    def __add__(self, other: Any) -> Any:
        _own_all_items(self)
        return list.__add__(self, other)

    def __mul__(self, count: SupportsIndex) -> Any:
        _own_all_items(self)
        return list.__mul__(self, count)

    __rmul__ = __mul__

    def append(self, value: Any) -> None:
        _note_growth(self)
        list.append(self, value if type(value) in ATOMIC_TYPES else _admitted(self, value))

    def extend(self, values: Any) -> None:
        _note_growth(self)
        list.extend(self, [_admitted(self, v) for v in values])

    def insert(self, index: SupportsIndex, value: Any) -> None:
        _note_container(self)
        _forget_prefix(self)
        list.insert(self, index, _admitted(self, value))

    def pop(self, index: SupportsIndex = -1) -> Any:
        _note_container(self)
        _forget_prefix(self)
        return _claimed(list.pop(self, index), _owner(self))

    def remove(self, value: Any) -> None:
        _note_container(self)
        _forget_prefix(self)
        list.remove(self, value)

    def clear(self) -> None:
        _note_container(self)
        list.clear(self)

    def sort(self, *args: Any, **kwargs: Any) -> None:
        _note_container(self)
        _forget_prefix(self)
        list.sort(self, *args, **kwargs)

    def reverse(self) -> None:
        _note_container(self)
        _forget_prefix(self)
        list.reverse(self)

    def __setitem__(self, index: Any, value: Any) -> None:
        _note_container(self)
        if isinstance(index, slice):
            _forget_prefix(self)
            list.__setitem__(self, index, [_admitted(self, v) for v in value])
        else:
            list.__setitem__(self, index, _admitted(self, value))

    def __delitem__(self, index: Any) -> None:
        _note_container(self)
        _forget_prefix(self)
        list.__delitem__(self, index)

    def __iadd__(self, values: Any) -> TrackedList:
        self.extend(values)
        return self

    def __imul__(self, count: SupportsIndex) -> TrackedList:
        _note_container(self)
        _forget_prefix(self)
        list.__imul__(self, count)
        return self

    def __reduce_ex__(self, protocol: SupportsIndex) -> Any:
        return (TrackedList, (list.copy(self),))


class TrackedDict(dict):
    """A dict that records its old contents in the active journal before changing, and hands
    out only values of its own generation (copying a shared one in place first).

    `dict(d)` and `{**d}` read the values as they are (shared ones included): fine for reading;
    state code that changes what it reads goes through `d[k]`, `get`, `values()` or `items()`."""

    __slots__ = (OWNER, ALL_OWNED)

    def __getitem__(self, key: Any) -> Any:
        value = dict.__getitem__(self, key)
        if type(value) in ATOMIC_TYPES:
            return value
        owner = getattr(self, OWNER, None)
        if getattr(value, OWNER, None) is owner:
            return value
        return _claim_slot(self, dict.__setitem__, key, value, owner)

    def get(self, key: Any, default: Any = None) -> Any:
        if dict.__contains__(self, key):
            return self[key]
        return default

    def values(self) -> Any:
        if not _reading_only():
            _own_dict_values(self)
        return dict.values(self)

    def items(self) -> Any:
        if not _reading_only():
            _own_dict_values(self)
        return dict.items(self)


    def copy(self) -> dict[Any, Any]:
        _own_dict_values(self)
        return dict(dict.items(self))

    def __or__(self, other: Any) -> Any:
        _own_dict_values(self)
        return dict.__or__(self, other)

    def __setitem__(self, key: Any, value: Any) -> None:
        journal = active_journal()
        if journal is not None:
            journal.dict_key(self, key)
        dict.__setitem__(self, key, value if type(value) in ATOMIC_TYPES else _admitted(self, value))

    def __delitem__(self, key: Any) -> None:
        _note_delete(self, key)
        dict.__delitem__(self, key)

    def pop(self, *args: Any) -> Any:
        if args:
            _note_delete(self, args[0])
        else:
            _note_container(self)  # no key: `dict.pop` raises
        return _claimed(dict.pop(self, *args), _owner(self))

    def popitem(self) -> Any:
        if dict.__len__(self):
            _note_delete(self, next(reversed(dict.keys(self))))  # the last key: put back at the end
        key, value = dict.popitem(self)
        return key, _claimed(value, _owner(self))

    def clear(self) -> None:
        _note_container(self)
        dict.clear(self)

    def update(self, *args: Any, **kwargs: Any) -> None:
        _note_container(self)
        for key, value in dict(*args, **kwargs).items():
            dict.__setitem__(self, key, _admitted(self, value))

    def setdefault(self, key: Any, default: Any = None) -> Any:
        if dict.__contains__(self, key):
            return self[key]
        _note_container(self)
        value = _admitted(self, default)
        dict.__setitem__(self, key, value)
        return value

    def __ior__(self, other: Any) -> TrackedDict:
        self.update(other)
        return self

    def __reduce_ex__(self, protocol: SupportsIndex) -> Any:
        return (TrackedDict, (dict(self),))


class TrackedSet(set):
    """A set that records its old contents in the active journal before changing."""

    __slots__ = (OWNER,)

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
        tracked: Any = TrackedList([track(v) for v in value])
        tracked._tw_all = None
    elif kind is dict:
        tracked = TrackedDict({k: track(v) for k, v in value.items()})
        tracked._tw_all = None
    elif kind is set:
        tracked = TrackedSet(value)
    elif kind is tuple:
        return tuple(track(v) for v in value)
    else:
        return value
    tracked._tw_owner = None  # fresh; set so that reading it never takes the unset-slot path
    return tracked


_TRACKED = frozenset({TrackedList, TrackedDict, TrackedSet})


def adopt(value: Any, owner: Any) -> Any:
    """`value` ready to be put into a container or model of generation `owner`: plain
    containers become tracked ones, and fresh tracked objects (no owner yet), with the fresh
    objects inside them, take `owner`. Objects of another generation are left alone: they
    are shared, and the container copies them when it hands them out."""
    kind = type(value)
    if kind in ATOMIC_TYPES:
        return value
    if kind is list or kind is dict or kind is set or kind is tuple:
        value = track(value)
        kind = type(value)
        if kind is tuple:
            return tuple(adopt(v, owner) for v in value)
    if owner is None or getattr(value, OWNER, None) is not None:  # `_owner`, inline: every entity put in asks
        return value
    if kind is TrackedList:
        setattr(value, OWNER, owner)
        for index, item in enumerate(list.__iter__(value)):
            if type(item) not in ATOMIC_TYPES:
                list.__setitem__(value, index, adopt(item, owner))
    elif kind is TrackedDict:
        setattr(value, OWNER, owner)
        for key, item in dict.items(value):
            if type(item) not in ATOMIC_TYPES:
                dict.__setitem__(value, key, adopt(item, owner))
    elif kind is TrackedSet:
        setattr(value, OWNER, owner)
    elif isinstance(value, StateModel):
        _set_owner(value, owner)
        fields = value.__dict__
        for name in kind._nested_fields:  # the only fields that can hold anything to adopt (see `_may_hold_container`)
            item = fields.get(name)
            if type(item) not in ATOMIC_TYPES:
                fields[name] = adopt(item, owner)
    return value


def own_fields(model: StateModel, claims: list[Any] | None) -> None:
    """Claim again, for `model`'s own generation, the fields a release gave back shared."""
    _claim_fields(model, model.__dict__, type(model)._nested_fields, _owner(model), claims)


def _note_claim(kind: int, parent: Any, key: Any, mine: Any, original: Any) -> None:
    journal = active_journal()
    if journal is not None:
        claims = journal.claims
        if claims is not None:
            claims.append((kind, parent, key, mine, original))


def _note_origin(mine: Any, original: Any) -> None:
    """Tell the call's journal that the large container `mine` was just copied from the shared `original`,
    so that undoing a change to it as a whole puts the original's contents back, with no copy of its own
    (`Journal.origin`)."""
    journal = active_journal()
    if journal is not None:
        journal.origin(mine, original)


def _claim_slot(container: Any, store: Any, key: Any, value: Any, owner: Any) -> Any:
    """Put `value`, the item at `key` of `container`, in place as an object of generation `owner`
    (`store` is the container type's own `__setitem__`), noting a copy made as a claim; the item now there."""
    mine = _claimed(value, owner)
    if mine is not value:
        store(container, key, mine)
        _note_claim(CLAIM_SLOT, container, key, mine, value)
    return mine


def _claimed(value: Any, owner: Any) -> Any:
    """`value` as an object of generation `owner`: itself if it already is (or is immutable),
    else a shallow copy of the owner's."""
    kind = type(value)
    if kind in ATOMIC_TYPES or getattr(value, OWNER, None) is owner:  # `_owner`, inline: every claim asks
        return value
    # The two commonest kinds return at once, their slots written directly (cheaper than `setattr`).
    if kind is TrackedDict:
        new: Any = TrackedDict(value)
        new._tw_all = None
        new._tw_owner = owner
        if len(value) >= journal_module.ORIGIN_FROM:
            _note_origin(new, value)
        return new
    if kind is TrackedList:
        new = TrackedList(list.copy(value))  # a plain copy first: building from the list itself would iterate it
        new._tw_all = None
        new._tw_owner = owner
        if len(value) >= journal_module.ORIGIN_FROM:
            _note_origin(new, value)
        return new
    if kind is TrackedSet:
        new = TrackedSet(value)
        if len(value) >= journal_module.ORIGIN_FROM:
            _note_origin(new, value)
    elif isinstance(value, StateModel):
        return own(value, owner)
    elif kind is tuple:
        items = tuple(_claimed(v, owner) for v in value)
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    else:
        return value
    setattr(new, OWNER, owner)
    return new


def own(model: StateModel, owner: Any, claims: list[Any] | None = None, fields: bool = True) -> StateModel:
    """A shallow copy of `model` that generation `owner` may change in place: the model and
    the models and containers in its fields are copied, the items inside those containers
    are not (the containers copy them one by one as they hand them out). For an app's top
    model (`App._take`), the field copies are recorded in `claims` (the call's, see
    `Journal.release`), the top's by the caller.

    Without `fields`, the copy's fields hold the very objects `model`'s do: each must be claimed
    before anything changes it (`claim_on_read`)."""
    kind = type(model)
    new = _new_object(kind)
    values = model.__dict__.copy()
    nested = kind._nested_fields
    if nested and fields:
        _claim_fields(new, values, nested, owner, claims)
    _set_dict(new, values)
    # Shared: a fields set is never changed in place (`__setattr__` and undo replace it).
    _set_fields_set(new, model.__pydantic_fields_set__)
    extra = model.__pydantic_extra__
    _set_extra(new, None if extra is None else dict(extra))
    private = model.__pydantic_private__
    _set_private(new, None if private is None else copy.copy(private))
    _set_owner(new, owner)
    return new


def claim_on_read(model: StateModel) -> None:
    """Make `model`, an app's top state model taken for a call (`App._take`), claim each nested field
    for its own generation when the call first reads it, rather than all of them now.

    A call reads one or two of a state's collections; claiming the others (and, after a fork, giving
    them back unchanged when the call ends) was most of the cost of a first write. For the call, the
    model's class becomes a twin of its own with a claiming data descriptor per field still to claim
    (`_ClaimOnRead`); each claim moves it to the twin without that field, so a field once claimed is
    read as any field is, and the model is of its own class again when none is left. `settle` puts
    the class back when the call ends."""
    kind = type(model)
    kind = kind._tw_real or kind  # a copy of a top shared while it claimed on read (a snapshot inside a call)
    twins = kind.__dict__.get(_TWINS)
    _set_class(model, (twins or _twins_of(kind))[kind._nested_fields])


def settle(model: StateModel) -> bool:
    """Give `model` its own class back after `claim_on_read`; whether the call claimed every field."""
    real = type(model)._tw_real
    if real is None:
        return True
    _set_class(model, real)
    return False


class _ClaimOnRead:
    """The data descriptor of a field still to claim in a top state model's twin (`claim_on_read`):
    reading it hands out the generation's own copy, made then and recorded as a claim of the call
    (`Journal.release`) as `_claim_fields` does for all of them at once, and moves the model on to
    the twin without this field (`after`)."""

    __slots__ = ("after", "name", "real", "rest")

    def __init__(self, real: type[StateModel], name: str, rest: tuple[str, ...]) -> None:
        self.real = real
        self.name = name
        self.rest = rest  # the fields still to claim once this one is
        self.after: type[StateModel] | None = None  # the twin for `rest`, found on the first claim

    def __get__(self, model: Any, kind: Any = None) -> Any:
        if model is None:
            return self
        fields = model.__dict__
        name = self.name
        try:
            value = fields[name]
        except KeyError:
            raise AttributeError(f"{type(model).__name__!r} object has no attribute {name!r}") from None
        if type(value) not in ATOMIC_TYPES:
            owner = getattr(model, OWNER, None)
            if getattr(value, OWNER, None) is not owner:
                mine = _claimed(value, owner)
                if mine is not value:
                    fields[name] = mine
                    claims = getattr(owner, "claims", None)
                    if claims is not None:
                        claims.append((CLAIM_FIELD, model, name, mine, value))
                value = mine
        after = self.after
        if after is None:
            after = self._next(model)
        _set_class(model, after)
        return value

    def _next(self, model: Any) -> type[StateModel]:
        """The twin for the fields still to claim once this one is, kept for the next claim of this field; when
        the model class has `MAX_TWINS` already, none is made: the rest are claimed now and the model is of its
        own class again (what a read of every field would come to, so a call sees no difference)."""
        twins: _Twins = self.real.__dict__[_TWINS]
        after = twins.get(self.rest)  # `get` makes no twin (`__missing__` is for `[]`)
        if after is None:
            if len(twins) >= MAX_TWINS:
                _claim_now(model, self.rest)
                return self.real
            after = twins[self.rest]
        self.after = after
        return after

    def __set__(self, model: Any, value: Any) -> None:
        StateModel.__setattr__(model, self.name, value)


class _Twins(dict[tuple[str, ...], type]):  # of `StateModel` classes
    """A model class's twins (`claim_on_read`), by the fields each has still to claim: made when first
    asked for; for no field left, the class itself."""

    __slots__ = ("real",)

    def __init__(self, real: type[StateModel]) -> None:
        super().__init__()
        self.real = real

    def __missing__(self, pending: tuple[str, ...]) -> type[StateModel]:
        twin = self[pending] = _twin(self.real, pending) if pending else self.real
        return twin


def _twins_of(kind: type[StateModel]) -> _Twins:
    twins = _Twins(kind)
    type.__setattr__(kind, _TWINS, twins)
    return twins


def _twin(real: type[StateModel], pending: tuple[str, ...]) -> type[StateModel]:
    """`real` with a claiming descriptor for each of the fields `pending` and nothing else of its own,
    so that an instance can move between the two. It is made without pydantic's class machinery (the
    model is the same); it passes for `real` where that shows: its name, `==` (pydantic compares
    generic origins), dumps, copies and pickles (of `real`), and `iter()`, which claims every field,
    since it hands them all out."""

    def claim_all(model: Any) -> Any:
        _claim_now(model, pending)
        _set_class(model, real)
        return BaseModel.__iter__(model)

    def copy_of(model: Any) -> Any:
        copied = real.__copy__(model)
        _set_class(copied, real)
        return copied

    def deep_copy_of(model: Any, memo: dict[int, Any] | None = None) -> Any:
        copied = real.__deepcopy__(model, memo)
        _set_class(copied, real)
        return copied

    def reduced(model: Any, protocol: SupportsIndex) -> Any:
        return _unpickled, (real, model.__getstate__())  # as `real`, which pickle finds by its name

    namespace: dict[str, Any] = {
        name: _ClaimOnRead(real, name, tuple(other for other in pending if other != name)) for name in pending
    }
    namespace.update(
        __slots__=(), __module__=real.__module__, __qualname__=real.__qualname__, __doc__=real.__doc__,
        _tw_real=real, __iter__=claim_all, __copy__=copy_of, __deepcopy__=deep_copy_of, __reduce_ex__=reduced,
        __pydantic_generic_metadata__={**real.__pydantic_generic_metadata__, "origin": real},
    )
    # `ABCMeta.__new__` (pydantic's metaclass is one) gives the twin its own ABC caches; pydantic's own is skipped.
    twin = abc.ABCMeta.__new__(type(real), real.__name__, (real,), namespace)
    return twin


def _claim_now(model: StateModel, names: tuple[str, ...]) -> None:
    """Claim the fields `names` of a top claiming on read at once, as claims of the call its generation is for."""
    owner = getattr(model, OWNER, None)
    _claim_fields(model, model.__dict__, names, owner, getattr(owner, "claims", None))


def _unpickled(kind: type[StateModel], state: Any) -> StateModel:
    """A model pickled while it claimed on read (`_twin`), as one of its own class."""
    model = kind.__new__(kind)
    model.__setstate__(state)
    return model


CLAIM_ON_READ_FROM = 3
"""How many nested fields a top state model needs to claim them on read (`claim_on_read`). Each field
claimed on read costs a descriptor call and a class change more than claiming it up front, so it pays
only for the fields a call leaves unread: measured by instructions, a fork's first call to a todo list
(one field) cost 3% more on read, a banking login (reads two of five) 20% less."""

MAX_TWINS = 64
"""How many twins (`claim_on_read`) a model class may have, the class itself counted once the last field is
claimed. A class with n nested fields has up to 2**n - 1, one per set of fields a call has left unread, each
made on first use and kept: 63 at most for six fields. Past the bound a call claims the fields it has not read
yet at once, so a class with many collections and many tools never fills memory with twins."""


_TWINS = "_tw_twins"  # the class attribute, in a model class's own namespace, holding its `_Twins`
_set_class = object.__dict__["__class__"].__set__


def _claim_fields(model: StateModel, fields: dict[str, Any], nested: tuple[str, ...], owner: Any,
                  claims: list[Any] | None) -> None:
    for name in nested:
        item = fields.get(name)
        if type(item) not in ATOMIC_TYPES and getattr(item, OWNER, None) is not owner:
            mine = fields[name] = _claimed(item, owner)
            if claims is not None and mine is not item:
                claims.append((CLAIM_FIELD, model, name, mine, item))


def _admitted(container: Any, value: Any) -> Any:
    """`value` adopted by `container`'s generation; the container's all-owned mark is cleared
    if it stays another generation's (a shared object put in: copied when handed out)."""
    owner = getattr(container, OWNER, None)  # `_owner`, inline here and below: every non-atomic value put in asks
    value = adopt(value, owner)
    if type(value) not in ATOMIC_TYPES and getattr(value, OWNER, None) is not owner:
        setattr(container, ALL_OWNED, None)
    return value


def _all_owned(container: Any, owner: Any) -> bool:
    return owner is not None and getattr(container, ALL_OWNED, None) is owner


def _own_list_items(values: TrackedList, indices: range) -> None:
    owner = _owner(values)
    for index in indices:
        item = list.__getitem__(values, index)
        if type(item) not in ATOMIC_TYPES and _owner(item) is not owner:
            _claim_slot(values, list.__setitem__, index, item, owner)


def _own_all_items(values: TrackedList) -> None:
    owner = _owner(values)
    if not _all_owned(values, owner):
        _own_list_items(values, range(len(values)))
        setattr(values, ALL_OWNED, owner)


class _OwnedPrefix:
    """An owned list's mark (in its `ALL_OWNED` slot) that its first `count` items are its own.

    A scan that stops early (a lookup) leaves one, so the next scan reads that far as a plain
    list iterator does. Anything that could put a shared item before `count`, or move one
    there, replaces the mark: `_admitted` (a shared item put in), undo, a release, and the
    list's removals and reorderings (`_forget_prefix`); an append, or an owned item put in,
    leaves the first `count` items owned."""

    __slots__ = ("count",)

    def __init__(self, count: int) -> None:
        self.count = count


def _forget_prefix(values: TrackedList) -> None:
    """Drop an owned-prefix mark of `values` before its items move (an all-owned mark stays true)."""
    if type(getattr(values, ALL_OWNED, None)) is _OwnedPrefix:
        setattr(values, ALL_OWNED, None)


def _claiming(values: TrackedList, owner: Any, index: int, prefix: _OwnedPrefix | None) -> Any:
    """Iterate `values` from `index` (the items before it are owned: `prefix` counts them),
    claiming each item as it is reached (a list iterator's semantics: a list changed meanwhile
    is read at the next index). The mark counts the items claimed so far; a pass that reaches
    the end with its mark still in place (no shared item put in meanwhile) marks the list all-owned.
    A mark replaced before this pass began stays replaced: its count says nothing any more."""
    if prefix is None:
        prefix = _OwnedPrefix(index)
        setattr(values, ALL_OWNED, prefix)
    read, atomic = list.__getitem__, ATOMIC_TYPES  # locals: this loop runs in every lookup of a writing call
    while True:
        try:
            item = read(values, index)
        except IndexError:  # past the end, read afresh each step as a list iterator does
            break
        if type(item) not in atomic and getattr(item, OWNER, None) is not owner:
            item = _claim_slot(values, list.__setitem__, index, item, owner)
        index += 1
        prefix.count = index
        yield item
    if getattr(values, ALL_OWNED, None) is prefix:
        setattr(values, ALL_OWNED, owner)


def _own_dict_values(values: TrackedDict) -> None:
    owner = _owner(values)
    if _all_owned(values, owner):
        return
    shared = [(key, item) for key, item in dict.items(values)
              if type(item) not in ATOMIC_TYPES and _owner(item) is not owner]
    for key, item in shared:
        _claim_slot(values, dict.__setitem__, key, item, owner)
    setattr(values, ALL_OWNED, owner)


class StateModel(BaseModel):
    """Base class for app state and the entities inside it.

    Attribute writes go to the undo journal of the call in progress; assignment is not
    re-validated (tools are trusted code; their inputs were validated at the boundary).
    """

    __slots__ = (OWNER,)

    model_config = ConfigDict(validate_assignment=False, extra="forbid", revalidate_instances="never")

    _field_names: ClassVar[frozenset[str]] = frozenset()
    _container_fields: ClassVar[tuple[str, ...]] = ()
    _nested_fields: ClassVar[tuple[str, ...]] = ()  # fields that may hold a container or a model
    _set_fields: ClassVar[tuple[str, ...]] = ()
    # One fields set per distinct set of names, shared by every instance of the class that has
    # it (a set costs more than the dict of a small model's values). Never changed in place:
    # `__setattr__` and undo replace an instance's set instead.
    _fields_sets: ClassVar[dict[frozenset[str], set[str]]] = {}
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
    # The model class a claiming twin (`claim_on_read`) stands for; None in every model class itself.
    _tw_real: ClassVar[type[StateModel] | None] = None
    # Whether a top of this class claims its fields on read in the first writing call after a fork
    # (`claim_on_read`): only with enough nested fields that one call likely leaves some unread.
    _claims_on_read: ClassVar[bool] = False

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        cls._field_names = frozenset(cls.model_fields)
        cls._fields_sets = {}
        cls._container_fields = tuple(
            name for name, info in cls.model_fields.items() if _may_hold_container(info.annotation)
        )
        cls._set_fields = tuple(name for name, info in cls.model_fields.items() if _is_set(info.annotation))
        cls._nested_fields = tuple(
            name for name, info in cls.model_fields.items() if _may_hold_container(info.annotation, models=True)
        )
        cls._claims_on_read = len(cls._nested_fields) >= CLAIM_ON_READ_FROM

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
        # Every entity a tool creates, and every one a state is validated from, passes here: the slots are
        # written through their descriptors (`object.__setattr__` would look each one up first).
        _set_owner(self, None)  # fresh (see `adopt`); set so reading it is one slot read
        fields_set = self.__pydantic_fields_set__
        shared = self._fields_sets.setdefault(frozenset(fields_set), fields_set)
        if shared is not fields_set:
            _set_fields_set(self, shared)
        containers = self._container_fields
        if containers:
            values = self.__dict__
            for name in containers:
                value = values.get(name)
                if type(value) in _PLAIN_CONTAINERS:
                    values[name] = track(value)

    def __setattr__(self, name: str, value: Any) -> None:
        if name in self._field_names:
            journal = active_journal()
            if journal is not None:
                journal.attribute(self, name)
            self.__dict__[name] = value if type(value) in ATOMIC_TYPES else adopt(value, _owner(self))
            fields_set = self.__pydantic_fields_set__
            if name not in fields_set:  # replaced, not changed in place: copies of this model share it
                object.__setattr__(self, "__pydantic_fields_set__", fields_set | {name})
        else:
            super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"state field {name!r} cannot be deleted")


_PLAIN_CONTAINERS = frozenset({list, dict, set, tuple})

# The slots a model's data lives in, written through their descriptors: `object.__setattr__` would look
# each one up first, and a claimed model (the first writing call after every fork or restore) sets five.
_new_object = object.__new__
_set_dict = BaseModel.__dict__["__dict__"].__set__
_set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__
_set_owner = StateModel.__dict__[OWNER].__set__

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


def _may_hold_container(annotation: Any, models: bool = False) -> bool:
    """False only for annotations whose values can never be a list, dict, set or tuple (nor,
    with `models`, a model)."""
    if annotation in ATOMIC_TYPES:
        return False
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return False
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return models
    if typing.get_origin(annotation) is typing.Literal:
        return False
    alternatives = _alternatives(annotation)
    return alternatives is None or any(_may_hold_container(arg, models) for arg in alternatives)


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
