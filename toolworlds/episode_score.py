"""An episode's score, assembled once for every reader: the runner stores it, a trainer shapes rewards
from it, a controller reads it.

`score_episode` asks the family's scorer (`evaluators.task_score.episode_scorer`) for its verdict on the
world as it is and counts the failed calls; the result is read two ways. `EpisodeScore.parts` is the
reward and its parts for `ToolEnv` and the MCP host: the reward is 1.0 when the end state matches the
task's ground truth (or the family's own episode scorer says solved), else 0.0, as the runner counts
end-to-end accuracy; beside it the share of compared fields that match, the process (milestone) accuracy,
and the failed calls by type. `EpisodeScore.columns` is what the runner stores of it (`score_columns`
for the verdicts, which `toolworlds rescore` writes with the same function).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, cast

from evaluators.task_score import TaskScore, episode_scorer
from evaluators.versions import Checker, scorer_version
from sandbox.calllog import CallRecord
from sandbox.comparison import Mode
from sandbox.world import World
from scenarios.family import Task, task_hook

from .episode_record import stored_json, stored_text


def error_counts(records: Iterable[CallRecord]) -> dict[str, int]:
    """Failed calls by error type, sorted by type (most episodes have none: no counter is made for them)."""
    counts: dict[str, int] = {}
    for record in records:
        if record.error is not None:
            counts[record.error.type] = counts.get(record.error.type, 0) + 1
    return dict(sorted(counts.items())) if len(counts) > 1 else counts


@dataclass(frozen=True)
class EpisodeScore:
    """The family's verdict on one episode's world (`score`), with what it was given and its calls' errors."""

    family: str
    task: Task
    world: World
    process: Sequence[str]
    score: TaskScore
    calls: int
    errors: dict[str, int]  # failed calls by error type, sorted by type
    checker: Checker = "compat"

    def parts(self) -> dict[str, Any]:
        """The reward and its parts (JSON-ready, fresh on every call)."""
        score = self.score
        return {
            "reward": 1.0 if score.success else 0.0,
            "end_state": score.success,
            "state_fraction": score.state_fraction,
            "process": score.process,
            "process_unscorable": score.unscorable,  # why the process could not be scored (0.0 then), else ""
            "calls": self.calls,
            "errors": dict(self.errors),
            "diff": score.diff.to_dict(),
        }

    def columns(self, task_set: str) -> dict[str, Any]:
        """The stored columns of the episode's score (`EpisodeRecord`'s): the verdicts (`score_columns`), the
        calls and their errors."""
        columns = score_columns(task_set, self.task, self.world, self.process, self.score, self.checker)
        columns["calls"] = self.calls
        columns["errors"] = sum(self.errors.values())
        columns["error_types"] = json.dumps(self.errors) if self.errors else "{}"  # what json.dumps writes of {}
        return columns


def score_episode(family: str, task: Task, world: World, process: Sequence[str], records: Sequence[CallRecord],
                  mode: str, checker: Checker = "compat") -> EpisodeScore:
    """`world` as it is now scored the way `family` scores its episodes (`episode_scorer`), in `checker` mode."""
    score = episode_scorer(family, checker)(task, world, process, cast(Mode, mode))  # unknown modes are refused there
    return EpisodeScore(family, task, world, process, score, len(records), error_counts(records), checker)


def episode_score(family: str, task: Task, world: World, process: Sequence[str], records: Sequence[CallRecord],
                  mode: str) -> dict[str, Any]:
    """The reward and its parts for `world` as it is now (`EpisodeScore.parts` of `score_episode`)."""
    return score_episode(family, task, world, process, records, mode).parts()


def score_columns(task_set: str, task: Task, world: World, process: Sequence[str], score: TaskScore,
                  checker: Checker = "compat") -> dict[str, Any]:
    """The stored columns a score fills: its verdicts, diff and reason, the task's result record, and which
    scorer judged them (`evaluators.versions`). One writer for a run's episodes and `toolworlds rescore`'s,
    so a rescore that changes nothing stores the same values. The task data's hash (`scenarios.taskhash`)
    is added where the episode is stored: once per task, not per trial, and off the workers' episode time
    (it was a sixth of an oracle ACEBench episode)."""
    return {"success": score.success, "state_fraction": score.state_fraction, "process": score.process,
            "diff": stored_json(score.diff.to_dict()) if score.diff else "[]",  # no differences: no list made
            "reason": stored_text(score.reason) if score.reason else None,
            "result_record": result_record(task, world, process, score.end_state),
            "scorer_version": scorer_version(task_set.split("/", 1)[0], checker)}


def result_record(task: Task, world: Any, process: Sequence[str], end_state: tuple[Any, ...] = ()) -> str | None:
    """The task's line of its benchmark's own result file (task hook `result_record`), as JSON. Given the
    end state its scorer made (`end_state`, one element), a task with the hook `end_state_record` writes
    the line from it rather than making the state again."""
    if end_state:
        from_state = task_hook(task, "end_state_record")
        if from_state is not None:
            return stored_json(from_state(end_state[0], list(process)))
    record = task_hook(task, "result_record")
    return None if record is None else stored_json(record(world, list(process)))
