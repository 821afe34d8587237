"""Apps: one stateful service each (a messenger, a bank, a food platform).

An app is a class with a typed state model and `@tool` methods; nothing else is exposed
to agents. Its state object may be shared with forks and snapshots of its world; the
first time the app might write, it takes its own shallow copy of the top of the state
under a fresh generation, and from there copies only what it reaches (structural
sharing, see `sandbox.state`), so forking is cheap, a first write costs the path it
touches, and forks never influence each other.

Everything that can change lives in the state model, because only the state model is
journaled, snapshotted and forked. An app may keep fixed data in attributes set in its
constructor; once it has joined a world, setting an attribute is refused.
"""

from __future__ import annotations

import typing
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Generic, Protocol, TypeVar, overload
from weakref import ref as _ref

from .clock import SimClock
from .journal import CLAIM_TOP, Journal, active_journal
from .rng import WorldRandom
from .state import WITH_INTERNAL, Generation, StateModel, own, own_fields, plain, plain_fields, settle, taken_on_read
from .tools import ToolSpec, tool_spec_of

S = TypeVar("S", bound=StateModel)
A = TypeVar("A", bound="App[Any]")


class AppWorld(Protocol):
    """What an app's tools reach of the world it is in (`App.world`): its clock, random source, id
    counters, the other apps and the whole state. `sandbox.world.World` is the implementation; a protocol,
    because that module imports this one."""

    @property
    def clock(self) -> SimClock: ...
    @property
    def rng(self) -> WorldRandom: ...
    @property
    def apps(self) -> Mapping[str, App[Any]]: ...
    @overload
    def app(self, key: type[A]) -> A: ...
    @overload
    def app(self, key: str) -> App[Any]: ...
    def next_id(self, kind: str, start: int = 1) -> int: ...
    def state(self) -> dict[str, Any]: ...


# The engine's own bookkeeping, the only attributes that change once an app is in a world.
# The engine writes them past the guard in `App.__setattr__`, through their slots' own descriptors
# (`_set_state`, `_set_shared`, `_set_world`, below the class): snapshots, restores and forks write
# them for every app, and a Python-level `__setattr__` would double their cost. `_set` writes the rest.
_ENGINE_ATTRIBUTES = frozenset({"_shared", "_state", "_world"})
_set = object.__setattr__
_new = object.__new__

# What `App._shared` says of the state object (anything but OWNED makes the first write act):
OWNED = False  # this app's own, top and fields
SHARED = True  # reachable from a fork or snapshot; the first writing call copies its top, claims its fields
# as it reads them (`claim_on_read`) and releases what it copied for nothing when it ends (`Journal.release`)
SHARED_AGAIN = 2  # shared again by such a release, or by a restore: the next first write keeps its
# copies, so a state read by every call but never written is not copied and given back on every
# call, and a reset loop (restore, then calls) does not pay for a release it has no use for: a
# restored world replaces its own state, where giving back saves memory only across live forks
FIELDS_SHARED = 3  # the top is this app's own, some of its fields were given back shared or never claimed


class App(Generic[S]):
    """Base class for apps. Subclass as `class Todo(App[TodoState])`.

    `app_name` is the key of this app in the world's state; ACEBench compares end
    states by class name, so worlds ported from it set names like `FoodPlatform`.
    """

    app_name: ClassVar[str | None] = None
    state_model: ClassVar[type[StateModel]]
    tool_specs: ClassVar[Mapping[str, ToolSpec]] = {}
    bound_specs: ClassVar[Mapping[str, ToolSpec]] = {}

    __slots__ = ("_shared", "_state", "_world", "name")

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for base in getattr(cls, "__orig_bases__", ()):
            origin = typing.get_origin(base)
            if isinstance(origin, type) and issubclass(origin, App):
                args = typing.get_args(base)
                model = args[0] if args else None
                if isinstance(model, type) and issubclass(model, StateModel):
                    cls.state_model = model
        specs: dict[str, ToolSpec] = {}
        for klass in reversed(cls.__mro__):
            for attr in vars(klass).values():
                spec = tool_spec_of(attr)
                if spec is not None:
                    specs[spec.name] = spec
        cls.tool_specs = specs
        default_name = cls.app_name or cls.__name__
        # Bound once here so building a world does not rebuild a spec per tool.
        cls.bound_specs = {name: spec.bound_to(default_name) for name, spec in specs.items()}

    def specs(self) -> Mapping[str, ToolSpec]:
        """This app's tools, each carrying this app's name."""
        if self.name == (type(self).app_name or type(self).__name__):
            return type(self).bound_specs
        return {name: spec.bound_to(self.name) for name, spec in type(self).tool_specs.items()}

    def __init__(self, state: S | Mapping[str, Any] | None = None, *, name: str | None = None) -> None:
        model = getattr(type(self), "state_model", None)
        if model is None:
            raise TypeError(f"{type(self).__name__} must subclass App[SomeStateModel]")
        if state is None:
            state = model()
        elif isinstance(state, Mapping):
            state = model.model_validate(dict(state))
        elif not isinstance(state, model):
            raise TypeError(f"state must be a {model.__name__} or a mapping")
        self._state: S = state  # type: ignore[assignment]
        self._shared = True  # the caller may hold the state object: the first write takes its own top
        # A weak reference: a world holds its apps, and an app pointing back would make every world a
        # reference cycle, freed only by the cyclic collector (a dropped fork and the copies it made
        # stayed in memory until a collection, and cost one: its pass over every container they hold).
        self._world: _ref[AppWorld] | None = None
        self.name: str = name or type(self).app_name or type(self).__name__

    @property
    def state(self) -> S:
        """The live state. Outside a read-only call, it is this app's own: shared with no
        fork or snapshot at its top, and handing out only objects it may change in place."""
        if self._shared:
            journal = active_journal()
            if journal is None or not journal.read_only:
                self._take(journal)
        return self._state

    @property
    def read_only_state(self) -> S:
        """The live state as it is, never copied: for code that only reads it during a call that may
        write, such as a phone app checking the device's wifi. `state` would first take a state still
        shared with a fork or snapshot as this app's own (a copy, given back unchanged at the call's
        end). What this returns may be shared with other worlds: never change it, nor anything in it. Its
        containers are the live ones, so iterating one of this app's own during a call still takes each item as
        its own as it is reached; a scan that must copy nothing reads through the builtin's own methods
        (`list.__iter__`, as ACEBench's travel lookups do)."""
        return self._state

    def _take(self, journal: Journal | None) -> None:
        """Make the state this app's own before a possible write (see `App._shared`'s values).

        The first writing call after a fork or snapshot copies only the top of a state with enough
        nested fields (`CLAIM_ON_READ_FROM`, unless its class `claims_up_front`), as an instance of a
        twin of its class (`taken_on_read`): they are claimed as the call reads them (`claim_on_read`),
        since a call reads one or two of a state's collections, and each field claimed is one to
        compare and give back at the call's end (`Journal.release`, which also puts the top's class
        back: `top_released`). Every other take claims every field now: after a restore or a release, a
        copy no longer costs a release, so claiming on read would cost more than the copies it saves
        (tried for the take after a release: ACEBench's messages 91.2k -> 94.9k instructions each);
        outside a call, no journal would put the class back."""
        shared, original = self._shared, self._state
        if shared is SHARED and journal is not None:  # the first writing call after a fork or snapshot
            recorded = journal.claims  # `Journal.record_claims`, inline: every first writing call after a fork asks
            if recorded is None:
                recorded = journal.claims = []
            taken = taken_on_read(original, recorded) if original._claims_on_read else \
                own(original, Generation(), recorded)
            _set_state(self, taken)
            _set_shared(self, OWNED)
            recorded.append((CLAIM_TOP, self, None, taken, original))
            return
        claims = None if journal is None else journal.claims
        if shared == FIELDS_SHARED:
            own_fields(original, claims)
            mine = original
        else:
            mine = own(original, Generation(), claims)  # type: ignore[assignment]
            _set_state(self, mine)
        _set_shared(self, OWNED)
        if claims is not None:
            claims.append((CLAIM_TOP, self, None, mine, original))

    def top_released(self, mine: S, original: S | None) -> None:
        """A call's release (`Journal.release`) gave back the shared `original` of the top copy `mine`, or
        (None) some of its fields, or (`mine`) nothing though `mine` still claims fields on read. A top
        claiming on read (`claim_on_read`) gets its class back; the fields it did not claim stay shared."""
        whole = settle(mine)
        if self._state is not mine or self._shared is not OWNED:
            return  # shared meanwhile (a snapshot or fork inside the call): the next write copies anyway
        if original is not None and original is not mine:
            _set_state(self, original)
            _set_shared(self, SHARED_AGAIN)
        elif original is None or not whole:
            _set_shared(self, FIELDS_SHARED)

    @property
    def world(self) -> AppWorld:
        """The world this app is part of, while anything else holds it (its calls run through it).

        An app refers to its world weakly (see `__init__`), so that a dropped world, a fork above all, is
        freed at once. So an app, or a tool's bound method, kept after its world was dropped keeps its
        state (`state`, `dump`), but a tool that reaches for the world (its clock, counters, random source
        or other apps) gets a `RuntimeError` saying the world is gone, never another world's data: keep the
        world for as long as its apps are used. Tools run through `World.call`, which holds it."""
        ref = self._world
        world = None if ref is None else ref()
        if world is None:
            raise RuntimeError(f"app {self.name!r} is not part of a world" + (" yet" if ref is None else " any more"))
        return world

    def load(self, config: Mapping[str, Any]) -> None:
        """Apply an initial configuration: listed fields replace the current values.

        Worlds whose benchmark has its own loading rules override this.
        """
        current = self._state.model_dump(context=WITH_INTERNAL)
        current.update(config)
        _set_state(self, type(self._state).model_validate(current))
        _set_shared(self, True)

    def dump(self, fields: Sequence[str] | None = None) -> dict[str, Any]:
        """The state as JSON-ready data (what `World.state()` reports for this app): `model_dump(mode="json")`'s
        output, through the lean serializer that `plain` uses (`sandbox.dumps`), about 5x faster on a
        110-task state, which every end-state check and reward reads.

        `fields` dumps only those top-level fields, in that order: what the whole dump holds under their
        names (a field it leaves out, such as an omitted None, is left out here too), without serializing
        the rest. A benchmark that records part of an app's state as its end state, such as ACEBench,
        would otherwise dump a travel app's flights to keep its reservations."""
        if fields is None:
            data: dict[str, Any] = plain(self._state)
            return data
        data = plain_fields(self._state, fields)
        return {name: data[name] for name in fields if name in data}

    def refused(self, result: Any) -> bool:
        """Whether a tool's result, though not an error, tells the agent the call was refused.

        Worlds that follow a benchmark faithfully refuse the way it does, with a message
        such as `{"status": False, ...}` rather than a `ToolError`; they say so here, so
        that property tests and metrics can tell a refusal from a success.
        """
        return False

    # -- engine hooks ------------------------------------------------------------------
    # Called by the world (`World.__init__`, `snapshot`, `restore`, `fork`), which owns none of the app's
    # fields: what sharing means for the state (`_shared`'s values) is decided here alone. Named so that no
    # tool of a subclass is likely to take the name; never exposed to agents (only `@tool` methods are).

    def enter_world(self, world: AppWorld) -> None:
        """Join `world`; an app belongs to one world only."""
        ref = self._world
        if ref is not None and ref() is not world:  # another world's, even one gone since
            raise ValueError(f"app {self.name!r} already belongs to another world")
        _set_world(self, _ref(world))

    def share_state(self) -> S:
        """Hand out the state object for a snapshot or fork; later writes copy first."""
        _set_shared(self, True)
        return self._state

    def adopt_state(self, state: S) -> None:
        """Take `state`, handed out by `share_state` (a restore): shared, so the next write copies first."""
        _set_state(self, state)
        _set_shared(self, SHARED_AGAIN)

    def fork_for(self, world: AppWorld) -> App[S]:
        """This app for `world`, a fork of its own: the same state object, shared by both until one writes."""
        new = _new(type(self))
        _set_name(new, self.name)
        extra = getattr(self, "__dict__", None)
        if extra:
            # Fixed data set by the constructor: the very dict is shared, since no attribute of an
            # app in a world can be set or deleted (`__setattr__`, `__delattr__`).
            _set(new, "__dict__", extra)
        if self._shared is not SHARED:  # `share_state`, inline: a template's apps, forked over and over, already are
            _set_shared(self, SHARED)
        _set_state(new, self._state)
        _set_shared(new, SHARED)
        _set_world(new, _ref(world))  # one reference object per world, shared by its apps (CPython reuses it)
        return new

    def __setattr__(self, attribute: str, value: Any) -> None:
        if attribute not in _ENGINE_ATTRIBUTES and getattr(self, "_world", None) is not None:
            raise AttributeError(self._refusal(attribute, "set"))
        object.__setattr__(self, attribute, value)

    def __delattr__(self, attribute: str) -> None:
        if attribute not in _ENGINE_ATTRIBUTES and getattr(self, "_world", None) is not None:
            raise AttributeError(self._refusal(attribute, "delete"))
        object.__delattr__(self, attribute)

    def _refusal(self, attribute: str, verb: str) -> str:
        return (f"cannot {verb} attribute {attribute!r} of app {self.name!r}: it has joined a world. State belongs "
                f"in the state model ({type(self).state_model.__name__}), where calls journal it and snapshots, "
                f"forks and restores carry it; fixed data belongs in the constructor")

    def __repr__(self) -> str:
        return f"<{type(self).__name__} app {self.name!r}>"


# The engine's attributes written through their slots' own descriptors, as `_set` does after looking the slot up by
# name: every restore writes two of them per app, and the first writing call after it two more.
_set_state = App.__dict__["_state"].__set__
_set_shared = App.__dict__["_shared"].__set__
_set_world = App.__dict__["_world"].__set__
_set_name = App.__dict__["name"].__set__  # set once, as a fork's apps are made
