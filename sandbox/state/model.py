"""`StateModel`: typed, journaled world state.

An app's state is a `StateModel`: a pydantic model whose attribute writes, and whose lists, dicts
and sets (`sandbox.state.containers`), report to the active undo journal before they change. That
is what lets the world roll a failed call back without copying the state first.

A model takes part in structural sharing as a container does: it carries an owner, the generation
allowed to change it in place; an app that may write copies its top-level state model with a fresh
generation (`own`: the model, its nested models and its containers, shallowly, never the items
inside the containers), and the containers copy those as they hand them out.
"""

from __future__ import annotations

import copy
import enum
import types
import typing
from types import MappingProxyType
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, SerializationInfo, SerializerFunctionWrapHandler, model_serializer

from ..arguments import (
    REQUIRED,
    Parameter,
    _new_object,
    _set_dict,
    _set_extra,
    _set_fields_set,
    _set_private,
    fill_slots,
    fits,
    scalar_fields,
    unwrapped,
)
from ..journal import CLAIM_FIELD, active_journal
from ..lanes import LANES_ON
from .containers import TrackedDict, TrackedList, _claimed, adopt, track
from .ownership import ATOMIC_TYPES, OWNER


class StateModel(BaseModel):
    """Base class for app state and the entities inside it.

    Attribute writes go to the undo journal of the call in progress; assignment is not
    re-validated (tools are trusted code; their inputs were validated at the boundary).
    """

    # Field reads on these instances are not specialized by CPython 3.11 (22 ns a read against 4.7 on a
    # plain object, issue 41): any `__getattr__` in the MRO (pydantic's `BaseModel` has one) makes the
    # type's `tp_getattro` the generic hook, which 3.11's specializer refuses, and no class attribute
    # here undoes that (`__getattr__ = None` and `__getattribute__ = object.__getattribute__` measured
    # 22 ns too). Only writing `PyObject_GenericGetAttr` into the type struct with ctypes does (5.6 ns;
    # ACEBench's gold messages 152k -> 148k instructions each, -2.7%, by callgrind): not done, as it
    # depends on the struct's layout, is silently undone by any later dunder assignment, misses classes
    # made later (claiming twins), and is not needed from 3.12 on, whose specializer allows `__getattr__`
    # (6.2 ns a read with and without).
    __slots__ = (OWNER,)

    model_config = ConfigDict(validate_assignment=False, extra="forbid", revalidate_instances="never")

    _field_names: ClassVar[frozenset[str]] = frozenset()
    _container_fields: ClassVar[tuple[str, ...]] = ()
    _nested_fields: ClassVar[tuple[str, ...]] = ()  # fields that may hold a container or a model
    _set_fields: ClassVar[tuple[str, ...]] = ()
    # One fields set per distinct set of names, shared by every instance of the class that has
    # it (a set costs more than the dict of a small model's values). Never changed in place:
    # `__setattr__` and undo replace an instance's set instead.
    _fields_sets: ClassVar[dict[frozenset[str], set[str]]] = {}
    # Optional fields left out of dumps while None. Some benchmark records simply lack a
    # key (ACEBench's sent messages have no `time`); a typed field that is None would
    # otherwise dump as `null` and break comparisons with ground truths recorded without it.
    omit_if_none: ClassVar[frozenset[str]] = frozenset()
    # Fields that are state (calls journal them; snapshots, forks and restores carry them)
    # but not facts of the world: left out of dumps, so `World.state()`, diffs and end-state
    # comparisons never see them. For what a harness feeds a world to steer how it behaves,
    # like the recorded random values a replay queues: the world's random source is not in
    # its dumps either, and two worlds that differ only in such input are in the same state.
    # `model_dump(context=WITH_INTERNAL)` keeps them (what `App.load` needs).
    internal_fields: ClassVar[frozenset[str]] = frozenset()
    # The model class a claiming twin (`claim_on_read`) stands for; None in every model class itself.
    _tw_real: ClassVar[type[StateModel] | None] = None
    # The twin of this class with every nested field still to claim (`claim_on_read`), once made, after the class it
    # is the twin of: its own only if that is this class (a subclass reads its base's here until it has its own).
    # Read through an instance (`taken_on_read`): an attribute of a model class read on the class itself goes through
    # pydantic's metaclass `__getattr__` hook, about three times the cost of the same read through an instance.
    _tw_full: ClassVar[tuple[type[StateModel], type[StateModel]] | None] = None
    # Whether a top of this class claims its fields on read in the first writing call after a fork
    # (`claim_on_read`): only with enough nested fields that one call likely leaves some unread.
    _claims_on_read: ClassVar[bool] = False
    # Set by a top state class whose writing tools read (nearly) every nested field: its first writing call after a
    # fork claims them all up front, as a top with fewer than `CLAIM_ON_READ_FROM` does. Claiming on read costs a
    # descriptor call and a class change per field read, which only the fields a call leaves unread pay back.
    claims_up_front: ClassVar[bool] = False
    # How this class's instances are built by the `build` speed lane, by the names given (`_shape`); None once the
    # class is known to be past the lane. Each class has its own (`__pydantic_init_subclass__`).
    _tw_shapes: ClassVar[dict[tuple[str, ...], _Shape | None] | None] = None

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        cls._field_names = frozenset(cls.model_fields)
        cls._fields_sets = {}
        cls._container_fields = tuple(
            name for name, info in cls.model_fields.items() if _may_hold_container(info.annotation)
        )
        cls._set_fields = tuple(name for name, info in cls.model_fields.items() if _is_set(info.annotation))
        cls._nested_fields = tuple(
            name for name, info in cls.model_fields.items() if _may_hold_container(info.annotation, models=True)
        )
        # The `claim_on_read` speed lane (`sandbox.lanes`, `sandbox.state.sharing`): off, every take copies up front.
        cls._claims_on_read = LANES_ON and len(cls._nested_fields) >= CLAIM_ON_READ_FROM and not cls.claims_up_front
        cls._tw_shapes = {}

    def __init__(self, /, **data: Any) -> None:
        # The `build` speed lane (`sandbox.lanes`): an entity a tool makes from values each already of its field's
        # type exactly, given in declaration order, is made as pydantic-core would make it, without validating the
        # values again: the given values, then the defaults, as its fields; the names given as its fields set (the
        # class's shared one, as `model_post_init` makes it); no extra or private values; no owner yet. A list or dict
        # given for a container field, holding items each exactly of the field's item type (an entity class, a scalar),
        # becomes a fresh tracked copy of itself holding those very items (`_contained`), as pydantic's copy tracked.
        if LANES_ON:
            shapes = type(self)._tw_shapes
            if shapes is not None:
                shape = shapes.get(tuple(data), _UNREAD)
                if shape is _UNREAD:
                    shape = _shape(type(self), tuple(data))
                if shape is not None:
                    fields_set, defaults, fields, containers = shape
                    for name, value in data.items():
                        field = fields[name]
                        kind = type(value)
                        if kind not in field.types or (not field.free and not fits(field, value, kind)):
                            break
                    else:
                        if not containers or _contained(data, containers):
                            if defaults:
                                data.update(defaults)
                            fill_slots(self, data, fields_set)  # `data`: the call's own dict of keyword arguments
                            _set_owner(self, None)
                            return
        BaseModel.__init__(self, **data)

    # Not a custom `__init__` to pydantic (as `BaseModel`'s own is not): pydantic-core keeps validating nested
    # instances (a state's entities, loaded from data) itself, without calling this.
    __init__.__pydantic_base_init__ = True  # type: ignore[attr-defined]

    @model_serializer(mode="wrap")
    def _serialize(self, handler: SerializerFunctionWrapHandler, info: SerializationInfo) -> Any:
        """Dumps are the same bytes in every process: sets are sorted (their iteration order
        follows per-process string hashing), and `omit_if_none` fields are left out while None.
        `internal_fields` are left out unless the context asks for them."""
        data = handler(self)
        if isinstance(data, dict):
            for name in self._set_fields:
                value = data.get(name)
                if isinstance(value, (list, set, frozenset)):
                    data[name] = _sorted(value)
            for name in self.omit_if_none:
                if name in data and data[name] is None:
                    del data[name]
            if self.internal_fields and info.context != WITH_INTERNAL:
                for name in self.internal_fields:
                    data.pop(name, None)
        return data

    def model_post_init(self, context: Any, /) -> None:
        # Every entity a tool creates, and every one a state is validated from, passes here: the slots are
        # written through their descriptors (`object.__setattr__` would look each one up first).
        _set_owner(self, None)  # fresh (see `adopt`); set so reading it is one slot read
        fields_set = self.__pydantic_fields_set__
        shared = self._fields_sets.setdefault(frozenset(fields_set), fields_set)
        if shared is not fields_set:
            _set_fields_set(self, shared)
        containers = self._container_fields
        if containers:
            values = self.__dict__
            for name in containers:
                value = values.get(name)
                if type(value) in _PLAIN_CONTAINERS:
                    values[name] = track(value)

    def __setattr__(self, name: str, value: Any) -> None:
        if name in self._field_names:
            journal = active_journal()
            if journal is not None:
                journal.attribute(self, name)
            self.__dict__[name] = value if type(value) in ATOMIC_TYPES else adopt(value, getattr(self, OWNER, None))
            fields_set = self.__pydantic_fields_set__
            if name not in fields_set:  # replaced, not changed in place: copies of this model share it
                _set_fields_set(self, fields_set | {name})
        else:
            super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"state field {name!r} cannot be deleted")

    def _tw_adopt(self, owner: Any) -> None:
        """Take generation `owner`, with the fresh objects in this fresh model's fields (`adopt`'s hook)."""
        _set_owner(self, owner)
        nested = self._nested_fields  # the only fields that can hold anything to adopt (`_may_hold_container`)
        if nested:  # none in most entities a tool makes (a message, a contact): nothing more to read
            fields = self.__dict__
            for name in nested:
                item = fields.get(name)
                if type(item) not in ATOMIC_TYPES:
                    fields[name] = adopt(item, owner)

    def _tw_copy_for(self, owner: Any) -> StateModel:
        """This model as generation `owner`'s shallow copy (`_claimed`'s hook, see `own`). Replaced by `own`
        itself once that is defined (below), so that a claim of an entity calls one function, not two."""
        return own(self, owner)


_PLAIN_CONTAINERS = frozenset({list, dict, set, tuple})

# The slots a model's data lives in, written through their descriptors: `object.__setattr__` would look
# each one up first, and a claimed model (the first writing call after every fork or restore) sets five.
# pydantic's four (and the bare object) are `sandbox.arguments`', which builds argument models the same way; the
# owner's is ours.
_set_owner = StateModel.__dict__[OWNER].__set__

WITH_INTERNAL: typing.Final = "with internal fields"
"""The `model_dump` context that keeps `internal_fields` (a string, so the context is immutable)."""


def _alternatives(annotation: Any) -> tuple[Any, ...] | None:
    """The types a union stands for (or an `Annotated` type's own type); None for other annotations."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return typing.get_args(annotation)[:1]
    if origin is typing.Union or origin is types.UnionType:
        return typing.get_args(annotation)
    return None


def _is_set(annotation: Any) -> bool:
    if (typing.get_origin(annotation) or annotation) in (set, frozenset):
        return True
    alternatives = _alternatives(annotation)
    return alternatives is not None and any(_is_set(arg) for arg in alternatives)


def _sorted(values: Any) -> list[Any]:
    items = list(values)
    try:
        return sorted(items)
    except TypeError:
        return sorted(items, key=repr)


def _may_hold_container(annotation: Any, models: bool = False) -> bool:
    """False only for annotations whose values can never be a list, dict, set or tuple (nor,
    with `models`, a model)."""
    if annotation in ATOMIC_TYPES:
        return False
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return False
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return models
    if typing.get_origin(annotation) is typing.Literal:
        return False
    alternatives = _alternatives(annotation)
    return alternatives is None or any(_may_hold_container(arg, models) for arg in alternatives)


def own_fields(model: StateModel, claims: list[Any] | None) -> None:
    """Claim again, for `model`'s own generation, the fields a release gave back shared."""
    _claim_fields(model, model.__dict__, model._nested_fields, getattr(model, OWNER, None), claims)


def own(model: StateModel, owner: Any, claims: list[Any] | None = None, fields: bool = True,
        kind: type[StateModel] | None = None) -> StateModel:
    """A shallow copy of `model` that generation `owner` may change in place: the model and
    the models and containers in its fields are copied, the items inside those containers
    are not (the containers copy them one by one as they hand them out). For an app's top
    model (`App._take`), the field copies are recorded in `claims` (the call's, see
    `Journal.release`), the top's by the caller.

    Without `fields`, the copy's fields hold the very objects `model`'s do: each must be claimed
    before anything changes it (`claim_on_read`). `kind` is the copy's class, if not `model`'s own (a twin
    of it that claims those fields on read: `sandbox.state.sharing.taken_on_read`)."""
    new = _new_object(type(model) if kind is None else kind)
    values = model.__dict__.copy()
    # Read through the instance (a twin `kind` has its model class's): on the class, pydantic's metaclass hook
    # triples the cost of the read (see `StateModel._tw_full`).
    nested = model._nested_fields
    if nested and fields:
        _claim_fields(new, values, nested, owner, claims)
    _set_dict(new, values)
    # Shared: a fields set is never changed in place (`__setattr__` and undo replace it).
    _set_fields_set(new, model.__pydantic_fields_set__)
    extra = model.__pydantic_extra__
    _set_extra(new, None if extra is None else dict(extra))
    private = model.__pydantic_private__
    _set_private(new, None if private is None else copy.copy(private))
    _set_owner(new, owner)
    return new


# `_claimed` looks the hook up on the model's class and calls it with (model, owner): `own`'s own signature.
type.__setattr__(StateModel, "_tw_copy_for", own)




def _claim_fields(model: StateModel, fields: dict[str, Any], nested: tuple[str, ...], owner: Any,
                  claims: list[Any] | None) -> None:
    for name in nested:
        item = fields.get(name)
        if type(item) in ATOMIC_TYPES or getattr(item, OWNER, None) is owner:  # `_claimed`'s first test, inline
            continue
        mine = _claimed(item, owner)
        if mine is not item:
            fields[name] = mine
            if claims is not None:
                claims.append((CLAIM_FIELD, model, name, mine, item))



CLAIM_ON_READ_FROM = 2
"""How many nested fields a top state model needs to claim them on read (`claim_on_read`). Each field
claimed on read costs a descriptor call and a class change more than claiming it up front, so it pays
only for the fields a call leaves unread: measured by instructions, a fork's first call to a todo list
(one field) cost 3% more on read, a banking login (reads two of five) 20% less. Two is enough since the top
copy is made of its twin class at once (`taken_on_read`, no class change at the take) and ACEBench's send reads
the contacts as they are (`read_only_state`): on its messages (contacts and inbox) a fork's first send_message
(bench/sharing.py's fork + first write at 1.8 KB) takes 118k instructions on read against 128k up front
(callgrind, PYTHONHASHSEED=0), and a first delete reads the inbox alone."""


# A container field the `build` lane makes (`_contained`): its name, the exact types its items may have, and for a
# dict the exact types of its keys (None for a list).
_Container = tuple[str, frozenset[type], frozenset[type] | None]
_Items = tuple[frozenset[type], frozenset[type] | None]  # a `_Container` without its name
# What the `build` lane knows of one set of names given to a class (`StateModel.__init__`): the fields set the
# instance gets, the defaults that follow the given values, every field's `Parameter`, and the container fields.
_Shape = tuple[set[str], dict[str, Any], dict[str, Parameter], tuple[_Container, ...]]
_UNREAD: Any = object()  # `_tw_shapes`' mark of names not met yet

MAX_SHAPES = 32
"""How many sets of names given a class's `build` lane remembers (`_shape`); past them, each other set goes the
plain way. A tool gives the same names on every call; names from data could otherwise fill memory."""


def _shape(kind: type[StateModel], names: tuple[str, ...]) -> _Shape | None:
    """How the `build` lane makes an instance of `kind` from values given for `names` (the given values each of its
    field's type checked by the caller), or None where pydantic-core must: names out of declaration order, a
    required field not given, a class past the lane (then for good: `_tw_shapes` becomes None), or one that has
    `MAX_SHAPES` already (each new set of names goes the plain way, without reading the schema again)."""
    shapes = kind._tw_shapes
    if shapes is None or len(shapes) >= MAX_SHAPES:
        return None
    if not kind.__pydantic_complete__:  # a forward reference still unresolved: pydantic says what to do
        return None
    schema = kind.__pydantic_core_schema__
    containers = _containers(schema, kind._container_fields)
    fields = None if containers is None else scalar_fields(schema, {name: made[0] for name, made in containers.items()})
    # The builder stands for pydantic-core and `StateModel.model_post_init` only: no other post-init hook (pydantic
    # wraps it for private attributes too), every field that may hold a container one it makes (`_containers`).
    if fields is None or containers is None or kind.__private_attributes__ \
            or kind.model_post_init is not StateModel.model_post_init:
        type.__setattr__(kind, "_tw_shapes", None)
        return None
    declared = tuple(fields)
    given = len(names)
    rest = declared[given:]
    shape: _Shape | None = None
    # A container field's default is never filled in (its `Parameter` says required): pydantic copies it.
    if names == declared[:given] and all(fields[name].default is not REQUIRED for name in rest):
        defaults = {name: fields[name].default for name in rest}
        made = tuple((name, *containers[name][1]) for name in names if name in containers)
        shape = (kind._fields_sets.setdefault(frozenset(names), set(names)), defaults, fields, made)
    shapes[names] = shape
    return shape


def _contained(data: dict[str, Any], containers: tuple[_Container, ...]) -> bool:
    """Whether each container given for a field of `containers` (a list or dict, its type checked by the caller, or
    None) holds only items (and keys) each exactly of a type the field takes; if so, each is put in `data` as
    pydantic-core and `StateModel.model_post_init` would make it: a tracked copy holding the very same items (an
    entity given is kept as it is, `revalidate_instances="never"`), fresh. Nothing in `data` changes otherwise."""
    for name, items, keys in containers:
        value = data[name]
        if value is None:
            continue
        if keys is None:
            for item in value:
                if type(item) not in items:
                    return False
        else:
            for key, item in value.items():
                if type(key) not in keys or type(item) not in items:
                    return False
    for name, _, keys in containers:
        value = data[name]
        if value is not None:
            made: Any = TrackedList(value) if keys is None else TrackedDict(value)
            made._tw_all = None
            made._tw_owner = None  # fresh, as `track` leaves it
            data[name] = made
    return True


# The scalar item (and key) schemas whose values pydantic-core keeps as they are when each is exactly of its type.
_ITEM_TYPES = MappingProxyType({"str": str, "int": int, "float": float, "bool": bool})
_KEY_TYPES = frozenset({"str", "int"})


def _containers(schema: Any, names: tuple[str, ...]) -> dict[str, tuple[Parameter, _Items]] | None:
    """For each of a model schema's fields `names` (those that may hold a container), the `Parameter` the lane
    checks the value given with (a list or dict, maybe None; never filled in from a default) and the exact types
    of the items (and keys) it may hold; None if any is past the lane: anything but a list of entities or plain
    scalars, or a dict of them by text or integer keys, with no bounds, strictness or validators."""
    if not isinstance(schema, dict) or schema.get("type") != "model":
        return None
    fields = schema.get("schema", {}).get("fields", {})
    read: dict[str, tuple[Parameter, _Items]] = {}
    for name in names:
        field = fields.get(name)
        if not isinstance(field, dict) or set(field) - {"type", "schema", "metadata"}:
            return None
        parts = unwrapped(field.get("schema", {}))
        if parts is None:
            return None
        inner, _, nullable = parts  # a default container is copied by pydantic: a shape must give one (`Parameter`)
        kind = inner.get("type")
        keys: frozenset[type] | None = None
        if kind == "list" and not set(inner) - {"type", "items_schema", "metadata"}:
            items = _item_types(inner.get("items_schema"))
            container: type = list
        elif kind == "dict" and not set(inner) - {"type", "keys_schema", "values_schema", "metadata"}:
            key_schema = inner.get("keys_schema")
            keys = _item_types(key_schema) if isinstance(key_schema, dict) and key_schema.get("type") in _KEY_TYPES \
                else None
            if keys is None:
                return None
            items = _item_types(inner.get("values_schema"))
            container = dict
        else:
            return None
        if items is None:
            return None
        types = frozenset({container, type(None)} if nullable else {container})
        read[name] = (Parameter(types, None, None, REQUIRED), (items, keys))
    return read


def _item_types(schema: Any) -> frozenset[type] | None:
    """The one exact type an item schema keeps a value of as it is: a plain scalar's, or a state model's (whose
    instances pydantic-core never validates again, `revalidate_instances="never"`); None for any other schema."""
    if not isinstance(schema, dict):
        return None
    kind = schema.get("type")
    item = _ITEM_TYPES.get(kind) if type(kind) is str else None
    if item is not None:
        return frozenset({item}) if not set(schema) - {"type", "metadata"} else None
    if kind != "model":
        return None
    cls = schema.get("cls")
    config = schema.get("config", {})
    if not (isinstance(cls, type) and issubclass(cls, StateModel)) or schema.get("root_model") \
            or config.get("revalidate_instances", "never") != "never":
        return None
    return frozenset({cls})
