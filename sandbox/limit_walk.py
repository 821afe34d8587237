"""The one walk that enforces on a call's arguments the bounds `input_limits.InputLimits` names.

Everything a model sends crosses the engine's boundary in `World.call` (named values)
or `World.execute` (message text). Beyond that boundary no code must meet a value that
is hostile by its size or shape: an integer Python cannot even print (more than 4,300
digits), nesting that exhausts the interpreter's stack, a megabyte string fed to a
search, text that is not valid Unicode, or an object whose `repr` raises. `InputLimits`
(in `input_limits.py`) names each bound; `checked_copy` walks the arguments once, refusing the first value past
a bound (`LimitExceeded`, naming it) and otherwise returning the JSON copy the call log
keeps; `redacted_copy` makes a loggable copy of refused input that holds none of it.

The walk recurses at most `max_depth` levels, which `InputLimits` caps far below the
interpreter's recursion limit, so a 10,000-level nesting is refused, never followed.
"""

from __future__ import annotations

import datetime as _dt
import decimal
import enum
import uuid
from dataclasses import replace
from itertools import islice
from typing import Any

from pydantic import BaseModel

from .input_limits import (
    DEFAULT_LIMITS,
    DEPTH_CEILING,
    InputLimits,
    LimitExceeded,
    digits_at_least,
    printable_text,
    type_name,
    valid_text,
)
from .state import TrackedDict, TrackedList, TrackedSet, plain

_SHOWN_CHARS = 40  # how much of a refused string the log keeps
_SHOWN_ITEMS = 1_000  # how many values of refused arguments the log keeps


def check_integers(values: Any, limits: InputLimits) -> None:
    """Refuse integers past `max_int_digits` in validated arguments.

    Lax coercion makes integers out of text ("9" * 70), so a value that passed
    `checked_copy` as a string can come out of validation as a huge integer. Walks
    containers and models as deep as validation built them (which mirrors the already
    bounded input). The walk that runs on every call keeps no path: only a refusal needs
    one, so the walk that names it runs only then.
    """
    if not _integers_within(values, limits.int_bound, 0):
        _refuse_integers(values, limits, "", 0)


def _integers_within(values: Any, bound: int, depth: int) -> bool:
    """False when an integer past `bound` lies anywhere `_refuse_integers` looks (the same walk, without paths)."""
    kind = type(values)
    if kind is int:
        number: int = values
        return -bound < number < bound
    if depth > DEPTH_CEILING or kind is str or kind is float or kind is bool or values is None:
        return True
    items: Any
    if kind is dict:
        items = values.values()
    elif kind is list or kind is tuple:
        items = values
    elif isinstance(values, BaseModel):
        items = values.__dict__.values()
    elif isinstance(values, dict):
        items = values.values()
    elif isinstance(values, (list, tuple, set, frozenset)):
        items = values
    else:
        return True
    for item in items:
        kind = type(item)
        if kind is int:
            if not -bound < item < bound:
                return False
        elif kind is not str and kind is not float and kind is not bool and item is not None \
                and not _integers_within(item, bound, depth + 1):
            return False
    return True


def _refuse_integers(values: Any, limits: InputLimits, path: str, depth: int) -> None:
    """`LimitExceeded` for the first integer past `max_int_digits`, naming where it is (`items[0].quantity`)."""
    kind = type(values)
    if kind is int:
        if not -limits.int_bound < values < limits.int_bound:
            raise LimitExceeded("max_int_digits", f"an integer of {digits_at_least(values)} or more digits "
                                f"(at most {limits.max_int_digits})", path=path, maximum=limits.max_int_digits)
        return
    if depth > DEPTH_CEILING or kind is str or kind is float or kind is bool or values is None:
        return
    if isinstance(values, BaseModel):
        values = values.__dict__
    if isinstance(values, dict):
        for key, item in values.items():
            _refuse_integers(item, limits, f"{path}.{key}" if path else str(key), depth + 1)
    elif isinstance(values, (list, tuple, set, frozenset)):
        for index, item in enumerate(values):
            _refuse_integers(item, limits, f"{path}[{index}]", depth + 1)


def checked_copy(arguments: dict[Any, Any], limits: InputLimits = DEFAULT_LIMITS) -> dict[str, Any]:
    """A JSON copy of a call's arguments sharing nothing with them; `LimitExceeded` on the first bad value.

    Most calls pass short ASCII strings and small numbers, at most a few levels deep; those
    are copied by a quick walk that only accepts (this runs on every call). Anything else,
    and anything near a bound, takes the full walk, which names the bound it breaks.
    """
    budget = [limits.max_items, limits.max_message_chars]
    copied: dict[str, Any] = _quick_mapping(arguments, 1, limits, budget)  # or `_UNSURE`, typed Any to stand in
    if copied is not _UNSURE and budget[0] >= 0 and budget[1] >= 0:
        return copied
    return _Walk(limits, strict=True).mapping(arguments, 1, "")


# The quick walk's answer when it cannot vouch for a value (the full walk then decides).
_UNSURE: Any = object()
# How deep the quick walk follows lists and objects; deeper input takes the full walk.
_QUICK_DEPTH = 4


def _quick_mapping(value: Any, depth: int, limits: InputLimits, budget: list[int]) -> Any:
    """A copy of a dict whose keys are short ASCII text, or `_UNSURE`; `budget` counts down values and characters."""
    if len(value) > budget[0]:  # its items alone would overdraw the count: the full walk stops at the bound
        return _UNSURE
    out: dict[str, Any] = {}
    longest = limits.max_string_chars
    for key, item in value.items():
        if type(key) is not str or len(key) > longest or not key.isascii():
            return _UNSURE
        budget[1] -= len(key)
        copied = _quick_value(item, depth, limits, budget)
        if copied is _UNSURE:
            return _UNSURE
        out[key] = copied
    return out


def _quick_value(value: Any, depth: int, limits: InputLimits, budget: list[int]) -> Any:
    """`value` copied as the full walk would copy it, or `_UNSURE`; `depth` as in `_Walk.value`."""
    budget[0] -= 1
    kind = type(value)
    if kind is str:
        if len(value) > limits.max_string_chars or not value.isascii():
            return _UNSURE
        budget[1] -= len(value)
        return value
    if kind is int:
        return value if -limits.int_bound < value < limits.int_bound else _UNSURE
    if kind is float or kind is bool or value is None:
        return value
    if depth >= limits.max_depth or depth >= _QUICK_DEPTH or budget[0] < 0:
        return _UNSURE
    if kind is dict or kind is TrackedDict:
        return _quick_mapping(value, depth + 1, limits, budget)
    if kind is list or kind is tuple or kind is TrackedList:
        if len(value) > budget[0]:
            return _UNSURE
        out = []
        for item in value:
            copied = _quick_value(item, depth + 1, limits, budget)
            if copied is _UNSURE:
                return _UNSURE
            out.append(copied)
        return out
    return _UNSURE


def redacted_copy(value: Any, limits: InputLimits = DEFAULT_LIMITS) -> Any:
    """A bounded, JSON-ready copy of refused input for the call log: what breaks a limit is described, not kept."""
    try:
        return _Walk(limits, strict=False).value(value, 0, "")
    except Exception:  # a hostile container that raises while being read
        return f"<unreadable {type_name(value)}>"


_SCALARS = frozenset({str, int, float, bool, type(None)})
_LISTS = frozenset({list, tuple, TrackedList})
_DICTS = frozenset({dict, TrackedDict})
_SETS = frozenset({set, frozenset, TrackedSet})
_KEYS = frozenset({str, int, float, bool})
# Values a Python caller (not a model: JSON has none of them) may pass for typed parameters;
# each is immutable, bounded in size and prints safely, so the log keeps its JSON form.
_NATIVE = (_dt.date, _dt.time, _dt.timedelta)


class _Walk:
    """One walk over argument data. Strict walks raise at the first violation; lenient ones
    write a short description in place of the offending value and go on."""

    __slots__ = ("chars", "items", "limits", "strict")

    def __init__(self, limits: InputLimits, *, strict: bool) -> None:
        # A log entry of refused input needs a glimpse of it, not all of it.
        self.limits = limits if strict else replace(limits, max_items=min(limits.max_items, _SHOWN_ITEMS))
        self.strict = strict
        self.items = 0
        self.chars = 0

    def refuse(self, limit: str, message: str, path: str, maximum: int | None = None) -> str:
        if self.strict:
            raise LimitExceeded(limit, message, path=path, maximum=maximum)
        return f"<{message}>"

    def value(self, value: Any, depth: int, path: str) -> Any:
        kind = type(value)
        self.items += 1
        if self.items > self.limits.max_items:
            return self.refuse("max_items", f"more than {self.limits.max_items} values", path, self.limits.max_items)
        if kind is str:
            return self.text(value, path)
        if kind is int:
            if -self.limits.int_bound < value < self.limits.int_bound:
                return value
            return self.refuse("max_int_digits", f"an integer of {digits_at_least(value)} or more digits "
                               f"(at most {self.limits.max_int_digits})", path, self.limits.max_int_digits)
        if kind in _SCALARS:
            return value
        if kind in _DICTS or kind in _LISTS:
            if depth >= self.limits.max_depth:
                return self.refuse("max_depth", f"nested more than {self.limits.max_depth} levels deep", path,
                                   self.limits.max_depth)
            if kind in _DICTS:
                return self.mapping(value, depth + 1, path)
            return self.sequence(value, depth + 1, path)
        return self.native(value, depth, path)

    def sequence(self, value: Any, depth: int, path: str) -> list[Any]:
        # Never more items than the budget has room for (plus the one that is refused).
        room = islice(value, max(0, self.limits.max_items - self.items) + 1)
        return [self.value(item, depth, f"{path}[{index}]") for index, item in enumerate(room)]

    def native(self, value: Any, depth: int, path: str) -> Any:
        """Typed Python values a library caller may pass; anything else is refused as not data."""
        kind = type(value)
        if isinstance(value, _NATIVE):
            return plain(value)
        if isinstance(value, uuid.UUID):
            return str(value)
        if isinstance(value, enum.Enum):
            return self.value(value.value, depth, path)
        if isinstance(value, decimal.Decimal):
            digits = len(value.as_tuple().digits)
            if value.is_finite() and digits <= self.limits.max_int_digits \
                    and abs(value.adjusted()) <= self.limits.max_int_digits:
                return str(value)
            return self.refuse("max_int_digits", f"a decimal number of {digits} digits or exponent "
                               f"{value.adjusted()} (at most {self.limits.max_int_digits})", path,
                               self.limits.max_int_digits)
        if kind in _SETS or isinstance(value, BaseModel):
            if depth >= self.limits.max_depth:
                return self.refuse("max_depth", f"nested more than {self.limits.max_depth} levels deep", path,
                                   self.limits.max_depth)
            if kind in _SETS:
                items = self.sequence(value, depth + 1, path)
                try:
                    return sorted(items)
                except TypeError:
                    return items
            return self.mapping(value.model_dump(mode="json"), depth + 1, path)
        return self.refuse("json_data", f"a value of type {type_name(value)}; arguments must be JSON data "
                           "(strings, numbers, booleans, null, lists, objects)", path)

    def mapping(self, value: dict[Any, Any], depth: int, path: str) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, item in islice(value.items(), max(0, self.limits.max_items - self.items) + 1):
            if type(key) is str:
                name = self.text(key, path)
            elif type(key) in _KEYS:
                name = str(self.value(key, depth, path))
            else:
                name = self.refuse("json_data", f"a key of type {type_name(key)}; object keys must be strings",
                                   path)
            out[name] = self.value(item, depth, f"{path}.{name}" if path else name)
        return out

    def text(self, value: str, path: str) -> str:
        limits = self.limits
        size = len(value)
        self.chars += size
        if size > limits.max_string_chars:
            shown = printable_text(value[:_SHOWN_CHARS])
            return self.refuse("max_string_chars", f"a string of {size} characters (at most "
                               f"{limits.max_string_chars}) starting {shown!r}", path, limits.max_string_chars)
        if self.chars > limits.max_message_chars:
            return self.refuse("max_message_chars", f"more than {limits.max_message_chars} characters of text "
                               "in one call", path, limits.max_message_chars)
        if not valid_text(value):
            return self.refuse("unicode_text", f"text that is not valid Unicode (a lone surrogate) "
                               f"{printable_text(value[:_SHOWN_CHARS])!r}", path)
        return value
