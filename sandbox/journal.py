"""The undo journal that makes every tool call atomic.

A full copy of the state before each mutating call would cost time proportional to the
size of the world; the journal instead records only what a call actually touches (the old
value of an attribute, the old contents of a container, the first time it is changed), so
rolling back costs time proportional to the change.

Tracked objects find the journal of the call in progress through a context variable: a
call is synchronous, so at most one journal is active per thread or task, and two worlds
never see each other's journal.

The journal also hands back what a call copied for nothing (`Journal.release`). Structural
sharing (see `sandbox.state`) copies an object of a fork's shared state before a possibly
writing call may touch it; when the first such call after a fork or snapshot ends (not a restore: see `App`),
every copy it made that it never changed is swapped back for the shared original, so a
world keeps only the copies it needed (a call that reads two contacts to send a message
keeps neither). A copy changed in place is named by the journal's entries; every other is
compared with its original, item by item, so a write that went past the journal is kept too.
The release also ends that call's claiming on read (`App.top_released`): each top copy it took
gets its own class back.

A container that a call copied from a shared original (a claim) and then changes as a whole (a
delete, a removal, a sort) needs its old contents, in their order, for undo. They are the
original's: a shared object is never changed in place, and until the change the copy differs
from it only by items claimed in turn (the same keys, in the same order, each a copy of the
item it replaced). So a large claimed container (`ORIGIN_FROM` items or more) is noted with its
original (`Journal.origin`) and the change saves that reference instead of copying the contents
again: the first delete after a fork or restore costs one copy of the container (the claim's),
not two. A container this world already owns has no original; its first change copies it
(`list.copy`, `dict.copy`: a C-level pass over the items, the floor of an order-exact undo, since
a dict does not tell a key's position without a scan of its keys). A delete from a large dict of
its own first looks for the key's place among the `PLACE_WITHIN` keys at either end (a scan in C):
found, it records the key, its value and its place, and undo puts it back there; a key further in
falls back to the copy. Deleting the newest or oldest entries of a long dict costs the same at any size.
"""

from __future__ import annotations

from contextvars import ContextVar, Token
from itertools import islice
from operator import indexOf, is_, itemgetter
from typing import Any

from .errors import ReadOnlyViolation
from .lanes import LANES_ON

# The slot in which a tracked container remembers that every item it holds is its own (see
# `sandbox.state`); undo puts back items that may not be, so it clears the mark.
ALL_OWNED = "_tw_all"

_ACTIVE: ContextVar[Journal | None] = ContextVar("toolworlds_active_journal", default=None)

active_journal = _ACTIVE.get

_MISSING = object()
_HOLDER = itemgetter(1)  # the object a journal entry is about
_NONE: frozenset[int] = frozenset()
_FEW_ENTRIES = 8  # `Journal.release`: below this many entries, their holders are gathered by a loop

# Entry kinds (first tuple element).
_ATTR = 0
_LIST = 1
_DICT = 2
_SET = 3
_TRUNCATE = 4  # list grew at its end: cut it back to a length
_KEY_NEW = 5  # a dict key was added: remove it
_KEY_OLD = 6  # a dict key's value was replaced: put the old value back
_FIELD_SET = 7  # a model field became "set" (pydantic's fields_set): unset it
_KEY_DEL = 8  # a dict key was deleted: put it back in its place (old: its value, and the place)

# Claim kinds (first element of a `Journal.claims` record: kind, parent, key, copy, original).
CLAIM_SLOT = 0  # an item of a tracked list (key: index) or dict (key: key)
CLAIM_FIELD = 1  # a field of an app's top state model (key: field name)
CLAIM_TOP = 2  # an app's top state model (parent: the app)


ORIGIN_FROM = 64 if LANES_ON else 1 << 62  # the speed lane `journal_origin`; off, no container reaches it
"""How many items a container claimed during a call must hold for the call's journal to note its shared
original (`Journal.origin`), so that a change to it as a whole saves the original rather than a copy.
Below it a copy costs less than noting; tests set it to 0 (every claim noted) and to a size no
container reaches (the plain path of copying) and hold the two to the same states."""


PLACE_WITHIN = 32 if LANES_ON else 0  # the speed lane `journal_place`; off, every delete saves the dict whole
"""How far from either end of a dict of more than twice as many keys a deleted key's place is looked for
(`Journal.dict_delete`) before the dict is saved whole. 0 turns the search off (every delete saves the dict
whole: the plain path, which tests hold this one to)."""


def _place(obj: dict[Any, Any], key: Any, within: int) -> int | None:
    """The place of `key` among the first `within` keys of `obj` (from 0), or among its last `within` keys
    (-1 for the last, -2 for the one before it...), or None. A scan in C; keys of state are plain values."""
    keys = dict.keys(obj)
    try:
        return indexOf(islice(keys, within), key)
    except ValueError:
        pass
    try:
        return -1 - indexOf(islice(reversed(keys), within), key)
    except ValueError:
        return None


class Journal:
    """Undo records for one call; `rollback` puts every touched object back."""

    __slots__ = ("_entries", "_grown", "_origins", "_saved", "claims", "read_only", "tool")

    def __init__(self, tool: str, read_only: bool) -> None:
        # Allocated on the first write: most calls (all read-only ones) never write.
        self._entries: list[tuple[int, Any, Any, Any]] | None = None
        self._saved: set[int] | frozenset[int] | None = None  # containers whose whole contents are saved
        self._grown: set[int] | frozenset[int] | None = None  # lists whose original length is saved
        # The copies of shared objects this call made, while it records them (see `release`).
        self.claims: list[tuple[int, Any, Any, Any, Any]] | None = None
        # Large containers claimed during this call, by id: (the copy, its shared original). See `origin`.
        self._origins: dict[int, tuple[Any, Any]] | None = None
        self.read_only = read_only
        self.tool = tool

    @property
    def changed(self) -> bool:
        return bool(self._entries)

    def _log(self) -> list[tuple[int, Any, Any, Any]]:
        if self.read_only:
            self._refuse()
        if self._entries is None:
            self._entries = []
            # Sets of their own on their first member: most writing calls save no container whole.
            self._saved = self._grown = _NONE
        return self._entries

    def _refuse(self) -> None:
        raise ReadOnlyViolation(
            f"tool {self.tool!r} is declared read-only (mutates=False) but changed the state"
        )

    def attribute(self, obj: Any, name: str) -> None:
        """Remember an attribute's value (and whether pydantic counted it as set) before it is replaced."""
        entries = self._entries
        if entries is None:  # the call's first write (allocated only once, never for a read-only call)
            entries = self._log()
        entries.append((_ATTR, obj, name, obj.__dict__.get(name, _MISSING)))
        fields_set = getattr(obj, "__pydantic_fields_set__", None)
        if fields_set is not None and name not in fields_set:
            entries.append((_FIELD_SET, obj, name, None))

    def container(self, obj: Any) -> None:
        """Remember a container's contents before its first change in this call."""
        entries = self._entries
        if entries is None:
            entries = self._log()
        saved = self._saved
        assert saved is not None
        key = id(obj)
        if key in saved:
            return
        if saved is _NONE:
            saved = self._saved = set()
        saved.add(key)  # type: ignore[union-attr]
        origins = self._origins
        if origins is not None:
            claimed = origins.get(key)
            if claimed is not None and claimed[0] is obj:
                # Claimed in this call: its contents before the call are the shared original's (see the
                # module docstring), which undo copies back in the same way as a saved copy.
                original = claimed[1]
                kind = _LIST if isinstance(obj, list) else _DICT if isinstance(obj, dict) else _SET
                entries.append((kind, obj, None, original))
                return
        if isinstance(obj, list):
            entries.append((_LIST, obj, None, list.copy(obj)))
        elif isinstance(obj, dict):
            entries.append((_DICT, obj, None, dict.copy(obj)))
        else:
            entries.append((_SET, obj, None, set.copy(obj)))

    def origin(self, mine: Any, original: Any) -> None:
        """Note that `mine`, a container just claimed in this call, is a copy of the shared `original`.

        Until `mine` changes as a whole, its contents are the original's but for items claimed in
        turn; the first such change (`container`) saves `original` instead of a copy. Both are kept
        for the call (the copy's id is not reused meanwhile). A read-only journal, one per tool for
        all its calls, notes nothing."""
        if self.read_only:
            return
        origins = self._origins
        if origins is None:
            origins = self._origins = {}
        origins[id(mine)] = (mine, original)

    def list_growth(self, obj: list[Any]) -> None:
        """Remember a list's length before items are added at its end.

        Cheaper than saving the contents: appending to a long list stays O(1). Undo runs
        in reverse, so a full save taken later in the same call is restored first and
        this cut then removes what was appended before it.
        """
        entries = self._entries
        if entries is None:
            entries = self._log()
        key = id(obj)
        grown = self._grown
        if key in self._saved or key in grown:  # type: ignore[operator]
            return
        if grown is _NONE:
            grown = self._grown = set()
        grown.add(key)  # type: ignore[union-attr]
        entries.append((_TRUNCATE, obj, None, len(obj)))

    def dict_key(self, obj: dict[Any, Any], key: Any) -> None:
        """Remember one key's value (or absence) before it is set; order is kept on undo."""
        entries = self._entries
        if entries is None:
            entries = self._log()
        if id(obj) in self._saved:  # type: ignore[operator]
            return
        if dict.__contains__(obj, key):
            entries.append((_KEY_OLD, obj, key, dict.__getitem__(obj, key)))
        else:
            entries.append((_KEY_NEW, obj, key, None))

    def dict_delete(self, obj: dict[Any, Any], key: Any) -> None:
        """Remember a key about to be deleted (`del`, `pop`, `popitem`), and its place: undo puts it back there.

        A dict claimed in this call, a small one, or a key whose place is not near either end
        (`PLACE_WITHIN`) is saved whole instead (`container`)."""
        entries = self._entries
        if entries is None:
            entries = self._log()
        saved = self._saved
        if id(obj) in saved:  # type: ignore[operator]
            return
        within = PLACE_WITHIN
        origins = self._origins
        if (within and len(obj) > 2 * within and dict.__contains__(obj, key)
                and (origins is None or id(obj) not in origins)):
            place = _place(obj, key, within)
            if place is not None:
                entries.append((_KEY_DEL, obj, key, (dict.__getitem__(obj, key), place)))
                return
        self.container(obj)

    def rollback(self) -> None:
        if not self._entries:
            return
        for kind, obj, name, old in reversed(self._entries):
            if kind == _ATTR:
                if old is _MISSING:
                    obj.__dict__.pop(name, None)
                else:
                    obj.__dict__[name] = old
            elif kind == _LIST:
                list.__setitem__(obj, slice(None), old)
                setattr(obj, ALL_OWNED, None)
            elif kind == _DICT:
                dict.clear(obj)
                dict.update(obj, old)
                setattr(obj, ALL_OWNED, None)
            elif kind == _TRUNCATE:
                list.__delitem__(obj, slice(old, None))
            elif kind == _KEY_NEW:
                dict.pop(obj, name, None)
            elif kind == _KEY_OLD:
                dict.__setitem__(obj, name, old)
                setattr(obj, ALL_OWNED, None)
            elif kind == _FIELD_SET:
                object.__setattr__(obj, "__pydantic_fields_set__", obj.__pydantic_fields_set__ - {name})
            elif kind == _KEY_DEL:
                _put_back(obj, name, *old)
            else:
                set.clear(obj)
                set.update(obj, old)
        self._entries = None
        self._saved = None
        self._grown = None
        self._origins = None

    def end(self, token: Token[Journal | None]) -> bool:
        """`end` for the caller that holds the active journal (`World.call`): the same, without looking it up."""
        reset(token)
        if self.claims is not None:
            self.release()
        return bool(self._entries)

    def abort(self, token: Token[Journal | None]) -> None:
        """Undo what this journal's call did and end the call (`end`): it failed. Ended even if the undo fails,
        so that a failure can never leave this journal active for the calls after."""
        try:
            self.rollback()
        finally:
            self.end(token)

    def record_claims(self) -> list[tuple[int, Any, Any, Any, Any]]:
        """Keep the copies this call makes of shared objects from now on, to `release` the unchanged ones; the
        list they are recorded in."""
        claims = self.claims
        if claims is None:
            claims = self.claims = []
        return claims

    def release(self) -> None:
        """Put the shared original back in place of every recorded copy the call did not change.

        Runs after the call (and after its rollback, which leaves every copy as it was made).
        Records are undone newest first, so a copy's own copied items are settled before it:
        a copy that still holds a changed item differs from its original and stays.
        """
        claims = self.claims
        self.claims = None
        if not claims:
            return
        entries = self._entries
        if entries and len(claims) == 1 and claims[0][0] == CLAIM_TOP:
            # The top alone (a state with no nested field, or a call that read none of them: a login), and a call
            # that wrote: changed in place, the top stays, found without the sets below (a tenth of a first call).
            _, app, _, mine, original = claims[0]
            for entry in entries:
                if entry[1] is mine:
                    if mine._tw_real is not None:  # still claiming on read (`claim_on_read`): every field unread
                        app.top_released(mine, mine)
                    claims.clear()
                    return
        differ: set[int] = set()  # changed in place, or holding such
        if entries:
            if len(entries) < _FEW_ENTRIES:  # a loop costs less than the two maps' objects
                for entry in entries:
                    differ.add(id(entry[1]))
            else:
                differ.update(map(id, map(_HOLDER, entries)))
        opened: set[int] | None = None  # top models given back shared fields
        tops = []
        for record in reversed(claims):
            kind, parent, key, mine, original = record
            if kind == CLAIM_TOP:
                tops.append(record)
                continue
            # `_differs`, inline for the two commonest kinds (a claimed field's or entity's list or dict).
            if id(mine) in differ or (
                    (len(mine) != len(original) or not all(map(is_, dict.keys(mine), dict.keys(original)))
                     or not all(map(is_, dict.values(mine), dict.values(original)))) if isinstance(mine, dict)
                    else (len(mine) != len(original) or not all(map(is_, list.__iter__(mine), list.__iter__(original))))
                    if isinstance(mine, list) else _differs(mine, original, differ)):
                differ.add(id(parent))
            elif kind == CLAIM_FIELD:
                fields = parent.__dict__
                if fields.get(key) is mine:
                    fields[key] = original
                    if opened is None:
                        opened = set()
                    opened.add(id(parent))
                else:
                    differ.add(id(parent))
            elif isinstance(parent, dict):
                held = dict.get(parent, key, _MISSING)
                if held is mine:
                    dict.__setitem__(parent, key, original)
                    setattr(parent, ALL_OWNED, None)  # it holds a shared item again
                elif held is not original:  # the original itself: put back by an undo (`container`)
                    differ.add(id(parent))
            else:
                held = list.__getitem__(parent, key) if -len(parent) <= key < len(parent) else _MISSING
                if held is mine:
                    list.__setitem__(parent, key, original)
                    setattr(parent, ALL_OWNED, None)
                elif held is not original:
                    differ.add(id(parent))
        for _, app, _, mine, original in tops:
            if mine is not original and id(mine) not in differ and not _differs(mine, original, differ):
                app.top_released(mine, original)
            elif opened is not None and id(mine) in opened:
                app.top_released(mine, None)
            elif mine._tw_real is not None:  # still claiming on read (`claim_on_read`): some fields unread
                app.top_released(mine, mine)
        # A top claiming on read holds this list in its generation; emptied, it keeps no copy alive.
        claims.clear()


def _put_back(obj: dict[Any, Any], key: Any, value: Any, place: int) -> None:
    """Undo a delete from `obj`, as it was just after the delete: `key` goes back to `place` (see `_place`),
    the keys that were behind it moved behind it again."""
    keys = dict.keys(obj)
    behind = list(islice(keys, place, None)) if place >= 0 else list(islice(reversed(keys), -1 - place))[::-1]
    moved = [(each, dict.pop(obj, each)) for each in behind]
    dict.__setitem__(obj, key, value)
    for each, item in moved:
        dict.__setitem__(obj, each, item)
    setattr(obj, ALL_OWNED, None)


def _differs(mine: Any, original: Any, differ: set[int]) -> bool:
    """Whether a copy no journal entry names is still not what it was copied from.

    Containers are compared item by item (by identity, in C) rather than trusted to the
    journal, so that a write that went past it (a bug in a tool, such as `list.append` on a
    tracked list) is kept, never silently given back. A tuple counts as changed."""
    # The two commonest kinds first: a type without `_nested_fields` is looked up to its end, costlier than these.
    if isinstance(mine, dict):
        return (len(mine) != len(original) or not all(map(is_, dict.keys(mine), dict.keys(original)))
                or not all(map(is_, dict.values(mine), dict.values(original))))
    if isinstance(mine, list):
        return len(mine) != len(original) or not all(map(is_, list.__iter__(mine), list.__iter__(original)))
    # Read through the instance: on a model class, pydantic's metaclass hook triples the cost of the read.
    nested = getattr(mine, "_nested_fields", None)
    if nested is None:
        if isinstance(mine, set):
            return not set.__eq__(mine, original)
        return True  # a tuple, or a value put in past the journal
    if mine.__pydantic_private__ is not None or mine.__pydantic_fields_set__ is not original.__pydantic_fields_set__:
        return True
    # A model's other fields change only through `__setattr__`, which the journal sees; its
    # containers and models were copied with it (unrecorded), and are compared in turn.
    fields, old = mine.__dict__, original.__dict__
    for name in nested:
        value, before = fields.get(name), old.get(name)
        if value is not before and (id(value) in differ or _differs(value, before, differ)):
            return True
    return False


# Make a journal the active one (returns a token), and put the previous one back (`end`, which also
# releases what the call copied for nothing; `reset` alone leaves the copies).
begin = _ACTIVE.set
reset = _ACTIVE.reset

end_read_only = reset
"""`Journal.end` of a read-only journal in one step, for `World.call`: such a journal never holds an entry (it
refuses the first write) nor a claim (`App.state` takes nothing under it, and only a take records claims), so
ending its call is putting the previous journal back, and the call changed nothing. One Python frame less on
every read call; the journal module's own shortcut, so what ending means stays decided here."""


def end(token: Token[Journal | None]) -> bool:
    """Make the journal before `token` the active one again, releasing what the ending call copied for nothing;
    whether the ending call changed the state (after a rollback: no). The work is `Journal.end`'s, which
    `World.call`, holding the journal, calls directly: one place closes every call's journal."""
    journal = _ACTIVE.get()
    if journal is None:
        reset(token)
        return False
    return journal.end(token)

