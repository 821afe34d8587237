"""Generations: who may change a piece of state in place, and the journal notes every change makes.

Every tracked container and state model carries an owner (`OWNER`), the generation of the one app
state allowed to change it in place (see `sandbox.state.containers` for how containers hand out
items, `sandbox.state.model` for how a model is copied for a generation). Before anything changes,
the active undo journal is told (the `_note_*` helpers), so a failed call can be rolled back
without copying the state first.
"""

from __future__ import annotations

import datetime as _dt
import decimal
from typing import Any

from ..journal import active_journal

OWNER = "_tw_owner"
"""The slot holding an object's generation; unset (read as None) means fresh: owned by no state yet."""


class Generation:
    """The token of one app state's right to change objects in place (see the module docstring).

    A generation made for a call that claims its top's fields on read holds that call's claims
    (`claims`, set by `App._take`, emptied by its release): a field claimed while another call runs
    inside it is still that call's to give back. It lets go of them once the top has claimed every
    field, or the call ends (`sandbox.state.sharing`), so that no emptied list lives on with the world."""

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


ATOMIC_TYPES: frozenset[type] = frozenset(
    {str, int, float, bool, type(None), bytes, _dt.datetime, _dt.date, _dt.time,
     _dt.timedelta, decimal.Decimal}
)


def _note_origin(mine: Any, original: Any) -> None:
    """Tell the call's journal that the large container `mine` was just copied from the shared `original`,
    so that undoing a change to it as a whole puts the original's contents back, with no copy of its own
    (`Journal.origin`)."""
    journal = active_journal()
    if journal is not None:
        journal.origin(mine, original)

