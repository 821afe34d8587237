"""Scoring a level-3 scene: were the scene's gold calls made, each as its API's check accepts?

The reference's level-3 evaluator (`lv3_evaluator.py`) scores one predicted call per gold
call, with the API's own check against the gold envelope, and reports call accuracy and the
share of samples with no wrong call. Its samples are not in the data folder; the eight
scenes are. Here a scene is a whole conversation, so the same two figures are read off the
calls the agent made: a gold call counts as made when some call of the episode, not yet
matched to another gold call, passes the gold API's check against the gold envelope
(`scenarios.apibank.checks.check_call`); order does not matter (a scene's calls rarely
depend on each other's order, and the agent may search, ask and retry in between). The
scene is solved when every gold call is made. ToolSearcher calls and failed attempts cost
nothing; extra calls that change the data show in the end-state comparison beside it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from scenarios.apibank.checks import check_call
from scenarios.apibank.dialogues import ApiCall

from .strict import strict_input


@dataclass(frozen=True)
class SceneScore:
    scene: str
    made: tuple[bool, ...]  # per gold call: was it made

    @property
    def accuracy(self) -> float:
        """The share of gold calls made; 0.0 for a scene with none (nothing to score is not a perfect score)."""
        return sum(self.made) / len(self.made) if self.made else 0.0

    @property
    def solved(self) -> bool:
        return bool(self.made) and all(self.made)


def gold_calls_made(gold: Sequence[ApiCall], made: Iterable[tuple[str | None, Mapping[str, Any]]], *,
                    strict: bool = False) -> tuple[bool, ...]:
    """Per gold call, whether one of the `made` calls ((API name, envelope), in order) matches
    it; each made call matches at most one gold call. `strict`: the made call's input must also be
    the gold's (`scorer.strict_input`), not only pass the reference's lenient per-API check (a
    scene's world answers from other data than the recordings, so outputs keep the check's rules)."""
    candidates = [(name, dict(envelope)) for name, envelope in made if name is not None]
    used: set[int] = set()
    verdicts = []
    for call in gold:
        expected = dict(call.result or {})
        match = next((i for i, (name, envelope) in enumerate(candidates)
                      if i not in used and name == call.api_name and check_call(call.api_name, envelope, expected)
                      and (not strict or strict_input(envelope, expected))),
                     None)
        if match is not None:
            used.add(match)
        verdicts.append(match is not None)
    return tuple(verdicts)
