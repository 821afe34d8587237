"""Choosing ToolBench tasks with mcpbr's filter rules, which differ from the generic `select`.

- difficulty: exact match, case-insensitive; any listed difficulty matches;
- category: case-insensitive substring; a task matches if any listed value occurs in its
  category ("finance" also picks "personal_finance");
- tags: all must match (AND); each tag is a case-insensitive substring of the task's
  `tools` field as text;
- task ids: the dataset's `id` (as text) or the task's id; and, when another filter is given,
  `toolbench_N` names the Nth task (from 0) that passes the other filters, as mcpbr numbers its
  instances (`instance_id` = `toolbench_<position after its filters>`), so an id mcpbr hands an
  MCP server (its `{instance_id}` argument) names the same task here. Without a filter, mcpbr's
  `toolbench_N` is the Nth row, which is the task's own id;
- the sample size applies last: the first N tasks that pass every filter, in source order.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..family import TaskQuery
from .tasks import ToolBenchTask

MCPBR_ID = re.compile(r"toolbench_(0|[1-9][0-9]{0,17})")


def choose(tasks: Sequence[ToolBenchTask], query: TaskQuery) -> list[ToolBenchTask]:
    difficulties = {d.lower() for d in query.difficulties}
    categories = [c.lower() for c in query.categories]
    tags = [t.lower() for t in query.tags]
    chosen = [
        task for task in tasks
        if (not difficulties or task.difficulty.lower() in difficulties)
        and (not categories or any(c in task.category.lower() for c in categories))
        and (not tags or all(t in task.tools_text.lower() for t in tags))
    ]
    if query.task_ids:
        numbered = bool(difficulties or categories or tags)
        named = {id(task) for task in named_tasks(chosen, query.task_ids, numbered=numbered)}
        chosen = [task for task in chosen if id(task) in named]
    return chosen if query.limit is None else chosen[:query.limit]


def named_tasks(tasks: Sequence[ToolBenchTask], task_ids: Sequence[str], *, numbered: bool
                ) -> list[ToolBenchTask]:
    """The tasks `task_ids` name among `tasks` (those that passed the other filters): by the task's id or the
    dataset's id, and, when `numbered` (another filter was given), `toolbench_N` by mcpbr's numbering."""
    found: list[ToolBenchTask] = []
    for task_id in task_ids:
        number = MCPBR_ID.fullmatch(task_id) if numbered else None
        if number is not None:
            position = int(number.group(1))
            found.extend(tasks[position:position + 1])
        else:
            found.extend(task for task in tasks if task_id in (task.id, task.source_id))
    return found


def filters_given(query: TaskQuery) -> bool:
    """True when some filter (not just a sample size) narrows the tasks."""
    return bool(query.difficulties or query.categories or query.tags or query.task_ids)
