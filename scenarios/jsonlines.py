"""Reading benchmark data files that may be broken, one line (or one file) at a time.

Task data is trusted no more than a model's replies: a line may be cut short, hold a byte
that is not UTF-8, a 5,000-digit integer (which `json.loads` refuses with a plain
`ValueError`, not a `JSONDecodeError`) or nesting deep enough to exhaust the stack
(`RecursionError`); a file may be a folder. Every loader turns each of these into a problem
naming the file and line, in the same words, and goes on with the next line: one bad line
never hides the others, and never becomes a traceback.
"""

from __future__ import annotations

import json
from codecs import BOM_UTF8
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any


class JsonTextError(ValueError):
    """Text that is not one JSON value; `reason` is the short reason loaders report."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class DataFileError(ValueError):
    """A data file that cannot be read: `where` names it (and the line), `reason` says why."""

    def __init__(self, where: str, reason: str) -> None:
        super().__init__(f"{where}: {reason}")
        self.where = where
        self.reason = reason


def json_value(text: str) -> Any:
    """`json.loads(text)`, or `JsonTextError` for anything the decoder (or Python's integer
    conversion, or the stack) refuses, so that callers catch one exception, not three."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise JsonTextError(f"not valid JSON ({exc.msg})") from None
    except ValueError:  # an integer past Python's 4,300-digit limit for converting text
        raise JsonTextError("not valid JSON (an integer too long to read)") from None
    except RecursionError:
        raise JsonTextError("not valid JSON (nested too deeply to read)") from None


def shown_value(value: Any) -> str:
    """A wrong data value as a problem message names it: text quoted and cut short (its author finds
    it by its words), anything else by its JSON type, empty containers named as such. Never `repr`
    of the whole value: a 5,000-digit integer's would itself raise, a megabyte's would fill the log."""
    if isinstance(value, str):
        return repr(value[:60])
    if value is None:
        return "null"
    if isinstance(value, (list, dict)) and not value:
        return "an empty list" if isinstance(value, list) else "an empty object"
    return _JSON_KINDS.get(type(value), f"a value of type {type(value).__name__}")


_JSON_KINDS: Mapping[type, str] = MappingProxyType(
    {bool: "a boolean", int: "a number", float: "a number", list: "a list", dict: "an object"})


class FirstSeen:
    """Where each id of a data set was first seen. The store keys episodes by task id, so a second
    task with an id would silently replace the first's: the first is kept, each repeat is a problem
    naming where the kept one is."""

    def __init__(self) -> None:
        self._where: dict[str, str] = {}

    def repeated(self, key: str, where: str) -> str | None:
        """None the first time `key` is seen (noting `where`); then the reason a repeat is left out."""
        first = self._where.get(key)
        if first is not None:
            return f"duplicate id {key} (first at {first})"
        self._where[key] = where
        return None


def read_bytes(path: Path, label: str | None = None) -> bytes:
    """The bytes of a data file, or `DataFileError` naming it (as `label`, default its name) when it
    cannot be read (a folder where a file belongs, no permission): an `OSError` would escape
    loaders that collect problems."""
    try:
        return path.read_bytes()
    except OSError as exc:
        raise DataFileError(label or path.name, f"cannot read it ({exc.strerror or type(exc).__name__})") from None


def file_text(path: Path, label: str | None = None) -> str:
    """A whole text file decoded as UTF-8; `DataFileError` naming it (as `label`, default its name)
    when it cannot be read, or naming the line and column of its first byte that is not UTF-8."""
    label = label or path.name
    return utf8_text(read_bytes(path, label), label)


def utf8_text(data: bytes, label: str) -> str:
    """A whole file's bytes decoded as UTF-8; `DataFileError` naming the file (`label`), the line and
    the column of the first byte that is not UTF-8."""
    if data.startswith(BOM_UTF8):  # a byte-order mark (as editors on Windows write one) is not text
        data = data[len(BOM_UTF8):]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise DataFileError(f"{label}:{line}", _not_utf8(data[exc.start], column)) from None


def decoded_lines(data: bytes) -> Iterator[tuple[int, Any, str]]:
    """Each non-blank line of JSON-lines data as (number from 1, value, "") or, when the line is not
    UTF-8 or not JSON, (number, None, reason). Lines are split on ASCII line ends only (as a text
    file is read), never on the Unicode line separators a JSON string may hold unescaped. A byte-order
    mark opening the data (as editors on Windows write one) is not part of its first line."""
    for number, raw in enumerate(data.splitlines(), start=1):
        if number == 1 and raw.startswith(BOM_UTF8):
            raw = raw[len(BOM_UTF8):]
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            yield number, None, _not_utf8(raw[exc.start], exc.start + 1)
            continue
        if not line.strip():
            continue
        try:
            yield number, json_value(line), ""
        except JsonTextError as exc:
            yield number, None, exc.reason


def json_lines(path: Path, problems: list[str], label: str | None = None) -> Iterator[tuple[int, Any]]:
    """Every non-blank line of a JSON-lines file, decoded, with its number (from 1).

    A line that is not UTF-8 or not JSON is a problem `label:line: reason` (`label` defaults to
    the file's name) and reading goes on; a file that cannot be read at all is one problem.
    """
    label = label or path.name
    try:
        data = read_bytes(path, label)
    except DataFileError as exc:
        problems.append(str(exc))
        return
    for number, value, reason in decoded_lines(data):
        if reason:
            problems.append(f"{label}:{number}: {reason}")
        else:
            yield number, value


def _not_utf8(byte: int, column: int) -> str:
    return f"not valid UTF-8 (byte 0x{byte:02x} at column {column})"
