"""Scoring an ACEBench episode: an item by its one reply, an agent task by its end state.

Normal and special items end after the model's first reply (`single_reply`), and the
checker judges that reply, as it judges a line of a result file. The runner stores the
verdicts in the columns every family has: `success` and `process` are the compat verdict
(the reference's), `state_fraction` is the strict verdict (1.0 or 0.0), and `diff` shows
the reply beside the possible answer when compat says wrong. Agent tasks are scored by
end state and process, as every world family is (`evaluators.task_score.score_task`).
`checker="strict"` (`toolworlds rescore --mode strict`) makes the strict verdict an item's
`success` and `process`, and compares an agent task's process by parsed calls.
"""

from __future__ import annotations

from collections.abc import Sequence

from sandbox import World
from sandbox.comparison import Mode as StateMode
from sandbox.diffing import diff_states
from scenarios.acebench.items import item_reply
from scenarios.family import Task, task_hook

from ..task_score import TaskScore, score_task
from ..versions import Checker
from .items import check_item
from .verdicts import Verdict


def score_episode(task: Task, world: World, process: Sequence[str], mode: StateMode, *,
                  checker: Checker = "compat") -> TaskScore:
    """The family's per-episode score (found by `evaluators.task_score.episode_scorer`)."""
    if not task_hook(task, "single_reply", False):
        return score_task(task, world, process, mode, checker=checker)
    reply = item_reply(list(process))
    compat = check_item(task.category, task.functions, reply, task.ground_truth, "compat")
    strict = check_item(task.category, task.functions, reply, task.ground_truth, "strict")
    expected = task.paths[0][0] if task.paths and task.paths[0] else ""
    verdict = strict if checker == "strict" else compat
    diff = diff_states({"reply": expected}, {"reply": expected if verdict.valid else reply})
    return TaskScore(verdict.valid, 1.0 if strict.valid else 0.0, 1.0 if verdict.valid else 0.0, diff,
                     reason=verdict_reason(compat, strict))


def verdict_reason(compat: Verdict, strict: Verdict) -> str:
    """Both modes' verdicts in words when either is a miss: a compat miss on a reply strict accepts (the
    reference's checker refusing a right answer) shows no difference from the possible answer, so the
    checker's own words are all that says why."""
    if compat.valid and strict.valid:
        return ""
    said = []
    for mode, verdict in (("compat", compat), ("strict", strict)):
        words = "passes" if verdict.valid else ": ".join(filter(None, (verdict.error_type, verdict.detail)))
        said.append(f"{mode}: {words or 'fails'}")
    return "; ".join(said)
