"""An episode's score as named parts, so a trainer can shape rewards and a controller can read them.

The reward is the family's verdict on the episode (1.0 when the end state matches the task's
ground truth, or when the family's own episode scorer says solved, else 0.0), as the runner
counts end-to-end accuracy; beside it the share of compared fields that match, the process
(milestone) accuracy, and the failed calls by type.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any, cast

from evaluators.task_score import episode_scorer
from sandbox.calllog import CallRecord
from sandbox.comparison import Mode
from sandbox.world import World
from scenarios.family import Task


def error_counts(records: Iterable[CallRecord]) -> dict[str, int]:
    counts = Counter(r.error.type for r in records if r.error is not None)
    return dict(sorted(counts.items()))


def episode_score(family: str, task: Task, world: World, process: Sequence[str], records: Sequence[CallRecord],
                  mode: str) -> dict[str, Any]:
    """The reward and its parts for `world` as it is now (JSON-ready, fresh on every call), scored
    the way the runner scores the family's episodes (`evaluators.task_score.episode_scorer`)."""
    score = episode_scorer(family)(task, world, process, cast(Mode, mode))  # unknown modes are refused there
    return {
        "reward": 1.0 if score.success else 0.0,
        "end_state": score.success,
        "state_fraction": score.state_fraction,
        "process": score.process,
        "process_unscorable": score.unscorable,  # why the process could not be scored (0.0 then), else ""
        "calls": len(records),
        "errors": error_counts(records),
        "diff": score.diff.to_dict(),
    }
