"""World templates: a world built and validated once, handed out only as forks.

Building a world validates its default data with pydantic, which costs far more than a
fork (a fork only marks each app's state as shared). A family builds one template per
(configuration) and gives every caller a fork of it. The template's own world is never
handed out, so nothing can call a tool on it or change its state: it stays exactly as
built, and every fork starts from the same state, clock, random source and empty log.
"""

from __future__ import annotations

from typing import Any

from .world import World


class WorldTemplate:
    """A prototype world that can only be forked."""

    __slots__ = ("_world",)
    _world: World

    def __init__(self, world: World) -> None:
        if len(world.log):
            raise ValueError("a template must be a world no call has run in")
        object.__setattr__(self, "_world", world)

    def fork(self) -> World:
        """A new world in the state the template was built in, independent of every other fork."""
        return self._world.fork()

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("a world template cannot be changed; fork it")

    def __repr__(self) -> str:
        return f"WorldTemplate({self._world!r})"
