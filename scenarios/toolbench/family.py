"""ToolBench as a world family: mcpbr's ToolBench benchmark, each task run in a world of its own tools.

Tasks come from `--data` (a JSON, JSON-lines or parquet file, a folder of them, or
`hf:NAME[:SPLIT]` for a Hugging Face dataset), else from a `toolbench/` folder in the
datasets folder. Filters follow mcpbr (`filters.py`). Episodes are not scored by end
state: `evaluators.toolbench.score_episode` scores the call log as mcpbr scores a response.
`replay` (and `doctor`) run every task's gold calls against its own tools.
"""

from __future__ import annotations

import json
from pathlib import Path

from sandbox import World

from ..datasets import dataset_dir
from ..family import TaskLoad, TaskQuery, WorldFamily
from .filters import choose, filters_given
from .replay import replay_report
from .sources import is_hub_name, read_tasks
from .tasks import FAMILY_NAME
from .world import toolbench_world

EXAMPLE_TOOLS = Path(__file__).resolve().parent / "example_tools.json"
# Eight hand-written tasks in mcpbr's row shape, so `toolworlds run --tasks toolbench` works on a fresh
# clone; a `toolbench` folder in the datasets folder, or --data, takes its place.
SAMPLE_TASKS = Path(__file__).resolve().parent / "sample_tasks.jsonl"


def find_tasks() -> Path:
    """The datasets folder's ToolBench tasks when there are any, else the bundled sample."""
    return dataset_dir(FAMILY_NAME) or SAMPLE_TASKS


def load(query: TaskQuery) -> TaskLoad:
    source: str | Path = str(query.data) if query.data is not None and is_hub_name(query.data) else \
        FAMILY.data_source(query.data)
    # With no filter, the first N rows are the sample: read no further (mcpbr does the same).
    stop_after = query.limit if not filters_given(query) else None
    loaded = read_tasks(source, stop_after=stop_after)
    return TaskLoad(choose(loaded.tasks, query), loaded.problems)


def example_world(lang: str = "en", seed: int = 0) -> World:
    """A world of four weather tools (the shape of mcpbr's London example), for trying calls by hand."""
    tools = json.loads(EXAMPLE_TOOLS.read_text(encoding="utf-8"))
    return toolbench_world(tools, task_id="example", seed=seed, lang=lang)


FAMILY = WorldFamily(
    name=FAMILY_NAME,
    description="mcpbr's ToolBench: each task's RapidAPI tools, validated and answered deterministically.",
    build_world=example_world,
    languages=("en",),
    end_state_mode="exact",
    find_data=find_tasks,
    load_tasks=load,
    replay=replay_report,
    filters=("difficulties", "tags"),
    errata=Path(__file__).with_name("errata.jsonl"),
    scorers="evaluators.toolbench",
)
