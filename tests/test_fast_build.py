"""The `build` speed lane (`sandbox.lanes`): a state model made from values each already of its field's type,
given in declaration order, is made without pydantic validating them again (`StateModel.__init__`).

The tests hold the lane to the plain path, pydantic's own `BaseModel.__init__` (with `StateModel.model_post_init`),
on the same keyword arguments in one process: the same instance (fields in the same order, the same shared fields
set, no extra or private values, no owner), or the same validation errors; and a class past the lane is built the
plain way."""

from __future__ import annotations

import itertools
from typing import Any, Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field, PrivateAttr, ValidationError, field_validator

from sandbox.journal import ALL_OWNED
from sandbox.lanes import LANES_ON
from sandbox.state import OWNER, StateModel, TrackedDict, TrackedList, plain
from sandbox.state.model import MAX_SHAPES
from scenarios.acebench.message import Message, MessageState


class Entity(StateModel):
    name: str
    size: int = 0
    ratio: float = 0.5
    flag: bool = False
    note: str | None = None
    kind: Literal["a", "b"] = "a"
    short: str = Field(default="", max_length=3)
    count: int = Field(default=1, ge=0, le=9)


class Strict(StateModel):
    code: int
    label: str


class Listed(StateModel):  # a container field of scalars, with a default (never filled in by the lane)
    name: str = ""
    tags: list[str] = []


class Line(StateModel):  # the entities in the containers below
    name: str = ""
    size: int = 0


class SubLine(Line):  # pydantic keeps it as it is too, but the lane takes exactly the field's item class
    pass


class Holder(StateModel):  # lists of entities and of scalars, maybe None: the lane's containers
    title: str
    lines: list[Line]
    tags: list[str] | None = None


class Keyed(StateModel):  # dicts of entities and of scalars, by text or integer keys
    by_name: dict[str, Line]
    counts: dict[int, float] = {}


class Nested(StateModel):  # a list of lists: past the lane
    groups: list[list[str]] = []


class Grouped(StateModel):  # a set: past the lane
    members: set[str] = set()


class Hooked(StateModel):  # its own post-init hook: past the lane
    name: str = ""

    def model_post_init(self, context: Any, /) -> None:
        super().model_post_init(context)


class Private(StateModel):  # private attributes: past the lane
    name: str = ""
    _cache: int = PrivateAttr(default=0)


class Checked(StateModel):  # a field validator: past the lane
    name: str = ""

    @field_validator("name")
    @classmethod
    def _upper(cls, value: str) -> str:
        return value.upper()


CLASSES = (Entity, Strict, Listed, Hooked, Private, Checked, Message, Holder, Keyed, Nested, Grouped)


def _plain(kind: type[StateModel], data: dict[str, Any]) -> StateModel:
    """The instance pydantic makes of `data` (the path the lane stands in for)."""
    model = kind.__new__(kind)
    BaseModel.__init__(model, **data)
    return model


def _made(kind: type[StateModel], data: dict[str, Any], plain_path: bool) -> StateModel | list[dict[str, Any]]:
    try:
        return _plain(kind, dict(data)) if plain_path else kind(**dict(data))
    except ValidationError as exc:
        return exc.errors(include_url=False)


def _state_of(model: StateModel, given: dict[int, Any]) -> tuple[Any, ...]:
    return (type(model), [(name, _value_of(value, given)) for name, value in model.__dict__.items()],
            model.__pydantic_fields_set__, model.__pydantic_extra__, model.__pydantic_private__, getattr(model, OWNER),
            plain(model))


def _value_of(value: Any, given: dict[int, Any]) -> Any:
    """A field's value; a container as its type, its slots and its items (and keys): an entity of those `given` (by
    id) as the very one, any other as its state."""
    if isinstance(value, (TrackedList, TrackedDict)):
        pairs = dict.items(value) if isinstance(value, dict) else enumerate(list.__iter__(value))  # nothing claimed
        return (type(value), getattr(value, OWNER), getattr(value, ALL_OWNED),
                [(key, type(key), ("given", id(item)) if given.get(id(item)) is item
                  else _state_of(item, given) if isinstance(item, StateModel) else (type(item), item))
                 for key, item in pairs])
    return value


def _given(data: dict[str, Any]) -> dict[int, Any]:
    """The objects in the containers given, by id (kept alive by `data`)."""
    found: dict[int, Any] = {}
    for value in data.values():
        for item in value.values() if isinstance(value, dict) else value if isinstance(value, list) else ():
            found[id(item)] = item
    return found


def _owned(line: Line) -> Line:
    object.__setattr__(line, OWNER, object())  # some generation's already: pydantic keeps it as it is all the same
    return line


lines = st.one_of(st.builds(Line, name=st.text(max_size=2), size=st.integers(0, 3)),
                  st.builds(Line, name=st.text(max_size=2)).map(_owned), st.builds(SubLine),
                  st.fixed_dictionaries({"name": st.text(max_size=2)}), st.none(), st.integers(0, 2))
scalars = st.one_of(st.none(), st.booleans(), st.integers(-20, 20), st.floats(allow_nan=False), st.text(max_size=5))
values = st.one_of(scalars, st.sampled_from(["a", "b", "c", "abcd", "é", "\ud800"]),
                   st.lists(st.text(max_size=2), max_size=2), st.lists(lines, max_size=3),
                   st.dictionaries(st.one_of(st.text(max_size=2), st.integers(0, 3)), lines, max_size=2))


@st.composite
def arguments(draw: st.DrawFn) -> tuple[type[StateModel], dict[str, Any]]:
    kind = draw(st.sampled_from(CLASSES))
    names = list(kind.model_fields)
    if draw(st.booleans()):  # declaration order, a prefix: the lane's shapes
        given = names[: draw(st.integers(0, len(names)))]
    else:
        given = draw(st.lists(st.sampled_from([*names, "other"]), unique=True, max_size=len(names) + 1))
    fields = kind.model_fields
    return kind, {name: draw(_typed(fields[name].annotation) if name in fields and draw(st.integers(0, 9)) else values)
                  for name in given}


def _typed(annotation: Any) -> st.SearchStrategy[Any]:
    """Values mostly of a field's own type (some past its bounds or choices): the lane's inputs."""
    typed: dict[Any, st.SearchStrategy[Any]] = {
        str: st.text(max_size=5), int: st.integers(-2, 12), float: st.floats(allow_nan=False), bool: st.booleans(),
        str | None: st.one_of(st.none(), st.text(max_size=3)), Literal["a", "b"]: st.sampled_from(["a", "b", "c"]),
        list[str]: st.lists(st.one_of(st.text(max_size=2), scalars), max_size=3),
        list[str] | None: st.one_of(st.none(), st.lists(st.one_of(st.text(max_size=2), scalars), max_size=3)),
        list[Line]: st.lists(lines, max_size=3),
        dict[str, Line]: st.dictionaries(st.one_of(st.text(max_size=2), st.integers(0, 2)), lines, max_size=3),
        dict[int, float]: st.dictionaries(st.one_of(st.integers(0, 3), st.booleans(), st.text(max_size=1)),
                                          st.one_of(st.floats(allow_nan=False), st.integers(0, 2)), max_size=3),
    }
    return typed.get(annotation, values)


@settings(max_examples=400, deadline=None)
@given(arguments())
def test_the_lane_makes_what_pydantic_makes(case: tuple[type[StateModel], dict[str, Any]]) -> None:
    kind, data = case
    lane, plain_made = _made(kind, data, plain_path=False), _made(kind, data, plain_path=True)
    if isinstance(plain_made, list):
        assert lane == plain_made
    else:
        assert isinstance(lane, StateModel)
        given = _given(data)
        assert _state_of(lane, given) == _state_of(plain_made, given)
        # One fields set per set of names, shared by the instances that have it (`StateModel._fields_sets`).
        assert lane.__pydantic_fields_set__ is plain_made.__pydantic_fields_set__


def test_the_lane_is_taken_where_it_can_be() -> None:
    class Fresh(Entity):  # shapes of its own, none remembered yet
        pass

    made = Fresh(name="x", size=3)
    assert list(made.__dict__) == list(Fresh.model_fields)
    assert made.model_fields_set == {"name", "size"}
    shapes = Fresh._tw_shapes
    if not LANES_ON:
        assert shapes == {}  # never consulted
        return
    assert shapes is not None and shapes[("name", "size")] is not None
    Fresh(size=3, name="x")  # out of declaration order: pydantic's way, remembered
    assert shapes[("size", "name")] is None
    for kind in (Nested, Grouped, Hooked, Private, Checked):
        kind()
        assert kind._tw_shapes is None, kind
    Listed()  # a container left to its default: pydantic's way (it copies the default), the class still in the lane
    assert Listed._tw_shapes is not None and Listed._tw_shapes[()] is None
    line = Line(name="a")
    held = Holder(title="x", lines=[line], tags=None)
    assert Holder._tw_shapes is not None and Holder._tw_shapes[("title", "lines", "tags")] is not None
    assert type(held.lines) is TrackedList and held.lines[0] is line and getattr(held.lines, OWNER) is None
    keyed = Keyed(by_name={"a": line}, counts={1: 0.5})
    assert Keyed._tw_shapes is not None and Keyed._tw_shapes[("by_name", "counts")] is not None
    assert type(keyed.counts) is TrackedDict and dict.__getitem__(keyed.by_name, "a") is line


def test_a_built_container_is_adopted_with_its_entities() -> None:
    """What a state does with an entity a tool makes, whichever way it was made: put in, it and the entities in its
    containers take the state's generation (`adopt`)."""
    line = Line(name="a")
    held = Holder(title="x", lines=[line])
    state = Keyed(by_name={})
    owner = object()
    object.__setattr__(state, OWNER, owner)
    object.__setattr__(state.by_name, OWNER, owner)
    state.by_name["h"] = Line(name="h")
    assert getattr(dict.__getitem__(state.by_name, "h"), OWNER) is owner
    box = Holder(title="y", lines=[])
    object.__setattr__(box, OWNER, owner)
    object.__setattr__(box.lines, OWNER, owner)
    box.lines.append(line)
    assert getattr(line, OWNER) is owner
    assert getattr(held.lines, OWNER) is None  # the built list itself was not put in anywhere


def test_the_callers_values_are_not_changed() -> None:
    data = {"sender_id": "a", "receiver_id": "b", "message": "c"}
    made = Message(**data)
    assert data == {"sender_id": "a", "receiver_id": "b", "message": "c"}
    made.__dict__["message"] = "d"
    assert data["message"] == "c"


def test_a_class_remembers_a_bounded_number_of_shapes() -> None:
    class Wide(StateModel):
        a: int = 0
        b: int = 0
        c: int = 0
        d: int = 0
        e: int = 0
        f: int = 0

    names = list(Wide.model_fields)
    for order in itertools.islice(itertools.permutations(names, 3), 3 * MAX_SHAPES):
        Wide(**dict.fromkeys(order, 1))
    shapes = Wide._tw_shapes
    assert shapes is not None
    assert len(shapes) == (MAX_SHAPES if LANES_ON else 0)
    made = Wide(a=1, b=2)  # a set of names past the bound: made the plain way, the same instance
    assert list(made.__dict__.items()) == [("a", 1), ("b", 2), ("c", 0), ("d", 0), ("e", 0), ("f", 0)]
    assert made.model_fields_set == {"a", "b"} and ("a", "b") not in shapes


def test_pydantic_still_builds_nested_entities_itself() -> None:
    """`StateModel.__init__` is not a custom `__init__` to pydantic: entities loaded with a state are validated
    by pydantic-core, each with its fields set and a tracked container around them."""
    assert Message.__pydantic_custom_init__ is False
    state = MessageState.model_validate({"inbox": {"1": {"sender_id": "a", "receiver_id": "b", "message": "hi"}}})
    assert type(state.inbox) is TrackedDict
    message = dict.__getitem__(state.inbox, 1)
    assert type(message) is Message and message.model_fields_set == {"sender_id", "receiver_id", "message"}
    with pytest.raises(ValidationError):
        Message(sender_id="a", receiver_id="b")  # a required field missing: pydantic's error
