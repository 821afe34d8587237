"""A task's fingerprint: a hash of the data it is run and scored with, stored with every episode.

Two episodes with the same task hash were given the same instruction, tools, gold paths, ground
truth and task fields; an erratum (`scenarios.errata`) or a new release of a benchmark's data
changes it, so a report comparing runs can tell a verdict that flipped with the scorer from one
that flipped with the data. Where a task was read from (`source`, a file and line) is left out:
the same data in another folder hashes the same. Values that are not data (a task's world
builder, a shared world base) count by their type's name only.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import marshal
from typing import Any

from .family import Task

# What every task has (`scenarios.family.Task`), hashed whatever the task's class.
PROTOCOL_FIELDS = ("id", "category", "question", "functions", "paths", "ground_truth")
UNHASHED = frozenset({"source"})


def task_hash(task: Task) -> str:
    """16 hex digits of SHA-256 over the task's protocol fields and its own fields, as canonical JSON."""
    return TaskHasher().hash(task)


class TaskHasher:
    """`task_hash` for the tasks of one run: the JSON text of a function list met again is made once.

    The tasks of a task set mostly offer the same tools, each task with its own copy of the list (the
    loader validates every line into its own model); writing that list as JSON was two thirds of a
    banking task's hash. A list is known again by its `marshal` bytes, which take only builtin values
    and tell their types apart (`True` from `1`, `1` from `1.0`), so the same bytes are the same JSON;
    what marshal refuses is written every time. Only a list whose tool names were met before is
    marshalled (an ACEBench task's tools are mostly its own). The digest is the one the whole content
    written at once gives: the text is put together from its parts in the order
    `json.dumps(sort_keys=True)` writes them. Lives as long as its owner (one run), never at module level.
    """

    def __init__(self) -> None:
        self._encoder = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=_plain)
        self._names: set[tuple[Any, ...]] = set()  # the tool names of every list met
        self._seen: set[bytes] = set()  # lists met once whose names were met before: kept when met again
        self._texts: dict[bytes, str] = {}
        self._by_id: dict[int, tuple[Any, str]] = {}  # a list kept (so its id stays its own) beside its text

    def hash(self, task: Task) -> str:
        fields = _fields(task)
        if isinstance(fields, dict):  # each value once: a task's own fields include most protocol fields
            fields = {name: value for name, value in fields.items() if name not in PROTOCOL_FIELDS}
        values = {name: getattr(task, name, None) for name in PROTOCOL_FIELDS}
        try:
            text = self._sorted_text(fields, values)
        except TypeError:  # keys json cannot sort (numbers beside text): their order as loaded, which is the data's
            content = {"task": values, "fields": fields}
            text = json.dumps(content, ensure_ascii=False, separators=(",", ":"), default=_plain)
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]

    def _sorted_text(self, fields: Any, values: dict[str, Any]) -> str:
        """`json.dumps({"task": values, "fields": fields}, sort_keys=True, ...)`: "fields" before "task",
        whose keys are category, functions, then the rest (`PROTOCOL_FIELDS` sorted)."""
        encode = self._encoder.encode
        rest = encode({name: value for name, value in values.items() if name not in ("category", "functions")})
        return (f'{{"fields":{encode(fields)},"task":{{"category":{encode(values["category"])},'
                f'"functions":{self._functions_text(values["functions"])},{rest[1:]}}}')

    def _functions_text(self, functions: Any) -> str:
        known = self._by_id.get(id(functions))
        if known is not None and known[0] is functions:  # the very list of an earlier task (API-Bank's share one)
            return known[1]
        try:  # a first look, never trusted: the tools' names
            names = tuple([item.get("name") for item in functions])
            met = names in self._names
        except (AttributeError, TypeError):  # not a list of tool objects with hashable names: written each time
            return self._encoder.encode(functions)
        if not met:
            self._names.add(names)
            return self._encoder.encode(functions)
        try:
            key = marshal.dumps(functions, 2)  # version 2: no back references, so equal lists give equal bytes
        except ValueError:  # a value that is not builtin data (a model): written each time
            return self._encoder.encode(functions)
        text = self._texts.get(key)
        if text is None:
            text = self._encoder.encode(functions)
            if key not in self._seen:
                self._seen.add(key)
                return text
            self._texts[key] = text
        # Known by this very list from now on, as any list whose text is kept: tasks made from one another (copies
        # under new ids, a data set's shared list) hold the same list, and marshalling it again cost each a fifth.
        self._by_id[id(functions)] = (functions, text)
        return text


def _fields(value: Any) -> Any:
    """A pydantic model's fields (those a dump keeps) or a dataclass's (those its equality compares: a
    ToolBench task's response cache is not its data), else the value's type name."""
    model_fields = getattr(type(value), "model_fields", None)
    if isinstance(model_fields, dict):
        return {name: getattr(value, name) for name, info in model_fields.items()
                if name not in UNHASHED and not getattr(info, "exclude", False)}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {item.name: getattr(value, item.name) for item in dataclasses.fields(value)
                if item.compare and item.name not in UNHASHED and not item.name.startswith("_")}
    return f"<{type(value).__qualname__}>"


def _plain(value: Any) -> Any:
    """What `json` cannot write: nested models and dataclasses by their fields, sets sorted, the rest by type."""
    if isinstance(value, set | frozenset):
        return sorted(value, key=repr)
    return _fields(value)
