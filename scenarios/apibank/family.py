"""API-Bank as a world family: its APIs, the recorded-call replay, and its three levels as tasks.

Categories: `level-1-api`, `level-1-response`, `level-2-api`, `level-2-response` (one
sample per recorded call or AI turn, each scored on one reply) and `level-3` (the scenes,
run as conversations). `--filter-category level-1` (or `--level 1`) takes a level's two
kinds; no filter takes every level.
"""

from __future__ import annotations

import dataclasses
import functools
from types import MappingProxyType
from typing import Any

from ..datasets import dataset_dir
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
    try:
        source = apibank_folder(FAMILY.data_source(query.data))
    except LookupError as exc:
        return TaskLoad([], [str(exc.args[0])])
    categories, unknown = chosen_categories(query.categories)
    if unknown:
        return TaskLoad([], [f"unknown API-Bank categories: {', '.join(unknown)} "
                             f"(levels: {', '.join(LEVELS)}; categories: {', '.join(CATEGORIES)})"])
    levels = tuple(level for level in (1, 2) if any(c.startswith(f"level-{level}-") for c in categories))
    tasks: list[Any] = [t for t in read_samples(source, levels) if t.category in categories] if levels else []
    problems: list[str] = []
    if "level-3" in categories:
        scenes = read_scenes(source)
        tasks.extend(scenes.tasks)
        problems.extend(scenes.problems)
    return TaskLoad(select(tasks, dataclasses.replace(query, categories=())), problems)


FAMILY = WorldFamily(
    name="apibank",
    description="API-Bank's APIs (apis/) as one offline, deterministic world; levels 1-3 as tasks.",
    build_world=apibank_world,
    find_data=functools.partial(dataset_dir, "api-bank"),
    load_tasks=load,
    replay=replay_report,
)
