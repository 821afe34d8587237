"""Generated tasks in ACEBench's agent format (ACEBench's apps, and banking beside them).

A generated task is an `AceTask` (same world building, end state and hooks) that also knows its
difficulty, and may be one of ACEBench's special cases: a single reply, no call, scored as ACEBench
scores its special categories (`evaluators.acebench.special`), its possible answer the ground truth.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from sandbox import World

from ..generation import Candidate, SpecialCaseHooks, draws_special
from .tasks import AceTask, WorldBuilder
from .world import saved_state


class GeneratedAceTask(SpecialCaseHooks, AceTask):
    """One generated task; `ground_truth` is the end state, or a special case's possible answer
    (`scenarios.generation.SpecialCaseHooks`: one reply, scored as ACEBench scores its special items)."""

    difficulty: int = 1
    ground_truth: Any = []


def generated_task(record: Mapping[str, Any], functions: list[dict[str, Any]], lang: str, family: str,
                   build: WorldBuilder) -> GeneratedAceTask:
    """A task from one line of a generated file (`scenarios.generation`)."""
    return GeneratedAceTask(
        id=record["id"], category=record["category"], family=family, lang=lang, question=record["question"],
        initial_config=record["initial_config"], involved_classes=record["involved_classes"],
        functions=functions, ground_truth=record.get("ground_truth") or [], paths=record["paths"],
        difficulty=int(record.get("difficulty", 1)), source="generated", build=build,
    )


class Draft(Protocol):
    """One candidate being written by a family's generator: `write` gives it, or None to draw again."""

    def write(self) -> Candidate | None: ...


@dataclass(frozen=True)
class AceFormatGenerator:
    """The `scenarios.generation.TaskGenerator` of a family whose tasks are in ACEBench's agent format
    (ACEBench's apps, banking): drafts written by `draft(rng, lang, difficulty)`, and at the top level one in
    `1 / special_share` of them one of ACEBench's special cases (`special(draft)`); worlds built by `build`,
    end states saved as ACEBench saves them."""

    family: str
    version: str
    build: WorldBuilder
    draft: Callable[[random.Random, str, int], Draft]
    special: Callable[[Any], Candidate]
    special_share: float
    languages: tuple[str, ...] = ("en", "zh")
    stream: str = ""  # the version whose random stream it draws from, when not its own (`generation.random_stream`)

    def propose(self, rng: random.Random, difficulty: int, lang: str) -> Candidate:
        special = draws_special(rng, difficulty, self.special_share)
        while True:
            draft = self.draft(rng, lang, difficulty)
            if special:
                return self.special(draft)
            candidate = draft.write()
            if candidate is not None:
                return candidate

    def world(self, candidate: Candidate, lang: str) -> World:
        return self.build(candidate.classes, lang=lang, initial_config=candidate.config)

    def end_state(self, world: World, candidate: Candidate) -> Any:
        return saved_state(world, candidate.classes)

    def task(self, record: Mapping[str, Any], functions: list[dict[str, Any]], lang: str) -> GeneratedAceTask:
        return generated_task(record, functions, lang, self.family, self.build)
