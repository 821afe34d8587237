"""One episode's score against its task: end state (with partial credit) and process.

The runner scores each finished episode with `episode_scorer(family)`: the `score_episode`
its family declares (`WorldFamily.scorers`, `conventions.py`) when it has one, else the generic
`score_task`. The comparison mode comes from the task's family
(`WorldFamily.end_state_mode`), never from the runner. The checker (`compat`, what runs store, or
`strict`, for `toolworlds rescore --mode strict`) is passed only to scorers that take a `checker`
keyword; a family's scorer without one gives a single verdict, the same in both.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sandbox import World
from sandbox.comparison import Mode, compare_states
from sandbox.diffing import StateDiff
from scenarios.family import Task

from .conventions import family_function
from .process import process_score
from .versions import CHECKERS, Checker


@dataclass(frozen=True)
class TaskScore:
    success: bool  # the end state matches the ground truth (or: the family's own verdict says solved)
    state_fraction: float  # share of compared fields that match
    process: float  # best matched share of a gold milestone path (1.0 on success, 0.0 when unscorable)
    diff: StateDiff
    unscorable: str = ""  # why the process could not be scored (no or an empty milestone path), else ""
    # Why the checker judged as it did when it is not a plain pass, in its own words ("" when solved, or
    # when the end state's differences say it all): `toolworlds show` prints it beside the miss.
    reason: str = ""
    # The end state the score compared (one element; none when it compared none): the episode's result
    # record shows the same state, and making it again was an eighth of an oracle banking episode.
    end_state: tuple[Any, ...] = field(default=(), compare=False, repr=False)


def score_task(task: Task, world: World, process: Sequence[str], mode: Mode, *, checker: Checker = "compat"
               ) -> TaskScore:
    """Compare the world's end state with the task's ground truth, and the agent's messages
    with the gold milestone paths (ACEBench's process accuracy: raw message strings in `compat`,
    parsed calls in `strict`, so quoting and spacing do not matter). A failed task whose gold has no
    milestone to match is `unscorable` in process: 0.0 with the reason, never the reference's 1.0."""
    end_state = task.end_state(world)
    comparison = compare_states(task.ground_truth, end_state, mode=mode)
    if comparison.equal:
        return TaskScore(True, comparison.fraction, 1.0, comparison.diff, end_state=(end_state,))
    steps = process_score(task.paths, list(process), canonical=checker == "strict")
    return TaskScore(False, comparison.fraction, steps.score, comparison.diff, steps.unscorable,
                     end_state=(end_state,))


EpisodeScorer = Callable[[Task, World, Sequence[str], Mode], TaskScore]


@functools.cache
def episode_scorer(family: str, checker: Checker = "compat") -> EpisodeScorer:
    """How episodes of `family` are scored: its `score_episode`, or the end-state `score_task`, in
    `checker` mode where the scorer has modes (a `checker` keyword).

    Looked up once per family in a process, as an import is: for a family with no evaluator module
    of its own, every lookup was a failed import searching the package's folder: 8% of a whole RL
    episode (`ToolEnv`: reset, two calls, an answer, scored), 3% of an oracle run's episode."""
    if checker not in CHECKERS:
        raise ValueError(f"unknown checker {checker!r}; use {' or '.join(CHECKERS)}")
    found: EpisodeScorer | None = family_function(family, "score_episode")
    scorer = found if found is not None else score_task
    if checker == "compat" or "checker" not in inspect.signature(scorer).parameters:
        return scorer
    with_checker: Callable[..., TaskScore] = scorer
    return functools.partial(with_checker, checker=checker)
