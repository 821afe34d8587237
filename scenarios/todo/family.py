"""The to-do example as a world family (a world, no benchmark tasks)."""

from __future__ import annotations

from ..family import WorldFamily
from .app import todo_world

FAMILY = WorldFamily(name="todo", description="A tiny to-do list: the engine's example world.",
                     build_world=todo_world)
