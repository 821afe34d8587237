"""The to-do example as a world family (a world, and generated tasks: `toolworlds generate todo`)."""

from __future__ import annotations

from typing import Any

from sandbox import World

from ..family import WorldFamily
from .app import todo_world


def _generator() -> Any:
    from .generate import GENERATOR  # only when generating or reading a generated file

    return GENERATOR


def _world(*, seed: int = 0, lang: str = "en") -> World:
    """The to-do world; it has no language of its own (its generated tasks come in en and zh)."""
    return todo_world(seed=seed)


FAMILY = WorldFamily(name="todo", description="A tiny to-do list: the engine's example world.",
                     build_world=_world, languages=("en", "zh"), generator=_generator,
                     scorers="evaluators.generated")  # a generated special case is one reply, scored as ACEBench does
