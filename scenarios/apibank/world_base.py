"""A world built once per task set and handed to episodes as forks.

Building an API-Bank world reads a data folder (tens of milliseconds); forking a built one
takes tens of microseconds. Every task of a task set holds the same `WorldBase`, so one
build serves them all; the built world is never handed out, only forked. A copy sent to
another process (`--workers`) leaves the built world behind and builds its own there on
first use, since a world holds locks and caches that do not travel.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from sandbox import World
from sandbox.template import WorldTemplate


class WorldBase:
    """`build(data)` run on first use, then forked; `build` must be a module-level function."""

    def __init__(self, data: Path, build: Callable[[Path], World]) -> None:
        self.data = data
        self.build = build
        self._world: WorldTemplate | None = None

    @property
    def built(self) -> bool:
        return self._world is not None

    def fork(self) -> World:
        if self._world is None:
            self._world = WorldTemplate(self.build(self.data))
        return self._world.fork()

    def __getstate__(self) -> dict[str, Any]:
        return {"data": self.data, "build": self.build, "_world": None}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
