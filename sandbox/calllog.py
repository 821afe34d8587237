"""The call log: one immutable record per call, in order.

Records are named tuples rather than pydantic models because one is made per call on
the hot path; `to_dict` gives the JSON form. A forked world's log starts as
a view of its parent's records up to the fork, so forking never copies history.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, overload


@dataclass(frozen=True, slots=True)
class CallError:
    """Why a call failed.

    `type` is one of: `parse_error` (the message could not be read as calls),
    `unknown_tool`, `invalid_arguments`, `precondition_failed` (or another code a tool
    gave its `ToolError`), `internal_error` (the tool itself crashed).
    """

    type: str
    message: str
    details: tuple[dict[str, Any], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "message": self.message, "details": [dict(d) for d in self.details]}


class CallRecord(NamedTuple):
    """One call as the world saw it; `result` and `arguments` share nothing with the state.

    A named tuple because one is built per call on the hot path and it must not change
    after the fact.
    """

    seq: int
    tool: str | None
    app: str | None
    arguments: Any
    validated: dict[str, Any] | None
    result: Any
    error: CallError | None
    changed: bool
    time: _dt.datetime

    @property
    def ok(self) -> bool:
        return self.error is None

    def observation(self) -> Any:
        """What an agent should be shown: the result, or the error in a structured form."""
        if self.error is None:
            return self.result
        return {"error": self.error.type, "message": self.error.message}

    def to_dict(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "tool": self.tool,
            "app": self.app,
            "arguments": self.arguments,
            "validated": self.validated,
            "result": self.result,
            "error": None if self.error is None else self.error.to_dict(),
            "changed": self.changed,
            "time": self.time.isoformat(),
        }


_MAX_DEPTH = 16
_new_tuple = tuple.__new__
_new_object = object.__new__


class CallLog(Sequence[CallRecord]):
    """An append-only sequence of records; the first `prefix_len` belong to `prefix`.

    Chains are kept short (a log deeper than `_MAX_DEPTH` is flattened when viewed),
    so walking a log never recurses and old logs do not pile up behind long fork chains.
    """

    __slots__ = ("_depth", "_own", "_prefix", "_prefix_len")

    def __init__(self, records: Iterable[CallRecord] = ()) -> None:
        self._prefix: CallLog | None = None
        self._prefix_len = 0
        self._own: list[CallRecord] = list(records)
        self._depth = 0

    @classmethod
    def over(cls, base: CallLog, length: int) -> CallLog:
        """A new log that starts with the first `length` records of `base`.

        Built past `__init__` (every restore and fork makes one, and its frame costs as much as the rest)."""
        if base._depth >= _MAX_DEPTH:
            return cls(base._segments_upto(length))
        log: CallLog = _new_object(cls)
        log._own = []
        if length <= base._prefix_len:
            log._prefix, log._prefix_len, log._depth = base._prefix, length, base._depth
        else:
            log._prefix, log._prefix_len, log._depth = base, length, base._depth + 1
        return log

    def view(self) -> CallLog:
        """A new log that starts with this one's records as they are now."""
        return CallLog.over(self, self._prefix_len + len(self._own))

    def append(self, record: CallRecord) -> None:
        self._own.append(record)

    def add(self, tool: str | None, app: str | None, arguments: Any, validated: dict[str, Any] | None, result: Any,
            error: CallError | None, changed: bool, time: _dt.datetime) -> CallRecord:
        """Append the record of the next call, numbered in order, and return it.

        Built with `tuple.__new__`, as the named tuple's own constructor does after one more
        Python frame: this runs once per call. (`World.call` writes these three lines out for a
        call that succeeded, saving this frame too: a change here is a change there.)
        """
        own = self._own
        record: CallRecord = _new_tuple(CallRecord, (self._prefix_len + len(own), tool, app, arguments, validated,
                                                     result, error, changed, time))
        own.append(record)
        return record

    def __len__(self) -> int:
        return self._prefix_len + len(self._own)

    def _segments(self, length: int) -> list[tuple[list[CallRecord], int]]:
        """(records, how many of them count) from oldest to newest, for the first `length`."""
        parts: list[tuple[list[CallRecord], int]] = []
        log: CallLog | None = self
        limit = length
        while log is not None and limit > 0:
            keep = limit - log._prefix_len
            if keep > 0:
                parts.append((log._own, min(keep, len(log._own))))
            limit = min(limit, log._prefix_len)
            log = log._prefix
        parts.reverse()
        return parts

    def _segments_upto(self, length: int) -> Iterator[CallRecord]:
        for records, count in self._segments(length):
            yield from records[:count]

    def __iter__(self) -> Iterator[CallRecord]:
        return self._segments_upto(len(self))

    @overload
    def __getitem__(self, index: int) -> CallRecord: ...
    @overload
    def __getitem__(self, index: slice) -> list[CallRecord]: ...
    def __getitem__(self, index: int | slice) -> CallRecord | list[CallRecord]:
        if isinstance(index, slice):
            return list(self)[index]
        size = len(self)
        if index < 0:
            index += size
        if not 0 <= index < size:
            raise IndexError("call log index out of range")
        log = self
        while index < log._prefix_len:
            assert log._prefix is not None
            log = log._prefix
        return log._own[index - log._prefix_len]

    def to_list(self) -> list[dict[str, Any]]:
        return [record.to_dict() for record in self]

    def __repr__(self) -> str:
        return f"CallLog({len(self)} records)"
