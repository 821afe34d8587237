"""`EpisodeRecord`: the one schema of a stored episode, as a worker hands it to the driver.

A worker fills it (`toolworlds.worker`), every backend carries it, and the store's episodes table
(`toolworlds.store.EpisodeRow`) is this model plus what only the driver knows (the run, when the
episode was stored, its task's data hash). A new column of an episode is one field here. A failed
episode (the run, its worker or the store could not finish it) is a record too (`EpisodeRecord.failed`).

Its text is text any database holds (`stored_text`, `stored_json`): the worker writes it so, once.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType, NoneType, UnionType
from typing import Any, get_args

from pydantic_core import PydanticUndefined
from sqlmodel import SQLModel
from sqlmodel.main import SQLModelConfig

from sandbox.arguments import fill_slots
from sandbox.input_limits import printable_json, printable_text
from sandbox.lanes import LANES_ON
from sandbox.limit_walk import redacted_copy

from .json_text import json_text


class EpisodeRecord(SQLModel):
    """One episode as stored, without the run's own columns (`EpisodeRow` adds those). A name that is not a
    field is refused, not dropped: a column written under the wrong name would otherwise go unstored."""

    model_config = SQLModelConfig(extra="forbid")

    task_set: str  # e.g. "banking/en"
    task_id: str
    category: str
    success: bool
    state_fraction: float
    process: float
    steps: int
    calls: int
    errors: int
    error_types: str = "{}"  # JSON: error type -> count
    finished: bool
    stop_reason: str = ""
    diff: str = "[]"  # JSON: field-level differences from the expected end state
    # Why the episode failed (endpoint, agent, world, scoring, worker or store), None if it ran to its end.
    # Added after the first release: nullable, so opening an older database can add it.
    error: str | None = None
    # The episode's line of its benchmark's own result file (JSON), for tasks that write one.
    result_record: str | None = None
    # The tools the agent was given, as OpenAI tool schemas (JSON), for exports: kept once per run store
    # in `toolsets` under `tools_hash` (a run's episodes mostly share a few sets of 10 KB each); `tools`
    # holds them itself only in databases written before that. Read them with `RunStore.tools`.
    tools: str | None = None
    # Which of the run's repeated trials of the task this is (0 for the first; NULL in older databases,
    # whose unique key has no trial: such a database holds one trial per task).
    trial: int | None = 0
    # Which scorer gave the verdicts (`evaluators.versions`, e.g. "acebench/2 compat"); NULL in older
    # databases and for episodes that could not be run or scored at all.
    scorer_version: str | None = None
    # Why the family's checker judged as it did when that is not a plain pass, in its words (None: solved, or
    # the end state's differences say it all, or stored by an older release).
    reason: str | None = None

    @classmethod
    def failed(cls, task_set: str, task_id: str, category: str, reason: str, trial: int = 0) -> EpisodeRecord:
        """An episode that could not be run, scored or stored at all: `reason` is its error."""
        return cls(task_set=task_set, task_id=stored_text(task_id), category=stored_text(category), success=False,
                   state_fraction=0.0, process=0.0, steps=0, calls=0, errors=0, error_types="{}", finished=False,
                   stop_reason="run failed", diff="[]", error=stored_text(reason), trial=trial)

    @classmethod
    def of(cls, **values: Any) -> EpisodeRecord:
        """The record of `values`, as `cls(**values)` makes it. In the speed lane `record` (`LANES_ON`), a record
        of this very class whose values name every required field and no other, each of its field's own type
        exactly (text, bool, float, int, or None where allowed: what a worker builds), is made without
        validating them, which would keep each as it is (validating was half the cost of making the record).
        Anything else (an unknown or missing name, an int for a float, a subclass of str) is validated, which
        converts or refuses it as ever."""
        if LANES_ON and _UNCONSTRAINED and cls is EpisodeRecord and _plain_values(values):
            fields = _DEFAULTS.copy()
            fields.update(values)
            record = object.__new__(cls)
            fill_slots(record, fields, set(values))
            return record
        return cls(**values)

    @property
    def key(self) -> tuple[str, str, int]:
        """(task set, task id, trial): which episode of its run this is."""
        return self.task_set, self.task_id, self.trial or 0


def record_columns(record: EpisodeRecord) -> dict[str, Any]:
    """The record's columns as a fresh dict, what `record.model_dump()` gives: a record's fields are plain values
    (text, numbers, booleans, None) that dumping would hand back as they are, so a record of this very class is
    read from its own fields (dumping it was a twentieth of storing an episode); a subclass is dumped."""
    if type(record) is EpisodeRecord:
        return {name: record.__dict__[name] for name in _FIELDS}
    return record.model_dump()


def stored_text(text: str) -> str:
    """`text` as any database holds it: lone surrogates (no UTF-8) and NUL (PostgreSQL's text refuses it)
    written as visible escapes, `\\udxxx` and `\\x00`, the same on every database."""
    text = printable_text(text)
    return text.replace("\x00", "\\x00") if "\x00" in text else text


def stored_json(value: Any) -> str:
    """JSON text any database can hold, whatever the value (typed values via `str`); a lone surrogate in a
    string reads back as the escape `stored_text` stores (`printable_json`)."""
    try:
        text = json_text(value)
    except Exception:  # a value json cannot write (too deep, too large a number): store what can be
        text = json_text(redacted_copy(value))
    return printable_json(text)


# The record's columns in their order (`record_columns`).
_FIELDS = tuple(EpisodeRecord.model_fields)


def _plain_types(annotation: Any) -> frozenset[type]:
    """The types of the values a field's validation keeps as they are: its annotation's own (`str`), or each of a
    union's (`str | None`)."""
    kinds = get_args(annotation) if isinstance(annotation, UnionType) else (annotation,)
    return frozenset(NoneType if kind is None else kind for kind in kinds)


# For `EpisodeRecord.of`, made once and read-only: each field's plain types, the fields a record must be given,
# and every field's default in field order (None for the required ones, which are always given).
_TYPES: Mapping[str, frozenset[type]] = MappingProxyType(
    {name: _plain_types(info.annotation) for name, info in EpisodeRecord.model_fields.items()})
_REQUIRED = frozenset(name for name, info in EpisodeRecord.model_fields.items() if info.is_required())
_DEFAULTS: MappingProxyType[str, Any] = MappingProxyType(
    {name: None if info.default is PydanticUndefined else info.default
     for name, info in EpisodeRecord.model_fields.items()})
# The lane holds only while no field has a constraint, a validator's metadata or a default made by a factory
# (which `_DEFAULTS` cannot give): a field given one later turns the lane off rather than skipping it.
_CHECKS = EpisodeRecord.__pydantic_decorators__
_UNCONSTRAINED = (all(not info.metadata and info.default_factory is None
                      for info in EpisodeRecord.model_fields.values())
                  and not _CHECKS.field_validators and not _CHECKS.model_validators)


def _plain_values(values: dict[str, Any]) -> bool:
    """Whether `values` name every required field and no other, each value of its field's own type exactly."""
    if not (values.keys() >= _REQUIRED and values.keys() <= _TYPES.keys()):
        return False
    types = _TYPES
    for name, value in values.items():  # noqa: SIM110 (a loop: all() over a generator costs a fifth more here)
        if type(value) not in types[name]:
            return False
    return True


