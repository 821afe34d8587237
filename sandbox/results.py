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

_PLAIN_VALUES = frozenset({str, int, float, bool, type(None)})
"""The types of the values a record may hold to be copied whole (as `World.call` copies such a reply)."""
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
                if known is not None and known[0] is item_kind:
                    # A flat entity (`dumps.flat_fields`) whose values are each of its field's type: its dict's copy.
                    flat = known[2]
                    if flat is not None:
                        fields = item.__dict__
                        if tuple(fields) == flat[0] and tuple(map(type, fields.values())) == flat[1]:
                            out[key] = fields.copy()
                            continue
                    out[key] = known[1].to_python(item, mode="json")
                else:
                    out[key] = plain(item)
        return out
    if kind is list or kind is TrackedList:
        return _list_copy(value)
    return plain(value)


def _list_copy(value: list[Any]) -> list[Any]:
    """`plain` of a list (a tracked one read past its hand-outs, as `plain` reads it)."""
    if value:
        first = type(_list_item(value, 0))
        if first is dict:  # a reply's own records (messages found, say): copied as a reply is
            records = []
            for item in _list_items(value):
                if type(item) is not dict:
                    break
                for key, field in item.items():
                    if type(key) is not str or type(field) not in _PLAIN_VALUES:
                        break
                else:  # text keys, plain values (the common record): its copy, as `reply_copy` would make it
                    records.append(item.copy())
                    continue
                break
            else:
                return records
            return [reply_copy(item) for item in _list_items(value)]
        entry = getattr(first, LIST_SERIALIZER_ATTRIBUTE, None)
        if (entry is None or entry[0] is not first) and issubclass(first, BaseModel):
            list_serializer_of(first, _idle_wrapper)
            entry = getattr(first, LIST_SERIALIZER_ATTRIBUTE, None)
        if entry is not None and entry[0] is first and entry[1] is not None:
            flat = entry[2]
            if flat is not None:
                # Entities of a flat class (`dumps.flat_fields`), each value of its field's type: their dicts' copies.
                names, types = flat
                copies = []
                for item in _list_items(value):
                    if type(item) is not first:
                        break
                    fields = item.__dict__
                    if tuple(fields) != names or tuple(map(type, fields.values())) != types:
                        break
                    copies.append(fields.copy())
                else:
                    return copies
            for item in _list_items(value):
                if type(item) is not first:
                    break
            else:
                dumped: list[Any] = entry[1].to_python(value, mode="json")
                return dumped
    return [plain(item) for item in _list_items(value)]
