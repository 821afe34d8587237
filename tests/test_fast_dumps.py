"""`plain` of a model skips `StateModel`'s wrap serializer where it has nothing to do (`sandbox.dumps`),
and its output is the class's own serializer's, warnings included, for any value the fields may hold.

The lean serializer is the `dumps` speed lane (`sandbox.lanes`): the tests hold it (`lean_serializer`,
built whatever the switch says) and `plain` (which takes the lane only when the lanes are on) to the
class's own serializer on the same values in one process."""

from __future__ import annotations

import copy
import enum
import functools
import json
import warnings
from typing import Any, Literal

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field, computed_field, field_serializer

from sandbox import App, World
from sandbox.dumps import lean_serializer, list_serializer_of, serializer_of
from sandbox.lanes import LANES_ON
from sandbox.state import StateModel, TrackedDict, TrackedList, _idle_wrapper, plain, plain_fields
from scenarios.registry import FAMILIES, family


class Level(enum.Enum):
    LOW = 1.5
    OFF_THE_SCALE = float("inf")


class Leaf(StateModel):
    name: str
    level: Level = Level.LOW
    size: int = 0
    ratio: float = 0.5
    flag: bool = False
    note: str | None = None
    kind: Literal["a", "b", 1] = "a"


class Plain(BaseModel):
    label: str = ""
    count: int = 0


class Sparse(StateModel):
    text: str = ""
    when: str | None = None

    omit_if_none = frozenset({"when"})


class Hidden(StateModel):
    visible: int = 0
    queued: list[int] = []

    internal_fields = frozenset({"queued"})


class Tagged(StateModel):
    tags: set[str] = set()


class Custom(StateModel):
    secret: str = ""
    alias_me: int = Field(default=0, serialization_alias="aliased")
    dropped: int = Field(default=0, exclude=True)

    @field_serializer("secret")
    def _mask(self, value: str) -> str:
        return "*" * len(value)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def doubled(self) -> int:
        return self.alias_me * 2


class Child(Leaf):
    extra: str = ""


class Root(StateModel):
    leaf: Leaf = Leaf(name="root")
    leaves: list[Leaf] = []
    by_id: dict[int, Leaf] = {}
    by_name: dict[str, list[int]] = {}
    maybe: Leaf | None = None
    plain_model: Plain = Plain()
    sparse: list[Sparse] = []
    hidden: Hidden = Hidden()
    tagged: Tagged = Tagged()
    custom: Custom = Custom()
    anything: Any = None
    nested: list[list[str]] = []


MODELS: tuple[type[BaseModel], ...] = (Leaf, Plain, Sparse, Hidden, Tagged, Custom, Child, Root)

# Values of the right types and of wrong ones (state assignment is not validated, so a tool may
# put anything anywhere): subclasses, numbers for text, text for numbers, huge and odd floats.
_scalars = st.one_of(
    st.text(max_size=6), st.integers(), st.integers(min_value=-(2**70), max_value=2**70), st.booleans(),
    st.none(), st.floats(allow_nan=False), st.sampled_from([float("inf"), -float("inf"), 1e308, -0.0]),
    st.sampled_from(["a", "b", 1, True, 1.0]),
)
_values = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.lists(inner, max_size=3).map(TrackedList),
        st.dictionaries(st.one_of(st.text(max_size=3), st.integers(-3, 3), st.booleans()), inner, max_size=3),
        st.dictionaries(st.integers(-3, 3), inner, max_size=3).map(TrackedDict),
        st.tuples(inner, inner), st.sets(st.text(max_size=3), max_size=3),
        st.builds(Leaf, name=st.text(max_size=3)), st.builds(Child, name=st.text(max_size=3)),
        st.builds(Plain), st.builds(Sparse, when=st.one_of(st.none(), st.text(max_size=3))),
        st.builds(Hidden), st.builds(Tagged, tags=st.sets(st.text(max_size=3), max_size=3)),
    ),
    max_leaves=6,
)


def _dumped(value: BaseModel, dump: Any) -> tuple[str, Any, list[str]]:
    """What a dump gives (or raises) and the distinct problems its warnings report (the wrapper's
    extra pass repeats some, and groups them into warnings its own way)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            outcome: tuple[str, Any] = ("value", dump(value))
        except Exception:
            # Raised by the model's own code (a computed field here): without the wrapper the error is
            # that code's own, not pydantic's report of it, so only the fact is compared.
            outcome = ("raised", None)
    problems = {line.strip() for w in caught for line in str(w.message).splitlines()[1:]}
    return (*outcome, sorted(problems))


def _serializer(value: BaseModel) -> Any:
    return type(value).__pydantic_serializer__.to_python(value, mode="json")


@functools.cache
def _lean_of(kind: type[BaseModel]) -> Any:
    return lean_serializer(kind, _idle_wrapper)


def _lean(value: BaseModel) -> Any:
    """The lane's dump, whatever the switch says."""
    return _lean_of(type(value)).to_python(value, mode="json")


@settings(max_examples=300, deadline=None)
@given(model=st.sampled_from(MODELS), data=st.data())
def test_plain_gives_the_serializers_own_output_for_any_field_values(model: type[BaseModel], data: Any) -> None:
    instance = model() if model not in (Leaf, Child) else model(name="x")
    for name in data.draw(st.lists(st.sampled_from(sorted(model.model_fields)), max_size=4, unique=True)):
        instance.__dict__[name] = data.draw(_values)
    theirs = _dumped(instance, _serializer)
    for dump in (plain, _lean):
        _same_as_the_serializers(instance, _dumped(instance, dump), theirs)


def _same_as_the_serializers(instance: BaseModel, ours: tuple[str, Any, list[str]],
                             theirs: tuple[str, Any, list[str]]) -> None:
    if theirs[0] == "raised" and ours[0] == "value":
        # The one way the serializer fails and the lean one does not: `StateModel`'s wrapper run on
        # an object of another class put in a model field, which lacks the class variables it reads.
        event("the wrapper failed on a foreign object")
        assert any(type(value) is not Leaf and isinstance(value, BaseModel) for value in _models_in(instance))
        return
    if theirs[0] == "raised":
        assert ours[0] == "raised"  # where it stopped, and so what it warned of first, may differ
        return
    if theirs[2]:
        # A value of the wrong type (put there without validation): pydantic warns that the dump "may
        # not be as expected", and with the wrapper it re-reads the model by inference, which writes,
        # e.g., an infinite float as null. The lean dump warns of the same problems.
        event("the serializer warned")
        assert ours[0] == "value" and ours[2] == theirs[2]
        return
    assert ours == theirs


_texts = st.text(max_size=5)
_leaves = st.builds(Leaf, name=_texts, size=st.integers(), flag=st.booleans(), note=st.none() | _texts,
                    ratio=st.floats(allow_nan=False) | st.sampled_from([float("inf"), -0.0]),
                    kind=st.sampled_from(["a", "b", 1]), level=st.sampled_from(Level))
_roots = st.builds(
    Root, leaf=_leaves, leaves=st.lists(_leaves, max_size=3), by_id=st.dictionaries(st.integers(), _leaves, max_size=3),
    by_name=st.dictionaries(_texts, st.lists(st.integers(), max_size=3), max_size=3), maybe=st.none() | _leaves,
    plain_model=st.builds(Plain, label=_texts, count=st.integers()),
    sparse=st.lists(st.builds(Sparse, text=_texts, when=st.none() | _texts), max_size=3),
    hidden=st.builds(Hidden, visible=st.integers(), queued=st.lists(st.integers(), max_size=3)),
    tagged=st.builds(Tagged, tags=st.sets(_texts, max_size=3)),
    custom=st.builds(Custom, secret=_texts, alias_me=st.integers(-100, 100), dropped=st.integers()),
    anything=_values, nested=st.lists(st.lists(_texts, max_size=3), max_size=3),
)


@settings(max_examples=200, deadline=None)
@given(root=_roots, whole=st.integers(-(2**53), 2**53))
def test_plain_gives_the_serializers_own_output_for_well_typed_state(root: Root, whole: int) -> None:
    root.leaf.ratio = whole  # an integer in a float field, as a tool may leave it: dumped as a float
    assert _dumped(root, plain) == _dumped(root, _serializer) == _dumped(root, _lean)
    assert _dumped(root, plain)[2] == []


def _models_in(value: Any) -> list[Any]:
    if isinstance(value, BaseModel):
        return [value, *(m for item in value.__dict__.values() for m in _models_in(item))]
    if isinstance(value, dict):
        return [m for item in value.values() for m in _models_in(item)]
    if isinstance(value, (list, tuple, set)):
        return [m for item in value for m in _models_in(item)]
    return []


@pytest.mark.parametrize("model", MODELS)
def test_a_model_dumps_as_model_dump_says(model: type[BaseModel]) -> None:
    instance = model() if model not in (Leaf, Child) else model(name="x")
    assert plain(instance) == instance.model_dump(mode="json")


def test_fields_come_in_the_order_of_the_instance_dict_as_the_serializer_gives_them() -> None:
    leaf = Leaf(name="x")
    fields = dict(leaf.__dict__)
    leaf.__dict__.clear()
    leaf.__dict__.update(reversed(list(fields.items())))
    assert list(plain(leaf)) == list(_serializer(leaf)) == list(reversed(list(fields)))


def test_the_switch_decides_which_serializer_dumps_use() -> None:
    if LANES_ON:
        assert serializer_of(Leaf, _idle_wrapper) is serializer_of(Leaf, _idle_wrapper)  # built once
        assert serializer_of(Leaf, _idle_wrapper) is not Leaf.__pydantic_serializer__
    else:
        assert serializer_of(Leaf, _idle_wrapper) is Leaf.__pydantic_serializer__


def test_only_idle_wrappers_are_left_out() -> None:
    # Leaf's wrapper has nothing to do; Sparse, Hidden and Tagged's have (omissions, sorting).
    assert lean_serializer(Leaf, _idle_wrapper) is not Leaf.__pydantic_serializer__
    for busy in (Sparse, Hidden, Tagged):
        assert lean_serializer(busy, _idle_wrapper) is busy.__pydantic_serializer__
        assert serializer_of(busy, _idle_wrapper) is busy.__pydantic_serializer__
    assert lean_serializer(Plain, _idle_wrapper) is Plain.__pydantic_serializer__  # no wrapper at all
    assert serializer_of(Plain, _idle_wrapper) is Plain.__pydantic_serializer__
    # A subclass inherits the class attribute that holds the parent's serializer, and gets its own.
    assert serializer_of(Child, _idle_wrapper) is not serializer_of(Leaf, _idle_wrapper)
    assert plain(Child(name="x", extra="y"))["extra"] == "y"
    # Root keeps its busy children's wrappers inside its own lean serializer.
    root = Root(sparse=[Sparse()], hidden=Hidden(queued=[1]), tagged=Tagged(tags={"b", "a"}))
    dumped = plain(root)
    assert dumped["sparse"] == [{"text": ""}] and dumped["hidden"] == {"visible": 0}
    assert dumped["tagged"] == {"tags": ["a", "b"]}


class _Real(float):
    """A float subclass: the typed serializer writes it as a plain float, infinite ones too."""


@pytest.mark.parametrize("ratio", [
    float("inf"), -float("inf"), float("nan"), _Real(float("inf")), _Real(float("nan")), _Real(-1.5), 2.5, -0.0,
    1e308, 3, True, 2**70, 10**400, None, "x", b"x", [1.5], Level.OFF_THE_SCALE,
], ids=repr)
def test_a_float_field_dumps_as_under_the_wrapper_whatever_it_holds(ratio: Any) -> None:
    """The lean float field (a plain serializer nulling non-finite floats, then the typed one) gives what the
    class's wrapper gives: a non-finite float (of a subclass too) as None, anything else as the typed
    serializer writes it, with its warnings; alone and in the list serializer `sandbox.results` uses."""
    leaf = Leaf(name="x")
    leaf.__dict__["ratio"] = ratio
    theirs = _dumped(leaf, _serializer)
    ours = _dumped(leaf, _lean)
    assert ours[0] == theirs[0] and ours[2] == theirs[2]  # raised or not, and the same warnings
    if theirs[0] == "value" and not theirs[2]:  # a value of the wrong type: see `_same_as_the_serializers`
        assert repr(ours[1]) == repr(theirs[1])
        listed = list_serializer_of(Leaf, _idle_wrapper)
        if LANES_ON:
            assert listed is not None
            assert repr(listed.to_python([leaf, leaf], mode="json")) == repr([theirs[1], theirs[1]])


def test_the_class_schema_is_left_as_it_was() -> None:
    class Fresh(StateModel):
        items: list[Leaf] = []

    before = copy.deepcopy(Fresh.__pydantic_core_schema__)
    plain(Fresh(items=[Leaf(name="x")]))
    lean_serializer(Fresh, _idle_wrapper).to_python(Fresh(items=[Leaf(name="x")]), mode="json")
    assert Fresh.__pydantic_core_schema__ == before


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_every_scenario_state_dumps_as_its_serializer_does(name: str) -> None:
    world: World = family(name).build_world()
    for app in world.apps.values():
        state = app._state
        assert _dumped(state, plain) == _dumped(state, _serializer) == _dumped(state, _lean)
        # What `World.state()` reports is, key order included, what pydantic's own dump gives.
        dumped = app.dump()
        assert dumped == state.model_dump(mode="json")
        assert json.dumps(dumped) == json.dumps(state.model_dump(mode="json"))


class RootApp(App[Root]):
    """An app whose state is a `Root`, to dump part of it as `App.dump(fields)` does."""


def _restricted(whole: dict[str, Any], names: list[str]) -> dict[str, Any]:
    return {name: whole[name] for name in names if name in whole}


@settings(max_examples=100, deadline=None)
@given(root=_roots, order=st.permutations(list(Root.model_fields)), count=st.integers(0, len(Root.model_fields)),
       sparse=st.builds(Sparse, text=_texts, when=st.none() | _texts),
       hidden=st.builds(Hidden, visible=st.integers(), queued=st.lists(st.integers(), max_size=3)),
       tagged=st.builds(Tagged, tags=st.sets(_texts, max_size=3)))
def test_dumping_some_fields_gives_what_the_whole_dump_holds_under_them(
        root: Root, order: list[str], count: int, sparse: Sparse, hidden: Hidden, tagged: Tagged) -> None:
    """`App.dump(fields)` (through `plain_fields`) serializes only the fields named, in their order, as the
    whole dump does: tops whose wrapper omits a None, leaves out an internal field or sorts a set too."""
    names = order[:count]
    assert json.dumps(RootApp(root).dump(names)) == json.dumps(_restricted(plain(root), names))
    for top in (sparse, hidden, tagged):
        every = list(reversed(type(top).model_fields))
        assert json.dumps(_restricted(plain_fields(top, every), every)) == json.dumps(_restricted(plain(top), every))


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_every_scenario_app_dumps_any_of_its_fields_as_its_whole_dump_holds_them(name: str) -> None:
    world: World = family(name).build_world()
    for app in world.apps.values():
        whole, fields = app.dump(), list(reversed(type(app._state).model_fields))
        assert json.dumps(app.dump(fields)) == json.dumps(_restricted(whole, fields))
        for field in fields:
            assert app.dump([field]) == _restricted(whole, [field])
