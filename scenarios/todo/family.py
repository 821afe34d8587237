"""The to-do example as a world family (a world, and generated tasks: `toolworlds generate todo`)."""

from __future__ import annotations

from typing import Any

from ..family import WorldFamily
from .app import todo_world


def _generator() -> Any:
    from .generate import GENERATOR  # only when generating or reading a generated file

    return GENERATOR


FAMILY = WorldFamily(name="todo", description="A tiny to-do list: the engine's example world.",
                     build_world=todo_world, languages=("en", "zh"), generator=_generator)
