"""Banking as a world family: the bank beside ACEBench's phone apps, with bundled en and zh tasks."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from ..acebench.replay import replay_report
from ..acebench.tasks import AceTask, read_tasks
from ..family import TaskLoad, TaskQuery, WorldFamily, select
from .world import banking_world

DATA_DIR = Path(__file__).resolve().parent / "data"


def load(query: TaskQuery) -> TaskLoad:
    source = FAMILY.data_source(query.data)
    loaded = read_tasks(source, lang=query.lang, family="banking", build=banking_world)
    return TaskLoad(select(loaded.tasks, query), loaded.problems)


def load_tasks(lang: str = "en", data: Path | None = None) -> list[AceTask]:
    """The bundled banking tasks of one language (or those in `data`); raises on a malformed line."""
    loaded = load(TaskQuery(lang=lang, data=data))
    if loaded.problems:
        raise ValueError("; ".join(loaded.problems[:5]))
    return loaded.tasks


FAMILY = WorldFamily(
    name="banking",
    description="The banking world the ACEBench paper describes: accounts, payments, loans.",
    build_world=banking_world,
    languages=("en", "zh"),
    end_state_mode="exact",
    find_data=lambda: DATA_DIR,
    load_tasks=load,
    replay=functools.partial(replay_report, family="banking", build=banking_world, mode="exact"),
    generator=lambda: _generator(),
    scorers="evaluators.banking",  # a generated special case is one reply, scored as ACEBench scores them
)


def _generator() -> Any:
    from .generate import GENERATOR  # only when generating or reading a generated file

    return GENERATOR
