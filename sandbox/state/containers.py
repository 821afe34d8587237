"""Tracked containers: the lists, dicts and sets of world state.

State may hold `StateModel`s, lists, dicts, sets, tuples and immutable values (str, numbers,
bool, None, datetime, Decimal, enums). Containers are converted to their tracked twins (`track`)
when a model is built or an attribute is assigned, so tool code uses ordinary Python
(`self.state.items.append(x)`), and each tracked container reports to the active undo journal
before it changes.

Structural sharing: forks and snapshots of a world share its state objects, and a world copies
only what it touches. A container of a generation (`sandbox.state.ownership`) hands out each item
(`d[k]`, `d.get`, `d.values()`, `lst[i]`, iteration, `pop`...) only once it is of the same
generation, replacing a shared item by a shallow copy of its own first (`_claimed`). So a first
write after a fork copies the path from the state to the entity it changes, whatever the size of
the rest. Values put into a container are adopted by its generation when they are fresh (no
owner yet, `adopt`); readers that bypass Python methods (dumps, `==`, `dict(...)`) see the shared
objects, whose values are right: what must never happen, and cannot through these methods, is an
in-place write to an object another world can reach. State is a tree, as its dumps are: the same
object put in two places is two objects once a fork has copied either path. Copies made in the
first writing call after a fork or snapshot are recorded as claims in the call's journal
(`_claim_slot`); the ones the call did not change are given back when it ends (`Journal.release`).

State models are handled through two hooks of their class (`StateModel._tw_adopt`,
`StateModel._tw_copy_for`), so that this module, below `sandbox.state.model`, needs no import of it.
"""

from __future__ import annotations

from itertools import chain as _chain
from itertools import islice as _islice
from typing import Any, SupportsIndex

from .. import journal as journal_module
from ..journal import ALL_OWNED, CLAIM_SLOT, active_journal
from .ownership import (
    ATOMIC_TYPES,
    OWNER,
    _note_container,
    _note_delete,
    _note_growth,
    _note_origin,
    _owner,
    _reading_only,
)

_ABSENT = object()  # `TrackedDict.get`'s mark of a missing key (a key's value may be None)


class TrackedList(list[Any]):
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
        journal = active_journal()  # `_note_growth`, inline: every entity a tool adds to a list passes here
        if journal is not None:
            journal.list_growth(self)
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


class TrackedDict(dict[Any, Any]):
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
        # `__getitem__`, inline: `self[key]` from Python goes through the type's slot wrapper, which cost more
        # than the lookup itself (tools look entities up this way, and `World.next_id` its counters).
        value = dict.get(self, key, _ABSENT)
        if value is _ABSENT or type(value) in ATOMIC_TYPES:
            return default if value is _ABSENT else value
        owner = getattr(self, OWNER, None)
        return value if getattr(value, OWNER, None) is owner else _claim_slot(self, dict.__setitem__, key, value, owner)

    def values(self) -> Any:
        # All its own already (`_own_dict_values`' first test, inline): no journal to ask, nothing to claim.
        owner = getattr(self, OWNER, None)
        if (owner is None or getattr(self, ALL_OWNED, None) is not owner) and not _reading_only():
            _own_dict_values(self)
        return dict.values(self)

    def items(self) -> Any:
        owner = getattr(self, OWNER, None)
        if (owner is None or getattr(self, ALL_OWNED, None) is not owner) and not _reading_only():
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


class TrackedSet(set[Any]):
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


def track(value: Any) -> Any:
    """Return `value` with plain containers (recursively) replaced by tracked ones."""
    kind = type(value)
    if kind in ATOMIC_TYPES or kind in _TRACKED:
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
    else:
        # A state model's (`StateModel._tw_adopt`), bound: read on the class, the hook would cost more, through
        # pydantic's metaclass `__getattr__`, than binding it.
        adopt_model = getattr(value, "_tw_adopt", None)
        if adopt_model is not None:
            adopt_model(owner)
    return value


def _claim_slot(container: Any, store: Any, key: Any, value: Any, owner: Any) -> Any:
    """Put `value`, the item at `key` of `container`, in place as an object of generation `owner`
    (`store` is the container type's own `__setitem__`), noting a copy made as a claim; the item now there."""
    mine = _claimed(value, owner)
    if mine is not value:
        store(container, key, mine)
        journal = active_journal()  # `_note_claim`, inline: every item a container copies is noted here
        if journal is not None:
            claims = journal.claims
            if claims is not None:
                claims.append((CLAIM_SLOT, container, key, mine, value))
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
    elif kind is tuple:
        items = tuple(_claimed(v, owner) for v in value)
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    else:
        copy_model = getattr(value, "_tw_copy_for", None)  # `StateModel._tw_copy_for`, bound (see `adopt`)
        return value if copy_model is None else copy_model(owner)
    setattr(new, OWNER, owner)
    return new




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


