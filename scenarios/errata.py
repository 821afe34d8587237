"""Errata: the corrections we make to a benchmark's published tasks, applied when tasks are loaded.

Each family may keep a file `scenarios/<family>/errata.jsonl` (`WorldFamily.errata`), one
erratum per line: the task it corrects, what was wrong (and how it was found), what we changed,
and the change itself, one of

- `exclude`: the task is left out of every load (it cannot be scored fairly);
- `replace`: one field of the task is given a corrected value (`field`, `value`), validated as
  the task's own class validates it.

An erratum may name a language (`lang`); without one it holds for every language. Loading
applies them (`WorldFamily.tasks`; a query with `errata=False` reads the data as published,
to reproduce the reference's figures), `toolworlds doctor FAMILY` lists them, and every
episode's task hash (`scenarios.taskhash`) changes with them, so a run made before an erratum
can be scored again (`toolworlds rescore`) and compared. A malformed errata file is refused
whole, each problem named by file and line: a silently skipped correction would be worse than none.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from .jsonlines import json_lines


class Erratum(BaseModel):
    """One correction of one task."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    task_id: str
    wrong: str  # what was wrong with the task as published, and how it was found
    change: str  # what we changed, in words
    action: Literal["exclude", "replace"]
    lang: str | None = None  # None: every language
    field: str | None = None  # replace: the task field corrected
    value: Any = None  # replace: its corrected value

    @model_validator(mode="after")
    def _replacement_named(self) -> Erratum:
        if self.action == "replace" and not self.field:
            raise ValueError("a replace erratum names the task field it corrects ('field')")
        if self.action == "exclude" and self.field is not None:
            raise ValueError("an exclude erratum leaves the whole task out: it names no 'field'")
        return self

    def applies(self, task_id: str, lang: str) -> bool:
        return self.task_id == task_id and self.lang in (None, lang)

    def describe(self) -> str:
        """One line for a person: which task, what was wrong, what we changed."""
        where = f"{self.task_id} ({self.lang})" if self.lang else self.task_id
        return f"{where} [{self.action}{' ' + self.field if self.field else ''}]: {self.wrong} -> {self.change}"


class ErrataError(ValueError):
    """An errata file that cannot be read: every problem, each naming file and line."""


def read_errata(path: Path) -> list[Erratum]:
    """The errata in `path` (JSON lines); `ErrataError` listing every bad line. A missing file is no errata."""
    if not path.exists():
        return []
    problems: list[str] = []
    errata: list[Erratum] = []
    seen: dict[tuple[str, str | None], int] = {}
    for number, value in json_lines(path, problems):
        try:
            erratum = Erratum.model_validate(value)
        except ValidationError as exc:
            reasons = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'line'}: {e['msg']}" for e in exc.errors())
            problems.append(f"{path.name}:{number}: {reasons}")
            continue
        key = (erratum.task_id, erratum.lang)
        if key in seen:  # two corrections of one task would apply in file order: say so instead
            problems.append(f"{path.name}:{number}: {erratum.task_id} is corrected already on line {seen[key]}")
            continue
        seen[key] = number
        errata.append(erratum)
    if problems:
        raise ErrataError(f"errata file {path}: " + "; ".join(problems))
    return errata


def apply_errata(tasks: Sequence[Any], errata: Sequence[Erratum], lang: str) -> tuple[list[Any], list[str]]:
    """`tasks` corrected: excluded ones left out, replaced fields set; with the ids of the tasks changed.
    `ErrataError` when a replacement cannot be made (no such field, or a value the task refuses)."""
    kept: list[Any] = []
    applied: list[str] = []
    for task in tasks:
        found = [e for e in errata if e.applies(str(task.id), lang)]
        if not found:
            kept.append(task)
            continue
        applied.append(str(task.id))
        if any(e.action == "exclude" for e in found):
            continue
        for erratum in found:
            task = _replaced(task, erratum)
        kept.append(task)
    return kept, applied


def _replaced(task: Any, erratum: Erratum) -> Any:
    """A copy of `task` with the erratum's field set, validated as the task's class validates it."""
    name = erratum.field or ""
    model_fields = getattr(type(task), "model_fields", None)
    try:
        if isinstance(model_fields, dict) and name in model_fields:
            values = {key: getattr(task, key) for key in model_fields}
            return type(task).model_validate({**values, name: erratum.value})
        if dataclasses.is_dataclass(task) and not isinstance(task, type) \
                and any(item.name == name and item.init for item in dataclasses.fields(task)):
            return dataclasses.replace(task, **{name: erratum.value})
    except (ValidationError, ValueError, TypeError) as exc:
        raise ErrataError(f"erratum of {erratum.task_id}: {name}: the task refuses the value ({exc})") from None
    raise ErrataError(f"erratum of {erratum.task_id}: a {type(task).__name__} has no field {name!r} to correct")


def errata_lines(errata_file: Path | None, lang: str, findings: Sequence[str] = ()) -> list[str]:
    """What `toolworlds doctor` says of a family's errata for `lang`: how many, from which file, and each
    one, marked where it corrects one of the replay's `findings` ("task id: ..."). `ErrataError` for a
    malformed file."""
    if errata_file is None:
        return ["errata: none (this family keeps no errata file)"]
    errata = [e for e in read_errata(errata_file) if e.lang in (None, lang)]
    found = {finding.split(":", 1)[0] for finding in findings}
    lines = [f"errata: {len(errata)} for {lang} in {errata_file.parent.name}/{errata_file.name}, applied when tasks "
             f"are loaded (run --no-errata reads the data as published)"]
    corrected = 0
    for erratum in errata:
        mark = " (corrects a finding above)" if erratum.task_id in found else ""
        corrected += bool(mark)
        lines.append(f"  {erratum.describe()}{mark}")
    if found:
        lines.append(f"{corrected} of the {len(found)} task(s) with findings corrected by errata")
    return lines
