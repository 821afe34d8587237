"""Worlds: apps composed with a clock, a random source, id counters and a call log.

`World.call` is the single door for agent actions. It bounds and validates arguments,
runs the tool under an undo journal, records the outcome and never lets an exception
out: a failed call becomes an error record and leaves the world exactly as it was.
"""

from __future__ import annotations

import datetime as _dt
import difflib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, TypeVar, overload

from pydantic import ValidationError

from .app import App
from .calllog import CallError, CallLog, CallRecord
from .clock import DEFAULT_START, SimClock
from .diffing import StateDiff, diff_states
from .dumps import SERIALIZER_ATTRIBUTE
from .errors import ParseError, ToolError
from .input_limits import (
    DEFAULT_LIMITS,
    InputLimits,
    LimitExceeded,
    exception_line,
    printable_text,
    type_name,
    valid_text,
)
from .journal import Journal, end_read_only
from .journal import begin as begin_journal
from .lanes import LANES_ON
from .limit_walk import check_integers, checked_copy, redacted_copy
from .parsing import Call
from .results import reply_copy
from .rng import WorldRandom
from .schemas import export_all
from .state import OWNER, StateModel, TrackedDict, plain
from .tools import Coercion, ToolSpec, describe_validation_error

A = TypeVar("A", bound=App[Any])
Prepared = tuple[ToolSpec, Any, dict[str, Any], dict[str, Any]]
"""A call ready to run: its tool, its arguments as logged, the tool's keyword arguments, the validated arguments."""


@dataclass(frozen=True)
class Snapshot:
    """A frozen moment of a world: app states (shared, copy-on-write), clock, counters, log."""

    states: Mapping[str, StateModel]
    now: _dt.datetime
    draws: int
    ids: Mapping[str, int]
    log: CallLog
    log_len: int
    # `ids`' own dict, of no world: the world restored from this snapshot copies it on its first count
    # (`World.next_id`), so a reset loop whose calls count nothing copies no counters.
    counters: TrackedDict = field(repr=False, compare=False)


class World:
    """A set of apps an agent acts on through tool calls.

    Args:
        apps: The app instances; each may belong to one world only.
        seed: Seed of the world's random source.
        start: The simulated clock's starting moment.
        tick: How far the clock moves after each call (default: not at all).
        coercion: "lax" accepts e.g. "5" for an integer (benchmark data does this);
            "strict" accepts only values of the declared type.
        limits: Bounds on model input (message size, calls per message, nesting, string
            length, integer digits); input past one is refused with an error naming it.
    """

    # `__weakref__`: an app refers to its world weakly (`App.world`), so a dropped world is freed at once.
    __slots__ = ("__weakref__", "_apps", "_ids", "_specs", "_strict", "_tools", "clock", "coercion", "limits", "log",
                 "rng")

    def __init__(
        self,
        apps: Iterable[App[Any]],
        *,
        seed: int | str = 0,
        start: _dt.datetime = DEFAULT_START,
        tick: _dt.timedelta | None = None,
        coercion: Coercion = "lax",
        limits: InputLimits = DEFAULT_LIMITS,
    ) -> None:
        if coercion not in ("lax", "strict"):
            raise ValueError("coercion must be 'lax' or 'strict'")
        if not isinstance(limits, InputLimits):
            raise TypeError("limits must be an InputLimits")
        self._apps: dict[str, App[Any]] = {}
        tools: dict[str, ToolSpec] = {}
        for app in apps:
            if app.name in self._apps:
                raise ValueError(f"two apps are named {app.name!r}")
            app.enter_world(self)
            self._apps[app.name] = app
            for spec in app.specs().values():
                if spec.name in tools:
                    raise ValueError(
                        f"tool {spec.name!r} is defined by both {tools[spec.name].app!r} and "
                        f"{app.name!r}; rename one with @tool(name=...)"
                    )
                tools[spec.name] = spec
        self._tools: Mapping[str, ToolSpec] = MappingProxyType(tools)
        self._specs = tools  # what `_tools` shows, looked up by every call without the proxy's extra method call
        self.clock = SimClock(start, tick)
        self.rng = WorldRandom(seed)
        self._ids: TrackedDict = _own_ids(TrackedDict())
        self.log = CallLog()
        self.coercion: Coercion = coercion
        self._strict = coercion == "strict"
        self.limits = limits

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

    def diff(self, expected: Mapping[str, Any]) -> StateDiff:
        """Field-level differences between `expected` and the current state (exact mode)."""
        return diff_states(expected, self.state())

    def load(self, config: Mapping[str, Mapping[str, Any]]) -> None:
        """Apply an initial configuration, one mapping per app name."""
        unknown = [name for name in config if name not in self._apps]
        if unknown:
            raise KeyError(f"initial config names unknown apps: {', '.join(unknown)}")
        for name, app_config in config.items():
            self._apps[name].load(app_config)

    @property
    def ids(self) -> Mapping[str, int]:
        """The per-world id counters (`next_id`): each kind's next value, read-only."""
        return MappingProxyType(self._ids)

    def next_id(self, kind: str, start: int = 1) -> int:
        """The next value of a per-world counter; undone if the calling tool fails."""
        ids = self._ids
        if getattr(ids, OWNER) is not _OWN:  # shared with a fork: this world's first count takes its own copy
            ids = self._ids = _own_ids(TrackedDict(ids))
        value: int = ids.get(kind, start)
        ids[kind] = value + 1
        return value

    # -- acting ------------------------------------------------------------------------

    def call(self, name: str, arguments: Mapping[str, Any] | None = None) -> CallRecord:
        """Run one tool call. Never raises; failures are error records."""
        try:
            spec = self._specs.get(name) if type(name) is str else None
            # Values already of their parameters' types: bounded, valid and copied in one pass.
            if spec is not None and type(arguments) is dict and (plan := spec.fast_arguments) is not None \
                    and (checked := plan.check(arguments, self.limits)) is not None:
                raw, kwargs, validated = checked
            else:
                prepared = self._prepare(name, arguments)
                if isinstance(prepared, CallRecord):
                    return prepared
                spec, raw, kwargs, validated = prepared
            app = self._apps[spec.app]  # type: ignore[index]
            # A read-only journal holds nothing (it refuses the first write), so each tool has one for all its calls.
            journal = Journal(spec.name, False) if spec.mutates else spec.read_journal
            clock, rng = self.clock, self.rng
            now, draws = clock.moment, rng.draws
            token = begin_journal(journal)
            try:
                result = spec.function(app, **kwargs)
                # Converted while the journal can still undo the call, so a result the log
                # cannot hold fails the call instead of half-recording it.
                kind = type(result)
                if kind is dict and LANES_ON:
                    # The `results` speed lane: a reply of plain values (text keys; text, numbers, booleans,
                    # None), most tools' answer, is what `plain` would make of it, a copy, made without
                    # `plain`'s frame and its dict built key by key. Anything else in it: `reply_copy`, the
                    # lane's copy of the rest (`sandbox.results`).
                    for key, item in result.items():
                        if type(key) is not str or type(item) not in _PLAIN_VALUES:
                            result = reply_copy(result)
                            break
                    else:
                        result = result.copy()
                elif kind is not str and result is not None:
                    # A state model's lean serializer (`sandbox.dumps`) called here, without `plain`'s frame
                    # and its tests of the other kinds: a read call returning an entity does this.
                    known = getattr(kind, SERIALIZER_ATTRIBUTE, None) if kind is not dict else None
                    result = (known[1].to_python(result, mode="json") if known is not None and known[0] is kind
                              else reply_copy(result) if LANES_ON else plain(result))
            except ToolError as exc:
                journal.abort(token)
                clock.set(now)
                rng.draws = draws
                error = CallError(exc.code, exc.message, (plain(exc.data),) if exc.data else ())
                return self._record_error(spec.name, spec.app, raw, error, validated=validated, now=now)
            except Exception as exc:  # a crash inside a tool is a world bug, not the agent's
                journal.abort(token)
                clock.set(now)
                rng.draws = draws
                error = CallError("internal_error", f"{spec.name} failed: {exception_line(exc)}")
                return self._record_error(spec.name, spec.app, raw, error, validated=validated, now=now)
            except BaseException:
                journal.abort(token)
                clock.set(now)
                rng.draws = draws
                raise
            # Ended here rather than in a `finally`: ending tells whether the call changed anything.
            if spec.mutates:
                changed = journal.end(token)
            else:  # a read-only journal's end, in one step (the journal module's `end_read_only`)
                end_read_only(token)
                changed = False
            # `CallLog.add`, written out (one frame less on every call): the record numbered after the log's last.
            log = self.log
            own = log._own
            record = _new_tuple(CallRecord, (log._prefix_len + len(own), spec.name, spec.app, raw, validated, result,
                                             None, changed, now))
            own.append(record)
            if clock.tick:
                clock.step()
            return record
        except Exception as exc:  # the engine's own failure (formatting, recording): still a record
            return self._failed(name, exc)

    def _prepare(self, name: object, arguments: object) -> CallRecord | Prepared:
        """The full path to a call's (tool, logged arguments, keyword arguments, validated arguments), or the
        record of its refusal: an unknown tool, arguments that are not an object, past a limit or invalid."""
        if arguments is None:
            arguments = {}
        elif type(arguments) is not dict and isinstance(arguments, Mapping):
            arguments = dict(arguments)
        spec = self._specs.get(name) if type(name) is str else None
        if spec is None:
            spec = self._resolve(name)
            if spec is None:
                return self._record_error(self._shown_name(name), None, redacted_copy(arguments, self.limits),
                                     self._unknown(name))
        if type(arguments) is not dict:
            error = CallError("invalid_arguments",
                              f"arguments for {spec.name} must be an object of named values")
            return self._record_error(spec.name, spec.app, redacted_copy(arguments, self.limits), error)
        try:
            raw = checked_copy(arguments, self.limits)
        except LimitExceeded as exc:
            return self._refuse(spec, redacted_copy(arguments, self.limits), exc)
        try:
            parsed = spec.validator.validate_python(arguments, strict=self._strict, extra="forbid")
        except ValidationError as exc:
            message, details = describe_validation_error(spec.name, exc)
            error = CallError("invalid_arguments", message, tuple(details))
            return self._record_error(spec.name, spec.app, raw, error)
        kwargs = parsed.__dict__
        if not self._strict:
            try:
                check_integers(kwargs, self.limits)
            except LimitExceeded as exc:
                return self._refuse(spec, raw, exc)
        # The parsed model is private to this call, so its dict can be logged as is.
        return spec, raw, kwargs, kwargs if spec.atomic_args else plain(kwargs)

    def execute(self, message: str | Sequence[Call | ParseError]) -> list[CallRecord]:
        """Run every call in a model message, in order; each call that cannot be read is a
        `parse_error` record in its place, and the others still run.

        Text is read by `sandbox.replies.read_reply` (every format of tool calls models write; an
        answer is refused); a sequence holds the calls as read, a `ParseError` in place of each
        call that could not be.

        Never raises: a message that cannot be read at all (past the world's limits, not a list
        of calls, neither text nor a sequence of `Call`s) is one `parse_error` record.
        """
        if type(message) is list:
            # What `parse_message` gives, run without `_read`'s frame and the per-item tests of the mixed
            # list: every item a `Call`, checked before any runs (as `_read` does), on a copy of the list.
            # Most messages hold one call (never past `max_calls`, at least 1): read once, it is its own copy.
            if len(message) == 1 and type(call := message[0]) is Call:
                return [self.call(call.name, call.arguments)]
            calls = message[:]
            if len(calls) <= self.limits.max_calls:
                for call in calls:
                    if type(call) is not Call:
                        break
                else:
                    # A loop rather than a comprehension: a comprehension is a function of its own.
                    records = []
                    for call in calls:
                        records.append(self.call(call.name, call.arguments))
                    return records
        try:
            items = self._read(message)
        except ParseError as exc:
            details = ({"limit": exc.limit},) if exc.limit else ()
            error = CallError("parse_error", exc.message, details)
            shown = printable_text(message[:2000]) if type(message) is str else f"<{type_name(message)}>"
            return [self._record_error(None, None, shown, error)]
        except Exception as exc:
            return [self._failed(None, exc)]
        # A loop rather than a comprehension, which would make `self` a cell: read slower all through this method.
        records = []
        for item in items:
            records.append(self._unreadable(item) if isinstance(item, ParseError)
                           else self.call(item.name, item.arguments))
        return records

    def _unreadable(self, error: ParseError) -> CallRecord:
        """The record of one call of a message that could not be read (the rest of it was)."""
        try:
            return self._record_error(None, None, None, CallError("parse_error", error.message))
        except Exception as exc:
            return self._failed(None, exc)

    def _read(self, message: Any) -> list[Call] | list[Call | ParseError]:
        if type(message) is str:
            # Imported here: a replay, or any caller handing over calls already read, never reads a reply (its
            # some twenty patterns and the `Reply` dataclass cost a cold process about 2 ms).
            from .replies import reply_items

            return reply_items(message, limits=self.limits)
        if type(message) is list and len(message) <= self.limits.max_calls:  # what `parse_message` gives
            calls = message[:]
            for call in calls:
                if type(call) is not Call and not isinstance(call, ParseError):
                    raise ParseError("every call of a message must be a Call(name, arguments)")
            return calls
        if isinstance(message, (str, bytes, bytearray, Mapping)) or not isinstance(message, Sequence):
            raise ParseError(f"expected a message as text or a list of calls, got {type_name(message)}")
        calls = list(message[: self.limits.max_calls + 1])
        if len(calls) > self.limits.max_calls:
            raise ParseError(f"more than {self.limits.max_calls} calls in one message (limit max_calls)",
                             limit="max_calls")
        if not all(type(call) is Call or isinstance(call, ParseError) for call in calls):
            raise ParseError("every call of a message must be a Call(name, arguments)")
        return calls

    def run_openai(self, tool_calls: Any) -> list[dict[str, Any]]:
        """Run OpenAI `tool_calls` (SDK objects or dicts); the `{"role": "tool", ...}` message for each."""
        from . import chat  # imported on first use, as `replies` is in `_read`

        return chat.run_openai(self, tool_calls)

    def run_anthropic(self, content: Any) -> list[dict[str, Any]]:
        """Run the `tool_use` blocks of Anthropic message content; the `tool_result` block for each."""
        from . import chat  # imported on first use, as `replies` is in `_read`

        return chat.run_anthropic(self, content)

    # -- time travel -------------------------------------------------------------------

    def snapshot(self) -> Snapshot:
        """Capture the world in O(number of apps); state is shared until someone writes."""
        counters = TrackedDict(self._ids)
        setattr(counters, OWNER, None)
        return Snapshot(
            states=MappingProxyType({name: app.share_state() for name, app in self._apps.items()}),
            now=self.clock.moment,
            draws=self.rng.draws,
            ids=MappingProxyType(counters),
            log=self.log,
            log_len=len(self.log),
            counters=counters,
        )

    def restore(self, snapshot: Snapshot) -> None:
        """Return to a snapshot: states, clock, random source, counters and call log."""
        states, apps = snapshot.states, self._apps
        if states.keys() != apps.keys():
            raise ValueError("snapshot was taken of a world with different apps")
        for name, app in apps.items():
            app.adopt_state(states[name])
        self.clock.set(snapshot.now)
        self.rng.draws = snapshot.draws
        self._ids = snapshot.counters  # of no world: copied by the first count (`next_id`)
        self.log = CallLog.over(snapshot.log, snapshot.log_len)

    def fork(self, *, coercion: Coercion | None = None) -> World:
        """An independent copy; neither world sees anything the other does afterwards. `coercion` gives
        the copy another coercion policy (a server's `--coercion`), else it keeps this world's."""
        new = object.__new__(World)
        new._apps = {name: app.fork_for(new) for name, app in self._apps.items()}
        new._tools = self._tools
        new._specs = self._specs
        new.clock = self.clock.copy()
        new.rng = self.rng.copy()
        setattr(self._ids, OWNER, None)  # shared from now on: whichever world counts first copies it
        new._ids = self._ids
        new.log = self.log.view()
        new.coercion = self.coercion if coercion is None else coercion
        if new.coercion not in ("lax", "strict"):
            raise ValueError("coercion must be 'lax' or 'strict'")
        new._strict = new.coercion == "strict"
        new.limits = self.limits
        return new

    # -- internals ---------------------------------------------------------------------

    def _resolve(self, name: object) -> ToolSpec | None:
        if type(name) is not str or len(name) > self.limits.max_name_chars:
            return None
        spec = self._tools.get(name)
        if spec is None and "." in name:
            app_name, _, tool_name = name.rpartition(".")
            spec = self._tools.get(tool_name)
            if spec is not None and spec.app != app_name:
                return None
        return spec

    def _shown_name(self, name: object) -> str:
        """A tool name as the log can hold it: text, bounded, valid Unicode."""
        if type(name) is not str:
            return f"<{type_name(name)}>"
        limit = self.limits.max_name_chars
        shown = name if len(name) <= limit else name[:limit] + "..."
        return shown if valid_text(shown) else printable_text(shown)

    def _unknown(self, name: object) -> CallError:
        shown = self._shown_name(name)
        message = f"unknown tool {shown!r}"
        if type(name) is not str:
            message += " (a tool name must be text)"
        elif len(name) > self.limits.max_name_chars:
            message += f" (longer than {self.limits.max_name_chars} characters; limit max_name_chars)"
        else:
            close = difflib.get_close_matches(name, list(self._tools), n=3)
            if close:
                message += f"; did you mean {', '.join(close)}?"
        return CallError("unknown_tool", message, ({"available": sorted(self._tools)},))

    def _refuse(self, spec: ToolSpec, raw: Any, exc: LimitExceeded) -> CallRecord:
        """An argument past one of the world's limits: `invalid_arguments` naming the limit."""
        where = f"'{exc.path}': " if exc.path else ""
        error = CallError("invalid_arguments", f"invalid arguments for {spec.name}: {where}{exc.message} "
                          f"(limit {exc.limit})", (exc.details(),))
        return self._record_error(spec.name, spec.app, raw, error)

    def _failed(self, name: object, exc: Exception) -> CallRecord:
        """The record of a call the engine itself could not handle; built from nothing the caller sent but
        the name, so it cannot fail the same way. Nothing ran, so there is nothing to undo."""
        error = CallError("internal_error", f"the world could not handle this call: {exception_line(exc)}")
        tool = self._shown_name(name) if name is not None else None
        return self._record_error(tool, None, None, error)

    def _record_error(
        self,
        tool: str | None,
        app: str | None,
        arguments: Any,
        error: CallError,
        *,
        validated: dict[str, Any] | None = None,
        now: _dt.datetime | None = None,
    ) -> CallRecord:
        """Record a call that was refused or failed: no result, the state unchanged. `now` is the moment the
        call began (a failed tool may have moved the clock before its undo), else the clock's."""
        clock = self.clock
        record = self.log.add(tool, app, arguments, validated, None, error, False, clock.moment if now is None else now)
        if clock.tick:
            clock.step()
        return record

    def __repr__(self) -> str:
        return f"World(apps={list(self._apps)}, tools={len(self._tools)}, calls={len(self.log)})"


_PLAIN_VALUES = frozenset({str, int, float, bool, type(None)})
"""The types of the values a dict reply may hold to be copied whole by the `results` lane (`World.call`)."""

_new_tuple = tuple.__new__
_OWN = True
"""The owner mark of a world's id counters while no fork shares them (the values are ints, so
the dict's owner slot says nothing else)."""


def _own_ids(ids: TrackedDict) -> TrackedDict:
    setattr(ids, OWNER, _OWN)
    return ids
