"""Replaying gold milestone paths and explaining every one that does not reproduce.

`diagnose(task)` runs each alternative path in a fresh world, compares the end state
with the ground truth under ACEBench's semantics, and turns whatever went wrong into
precise defects: an unparseable milestone, a missing precondition (device logged out,
Wi-Fi off, no platform login), an unknown product, or a ground truth that contradicts
its own path. `toolworlds replay` and `toolworlds doctor` both print from it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from sandbox import CallRecord, ParseError, parse_message
from sandbox.comparison import Mode, StateComparison, compare_states

from ..family import ReplayReport
from .tasks import AceTask, WorldBuilder, read_tasks
from .texts import Texts, texts_for
from .world import acebench_world, saved_state

# Templates that report success; every other template in `Texts` reports a failure.
_SUCCESS_FIELDS = frozenset({
    "wifi_on", "device_logged_in", "message_sent", "message_deleted", "latest_id", "earliest_id",
    "reminder_added", "reminder_deleted", "reminder_notified", "food_logged_in", "order_placed", "booked",
    "flight_changed", "cabin_paid", "cabin_refunded", "baggage_paid", "no_extra_fees", "airline_cancelled",
    "free_cancellation", "late_cancellation", "airline_cancel_reason", "economy", "business",
})


class FailureReader:
    """Recognises the reference's failure replies and says what precondition they reveal."""

    def __init__(self, texts: Texts) -> None:
        self._texts = texts
        self._compiled: dict[str, re.Pattern[str]] = {}

    @functools.cached_property
    def _templates(self) -> list[tuple[str, str]]:
        """Each failure template's name and its longest literal part (the text between placeholders)."""
        return [(item.name, max(re.split(r"\{\w+\}", getattr(self._texts, item.name)), key=len))
                for item in fields(self._texts) if item.name not in _SUCCESS_FIELDS]

    def _match(self, name: str, clue: str, message: str) -> re.Match[str] | None:
        """The failure template `name` found in `message`, or None.

        A message without the template's longest literal part (`clue`) cannot hold the template, so
        it is answered without the pattern; patterns are compiled only for messages that may match.
        Most replies are objects or successes, and compiling all sixty patterns is a noticeable
        share of a cold replay.
        """
        if clue not in message:
            return None
        pattern = self._compiled.get(name)
        if pattern is None:
            template = re.escape(getattr(self._texts, name))
            source = re.sub(r"\\\{(\w+)\\\}", lambda m: f"(?P<{m.group(1)}>.+?)", template)
            pattern = self._compiled[name] = re.compile(source)
        return pattern.search(message)

    def failure(self, record: CallRecord) -> str | None:
        """The failure message of a call, or None when it succeeded."""
        if record.error is not None:
            return f"{record.error.type}: {record.error.message}"
        result = record.result
        if isinstance(result, dict) and result.get("status") in (False, "error"):
            return str(result.get("message", result))
        if isinstance(result, str) and any(self._match(name, clue, result) for name, clue in self._templates):
            return result
        return None

    def explain(self, tool: str | None, message: str) -> str:
        if message.startswith("precondition_failed: "):
            return f"missing precondition before {tool}: {message.removeprefix('precondition_failed: ')}"
        for name, clue in self._templates:
            match = self._match(name, clue, message)
            if match is None:
                continue
            values = match.groupdict()
            if name.endswith("_logged_out"):
                return f"missing precondition: the device is logged out and the path never calls login_device ({tool})"
            if name in ("send_wifi_off", "food_wifi_off"):
                return f"missing precondition: Wi-Fi is off and the path never calls turn_on_wifi ({tool})"
            if name == "food_not_logged_in":
                return (f"missing precondition: {values.get('username', 'the user')} is not logged in to the "
                        f"food platform (no login_food_platform before {tool})")
            if name == "product_unknown":
                return f"unknown product {values.get('product')!r}: not on {values.get('merchant')}'s menu"
            if name in ("merchant_unknown", "merchant_named_unknown"):
                return f"unknown merchant in {tool}"
            break
        return f"{tool} failed: {message}"


@dataclass
class PathReplay:
    index: int
    comparison: StateComparison
    repairs: list[str] = field(default_factory=list)
    defects: list[str] = field(default_factory=list)
    end_state: list[dict[str, Any]] = field(default_factory=list)
    messages: int = 0


@dataclass
class Diagnosis:
    task_id: str
    reproduced: bool
    path: int | None
    paths: list[PathReplay]
    invalid: str = ""  # why the task's world cannot be built from its initial state, when it cannot

    @property
    def chosen(self) -> PathReplay | None:
        return None if self.path is None else self.paths[self.path]

    @property
    def reason(self) -> str:
        chosen = self.chosen
        if self.invalid:
            return f"initial state invalid: {self.invalid}"
        if chosen is None:
            return "the task has no milestone path"
        if self.reproduced:
            return "reproduced" + (f" after repairs ({'; '.join(chosen.repairs)})" if chosen.repairs else "")
        return "; ".join(chosen.defects) or "end state differs from the ground truth"

    def to_json(self) -> dict[str, Any]:
        chosen = self.chosen
        return {
            "id": self.task_id,
            "reproduced": self.reproduced,
            "path": self.path,
            "diff": [] if chosen is None else chosen.comparison.diff.to_dict(),
            "reason": self.reason,
            "repairs": [] if chosen is None else chosen.repairs,
            "notes": [] if chosen is None else list(chosen.comparison.notes),
        }


def world_problem(task: AceTask) -> str:
    """Why `task`'s world cannot be built (unknown classes, an initial_config of the wrong shape or
    values its apps refuse), in one line; "" when it can.

    Whatever the builder raises is caught: a lint reports one bad task and goes on to the others,
    and the builder is the family's (banking's bank state is validated by its own models).
    """
    try:
        task.world()
    except Exception as exc:  # any builder, any failure: the task's finding, never the lint's end
        return _one_line(exc)
    return ""


def _one_line(exc: Exception) -> str:
    """An exception's message on one line: a pydantic validation error's first errors as `Model
    field: message`, a `KeyError`'s text without the quotes `str` adds."""
    if isinstance(exc, ValidationError):
        return "; ".join(f"{exc.title} {'.'.join(map(str, error['loc']))}: {error['msg']}"
                         for error in exc.errors()[:3])
    text = str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)
    return " ".join(text.split())[:300] or type(exc).__name__


def replay_path(task: AceTask, index: int, reader: FailureReader, mode: Mode = "acebench") -> PathReplay:
    world = task.world()
    repairs: list[str] = []
    defects: list[str] = []
    path = task.paths[index]
    for step, message in enumerate(path, start=1):
        if message != message.rstrip():
            repairs.append(f"milestone {step}: trailing whitespace (the reference cannot decode it)")
        try:
            parsed = parse_message(message)
        except ParseError as exc:
            defects.append(f"milestone {step} is unparseable ({exc.message}): {message.strip()[:80]}")
            continue
        repairs.extend(f"milestone {step}: {note}" for note in parsed.repairs)
        for record in world.execute(parsed.calls):
            failure = reader.failure(record)
            if failure is not None:
                defects.append(f"milestone {step}: {reader.explain(record.tool, failure)}")
    end_state = saved_state(world, task.involved_classes)
    comparison = compare_states(task.ground_truth, end_state, mode=mode)
    if not comparison.equal and not defects:
        shown = "; ".join(str(d) for d in comparison.diff.differences[:2])
        more = len(comparison.diff) - 2
        defects.append("ground truth contradicts its own path: " + shown + (f" (+{more} more)" if more > 0 else ""))
    for note in comparison.notes:
        if "misspelled" in note or "no class" in note:
            (repairs if comparison.equal else defects).append(note)
    return PathReplay(index, comparison, repairs, defects, end_state, len(path))


def diagnose(task: AceTask, reader: FailureReader | None = None, mode: Mode = "acebench") -> Diagnosis:
    """Replay every gold path of `task`; the first that reproduces wins, else the closest."""
    reader = reader or FailureReader(texts_for(task.lang))
    invalid = world_problem(task)
    if invalid:
        return Diagnosis(task.id, False, None, [], invalid)
    replays: list[PathReplay] = []
    for index in range(len(task.paths)):
        replay = replay_path(task, index, reader, mode)
        replays.append(replay)
        if replay.comparison.equal:
            return Diagnosis(task.id, True, index, replays)
    if not replays:
        return Diagnosis(task.id, False, None, replays)
    best = max(replays, key=lambda r: (r.comparison.fraction, -len(r.defects), -r.index))
    return Diagnosis(task.id, False, best.index, replays)


def replay_report(source: Path, lang: str, options: Mapping[str, Any], *, family: str = "acebench",
                  build: WorldBuilder = acebench_world, mode: Mode = "acebench") -> ReplayReport:
    """Every task's gold paths replayed, as the table `toolworlds replay` and `doctor` print.

    The family contract's `replay` for ACEBench-format families (ACEBench itself, banking).
    """
    reader = FailureReader(texts_for(lang))
    loaded = read_tasks(source, lang=lang, family=family, build=build)
    diagnoses = [diagnose(task, reader, mode) for task in loaded.tasks]
    rows = [(d.task_id, "yes" if d.reproduced else "no", "-" if d.path is None else str(d.path), d.reason)
            for d in diagnoses]
    findings = list(loaded.problems) + [f"{d.task_id}: {d.reason}" for d in diagnoses if not d.reproduced]
    notes = [f"{d.task_id} needed: {'; '.join(d.chosen.repairs)}" for d in diagnoses
             if d.chosen is not None and d.chosen.repairs]
    reproduced = sum(d.reproduced for d in diagnoses)
    return ReplayReport(
        title=f"{family} replay ({lang})", columns=("task", "reproduced", "path", "reason"), rows=rows,
        ok=[d.reproduced for d in diagnoses], summary=f"reproduced {reproduced}/{len(diagnoses)} tasks",
        findings=findings, notes=notes, records=[d.to_json() for d in diagnoses], problems=list(loaded.problems),
    )
