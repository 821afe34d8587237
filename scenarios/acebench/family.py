"""ACEBench as a world family: its five apps, en and zh tasks from the datasets folder."""

from __future__ import annotations

import functools

from ..datasets import dataset_dir
from ..family import TaskLoad, TaskQuery, WorldFamily, select
from .replay import replay_report
from .tasks import read_tasks
from .world import acebench_world


def load(query: TaskQuery) -> TaskLoad:
    source = FAMILY.data_source(query.data)
    loaded = read_tasks(source, lang=query.lang)
    return TaskLoad(select(loaded.tasks, query), loaded.problems)


FAMILY = WorldFamily(
    name="acebench",
    description="ACEBench's phone (device, messages, reminders, food delivery) and travel worlds.",
    build_world=acebench_world,
    languages=("en", "zh"),
    end_state_mode="acebench",
    find_data=functools.partial(dataset_dir, "acebench"),
    load_tasks=load,
    replay=replay_report,
)
