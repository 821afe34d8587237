"""The scalar fast lane (`sandbox.arguments`) accepts only what the full path accepts, and gives the same values.

Every call the lane takes must leave the same record as the limit walk + pydantic + the
integer check would have; anything it is unsure of goes the full way, which words the error.
"""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from pydantic import AfterValidator, Field, Strict, ValidationError

from sandbox import App, StateModel, World, tool
from sandbox.limits import DEFAULT_LIMITS, InputLimits, LimitExceeded, check_integers, checked_copy
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
    """What the full path makes of the arguments: (raw, kwargs), or the exception class it stops with."""
    try:
        raw = checked_copy(arguments, limits)
        kwargs = spec.validator.validate_python(arguments, strict=strict, extra="forbid").__dict__
        if not strict:
            check_integers(kwargs, limits)
    except (LimitExceeded, ValidationError) as exc:
        return type(exc)
    return raw, kwargs


def _same(fast: tuple[dict[str, Any], dict[str, Any]], full: Any) -> bool:
    """Equal values of equal types in the same key order (NaN equal to itself)."""
    def same_value(a: Any, b: Any) -> bool:
        return type(a) is type(b) and (a == b or (isinstance(a, float) and math.isnan(a) and math.isnan(b)))

    return isinstance(full, tuple) and all(
        list(mine) == list(theirs) and all(same_value(mine[k], theirs[k]) for k in mine)
        for mine, theirs in zip(fast, full, strict=True)
    )


@settings(max_examples=400, deadline=None)
@given(st.one_of(ARGUMENTS, VALID), st.booleans())
def test_the_lane_accepts_only_what_the_full_path_accepts_and_gives_the_same_values(
    arguments: dict[str, Any], strict: bool
) -> None:
    plan = SCALARS.fast_arguments
    assert plan is not None
    fast = plan.check(arguments, DEFAULT_LIMITS)
    event("lane" if fast is not None else "full path")
    if fast is not None:
        assert _same(fast, _full_path(SCALARS, arguments, strict, DEFAULT_LIMITS)), (arguments, strict)
        assert fast[0] is not arguments and fast[1] is not fast[0]


def test_the_lane_takes_the_common_calls() -> None:
    plan = SCALARS.fast_arguments
    assert plan is not None
    raw, kwargs = plan.check({"count": 3, "name": "milk", "kind": "book", "note": None}, DEFAULT_LIMITS) or ({}, {})
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
])
def test_anything_unsure_goes_the_full_way(arguments: dict[str, Any]) -> None:
    plan = SCALARS.fast_arguments
    assert plan is not None and plan.check(arguments, DEFAULT_LIMITS) is None


def test_a_tight_message_limit_sends_long_text_the_full_way() -> None:
    plan = SCALARS.fast_arguments
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
    assert _with(annotation).fast_arguments is None


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


@pytest.mark.parametrize("arguments", [{"query": "tea"}, {"limit": 3, "query": "tea", "exact": True},
                                       {"query": ""}, {"query": "tea", "limit": "3"}, {"query": "tea", "x": 1}])
@pytest.mark.parametrize("coercion", ["lax", "strict"])
def test_a_world_logs_the_same_record_either_way(arguments: dict[str, Any], coercion: Any) -> None:
    fast_world = World([Shop()], coercion=coercion)
    full_world = World([Shop()], coercion=coercion)
    spec = full_world.tools["find"]
    full_spec = FullPathSpec(**{name: getattr(spec, name) for name in spec.__dataclass_fields__})
    assert full_spec.fast_arguments is None
    full_world._tools = {"find": full_spec}  # type: ignore[assignment]
    assert fast_world.call("find", arguments).to_dict() == full_world.call("find", arguments).to_dict()
