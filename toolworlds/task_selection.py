"""The task sets a run's options choose: each family and language asked for, read under the options' filters.

Without languages named, each family's languages are the ones its data holds (a folder of
English tasks is never also run as Chinese); a language asked for by name must have tasks. A
`--task-ids` naming a task that will not run is refused rather than the others run without it.
Every refusal is an `OptionError` naming the task set and why.
"""

from __future__ import annotations

import dataclasses
import difflib
from dataclasses import dataclass, field

from scenarios.family import TaskLoad, TaskQuery, WorldFamily
from scenarios.registry import families, family

from .runner import TaskSet
from .task_options import OptionError, TaskOptions

_READ_ERRORS = (LookupError, ValueError, OSError)  # a loader's own refusal of the data it was given


@dataclass
class Selection:
    """The chosen task sets, in the order asked for, and notes worth a line (a language with no data)."""

    task_sets: list[TaskSet] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass
class _Load:
    entry: WorldFamily
    lang: str
    loaded: TaskLoad


def _said(exc: Exception) -> str:
    return str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)


def select_task_sets(options: TaskOptions, default: str = "banking") -> Selection:
    """The task sets `options` name (`default` when they name none)."""
    names = list(options.tasks) or [default]
    query = options.query()
    langs = list(options.lang)
    loads: list[_Load] = []
    generated: dict[str, TaskSet] = {}
    for name in names:
        if name.startswith("generated:") or (name.startswith("world:") and query.data is not None):
            # a user's world (`world:package.module:factory`) runs only from a generated file
            generated[name] = _generated_set(name if name.startswith("generated:") else f"generated:{query.data}",
                                             langs, query)
        else:
            loads.extend(_family_loads(name, langs, query))
    if query.task_ids:
        _check_task_ids(query, loads, {str(task.id) for made in generated.values() for task in made.tasks})
    selection = Selection()
    for name in names:
        if name in generated:
            selection.task_sets.append(generated[name])
        else:
            _add_family_sets(selection, name, [load for load in loads if load.entry.name == name], named=bool(langs))
    return selection


def _runnable(name: str) -> WorldFamily:
    try:
        entry = family(name)
    except KeyError as exc:
        raise OptionError(str(exc.args[0])) from None
    if entry.load_tasks is None:
        runnable = [f.name for f in families() if f.load_tasks is not None]
        raise OptionError(f"{name} has no runnable tasks; available: {', '.join(runnable)}")
    return entry


def _family_loads(name: str, langs: list[str], query: TaskQuery) -> list[_Load]:
    entry = _runnable(name)
    loads = []
    for lang in langs or entry.languages:
        if lang not in entry.languages:
            raise OptionError(f"{name} has no {lang!r} tasks; languages: {', '.join(entry.languages)}")
        try:
            loads.append(_Load(entry, lang, entry.tasks(dataclasses.replace(query, lang=lang))))
        except _READ_ERRORS as exc:
            raise OptionError(f"{name}/{lang}: {_said(exc)}") from None
    return loads


def _add_family_sets(selection: Selection, name: str, loads: list[_Load], *, named: bool) -> None:
    """One family's task sets: a language named must have tasks; one the data merely lacks is a note."""
    absent: list[str] = []
    added = 0
    for load in loads:
        loaded = load.loaded
        if not loaded.tasks and not named:
            absent.append(f"{load.lang} ({'; '.join(loaded.problems[:2]) or 'no tasks'})")
            continue
        if loaded.problems:
            raise OptionError(f"{name}/{load.lang}: " + "; ".join(loaded.problems[:5]))
        if not loaded.tasks:
            raise OptionError(f"{name}/{load.lang}: no tasks match")
        selection.task_sets.append(TaskSet(name, load.lang, loaded.tasks, load.entry.end_state_mode))
        added += 1
    if absent and not added:
        raise OptionError(f"{name}: no tasks in any language: " + "; ".join(absent))
    if absent:
        selection.notes.append(f"{name}: no data for " + ", ".join(absent))


def _check_task_ids(query: TaskQuery, loads: list[_Load], generated: set[str]) -> None:
    """Refuse a `--task-ids` naming a task that will not run, rather than run the others without it: an id
    no task set has (with the closest ones it does have), or one the other filters or `--limit` leave out.
    Every task set asked for counts: an id found in one language is not missing from the other."""
    chosen = generated | {str(task.id) for load in loads for task in load.loaded.tasks}
    missing = [task_id for task_id in dict.fromkeys(query.task_ids) if task_id not in chosen]
    # An id may name a task by another of its ids (ToolBench: the dataset's id, or mcpbr's `toolbench_N`
    # counted after the filters): it is there when the same query asking for it alone finds a task.
    for load in loads:
        missing = [task_id for task_id in missing
                   if not _found_alone(load.entry, dataclasses.replace(query, lang=load.lang, task_ids=(task_id,)))]
    if not missing:
        return
    known = _every_id(query, loads)
    unknown = [task_id for task_id in missing if task_id not in known]
    if unknown:
        hints = {task_id: difflib.get_close_matches(task_id, known, n=3, cutoff=0.6) for task_id in unknown}
        named = "; ".join(f"{task_id!r}" + (f" (closest: {', '.join(hints[task_id])})" if hints[task_id] else "")
                          for task_id in unknown[:10])
        more = f" and {len(unknown) - 10} more" if len(unknown) > 10 else ""
        raise OptionError(f"--task-ids: no task has the id(s) {named}{more}")
    shown = ", ".join(repr(task_id) for task_id in missing[:10]) + (" ..." if len(missing) > 10 else "")
    raise OptionError(f"--task-ids: {shown} left out by the other filters or --limit; drop those or these ids")


def _every_id(query: TaskQuery, loads: list[_Load]) -> set[str]:
    """Every task id the task sets' data holds, whatever the filters."""
    everything = dataclasses.replace(query, task_ids=(), limit=None, categories=(), difficulties=(), tags=())
    known: set[str] = set()
    for load in loads:
        try:
            tasks = load.entry.tasks(dataclasses.replace(everything, lang=load.lang)).tasks
        except _READ_ERRORS:  # the filtered load read this data: the full one will too
            continue
        known.update(str(task.id) for task in tasks)
    return known


def _found_alone(entry: WorldFamily, query: TaskQuery) -> bool:
    try:
        return bool(entry.tasks(query).tasks)
    except _READ_ERRORS:  # the filtered load read this data: this one reads it too
        return False


def _generated_set(name: str, langs: list[str], query: TaskQuery) -> TaskSet:
    """The task set of a `generated:FILE`: its family and language come from the file's header."""
    from .generation import generated_path, generated_source

    path = generated_path(name)
    try:
        entry, lang = generated_source(path) if path is not None else (None, "")
        if entry is None:
            raise LookupError(f"{name}: name a file after generated:")
        if langs and lang not in langs:
            raise LookupError(f"{path} holds {lang} tasks, not {', '.join(langs)}")
        loaded = entry.tasks(dataclasses.replace(query, lang=lang, data=path))
    except _READ_ERRORS as exc:
        raise OptionError(_said(exc)) from None
    if loaded.problems:
        raise OptionError(f"{path}: " + "; ".join(loaded.problems[:5]))
    if not loaded.tasks:
        raise OptionError(f"{path}: no tasks match")
    return TaskSet(entry.name, lang, loaded.tasks, entry.end_state_mode)
