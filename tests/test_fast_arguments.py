"""The scalar fast lane (`sandbox.arguments`) accepts only what the full path accepts, and gives the same values.

Every call the lane takes must leave the same record as the limit walk + pydantic + the
integer check would have; anything it is unsure of goes the full way, which words the error.
"""

from __future__ import annotations

import dataclasses
import json
import math
from types import MappingProxyType
from typing import Annotated, Any, Literal

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, Strict, ValidationError, field_serializer

from sandbox import App, StateModel, World, tool
from sandbox.input_limits import DEFAULT_LIMITS, InputLimits, LimitExceeded
from sandbox.limit_walk import check_integers, checked_copy
from sandbox.state import plain
from sandbox.tools import ToolSpec, build_spec


class Empty(StateModel):
    pass


def _scalars(
    self: Any,
    name: Annotated[str, Field(min_length=2, max_length=8)],
    count: Annotated[int, Field(ge=0, lt=1000)],
    ratio: float = 0.5,
    flag: bool = False,
    note: str | None = None,
    kind: Literal["food", "book"] = "food",
    size: int | None = 3,
) -> dict:
    """Scalars of every kind the lane handles."""
    return {}


SCALARS = build_spec(_scalars, name="scalars")
NAMES = ("name", "count", "ratio", "flag", "note", "kind", "size", "other")
VALUES = st.one_of(
    st.text(max_size=12), st.sampled_from(["food", "book", "ab", "é", "a\udc00", "x" * 20_000]),
    st.integers(min_value=-10, max_value=2_000), st.sampled_from([10**70, -(10**70), 2**63]),
    st.floats(allow_nan=True, allow_infinity=True), st.booleans(), st.none(),
    st.sampled_from(["5", "1.5", "true", 1.0, [1], {"a": 1}]),
)
ASCII = st.characters(codec="ascii")
PLAUSIBLE = st.sampled_from(["food", "book", "a note", 0.25, 1.5, True, False, None, 5, 0])
# Mostly calls with the required parameters right, so the lane has something to accept.
REQUIRED = st.fixed_dictionaries({"name": st.one_of(st.text(ASCII, min_size=2, max_size=8), VALUES),
                                  "count": st.one_of(st.integers(min_value=0, max_value=999), VALUES)})
EXTRA = st.dictionaries(st.sampled_from(NAMES), st.one_of(PLAUSIBLE, VALUES), max_size=3)
ARGUMENTS = st.builds(lambda base, extra, first: {**extra, **base} if first else {**base, **extra},
                      st.one_of(REQUIRED, st.just({})), EXTRA, st.booleans())
# Calls the lane should take, with the odd value past it.
VALID = st.fixed_dictionaries(
    {"name": st.text(ASCII, min_size=2, max_size=8), "count": st.integers(min_value=0, max_value=999)},
    optional={"ratio": st.one_of(st.floats(), st.integers()), "flag": st.booleans(),
              "note": st.one_of(st.none(), st.text(max_size=5)), "kind": st.sampled_from(["food", "book", "toy"]),
              "size": st.one_of(st.none(), st.integers(), st.just(10**70)), "other": st.just(1)},
)


def _full_path(spec: ToolSpec, arguments: dict[str, Any], strict: bool, limits: InputLimits) -> Any:
    """What the full path makes of the arguments: (raw, kwargs, validated), or the exception class it stops with."""
    try:
        raw = checked_copy(arguments, limits)
        kwargs = spec.validator.validate_python(arguments, strict=strict, extra="forbid").__dict__
        if not strict:
            check_integers(kwargs, limits)
    except (LimitExceeded, ValidationError) as exc:
        return type(exc)
    return raw, kwargs, kwargs if spec.atomic_args else plain(kwargs)


def _same_value(a: Any, b: Any) -> bool:
    """Equal values of equal types, all the way down, dicts in the same key order (NaN equal to itself);
    model instances with the same fields, fields set, extra and private values."""
    if type(a) is not type(b):
        return False
    if isinstance(a, BaseModel):
        return all(_same_value(getattr(a, name), getattr(b, name)) for name in
                   ("__dict__", "__pydantic_fields_set__", "__pydantic_extra__", "__pydantic_private__"))
    if type(a) is dict:
        return list(a) == list(b) and all(_same_value(a[key], b[key]) for key in a)
    if type(a) is list:
        return len(a) == len(b) and all(_same_value(x, y) for x, y in zip(a, b, strict=True))
    return a == b or (isinstance(a, float) and math.isnan(a) and math.isnan(b))


def _same(fast: tuple[dict[str, Any], ...], full: Any) -> bool:
    return isinstance(full, tuple) and all(_same_value(mine, theirs) for mine, theirs in zip(fast, full, strict=True))


def _shares_nothing(fast: tuple[dict[str, Any], ...], arguments: dict[str, Any]) -> bool:
    """No list or dict of the caller's in the log's copy, the tool's arguments or the validated copy, nor
    one container in two of them (the tool may change what it is given; the log must not change with it)."""
    seen = {id(arguments)}
    # Scalars only: the validated copy may be the keyword arguments themselves, since the tool is
    # called with `**kwargs` (a dict of its own) and there is nothing inside to change.
    for part in fast if fast[2] is not fast[1] else fast[:2]:
        stack: list[Any] = [part]
        while stack:
            value = stack.pop()
            if isinstance(value, BaseModel):
                value = value.__dict__
            if type(value) in (dict, list, set):
                if id(value) in seen:
                    return False
                seen.add(id(value))
                stack.extend(value.values() if type(value) is dict else value)
    stack = list(arguments.values())
    while stack:
        value = stack.pop()
        if type(value) in (dict, list):
            if id(value) in seen and value is not arguments:
                return False
            stack.extend(value.values() if type(value) is dict else value)
    return True


def _agrees_with_the_full_path(spec: ToolSpec, arguments: dict[str, Any], strict: bool, limits: InputLimits) -> None:
    """Whatever the lane takes, the full path takes too, giving the same values; the lane's copies share nothing."""
    plan = spec.argument_plan
    assert plan is not None
    fast = plan.check(arguments, limits)
    event("lane" if fast is not None else "full path")
    if fast is not None:
        assert _same(fast, _full_path(spec, arguments, strict, limits)), (arguments, strict, limits)
        assert _shares_nothing(fast, arguments)


# Tight limits next to the defaults, so calls near each bound meet both paths.
LIMITS = st.one_of(st.just(DEFAULT_LIMITS), st.just(DEFAULT_LIMITS), st.builds(
    InputLimits, max_depth=st.integers(1, 4), max_items=st.integers(1, 16), max_message_chars=st.integers(1, 40),
    max_string_chars=st.integers(1, 10), max_int_digits=st.integers(1, 3)))


@settings(max_examples=500, deadline=None)
@given(st.one_of(ARGUMENTS, VALID), st.booleans(), LIMITS)
def test_the_lane_accepts_only_what_the_full_path_accepts_and_gives_the_same_values(
    arguments: dict[str, Any], strict: bool, limits: InputLimits
) -> None:
    _agrees_with_the_full_path(SCALARS, arguments, strict, limits)


def test_the_lane_takes_the_common_calls() -> None:
    plan = SCALARS.argument_plan
    assert plan is not None
    arguments = {"count": 3, "name": "milk", "kind": "book", "note": None}
    raw, kwargs, _ = plan.check(arguments, DEFAULT_LIMITS) or ({}, {}, {})
    assert raw == {"count": 3, "name": "milk", "kind": "book", "note": None}
    assert list(kwargs) == list(SCALARS.args_model.model_fields)  # declaration order, defaults filled in
    assert kwargs == {"name": "milk", "count": 3, "ratio": 0.5, "flag": False, "note": None, "kind": "book",
                      "size": 3}


@pytest.mark.parametrize("arguments", [
    {"name": "milk"},  # count is missing
    {"name": "milk", "count": 3, "other": 1},  # not a parameter
    {"name": "m", "count": 3},  # too short
    {"name": "milk", "count": 1000},  # past the bound
    {"name": "milk", "count": "3"},  # needs coercion
    {"name": "milk", "count": True},
    {"name": "milk", "count": 3, "ratio": 1},  # an int for a float
    {"name": "milk", "count": 3, "kind": "toy"},
    {"name": "milké", "count": 3},  # not ASCII: the full walk checks the text
    {"name": "milk", "count": 3, "note": "a\udc00"},  # not valid Unicode
    {"name": "milk", "count": 3, "size": 10**70},
    # Not finite: the lane takes finite numbers only, and leaves the rest to the full path's rules.
    {"name": "milk", "count": 3, "ratio": float("inf")},
    {"name": "milk", "count": 3, "ratio": float("-inf")},
    {"name": "milk", "count": 3, "ratio": float("nan")},
])
def test_anything_unsure_goes_the_full_way(arguments: dict[str, Any]) -> None:
    plan = SCALARS.argument_plan
    assert plan is not None and plan.check(arguments, DEFAULT_LIMITS) is None


def _bounded(
    self: Any,
    above: Annotated[int, Field(gt=0)],
    below: Annotated[float, Field(lt=1.0)],
    word: Annotated[str, Field(min_length=2, max_length=3)] = "ab",
    at_least: Annotated[int, Field(ge=2, le=4)] = 2,
) -> dict:
    """Every bound a plan checks itself, exclusive and inclusive."""
    return {}


BOUNDED = build_spec(_bounded, name="bounded")


@pytest.mark.parametrize(("arguments", "taken"), [
    ({"above": 1, "below": 0.5}, True), ({"above": 0, "below": 0.5}, False), ({"above": -3, "below": 0.5}, False),
    ({"above": 1, "below": 0.999}, True), ({"above": 1, "below": 1.0}, False), ({"above": 1, "below": 7.5}, False),
    ({"above": 1, "below": 0.5, "word": "abc"}, True), ({"above": 1, "below": 0.5, "word": "abcd"}, False),
    ({"above": 1, "below": 0.5, "word": "a"}, False),
    ({"above": 1, "below": 0.5, "at_least": 4}, True), ({"above": 1, "below": 0.5, "at_least": 5}, False),
    ({"above": 1, "below": 0.5, "at_least": 1}, False),
])
def test_the_lane_takes_a_bounded_value_only_inside_its_bounds(arguments: dict[str, Any], taken: bool) -> None:
    """At and past each bound the lane leaves the call to the full path, which refuses it; inside, both agree."""
    plan = BOUNDED.argument_plan
    assert plan is not None
    fast = plan.check(arguments, DEFAULT_LIMITS)
    full = _full_path(BOUNDED, arguments, False, DEFAULT_LIMITS)
    assert (fast is not None) is taken
    if taken:
        assert fast is not None and _same(fast, full)
    else:
        assert full is ValidationError


def test_a_tight_message_limit_sends_long_text_the_full_way() -> None:
    plan = SCALARS.argument_plan
    assert plan is not None
    tight = InputLimits(max_message_chars=5)
    assert plan.check({"name": "milkmilk", "count": 3}, tight) is None
    assert _full_path(SCALARS, {"name": "milkmilk", "count": 3}, False, tight) is LimitExceeded


def _with(annotation: Any) -> ToolSpec:
    def fn(self: Any, value: annotation) -> None:  # type: ignore[valid-type]
        """A tool with one parameter."""

    fn.__annotations__["value"] = annotation
    return build_spec(fn, name="one")


@pytest.mark.parametrize("annotation", [
    list[int], dict[str, int], Annotated[str, Field(pattern="^a")], Annotated[int, Strict()],
    Annotated[str, AfterValidator(str.upper)], Literal[1, 2], tuple[int, int], Annotated[str, Field(alias="v")],
])
def test_tools_past_the_lane_have_no_plan(annotation: Any) -> None:
    assert _with(annotation).argument_plan is None


class Shop(App[Empty]):
    app_name = "Shop"

    @tool(mutates=False)
    def find(self, query: Annotated[str, Field(min_length=1)], limit: int = 10, exact: bool = False) -> dict:
        """Find items.

        Args:
            query: Words to look for.
            limit: How many at most.
            exact: Whole words only.
        """
        return {"query": query, "limit": limit, "exact": exact}


class FullPathSpec(ToolSpec):
    """The same tool with the lane turned off: a subclass with its own validator gets no plan."""

    @property
    def validator(self) -> Any:
        return self.args_model.__pydantic_validator__


class LaneSpec(ToolSpec):
    """The same tool with the lane on whatever `TOOLWORLDS_SPEED_LANES` says, so one process compares both."""

    @property
    def fast_arguments(self) -> Any:
        return self.argument_plan


def _both_ways(world: World, full_world: World, name: str) -> None:
    """`world` calls `name` through the lane, `full_world` through pydantic alone."""
    spec = full_world.tools[name]
    fields = {field: getattr(spec, field) for field in spec.__dataclass_fields__}
    # `World.call` looks specs up in `_specs` (`tools` shows them): both are replaced.
    for one, spec_class in ((world, LaneSpec), (full_world, FullPathSpec)):
        one._specs = {name: spec_class(**fields)}
        one._tools = MappingProxyType(one._specs)
    assert world.tools[name].fast_arguments is not None and full_world.tools[name].fast_arguments is None


@pytest.mark.parametrize("arguments", [{"query": "tea"}, {"limit": 3, "query": "tea", "exact": True},
                                       {"query": ""}, {"query": "tea", "limit": "3"}, {"query": "tea", "x": 1}])
@pytest.mark.parametrize("coercion", ["lax", "strict"])
def test_a_world_logs_the_same_record_either_way(arguments: dict[str, Any], coercion: Any) -> None:
    fast_world = World([Shop()], coercion=coercion)
    full_world = World([Shop()], coercion=coercion)
    _both_ways(fast_world, full_world, "find")
    assert fast_world.call("find", arguments).to_dict() == full_world.call("find", arguments).to_dict()


# -- lists of small argument models ------------------------------------------------------


class Line(BaseModel):
    product: str
    quantity: int = 1
    size: Literal["s", "m"] | None = None
    price: Annotated[float, Field(ge=0)] = 0.0


class Extra(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: Annotated[str, Field(max_length=6)]
    hot: bool = False


def _order(
    self: Any,
    user: str,
    lines: list[Line],
    extras: Annotated[list[Extra], Field(max_length=3)] | None = None,
    note: str = "",
) -> dict:
    """A tool taking lists of small objects."""
    return {}


ORDER = build_spec(_order, name="order")
LINE = st.fixed_dictionaries({"product": st.one_of(st.text(ASCII, max_size=6), VALUES)},
                             optional={"quantity": st.one_of(st.integers(min_value=-5, max_value=50), VALUES),
                                       "size": st.sampled_from(["s", "m", "l", None, 1]),
                                       "price": st.one_of(st.floats(), st.integers(0, 9), VALUES),
                                       "colour": st.just("red")})
EXTRA_ITEM = st.fixed_dictionaries({"name": st.one_of(st.text(ASCII, max_size=8), VALUES)},
                                   optional={"hot": st.one_of(st.booleans(), VALUES)})
ODD_ITEM = st.one_of(VALUES, st.sampled_from([{}, {1: "a"}, {"product": "a", "quantity": 10**70}, ("a",), [["a"]],
                                             Line(product="a"), {"product": "é"}, {"product": "a" * 20_000}]))
NOT_A_LIST = st.sampled_from([("a",), {"product": "a"}, "a", frozenset(), 3, None])
ORDERS = st.fixed_dictionaries(
    {"user": st.one_of(st.text(ASCII, max_size=5), VALUES),
     "lines": st.one_of(st.lists(st.one_of(LINE, ODD_ITEM), max_size=4), st.lists(LINE, max_size=3), NOT_A_LIST)},
    optional={"extras": st.one_of(st.lists(st.one_of(EXTRA_ITEM, ODD_ITEM), max_size=5), NOT_A_LIST),
              "note": st.one_of(st.text(ASCII, max_size=5), VALUES), "other": st.just(1)},
)
@settings(max_examples=600, deadline=None)
@given(ORDERS, st.booleans(), LIMITS)
def test_the_lane_takes_lists_of_objects_only_as_the_full_path_would(
    arguments: dict[str, Any], strict: bool, limits: InputLimits
) -> None:
    _agrees_with_the_full_path(ORDER, arguments, strict, limits)


@pytest.mark.parametrize("order", [
    ("size", "kind", "note", "flag", "ratio", "count", "name"),  # reversed
    ("count", "ratio", "flag", "note", "kind", "size", "name"),  # rotated
    ("name", "count", "ratio", "flag", "note", "size", "kind"),  # the last two swapped
])
def test_every_parameter_given_in_another_order_is_passed_in_declaration_order(order: tuple[str, ...]) -> None:
    """pydantic keeps the declared order whatever order the call names them in; so do the lane's copies."""
    values = {"name": "milk", "count": 3, "ratio": 0.25, "flag": True, "note": "x", "kind": "book", "size": 2}
    arguments = {key: values[key] for key in order}
    plan = SCALARS.argument_plan
    assert plan is not None
    raw, kwargs, validated = plan.check(arguments, DEFAULT_LIMITS) or ({}, {}, {})
    assert list(raw) == list(order)
    assert list(kwargs) == list(validated) == list(SCALARS.args_model.model_fields) and kwargs == values
    assert _same((raw, kwargs, validated), _full_path(SCALARS, arguments, False, DEFAULT_LIMITS))


@pytest.mark.parametrize("order", [
    ("price", "size", "quantity", "product"), ("quantity", "product", "size", "price"),
    ("product", "quantity", "price", "size"),
])
def test_every_item_field_given_in_another_order_is_kept_in_declaration_order(order: tuple[str, ...]) -> None:
    values = {"product": "tea", "quantity": 2, "size": "s", "price": 1.5}
    arguments = {"user": "ann", "lines": [{key: values[key] for key in order}]}
    plan = ORDER.argument_plan
    assert plan is not None
    raw, kwargs, validated = plan.check(arguments, DEFAULT_LIMITS) or ({}, {}, {})
    assert list(raw["lines"][0]) == list(order)
    assert list(kwargs["lines"][0].__dict__) == list(validated["lines"][0]) == list(Line.model_fields)
    assert _same((raw, kwargs, validated), _full_path(ORDER, arguments, False, DEFAULT_LIMITS))


def test_the_lane_builds_the_item_models_pydantic_would() -> None:
    plan = ORDER.argument_plan
    assert plan is not None
    arguments = {"lines": [{"quantity": 2, "product": "tea"}, {"product": "jam", "size": None}], "user": "ann",
                 "extras": [{"name": "ice"}]}
    raw, kwargs, validated = plan.check(arguments, DEFAULT_LIMITS) or ({}, {}, {})
    assert raw == arguments and list(raw) == ["lines", "user", "extras"]
    assert list(kwargs) == ["user", "lines", "extras", "note"]
    first, second = kwargs["lines"]
    assert type(first) is Line and first.model_fields_set == {"quantity", "product"}
    assert list(first.__dict__.items()) == [("product", "tea"), ("quantity", 2), ("size", None), ("price", 0.0)]
    assert second.model_fields_set == {"product", "size"} and second.quantity == 1
    assert kwargs["extras"] == [Extra(name="ice")]
    assert validated == {"user": "ann", "lines": [{"product": "tea", "quantity": 2, "size": None, "price": 0.0},
                                                 {"product": "jam", "quantity": 1, "size": None, "price": 0.0}],
                         "extras": [{"name": "ice", "hot": False}], "note": ""}
    assert _same((raw, kwargs, validated), _full_path(ORDER, arguments, False, DEFAULT_LIMITS))
    assert _shares_nothing((raw, kwargs, validated), arguments)


@pytest.mark.parametrize("arguments", [
    {"user": "ann", "lines": ({"product": "tea"},)},  # a tuple: the full path turns it into a list
    {"user": "ann", "lines": "tea"},  # not a list at all
    {"user": "ann", "lines": [{"product": "tea", "colour": "red"}]},  # not a field of the item
    {"user": "ann", "lines": [{"quantity": 2}]},  # a required item field missing
    {"user": "ann", "lines": ["tea"]},  # an item that is not an object
    {"user": "ann", "lines": [Line(product="tea")]},  # an instance: the full path decides what it makes of it
    {"user": "ann", "lines": [{"product": "tea", "quantity": "2"}]},  # needs coercion
    {"user": "ann", "lines": [{"product": "tea", "quantity": 10**70}]},  # past max_int_digits
    {"user": "ann", "lines": [{"product": "tea", "price": -1.0}]},  # past the field's bound
    {"user": "ann", "lines": [{"product": "tea", "price": float("inf")}]},  # not finite
    {"user": "ann", "lines": [{"product": "tea", "size": "l"}]},  # not one of the choices
    {"user": "ann", "lines": [{"product": "thé"}]},  # not ASCII: the full walk checks the text
    {"user": "ann", "lines": [{"product": "t" * 20_000}]},  # past max_string_chars
    {"user": "ann", "lines": [{1: "tea"}]},  # a key that is not text
    {"user": "ann", "lines": [], "extras": [{"name": "ice"}] * 4},  # past the list's max_length
    {"user": "ann", "lines": [{"product": "tea"}] * 3_000},  # past max_items
])
def test_any_item_it_is_unsure_of_sends_the_call_the_full_way(arguments: dict[str, Any]) -> None:
    plan = ORDER.argument_plan
    assert plan is not None and plan.check(arguments, DEFAULT_LIMITS) is None


@pytest.mark.parametrize(("limits", "accepted"), [
    (InputLimits(max_depth=2), False), (InputLimits(max_depth=3), True),
    (InputLimits(max_items=6), False), (InputLimits(max_items=7), True),
    (InputLimits(max_message_chars=30), False), (InputLimits(max_string_chars=7), False),
])
def test_lists_of_objects_near_the_walks_limits(limits: InputLimits, accepted: bool) -> None:
    """Two lines, three fields in all: 7 values over three levels, 40 characters with the keys, keys of up to 8."""
    plan = ORDER.argument_plan
    assert plan is not None
    arguments = {"user": "ann", "lines": [{"product": "tea", "quantity": 2}, {"product": "jam"}]}
    assert (plan.check(arguments, limits) is not None) is accepted
    assert isinstance(_full_path(ORDER, arguments, False, limits), tuple) or not accepted


class Aliased(BaseModel):
    product: str = Field(alias="item")


class Validated(BaseModel):
    product: Annotated[str, AfterValidator(str.upper)]


class Open(BaseModel):
    model_config = ConfigDict(extra="allow")

    product: str


class Shown(BaseModel):
    product: str

    @field_serializer("product")
    def _shown(self, value: str) -> str:
        return value.upper()


class Private(BaseModel):
    product: str
    _cache: int = 0


class Nested(BaseModel):
    lines: list[Line]


class Tree(BaseModel):
    product: str
    parts: list[Tree] = []


class Row(StateModel):
    product: str


@pytest.mark.parametrize("annotation", [
    list[Aliased], list[Validated], list[Open], list[Shown], list[Private], list[Nested], list[Tree],
    list[Row], list[dict], tuple[Line, ...], set[str], Annotated[list[Line], Field(min_length=1, strict=True)],
])
def test_item_models_past_the_lane_have_no_plan(annotation: Any) -> None:
    assert _with(annotation).argument_plan is None


def test_a_list_with_a_mutable_default_has_no_plan() -> None:
    def fn(self: Any, lines: list[Line] = []) -> None:  # noqa: B006 - the case under test
        """A list default: pydantic copies it for each call."""

    assert build_spec(fn, name="one").argument_plan is None


class Kitchen(App[Empty]):
    app_name = "Kitchen"

    @tool
    def order(self, user: str, lines: list[Line], note: str | None = None) -> dict:
        """Order lines of food.

        Args:
            user: Who orders.
            lines: What to order.
            note: For the cook.
        """
        assert all(type(line) is Line for line in lines)
        lines[0].quantity += 100  # the tool owns what it is given: the log keeps the arguments as they came
        lines.append(Line(product="gift"))
        return {"lines": [[line.product, line.quantity, sorted(line.model_fields_set)] for line in lines]}


@pytest.mark.parametrize("arguments", [
    {"user": "ann", "lines": [{"product": "tea"}]},
    {"lines": [{"quantity": 2, "product": "tea"}, {"product": "jam", "price": 1.5}], "user": "ann", "note": None},
    {"user": "ann", "lines": [{"product": "tea", "quantity": "2"}]},
    {"user": "ann", "lines": [{"product": "tea", "quantity": "9" * 70}]},
    {"user": "ann", "lines": [{"product": "tea", "colour": "red"}]},
    {"user": "ann", "lines": [{"quantity": 1}]},
])
@pytest.mark.parametrize("coercion", ["lax", "strict"])
def test_a_world_logs_the_same_record_for_lists_of_objects_either_way(arguments: dict[str, Any], coercion: Any) -> None:
    fast_world = World([Kitchen()], coercion=coercion)
    full_world = World([Kitchen()], coercion=coercion)
    _both_ways(fast_world, full_world, "order")
    fast, full = fast_world.call("order", arguments), full_world.call("order", arguments)
    assert fast.to_dict() == full.to_dict()
    assert json.dumps(fast.to_dict()) == json.dumps(full.to_dict())  # key order included


def test_a_huge_integer_deep_in_a_list_of_objects_is_named_by_its_path() -> None:
    world = World([Kitchen()], coercion="lax")
    record = world.call("order", {"user": "ann", "lines": [{"product": "tea"}, {"product": "jam",
                                                                                 "quantity": "9" * 70}]})
    assert record.error is not None and record.error.details[0]["parameter"] == "lines[1].quantity"
    assert record.error.details[0]["limit"] == "max_int_digits"
    with pytest.raises(LimitExceeded) as caught:
        check_integers({"a": [{"b": {3: [1, 10**70]}}]}, DEFAULT_LIMITS)
    assert caught.value.path == "a[0].b.3[1]" and caught.value.limit == "max_int_digits"
    check_integers({"a": [{"b": {3: [1, 10**63]}}], "c": Line(product="a", quantity=-(10**63))}, DEFAULT_LIMITS)


def test_a_plan_cannot_be_changed_once_made() -> None:
    """One plan serves every world and thread that calls the tool (`ToolSpec.argument_plan`, built once):
    nothing may change it after it is made."""
    plan = SCALARS.argument_plan
    assert plan is not None
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.names = ()  # type: ignore[misc]
    assert plan.names and plan is SCALARS.argument_plan


@pytest.mark.parametrize("arguments", [
    {"user": "ann", "lines": []},  # as few items as a list may hold
    {"user": "ann", "lines": [{"product": "tea"}], "extras": [{"name": "a"}, {"name": "b"}, {"name": "c"}]},  # as many
])
def test_the_lane_takes_lists_at_either_end_of_their_length(arguments: dict[str, Any]) -> None:
    plan = ORDER.argument_plan
    assert plan is not None
    fast = plan.check(arguments, DEFAULT_LIMITS)
    assert fast is not None and _same(fast, _full_path(ORDER, arguments, False, DEFAULT_LIMITS))


def _validated_default(self: Any, count: Annotated[int, Field(validate_default=True)] = "3") -> None:  # type: ignore[assignment]
    """A default pydantic validates (and converts) whenever it is used."""


def test_a_default_pydantic_validates_is_never_passed_as_written() -> None:
    spec = build_spec(_validated_default, name="validated_default")
    full = _full_path(spec, {}, False, DEFAULT_LIMITS)
    assert isinstance(full, tuple) and full[1] == {"count": 3}
    plan = spec.argument_plan
    fast = None if plan is None else plan.check({}, DEFAULT_LIMITS)
    assert fast is None or _same(fast, full)


def _no_parameters(self: Any) -> dict:
    """A tool of no parameters (ACEBench's turn_on_wifi, get_latest_message_id)."""
    return {}


@pytest.mark.parametrize("arguments", [{}, {"x": 1}, {"": ""}])
@pytest.mark.parametrize("strict", [False, True])
def test_a_tool_of_no_parameters_takes_no_arguments_either_way(arguments: dict[str, Any], strict: bool) -> None:
    """Called with none, the lane gives the full path's empty copies, none of them the caller's dict;
    called with any, it gives no verdict, and the full path refuses the call."""
    spec = build_spec(_no_parameters, name="no_parameters")
    plan = spec.argument_plan
    assert plan is not None
    fast = plan.check(arguments, DEFAULT_LIMITS)
    full = _full_path(spec, arguments, strict, DEFAULT_LIMITS)
    if arguments:
        assert fast is None and full is ValidationError
    else:
        assert fast is not None and _same(fast, full) and _shares_nothing(fast, arguments)
        assert fast[0] is not fast[1]  # the log's copy is not the dict the tool is called with


def _texts(self: Any, to: str, subject: str, body: str) -> dict:
    """Texts alone: a plan's shorter way for one type (`ArgumentPlan.one_type`)."""
    return {}


def _integers(self: Any, first: int, second: int) -> dict:
    """Integers alone."""
    return {}


TEXTS, INTEGERS = build_spec(_texts, name="texts"), build_spec(_integers, name="integers")
_ONE_TYPE_KEYS = st.one_of(st.sampled_from(["to", "subject", "body", "first", "second", "other"]), st.integers())
ONE_TYPE_CALLS = st.one_of(
    st.fixed_dictionaries({"to": st.text(ASCII, max_size=9), "subject": st.text(ASCII, max_size=9),
                           "body": st.one_of(st.text(ASCII, max_size=12), VALUES)}),
    st.fixed_dictionaries({"first": st.integers(-(10**20), 10**20), "second": st.one_of(st.integers(), VALUES)}),
    st.dictionaries(_ONE_TYPE_KEYS, st.one_of(PLAUSIBLE, VALUES), max_size=4),
)


@settings(max_examples=400, deadline=None)
@given(st.sampled_from([TEXTS, INTEGERS]), ONE_TYPE_CALLS, st.booleans(), LIMITS)
def test_a_plan_of_one_type_takes_its_shorter_way_to_what_its_loop_gives(
    spec: ToolSpec, arguments: dict[Any, Any], strict: bool, limits: InputLimits
) -> None:
    """The shorter way of a tool of texts (or integers) alone gives what the plan's general loop gives, and
    whatever it takes, the full path takes too, with the same values."""
    plan = spec.argument_plan
    assert plan is not None and plan.one_type is (str if spec is TEXTS else int)
    fast, loop = plan.check(arguments, limits), dataclasses.replace(plan, one_type=None).check(arguments, limits)
    assert (fast is None) == (loop is None) and (fast is None or _same(fast, loop)), (arguments, limits)
    _agrees_with_the_full_path(spec, arguments, strict, limits)


def test_only_tools_of_one_type_alone_have_the_shorter_way() -> None:
    assert SCALARS.argument_plan is not None and SCALARS.argument_plan.one_type is None
    assert build_spec(_scalars, name="again").argument_plan.one_type is None  # type: ignore[union-attr]

    def optional(self: Any, to: str, cc: str | None = None) -> dict:
        """A text and an optional one."""
        return {}

    def bounded(self: Any, to: Annotated[str, Field(max_length=3)]) -> dict:
        """A bounded text."""
        return {}

    for function in (optional, bounded):
        plan = build_spec(function, name=function.__name__).argument_plan
        assert plan is not None and plan.one_type is None
    raw, kwargs, validated = TEXTS.argument_plan.check(  # type: ignore[union-attr,misc]
        {"to": "a", "subject": "b", "body": "c"}, DEFAULT_LIMITS) or ({}, {}, {})
    assert raw == kwargs == validated == {"to": "a", "subject": "b", "body": "c"} and raw is not kwargs


class _Name(str):
    """A key that is text of another class: compared equal to a parameter's name, never taken by the lane."""


@pytest.mark.parametrize("limits", [InputLimits(max_string_chars=7, max_message_chars=13 + 7 + 7 + 7),
                                    InputLimits(max_string_chars=7, max_message_chars=13 + 7 + 7 + 6),
                                    InputLimits(max_string_chars=6), InputLimits(max_items=2), DEFAULT_LIMITS])
@pytest.mark.parametrize("arguments", [
    {"to": "a" * 7, "subject": "b" * 7, "body": "c" * 7}, {"to": "a" * 7, "subject": "é", "body": ""},
    {_Name("to"): "a", "subject": "b", "body": "c"}, {"to": "a", "subject": "b", "body": _Name("c")},
    {"first": DEFAULT_LIMITS.int_bound - 1, "second": 1 - DEFAULT_LIMITS.int_bound},
    {"first": DEFAULT_LIMITS.int_bound, "second": 0}, {"first": 0, "second": -DEFAULT_LIMITS.int_bound},
    {"first": 1, "second": True},
    {_Name("first"): 1, "second": 2},
])
def test_a_plan_of_one_type_meets_each_bound_as_its_loop_does(arguments: dict[Any, Any], limits: InputLimits) -> None:
    spec = TEXTS if "to" in arguments or "subject" in arguments else INTEGERS
    plan = spec.argument_plan
    assert plan is not None
    fast, loop = plan.check(arguments, limits), dataclasses.replace(plan, one_type=None).check(arguments, limits)
    assert (fast is None) == (loop is None) and (fast is None or _same(fast, loop)), (arguments, limits)
    assert fast is None or _same(fast, _full_path(spec, arguments, False, limits))


class _Touchy:
    """A key whose comparison fails: the lane must not compare it with anything."""

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("compared")

    def __hash__(self) -> int:
        return hash("to")


def test_a_plan_of_one_type_compares_no_key_that_is_not_text() -> None:
    for spec, arguments in ((TEXTS, {_Touchy(): "a", "subject": "b", "body": "c"}),
                            (INTEGERS, {"first": 1, _Touchy(): 2})):
        assert spec.argument_plan is not None and spec.argument_plan.check(arguments, DEFAULT_LIMITS) is None


def test_a_plan_of_one_type_takes_its_names_in_another_order_the_loops_way() -> None:
    arguments = {"body": "c", "to": "a", "subject": "b"}
    raw, kwargs, validated = TEXTS.argument_plan.check(arguments, DEFAULT_LIMITS) or ({}, {}, {})  # type: ignore[union-attr]
    assert list(raw) == ["body", "to", "subject"] and list(kwargs) == list(validated) == ["to", "subject", "body"]
    assert _same((raw, kwargs, validated), _full_path(TEXTS, arguments, False, DEFAULT_LIMITS))
