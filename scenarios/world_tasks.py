"""Generated tasks for worlds without a benchmark format of their own (todo, a user's world).

The world is the family's factory (`seed=`), with the task's `initial_config` loaded into it
(`World.load`); the ground truth is the whole end state, `World.state()`. Gold paths are bracket
messages, as everywhere, so the oracle and noisy agents play them unchanged. A task may be one of
ACEBench's special cases (`scenarios.generation.SpecialCaseHooks`): one reply, scored by that reply.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel, Field

from sandbox import World

from .generation import SpecialCaseHooks

Factory = Callable[..., World]


class WorldTask(SpecialCaseHooks, BaseModel):
    """One generated task of a plain world (or a special case asked of it)."""

    id: str
    category: str = "multi_step"
    family: str = ""
    lang: str = "en"
    question: str = ""
    initial_config: dict[str, Any] = {}
    involved_classes: list[str] = []
    functions: list[dict[str, Any]] = []
    ground_truth: Any = None
    paths: list[list[str]] = []
    difficulty: int = 1
    build: Factory = Field(exclude=True, repr=False)

    def world(self, seed: int = 0) -> World:
        world = self.build(seed=seed)
        if self.initial_config:
            world.load(self.initial_config)
        return world

    def end_state(self, world: World) -> Any:
        """The state of the apps the task involves (every app's when it names none)."""
        return end_state(world, self.involved_classes)


def end_state(world: World, classes: list[str] | tuple[str, ...]) -> dict[str, Any]:
    """The dumps of `classes` (every app's when empty), keyed by app name: a task's ground truth."""
    if not classes:
        return world.state()
    return {name: world.apps[name].dump() for name in classes if name in world.apps}


def world_task(record: Mapping[str, Any], functions: list[dict[str, Any]], lang: str, family: str,
               build: Factory) -> WorldTask:
    """A task from one line of a generated file (`scenarios.generation`)."""
    return WorldTask(
        id=record["id"], category=record["category"], family=family, lang=lang, question=record["question"],
        initial_config=record["initial_config"], involved_classes=record["involved_classes"], functions=functions,
        ground_truth=record.get("ground_truth"), paths=record["paths"], difficulty=int(record.get("difficulty", 1)),
        build=build,
    )
