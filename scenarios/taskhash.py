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
from typing import Any

from .family import Task

# What every task has (`scenarios.family.Task`), hashed whatever the task's class.
PROTOCOL_FIELDS = ("id", "category", "question", "functions", "paths", "ground_truth")
UNHASHED = frozenset({"source"})


def task_hash(task: Task) -> str:
    """16 hex digits of SHA-256 over the task's protocol fields and its own fields, as canonical JSON."""
    fields = _fields(task)
    if isinstance(fields, dict):  # each value once: a task's own fields include most protocol fields
        fields = {name: value for name, value in fields.items() if name not in PROTOCOL_FIELDS}
    content = {"task": {name: getattr(task, name, None) for name in PROTOCOL_FIELDS}, "fields": fields}
    try:
        text = json.dumps(content, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=_plain)
    except TypeError:  # keys json cannot sort (numbers beside text): their order as loaded, which is the data's
        text = json.dumps(content, ensure_ascii=False, separators=(",", ":"), default=_plain)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


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
