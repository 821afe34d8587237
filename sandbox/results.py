"""The `results` speed lane for replies that are not a dict of plain values: what `plain` makes of them, in
fewer steps.

`World.call` copies a dict reply of plain values itself. What is left is mostly a dict holding one
entity (`{"status": True, "reminder": Reminder(...)}`) or a list of entities of one class (a menu, the
flights found): `plain` dumps each entity in a Python frame of its own, one serializer call per item.
`reply_copy` dumps an entity held in a dict with its class's lean serializer directly, and a list whose
items are all of one state class with one call of a serializer of such lists (`dumps.list_serializer_of`),
which gives each item what the lean serializer gives it. Anything else goes to `plain` (tests hold the two
to the same output: tests/test_fast_results.py). With the lanes off `World.call` never calls this.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from .dumps import LIST_SERIALIZER_ATTRIBUTE, SERIALIZER_ATTRIBUTE, list_serializer_of
from .state import TrackedDict, TrackedList, _idle_wrapper, plain

_list_item = list.__getitem__
_list_items = list.__iter__


def reply_copy(value: Any) -> Any:
    """`plain(value)`: the same values, types and key order, sharing nothing with `value`."""
    kind = type(value)
    if kind is dict or kind is TrackedDict:
        out = {}
        for key, item in dict.items(value):
            if type(key) is not str:
                return plain(value)  # `plain` writes such keys as text
            item_kind = type(item)
            if item_kind is str or item_kind is int or item_kind is float or item_kind is bool or item is None:
                out[key] = item
            elif item_kind is list or item_kind is TrackedList:
                out[key] = _list_copy(item)
            else:
                known = getattr(item_kind, SERIALIZER_ATTRIBUTE, None)
                out[key] = (known[1].to_python(item, mode="json") if known is not None and known[0] is item_kind
                            else plain(item))
        return out
    if kind is list or kind is TrackedList:
        return _list_copy(value)
    return plain(value)


def _list_copy(value: list[Any]) -> list[Any]:
    """`plain` of a list (a tracked one read past its hand-outs, as `plain` reads it)."""
    if value:
        first = type(_list_item(value, 0))
        if first is dict:  # a reply's own records (messages found, say): copied as a reply is
            return [reply_copy(item) for item in _list_items(value)]
        entry = getattr(first, LIST_SERIALIZER_ATTRIBUTE, None)
        serializer = (entry[1] if entry is not None and entry[0] is first
                      else list_serializer_of(first, _idle_wrapper) if issubclass(first, BaseModel) else None)
        if serializer is not None:
            for item in _list_items(value):
                if type(item) is not first:
                    break
            else:
                dumped: list[Any] = serializer.to_python(value, mode="json")
                return dumped
    return [plain(item) for item in _list_items(value)]
