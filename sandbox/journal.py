"""The undo journal that makes every tool call atomic.

A full copy of the state before each mutating call would cost time proportional to the
size of the world; the journal instead records only what a call actually touches (the old
value of an attribute, the old contents of a container, the first time it is changed), so
rolling back costs time proportional to the change.

Tracked objects find the journal of the call in progress through a context variable: a
call is synchronous, so at most one journal is active per thread or task, and two worlds
never see each other's journal.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

from .errors import ReadOnlyViolation

# The slot in which a tracked container remembers that every item it holds is its own (see
# `sandbox.state`); undo puts back items that may not be, so it clears the mark.
ALL_OWNED = "_tw_all"

_ACTIVE: ContextVar[Journal | None] = ContextVar("toolworlds_active_journal", default=None)

active_journal = _ACTIVE.get

_MISSING = object()

# Entry kinds (first tuple element).
_ATTR = 0
_LIST = 1
_DICT = 2
_SET = 3
_TRUNCATE = 4  # list grew at its end: cut it back to a length
_KEY_NEW = 5  # a dict key was added: remove it
_KEY_OLD = 6  # a dict key's value was replaced: put the old value back
_FIELD_SET = 7  # a model field became "set" (pydantic's fields_set): unset it


class Journal:
    """Undo records for one call; `rollback` puts every touched object back."""

    __slots__ = ("_entries", "_grown", "_saved", "read_only", "tool")

    def __init__(self, tool: str, read_only: bool) -> None:
        # Allocated on the first write: most calls (all read-only ones) never write.
        self._entries: list[tuple[int, Any, Any, Any]] | None = None
        self._saved: set[int] | None = None  # containers whose whole contents are saved
        self._grown: set[int] | None = None  # lists whose original length is saved
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
            self._saved = set()
            self._grown = set()
        return self._entries

    def _refuse(self) -> None:
        raise ReadOnlyViolation(
            f"tool {self.tool!r} is declared read-only (mutates=False) but changed the state"
        )

    def attribute(self, obj: Any, name: str) -> None:
        """Remember an attribute's value (and whether pydantic counted it as set) before it is replaced."""
        entries = self._log()
        entries.append((_ATTR, obj, name, obj.__dict__.get(name, _MISSING)))
        fields_set = getattr(obj, "__pydantic_fields_set__", None)
        if fields_set is not None and name not in fields_set:
            entries.append((_FIELD_SET, obj, name, None))

    def container(self, obj: Any) -> None:
        """Remember a container's contents before its first change in this call."""
        entries = self._log()
        saved = self._saved
        assert saved is not None
        key = id(obj)
        if key in saved:
            return
        saved.add(key)
        if isinstance(obj, list):
            entries.append((_LIST, obj, None, list.copy(obj)))
        elif isinstance(obj, dict):
            entries.append((_DICT, obj, None, dict.copy(obj)))
        else:
            entries.append((_SET, obj, None, set.copy(obj)))

    def list_growth(self, obj: list[Any]) -> None:
        """Remember a list's length before items are added at its end.

        Cheaper than saving the contents: appending to a long list stays O(1). Undo runs
        in reverse, so a full save taken later in the same call is restored first and
        this cut then removes what was appended before it.
        """
        entries = self._log()
        key = id(obj)
        if key in self._saved or key in self._grown:  # type: ignore[operator]
            return
        self._grown.add(key)  # type: ignore[union-attr]
        entries.append((_TRUNCATE, obj, None, len(obj)))

    def dict_key(self, obj: dict[Any, Any], key: Any) -> None:
        """Remember one key's value (or absence) before it is set; order is kept on undo."""
        entries = self._log()
        if id(obj) in self._saved:  # type: ignore[operator]
            return
        if dict.__contains__(obj, key):
            entries.append((_KEY_OLD, obj, key, dict.__getitem__(obj, key)))
        else:
            entries.append((_KEY_NEW, obj, key, None))

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
            else:
                set.clear(obj)
                set.update(obj, old)
        self._entries = None
        self._saved = None
        self._grown = None


# Make a journal the active one (returns a token), and put the previous one back.
begin = _ACTIVE.set
end = _ACTIVE.reset
