"""Worlds hosted for remote agents, one per session: the state behind the MCP server and its control surface.

A host prebuilds one world (a family's default world, or one task's) and gives every
session its own fork when the session opens (`open`), so two clients never share a world
and a controller can read or reset a session before its first call. What an agent may
do goes through `call`; what only its controller may do (reset, read the state, the diff
since the start, the log, the score) are the other methods, which the MCP server exposes
as HTTP routes beside the endpoint and never as tools.

A session's world is never replaced behind its agent's back. A session is open until its
client ends it, it is idle for `idle_timeout` seconds, or its controller closes it; an
ended session's world is kept for its controller to read until room is needed. The host
keeps at most `max_sessions` worlds: a new session takes the place of the session that
ended and was used least recently, else (only when the transport let more sessions open than
the host keeps) of the open session idle longest. A call in a session that is not open gets `SessionEnded`,
naming why (start a new session), never a fresh world.
"""

from __future__ import annotations

import json
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sandbox.calllog import CallRecord
from sandbox.diffing import diff_states
from sandbox.parsing import Call, render_calls
from sandbox.tools import Coercion, ToolSpec
from sandbox.world import World
from scenarios.family import Task, TaskQuery
from scenarios.registry import family as registry_family

from .episode_score import episode_score, error_counts
from .prebuilt import TaskWorlds, family_world
from .task_options import TaskOptions

DEFAULT_MAX_SESSIONS = 1024
DEFAULT_IDLE_TIMEOUT = 30 * 60.0  # seconds; the MCP SDK's own default for streamable-HTTP sessions
ENDINGS_KEPT = 100_000  # why a session ended is remembered for this many sessions after its world is gone


class SessionEnded(LookupError):
    """A call in a session that is not open (never opened, ended, or its world dropped): start a new one."""


@dataclass
class HostedWorld:
    """One session's world and what its agent asked of it, as bracket-syntax calls (for process scoring);
    `ended` says why the session ended ("" while it is open), `used` when it was last opened or called."""

    world: World
    process: list[str] = field(default_factory=list)
    ended: str = ""
    used: float = 0.0


class WorldHost:
    """One prebuilt world, forked per session.

    Args:
        family: A family name from `scenarios.registry`.
        task: Serve this task's world (and score sessions against it); None for the
            family's default world, which has no score.
        lang: Language of the world and task.
        seed: Seed of the prebuilt world (every session starts from the same state).
        data: Where to read the task from (as `toolworlds run --data`), else the family's own.
        narrow: The filters `task` is read under (as `toolworlds run` reads `--task-ids`; see `TaskWorlds`).
        max_sessions: Worlds kept at most, open sessions and ended ones (see the module's docstring).
            Worlds outlive their session so a controller can read the end state after the agent
            has gone; `close` drops one at once.
        idle_timeout: Seconds without a call after which an open session ends (None: never).
        coercion: The served world's coercion policy ("strict": `"5"` and `true` are not integers),
            else the family's own.
        options: A run's task selection (`TaskOptions`): its language, data and filters stand for
            `lang`, `data` and `narrow`, so `task` is read as `toolworlds run` reads it.
    """

    def __init__(self, family: str, *, task: str | None = None, lang: str = "en", seed: int = 0,
                 data: Path | None = None, narrow: TaskQuery | None = None, max_sessions: int = DEFAULT_MAX_SESSIONS,
                 idle_timeout: float | None = DEFAULT_IDLE_TIMEOUT, coercion: Coercion | None = None,
                 options: TaskOptions | None = None) -> None:
        if options is not None:
            lang, data, narrow = options.one_lang(lang), options.data or data, options.query()
        if max_sessions < 1:
            raise ValueError(f"--max-sessions must be at least 1, not {max_sessions}")
        if idle_timeout is not None and not (0 < idle_timeout < float("inf")):
            raise ValueError(f"--idle-timeout must be a positive number of seconds, not {idle_timeout}")
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
            worlds = TaskWorlds(family, [task], lang, seed, data, narrow=narrow)
            self.task, self.mode = worlds.task(task), worlds.mode
            self._start = worlds.start(task)
        if coercion is not None:  # the served world's policy; every session forks it
            self._start = self._start.fork(coercion=coercion)
        self._start_state = self._start.state()
        self.max_sessions = max_sessions
        self.idle_timeout = idle_timeout
        self._sessions: OrderedDict[str, HostedWorld] = OrderedDict()  # by when each was last opened or used
        self._endings: OrderedDict[str, str] = OrderedDict()  # why the sessions whose world is gone ended

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

    def open(self, session: str) -> None:
        """Give a new session its world, started from the prebuilt one (nothing, if it is open already)."""
        self._expire()
        hosted = self._sessions.get(session)
        if hosted is not None and not hosted.ended:
            return
        self._sessions.pop(session, None)
        self._endings.pop(session, None)
        while len(self._sessions) >= self.max_sessions:
            self._drop_one()
        self._sessions[session] = HostedWorld(self._start.fork(), used=time.monotonic())

    def touch(self, session: str) -> None:
        """The session's client is still there (it sent a request), unless the session has already ended."""
        self._expire()
        hosted = self._sessions.get(session)
        if hosted is not None and not hosted.ended:
            hosted.used = time.monotonic()
            self._sessions.move_to_end(session)

    def end(self, session: str, why: str) -> None:
        """The session is over (its client ended it, or went away): its world is kept for the controller."""
        hosted = self._sessions.get(session)
        if hosted is not None and not hosted.ended:
            hosted.ended = why

    def call(self, session: str, name: str, arguments: Any) -> CallRecord:
        """Run one tool call in the session's world; `SessionEnded` when the session is not open."""
        self._expire()
        hosted = self._sessions.get(session)
        if hosted is None or hosted.ended:
            raise SessionEnded(f"session {session!r} {self._why_not_open(session)}: its world is not there to "
                               "call; start a new session (a new connection) for a new episode")
        self.touch(session)
        record = hosted.world.call(name, arguments)
        # The log's copy of the call, not the client's: the same values, but bounded where a limit refused
        # it (a client sending megabytes must not grow the session by megabytes when the log keeps a few KB).
        shown = record.arguments if isinstance(record.arguments, dict) else {}
        named = name if isinstance(name, str) and len(name) <= hosted.world.limits.max_name_chars else record.tool
        hosted.process.append(render_calls([Call(named or "", shown)]))
        return record

    # -- what the controller does --------------------------------------------------------

    def sessions(self) -> list[dict[str, Any]]:
        """Every session kept, least recently used first: open or why it ended, its call and error counts."""
        self._expire()
        return [{"session": sid, "open": not h.ended, **({"ended": h.ended} if h.ended else {}),
                 "calls": len(h.world.log), "errors": sum(error_counts(h.world.log).values())}
                for sid, h in self._sessions.items()]

    def world(self, session: str) -> World:
        """The session's world, for reading in-process; `SessionEnded` when none is kept."""
        return self._hosted(session).world

    def reset(self, session: str) -> None:
        """Start a kept session over from the prebuilt world, as if it had just opened (an ended one stays
        ended); `SessionEnded` when none is kept."""
        hosted = self._hosted(session)
        hosted.world, hosted.process = self._start.fork(), []

    def close(self, session: str) -> bool:
        """Forget a session's world (its next call is refused, naming why); False if there was none."""
        if self._sessions.pop(session, None) is None:
            return False
        self._remember(session, "was closed by its controller")
        return True

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
            raise SessionEnded(f"session {session!r} {self._why_not_open(session)}")
        return hosted

    def _why_not_open(self, session: str) -> str:
        hosted = self._sessions.get(session)
        if hosted is not None and hosted.ended:
            return hosted.ended
        return self._endings.get(session, "was never opened here (or ended long ago)")

    def _expire(self) -> None:
        """End the open sessions idle for `idle_timeout` seconds."""
        if self.idle_timeout is None:
            return
        now = time.monotonic()
        for hosted in self._sessions.values():  # least recently used first: stop at the first still fresh
            if now - hosted.used < self.idle_timeout:
                break
            if not hosted.ended:
                hosted.ended = f"expired after {self.idle_timeout:g} s without a call"

    def _drop_one(self) -> None:
        """Make room: drop the world of the ended session used least recently, else of the open one idle longest."""
        session = next((sid for sid, h in self._sessions.items() if h.ended), None)
        if session is None:
            session = next(iter(self._sessions))
            self._sessions.pop(session)
            self._remember(session, f"was dropped while open: {self.max_sessions} sessions (--max-sessions) were "
                                    "kept and a new one opened")
            return
        hosted = self._sessions.pop(session)
        self._remember(session, hosted.ended)

    def _remember(self, session: str, why: str) -> None:
        self._endings[session] = why
        self._endings.move_to_end(session)
        while len(self._endings) > ENDINGS_KEPT:
            self._endings.popitem(last=False)
