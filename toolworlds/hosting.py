"""Worlds hosted for remote agents, one per session: the state behind the MCP server and its control surface.

A host prebuilds one world (a family's default world, or one task's) and gives every
session its own fork on first use, so two clients never share a world. What an agent may
do goes through `call`; what only its controller may do (reset, read the state, the diff
since the start, the log, the score) are the other methods, which the MCP server exposes
as HTTP routes beside the endpoint and never as tools.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sandbox.calllog import CallRecord
from sandbox.diffing import diff_states
from sandbox.parsing import Call, render_calls
from sandbox.tools import ToolSpec
from sandbox.world import World
from scenarios.family import Task
from scenarios.registry import family as registry_family

from .episode_score import episode_score, error_counts
from .prebuilt import TaskWorlds, family_world


@dataclass
class HostedWorld:
    """One session's world and what its agent asked of it, as bracket-syntax calls (for process scoring)."""

    world: World
    process: list[str] = field(default_factory=list)


class WorldHost:
    """One prebuilt world, forked per session.

    Args:
        family: A family name from `scenarios.registry`.
        task: Serve this task's world (and score sessions against it); None for the
            family's default world, which has no score.
        lang: Language of the world and task.
        seed: Seed of the prebuilt world (every session starts from the same state).
        data: Where to read the task from (as `toolworlds run --data`), else the family's own.
        max_sessions: Worlds kept at most; past it the least recently used is dropped.
            Worlds outlive their MCP session so a controller can read the end state after
            the agent has gone; `close` drops one at once.
    """

    def __init__(self, family: str, *, task: str | None = None, lang: str = "en", seed: int = 0,
                 data: Path | None = None, max_sessions: int = 1024) -> None:
        if max_sessions < 1:
            raise ValueError("max_sessions must be at least 1")
        try:
            self._entry = registry_family(family)
        except KeyError as exc:
            raise LookupError(exc.args[0]) from None
        self.family = family
        self.task: Task | None = None
        self.mode = "exact"
        if task is None:
            self._start = family_world(self._entry, lang, seed)
        else:
            worlds = TaskWorlds(family, [task], lang, seed, data)
            self.task, self.mode = worlds.task(task), worlds.mode
            self._start = worlds.start(task)
        self._start_state = self._start.state()
        self._max = max_sessions
        self._sessions: OrderedDict[str, HostedWorld] = OrderedDict()

    @property
    def tools(self) -> list[ToolSpec]:
        return list(self._start.tools.values())

    def __contains__(self, session: object) -> bool:
        return session in self._sessions

    def describe(self) -> str:
        """What a connecting client is told about this server."""
        return (f"A simulated world from toolworlds ({self.family}): {self._entry.description} Every tool acts on "
                "this session's own world, which starts from the same state as every other session's.")

    def task_summary(self) -> dict[str, Any] | None:
        if self.task is None:
            return None
        return {"id": self.task.id, "category": self.task.category, "question": self.task.question}

    # -- what the agent does -------------------------------------------------------------

    def call(self, session: str, name: str, arguments: Any) -> CallRecord:
        """Run one tool call in the session's world (made on first use). Never raises."""
        hosted = self._hosted(session)
        record = hosted.world.call(name, arguments)
        # The log's copy of the call, not the client's: the same values, but bounded where a limit refused
        # it (a client sending megabytes must not grow the session by megabytes when the log keeps a few KB).
        shown = record.arguments if isinstance(record.arguments, dict) else {}
        named = name if isinstance(name, str) and len(name) <= hosted.world.limits.max_name_chars else record.tool
        hosted.process.append(render_calls([Call(named or "", shown)]))
        return record

    # -- what the controller does --------------------------------------------------------

    def sessions(self) -> list[dict[str, Any]]:
        """Every session kept, oldest first, with its call and error counts."""
        return [{"session": sid, "calls": len(h.world.log), "errors": sum(error_counts(h.world.log).values())}
                for sid, h in self._sessions.items()]

    def world(self, session: str) -> World:
        """The session's world (made on first use), for reading in-process."""
        return self._hosted(session).world

    def reset(self, session: str) -> None:
        """Start the session over from the prebuilt world, as if it had just connected."""
        self._sessions.pop(session, None)
        self._hosted(session)

    def close(self, session: str) -> bool:
        """Forget a session's world; False if there was none."""
        return self._sessions.pop(session, None) is not None

    def state(self, session: str) -> dict[str, Any]:
        return self._hosted(session).world.state()

    def log(self, session: str) -> list[dict[str, Any]]:
        """The session's call log as JSON data (decimals and dates as text)."""
        return json.loads(json.dumps(self._hosted(session).world.log.to_list(), default=str))

    def diff(self, session: str) -> list[dict[str, Any]]:
        """Field-level changes since the session started."""
        return diff_states(self._start_state, self.state(session)).to_dict()

    def score(self, session: str) -> dict[str, Any]:
        """The session's end state scored against the served task; `LookupError` without a task."""
        if self.task is None:
            raise LookupError(f"no task is served, so there is nothing to score: serve {self.family} with --task ID")
        hosted = self._hosted(session)
        return episode_score(self.family, self.task, hosted.world, hosted.process, list(hosted.world.log), self.mode)

    def report(self, session: str) -> dict[str, Any]:
        """Everything known about a session, as JSON-ready data."""
        report: dict[str, Any] = {"session": session, "family": self.family,
                                  "task": None if self.task is None else self.task.id,
                                  "log": self.log(session), "state": self.state(session), "diff": self.diff(session)}
        if self.task is not None:
            report["score"] = self.score(session)
        return report

    def _hosted(self, session: str) -> HostedWorld:
        hosted = self._sessions.get(session)
        if hosted is None:
            hosted = self._sessions[session] = HostedWorld(self._start.fork())
            while len(self._sessions) > self._max:
                self._sessions.popitem(last=False)
        else:
            self._sessions.move_to_end(session)
        return hosted
