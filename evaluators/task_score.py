"""One episode's score against its task: end state (with partial credit) and process.

The runner scores each finished episode with `episode_scorer(family)`: the family's own
`evaluators.<family>.score_episode` when it has one (`conventions.py`), else the generic
`score_task`. The comparison mode comes from the task's family
(`WorldFamily.end_state_mode`), never from the runner.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sandbox import World
from sandbox.comparison import Mode, compare_states
from sandbox.diffing import StateDiff
from scenarios.family import Task

from .conventions import family_function
from .process import acebench_process


@dataclass(frozen=True)
class TaskScore:
    success: bool  # the end state matches the ground truth (or: the family's own verdict says solved)
    state_fraction: float  # share of compared fields that match
    process: float  # best matched share of a gold milestone path (1.0 on success)
    diff: StateDiff
    # Why the checker judged as it did when it is not a plain pass, in its own words ("" when solved, or
    # when the end state's differences say it all): `toolworlds show` prints it beside the miss.
    reason: str = ""


def score_task(task: Task, world: World, process: Sequence[str], mode: Mode) -> TaskScore:
    """Compare the world's end state with the task's ground truth, and the agent's messages
    with the gold milestone paths (ACEBench's process accuracy)."""
    comparison = compare_states(task.ground_truth, task.end_state(world), mode=mode)
    steps = 1.0 if comparison.equal else acebench_process(task.paths, list(process))
    return TaskScore(comparison.equal, comparison.fraction, steps, comparison.diff)


EpisodeScorer = Callable[[Task, World, Sequence[str], Mode], TaskScore]


@functools.cache
def episode_scorer(family: str) -> EpisodeScorer:
    """How episodes of `family` are scored: its `score_episode`, or the end-state `score_task`.

    Looked up once per family in a process, as an import is: for a family with no evaluator module
    of its own, every lookup was a failed import searching the package's folder: 8% of a whole RL
    episode (`ToolEnv`: reset, two calls, an answer, scored), 3% of an oracle run's episode."""
    scorer: EpisodeScorer | None = family_function(family, "score_episode")
    return scorer if scorer is not None else score_task
