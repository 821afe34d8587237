"""Generated tasks in ACEBench's agent format (ACEBench's apps, and banking beside them).

A generated task is an `AceTask` (same world building, end state and hooks) that also knows its
difficulty, and may be one of ACEBench's special cases: a single reply, no call, scored as ACEBench
scores its special categories (`evaluators.acebench.special`), its possible answer the ground truth.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .prompts import single_reply_prompt
from .tasks import AceTask, WorldBuilder


class GeneratedAceTask(AceTask):
    """One generated task; `ground_truth` is the end state, or a special case's possible answer."""

    difficulty: int = 1
    ground_truth: Any = []

    @property
    def special(self) -> bool:
        return self.category.startswith("special")

    @property
    def single_reply(self) -> bool:
        """Special cases are answered in one reply (task hook), as ACEBench's special items are."""
        return self.special

    @property
    def system_prompt(self) -> str | None:
        if self.special:
            return single_reply_prompt(self.category, self.lang, self.functions)
        return super().system_prompt

    @property
    def user_prompt(self) -> str | None:
        return None if self.special else super().user_prompt

    def end_state(self, world: Any) -> Any:
        """A special case changes nothing and is judged by its reply: its end state is not compared."""
        return self.ground_truth if self.special else super().end_state(world)


def generated_task(record: Mapping[str, Any], functions: list[dict[str, Any]], lang: str, family: str,
                   build: WorldBuilder) -> GeneratedAceTask:
    """A task from one line of a generated file (`scenarios.generation`)."""
    return GeneratedAceTask(
        id=record["id"], category=record["category"], family=family, lang=lang, question=record["question"],
        initial_config=record["initial_config"], involved_classes=record["involved_classes"],
        functions=functions, ground_truth=record.get("ground_truth") or [], paths=record["paths"],
        difficulty=int(record.get("difficulty", 1)), source="generated", build=build,
    )
