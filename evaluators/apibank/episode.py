"""Scoring an API-Bank episode, as the runner stores it.

A call sample is judged by its one reply: the reply's first bracketed call, run in the
world the dialogue's gold calls before it left behind, must pass the gold API's check;
`success`, `state_fraction` and `process` are that verdict (1.0 or 0.0). A response
sample's reply is scored by ROUGE-L F1 against the recorded reply: `state_fraction` and
`process` are the score and `success` means an exact match (the run's end-to-end column
counts those; the benchmark's table, printed after the run, has the mean ROUGE-L). A
level-3 scene is solved when every gold call was made (`level3.py`): `process` is the
share made, `state_fraction` the share of end-state fields equal to the gold end state.
A generated task (`scenarios.apibank.generate`) is scored by end state, as every world family is,
and a generated special case by its one reply, as ACEBench scores its special categories.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from sandbox import World
from sandbox.comparison import Mode, compare_states
from sandbox.diffing import diff_states
from scenarios.apibank.replay import envelope
from scenarios.apibank.samples import ApiBankSample
from scenarios.apibank.scenes import Level3Task
from scenarios.family import Task

from ..acebench.episode import score_episode as score_generated
from ..task_score import TaskScore
from ..versions import Checker
from .level3 import gold_calls_made
from .scorer import judge_call, rouge_l


def score_episode(task: Task, world: World, process: Sequence[str], mode: Mode, *,
                  checker: Checker = "compat") -> TaskScore:
    """The family's per-episode score (found by `evaluators.task_score.episode_scorer`). In `strict`, a
    call is judged by `strict.strict_input` instead of the reference's per-API checks."""
    if isinstance(task, Level3Task):
        return score_scene(task, world, checker)
    if not isinstance(task, ApiBankSample):  # a generated task: by end state, a special case by its one reply
        return score_generated(task, world, process, mode, checker=checker)
    reply = process[0] if process else ""
    expected = task.paths[0][0]
    if task.gold_call is not None:
        correct, why = judge_call(world, task.gold_call, reply, checker=checker)
        value = 1.0 if correct else 0.0
    else:
        value = rouge_l(task.gold_reply, reply)
        correct = value >= 1.0
        why = "" if correct else f"ROUGE-L F1 {value:.3f} against the recorded reply (1.0 is an exact match)"
    diff = diff_states({"reply": expected}, {"reply": expected if correct else reply})
    return TaskScore(correct, value, value, diff, reason=why)


def score_scene(task: Level3Task, world: World, checker: Checker = "compat") -> TaskScore:
    made = gold_calls_made(task.calls, ((record.tool, json.loads(json.dumps(envelope(world, record), default=str)))
                                        for record in world.log), strict=checker == "strict")
    comparison = compare_states(task.ground_truth, task.end_state(world), mode="exact")
    share = sum(made) / len(made) if made else 1.0
    missing = [call.api_name for call, done in zip(task.calls, made, strict=True) if not done]
    why = f"gold calls not made: {', '.join(missing)}" if missing else ""
    return TaskScore(all(made), comparison.fraction, share, comparison.diff, reason=why)
