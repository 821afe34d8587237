"""API-Bank as a world family: its APIs, the recorded-call replay, and its three levels as tasks.

Categories: `level-1-api`, `level-1-response`, `level-2-api`, `level-2-response` (one
sample per recorded call or AI turn, each scored on one reply) and `level-3` (the scenes,
run as conversations). `--filter-category level-1` (or `--level 1`) takes a level's two
kinds; no filter takes every level.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from types import MappingProxyType
from typing import Any

from ..datasets import DatasetFolder
from ..family import TaskLoad, TaskQuery, WorldFamily, select
from .replay import apibank_folder, replay_report
from .samples import KINDS, read_samples
from .scenes import read_scenes
from .world import apibank_world

LEVELS = MappingProxyType({
    "level-1": tuple(f"level-1-{kind}" for kind in KINDS),
    "level-2": tuple(f"level-2-{kind}" for kind in KINDS),
    "level-3": ("level-3",),
})
CATEGORIES = tuple(category for group in LEVELS.values() for category in group)


def chosen_categories(names: tuple[str, ...]) -> tuple[tuple[str, ...], list[str]]:
    """The categories a filter names (levels expand to their kinds; none means all), and the
    names that are neither."""
    chosen: list[str] = []
    unknown = []
    for name in names or tuple(LEVELS):
        if name in LEVELS:
            chosen.extend(LEVELS[name])
        elif name in CATEGORIES:
            chosen.append(name)
        else:
            unknown.append(name)
    return tuple(c for c in CATEGORIES if c in chosen), unknown


def load(query: TaskQuery) -> TaskLoad:
    """The tasks of the chosen levels. A dialogue or scene file that cannot be read is a problem
    naming its file, line and field while the others load; a broken init_database file, from
    which no task's world can be built, is one problem naming it."""
    try:
        source = apibank_folder(FAMILY.data_source(query.data))
    except LookupError as exc:
        return TaskLoad([], [str(exc.args[0])])
    categories, unknown = chosen_categories(query.categories)
    if unknown:
        return TaskLoad([], [f"unknown API-Bank categories: {', '.join(unknown)} "
                             f"(levels: {', '.join(LEVELS)}; categories: {', '.join(CATEGORIES)})"])
    try:
        loaded = _read(source, categories)
    except ValueError as exc:  # init_database: every world is built from it
        return TaskLoad([], [str(exc)])
    return TaskLoad(select(loaded.tasks, dataclasses.replace(query, categories=())), loaded.problems)


def _read(source: Path, categories: tuple[str, ...]) -> TaskLoad:
    """Every task of `categories`, and the problems met; `ValueError` when init_database is broken."""
    loaded = TaskLoad()
    levels = tuple(level for level in (1, 2) if any(c.startswith(f"level-{level}-") for c in categories))
    if levels:
        samples = read_samples(source, levels, loaded.problems)
        loaded.tasks.extend(t for t in samples if t.category in categories)
        if samples:
            samples[0].base.fork()  # built once here, so a broken init_database is named at load
    if "level-3" in categories:
        scenes = read_scenes(source)
        loaded.tasks.extend(scenes.tasks)
        loaded.problems.extend(scenes.problems)
    return loaded


FAMILY = WorldFamily(
    name="apibank",
    description="API-Bank's APIs (apis/) as one offline, deterministic world; levels 1-3 as tasks.",
    build_world=apibank_world,
    find_data=DatasetFolder("api-bank"),
    load_tasks=load,
    replay=replay_report,
    errata=Path(__file__).with_name("errata.jsonl"),
    generator=lambda: _generator(),
    scorers="evaluators.apibank",
)


def _generator() -> Any:
    from .generate import GENERATOR  # only when generating or reading a generated file

    return GENERATOR
