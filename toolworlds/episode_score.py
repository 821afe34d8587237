"""An episode's score as named parts, so a trainer can shape rewards and a controller can read them.

The reward is the family's end-state verdict (1.0 when the end state matches the task's
ground truth, else 0.0), as ACEBench's end-to-end accuracy counts it; beside it the share of
compared fields that match, the process (milestone) accuracy, and the failed calls by type.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any, cast

from evaluators.task_score import score_task
from sandbox.calllog import CallRecord
from sandbox.comparison import Mode
from sandbox.world import World
from scenarios.family import Task


def error_counts(records: Iterable[CallRecord]) -> dict[str, int]:
    counts = Counter(r.error.type for r in records if r.error is not None)
    return dict(sorted(counts.items()))


def episode_score(task: Task, world: World, process: Sequence[str], records: Sequence[CallRecord],
                  mode: str) -> dict[str, Any]:
    """The reward and its parts for `world` as it is now (JSON-ready, fresh on every call)."""
    score = score_task(task, world, process, cast(Mode, mode))  # compare_states refuses unknown modes
    return {
        "reward": 1.0 if score.success else 0.0,
        "end_state": score.success,
        "state_fraction": score.state_fraction,
        "process": score.process,
        "calls": len(records),
        "errors": error_counts(records),
        "diff": score.diff.to_dict(),
    }
