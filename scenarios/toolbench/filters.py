"""Choosing ToolBench tasks with mcpbr's filter rules, which differ from the generic `select`.

- difficulty: exact match, case-insensitive; any listed difficulty matches;
- category: case-insensitive substring; a task matches if any listed value occurs in its
  category ("finance" also picks "personal_finance");
- tags: all must match (AND); each tag is a case-insensitive substring of the task's
  `tools` field as text;
- task ids: the dataset's `id` (as text) or the task's instance id;
- the sample size applies last: the first N tasks that pass every filter, in source order.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..family import TaskQuery
from .tasks import ToolBenchTask


def choose(tasks: Sequence[ToolBenchTask], query: TaskQuery) -> list[ToolBenchTask]:
    difficulties = {d.lower() for d in query.difficulties}
    categories = [c.lower() for c in query.categories]
    tags = [t.lower() for t in query.tags]
    ids = set(query.task_ids)
    chosen = [
        task for task in tasks
        if (not difficulties or task.difficulty.lower() in difficulties)
        and (not categories or any(c in task.category.lower() for c in categories))
        and (not tags or all(t in task.tools_text.lower() for t in tags))
        and (not ids or task.source_id in ids or task.id in ids)
    ]
    return chosen if query.limit is None else chosen[:query.limit]


def filters_given(query: TaskQuery) -> bool:
    """True when some filter (not just a sample size) narrows the tasks."""
    return bool(query.difficulties or query.categories or query.tags or query.task_ids)
