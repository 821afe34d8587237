"""ACEBench as a world family: its five apps, en and zh tasks from the datasets folder."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from types import MappingProxyType
from typing import Any

from ..datasets import DatasetFolder
from ..family import TaskLoad, TaskQuery, WorldFamily, select
from .categories import NORMAL_CATEGORIES, SPECIAL_CATEGORIES
from .replay import replay_report
from .tasks import CATEGORIES, read_tasks
from .world import acebench_world

GROUPS = MappingProxyType({"normal": NORMAL_CATEGORIES, "special": SPECIAL_CATEGORIES, "agent": CATEGORIES})


def categories_of(names: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(item categories, agent categories) a category filter names: a group (`normal`,
    `special`, `agent`), a category (`normal_atom_bool`, `multi_turn`, `agent_multi_turn`),
    or nothing for all of them."""
    chosen: list[str] = []
    for name in names or tuple(GROUPS):
        chosen.extend(GROUPS.get(name, (name.removeprefix("agent_"),)))
    items = tuple(c for c in NORMAL_CATEGORIES + SPECIAL_CATEGORIES if c in chosen)
    return items, tuple(c for c in CATEGORIES if c in chosen)


def load(query: TaskQuery) -> TaskLoad:
    """Every category by default: normal and special items (one reply each) and agent tasks."""
    source = FAMILY.data_source(query.data)
    item_categories, agent_categories = categories_of(query.categories)
    unknown = [n for n in query.categories if n not in GROUPS and n.removeprefix("agent_") not in
               item_categories + agent_categories]
    if unknown:
        return TaskLoad([], [f"unknown ACEBench categories: {', '.join(unknown)} (groups: normal, special, agent)"])
    loaded = TaskLoad()
    if item_categories and source.is_dir():
        from .items import read_items  # the item model and prompts: only for a load that reads items

        loaded = read_items(source, query.lang, item_categories)
    if agent_categories:
        agents = read_tasks(source, lang=query.lang, categories=agent_categories)
        if agents.tasks or not loaded.tasks:
            loaded.tasks.extend(agents.tasks)
            loaded.problems.extend(agents.problems)
    everything = dataclasses.replace(query, categories=())
    return TaskLoad(select(loaded.tasks, everything), loaded.problems)


FAMILY = WorldFamily(
    name="acebench",
    description="ACEBench: normal and special items (one reply each) and agent tasks in its phone and travel worlds.",
    build_world=acebench_world,
    languages=("en", "zh"),
    end_state_mode="acebench",
    find_data=DatasetFolder("acebench"),
    load_tasks=load,
    replay=replay_report,
    errata=Path(__file__).with_name("errata.jsonl"),
    generator=lambda: _generator(),
    scorers="evaluators.acebench",
)


def _generator() -> Any:
    from .generate import GENERATOR  # only when generating or reading a generated file

    return GENERATOR
