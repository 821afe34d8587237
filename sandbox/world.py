"""Worlds: apps composed with a clock, a random source, id counters and a call log.

`World.call` is the single door for agent actions. It validates arguments, runs the
tool under an undo journal, records the outcome and never lets an exception out: a
failed call becomes an error record and leaves the world exactly as it was.
"""

from __future__ import annotations

import datetime as _dt
import difflib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, TypeVar, overload

from pydantic import ValidationError

from . import chat
from .app import App
from .calllog import CallError, CallLog, CallRecord
from .clock import DEFAULT_START, SimClock
from .diffing import diff_states
from .errors import ParseError, ToolError
from .journal import Journal
from .journal import begin as _set_journal
from .journal import end as _reset_journal
from .parsing import Call, parse_message
from .rng import WorldRandom
from .schemas import export_all
from .state import StateModel, TrackedDict, plain
from .tools import Coercion, ToolSpec, describe_validation_error

A = TypeVar("A", bound=App[Any])


@dataclass(frozen=True)
class Snapshot:
    """A frozen moment of a world: app states (shared, copy-on-write), clock, counters, log."""

    states: Mapping[str, StateModel]
    now: _dt.datetime
    draws: int
    ids: Mapping[str, int]
    log: CallLog
    log_len: int


class World:
    """A set of apps an agent acts on through tool calls.

    Args:
        apps: The app instances; each may belong to one world only.
        seed: Seed of the world's random source.
        start: The simulated clock's starting moment.
        tick: How far the clock moves after each call (default: not at all).
        coercion: "lax" accepts e.g. "5" for an integer (benchmark data does this);
            "strict" accepts only values of the declared type.
    """

    __slots__ = ("_apps", "_ids", "_strict", "_tools", "clock", "coercion", "log", "rng")

    def __init__(
        self,
        apps: Iterable[App[Any]],
        *,
        seed: int | str = 0,
        start: _dt.datetime = DEFAULT_START,
        tick: _dt.timedelta | None = None,
        coercion: Coercion = "lax",
    ) -> None:
        if coercion not in ("lax", "strict"):
            raise ValueError("coercion must be 'lax' or 'strict'")
        self._apps: dict[str, App[Any]] = {}
        tools: dict[str, ToolSpec] = {}
        for app in apps:
            if app.name in self._apps:
                raise ValueError(f"two apps are named {app.name!r}")
            app._bind(self)
            self._apps[app.name] = app
            for spec in app.specs().values():
                if spec.name in tools:
                    raise ValueError(
                        f"tool {spec.name!r} is defined by both {tools[spec.name].app!r} and "
                        f"{app.name!r}; rename one with @tool(name=...)"
                    )
                tools[spec.name] = spec
        self._tools: Mapping[str, ToolSpec] = MappingProxyType(tools)
        self.clock = SimClock(start, tick)
        self.rng = WorldRandom(seed)
        self._ids: TrackedDict = TrackedDict()
        self.log = CallLog()
        self.coercion: Coercion = coercion
        self._strict = coercion == "strict"

    # -- looking around ----------------------------------------------------------------

    @property
    def apps(self) -> Mapping[str, App[Any]]:
        return MappingProxyType(self._apps)

    @property
    def tools(self) -> Mapping[str, ToolSpec]:
        return self._tools

    @overload
    def app(self, key: type[A]) -> A: ...
    @overload
    def app(self, key: str) -> App[Any]: ...
    def app(self, key: str | type[A]) -> App[Any]:
        if isinstance(key, str):
            try:
                return self._apps[key]
            except KeyError:
                raise KeyError(f"no app named {key!r}; apps: {', '.join(self._apps)}") from None
        for app in self._apps.values():
            if isinstance(app, key):
                return app
        raise KeyError(f"no app of type {key.__name__}")

    def schemas(self, format: str = "openai") -> list[dict[str, Any]]:
        """Tool schemas in `format`: jsonschema, openai, anthropic, acebench or bfcl."""
        return export_all(self._tools.values(), format)

    def state(self) -> dict[str, Any]:
        """The whole state, JSON-ready, keyed by app name."""
        return {name: app.dump() for name, app in self._apps.items()}

    def diff(self, expected: Mapping[str, Any]) -> Any:
        """Field-level differences between `expected` and the current state (exact mode)."""
        return diff_states(expected, self.state())

    def load(self, config: Mapping[str, Mapping[str, Any]]) -> None:
        """Apply an initial configuration, one mapping per app name."""
        unknown = [name for name in config if name not in self._apps]
        if unknown:
            raise KeyError(f"initial config names unknown apps: {', '.join(unknown)}")
        for name, app_config in config.items():
            self._apps[name].load(app_config)

    def next_id(self, kind: str, start: int = 1) -> int:
        """The next value of a per-world counter; undone if the calling tool fails."""
        value = self._ids.get(kind, start)
        self._ids[kind] = value + 1
        return value

    # -- acting ------------------------------------------------------------------------

    def call(self, name: str, arguments: Mapping[str, Any] | None = None) -> CallRecord:
        """Run one tool call. Never raises; failures are error records."""
        if arguments is None:
            arguments = {}
        is_mapping = type(arguments) is dict or isinstance(arguments, Mapping)
        raw = plain(arguments) if is_mapping else _describe(arguments)
        spec = self._tools.get(name) if type(name) is str else None
        if spec is None:
            spec = self._resolve(name)
            if spec is None:
                shown = name if isinstance(name, str) else _describe(name)
                return self._record(shown, None, raw, None, None, self._unknown(name), False)
        if not is_mapping:
            error = CallError("invalid_arguments",
                              f"arguments for {spec.name} must be an object of named values")
            return self._record(spec.name, spec.app, raw, None, None, error, False)
        try:
            parsed = spec.validator.validate_python(arguments, strict=self._strict, extra="forbid")
        except ValidationError as exc:
            message, details = describe_validation_error(spec.name, exc)
            error = CallError("invalid_arguments", message, tuple(details))
            return self._record(spec.name, spec.app, raw, None, None, error, False)
        kwargs = parsed.__dict__
        # The parsed model is private to this call, so its dict can be logged as is.
        validated = kwargs if spec.atomic_args else plain(kwargs)
        app = self._apps[spec.app]  # type: ignore[index]
        journal = Journal(spec.name, not spec.mutates)
        clock, rng = self.clock, self.rng
        now, draws = clock._now, rng.draws
        token = _set_journal(journal)
        try:
            result = spec.function(app, **kwargs)
        except ToolError as exc:
            journal.rollback()
            clock._now, rng.draws = now, draws
            error = CallError(exc.code, exc.message, (plain(exc.data),) if exc.data else ())
            return self._record(spec.name, spec.app, raw, validated, None, error, False, now)
        except Exception as exc:  # a crash inside a tool is a world bug, not the agent's
            journal.rollback()
            clock._now, rng.draws = now, draws
            error = CallError("internal_error", f"{spec.name} failed: {type(exc).__name__}: {exc}")
            return self._record(spec.name, spec.app, raw, validated, None, error, False, now)
        except BaseException:
            journal.rollback()
            clock._now, rng.draws = now, draws
            raise
        finally:
            _reset_journal(token)
        if type(result) is not str and result is not None:
            result = plain(result)
        return self._record(spec.name, spec.app, raw, validated, result, None, journal.changed, now)

    def execute(self, message: str | Sequence[Call]) -> list[CallRecord]:
        """Run every call in a model message, in order; an unreadable message is one error record."""
        if isinstance(message, str):
            try:
                calls = parse_message(message).calls
            except ParseError as exc:
                error = CallError("parse_error", exc.message)
                return [self._record(None, None, message[:2000], None, None, error, False)]
        else:
            calls = list(message)
        return [self.call(c.name, c.arguments) for c in calls]

    def run_openai(self, tool_calls: Any) -> list[dict[str, Any]]:
        """Run OpenAI `tool_calls` (SDK objects or dicts); the `{"role": "tool", ...}` message for each."""
        return chat.run_openai(self, tool_calls)

    def run_anthropic(self, content: Any) -> list[dict[str, Any]]:
        """Run the `tool_use` blocks of Anthropic message content; the `tool_result` block for each."""
        return chat.run_anthropic(self, content)

    # -- time travel -------------------------------------------------------------------

    def snapshot(self) -> Snapshot:
        """Capture the world in O(number of apps); state is shared until someone writes."""
        return Snapshot(
            states=MappingProxyType({name: app._share() for name, app in self._apps.items()}),
            now=self.clock._now,
            draws=self.rng.draws,
            ids=MappingProxyType(dict(self._ids)),
            log=self.log,
            log_len=len(self.log),
        )

    def restore(self, snapshot: Snapshot) -> None:
        """Return to a snapshot: states, clock, random source, counters and call log."""
        if set(snapshot.states) != set(self._apps):
            raise ValueError("snapshot was taken of a world with different apps")
        for name, app in self._apps.items():
            app._adopt(snapshot.states[name])
        self.clock._now = snapshot.now
        self.rng.draws = snapshot.draws
        self._ids = TrackedDict(snapshot.ids)
        self.log = CallLog.over(snapshot.log, snapshot.log_len)

    def fork(self) -> World:
        """An independent copy; neither world sees anything the other does afterwards."""
        new = object.__new__(World)
        new._apps = {name: app._fork(new) for name, app in self._apps.items()}
        new._tools = self._tools
        new.clock = self.clock.copy()
        new.rng = self.rng.copy()
        new._ids = TrackedDict(self._ids)
        new.log = self.log.view()
        new.coercion = self.coercion
        new._strict = self._strict
        return new

    # -- internals ---------------------------------------------------------------------

    def _resolve(self, name: Any) -> ToolSpec | None:
        if not isinstance(name, str):
            return None
        spec = self._tools.get(name)
        if spec is None and "." in name:
            app_name, _, tool_name = name.rpartition(".")
            spec = self._tools.get(tool_name)
            if spec is not None and spec.app != app_name:
                return None
        return spec

    def _unknown(self, name: Any) -> CallError:
        shown = name if isinstance(name, str) else _describe(name)
        message = f"unknown tool {shown!r}"
        if isinstance(name, str):
            close = difflib.get_close_matches(name, list(self._tools), n=3)
            if close:
                message += f"; did you mean {', '.join(close)}?"
        return CallError("unknown_tool", message, ({"available": sorted(self._tools)},))

    def _record(
        self,
        tool: str | None,
        app: str | None,
        arguments: Any,
        validated: dict[str, Any] | None,
        result: Any,
        error: CallError | None,
        changed: bool,
        now: _dt.datetime | None = None,
    ) -> CallRecord:
        log, clock = self.log, self.clock
        record = CallRecord(len(log), tool, app, arguments, validated, result, error, changed,
                            clock._now if now is None else now)
        log.append(record)
        if clock.tick:
            clock._now += clock.tick
        return record

    def __repr__(self) -> str:
        return f"World(apps={list(self._apps)}, tools={len(self._tools)}, calls={len(self.log)})"


def _describe(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 200 else text[:197] + "..."
