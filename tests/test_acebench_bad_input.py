"""Every ACEBench tool against missing, extra, wrongly typed and hostile arguments."""

from __future__ import annotations

from typing import Any

import pytest

from sandbox import ToolSpec, World
from scenarios.acebench import ALL_CLASSES, acebench_world

WORLD = acebench_world(ALL_CLASSES)
TOOLS = sorted(WORLD.tools)
HOSTILE_STRINGS = ["", "__import__('os').system('echo pwned')", "'; DROP TABLE users; --", "\x00\ud800",
                   "x" * 10_000, "Eve\n", "{{message}}", "%s%s%s"]


def fresh() -> World:
    return acebench_world(ALL_CLASSES, initial_config={"BaseApi": {"wifi": True, "logged_in": True}})


def plausible(spec: ToolSpec) -> dict[str, Any]:
    values = {"string": "Eve", "integer": 1, "boolean": True, "number": 1.0, "array": []}
    out = {}
    for name, schema in spec.parameters["properties"].items():
        kind = schema.get("type") or schema.get("anyOf", [{}])[0].get("type", "string")
        out[name] = values.get(kind, "Eve")
    return out


def assert_refused_without_change(world: World, name: str, arguments: Any) -> None:
    before = world.state()
    record = world.call(name, arguments)
    assert record.error is not None and record.error.type == "invalid_arguments", (name, arguments, record)
    assert record.error.details, "the error must name the parameter"
    assert world.state() == before


@pytest.mark.parametrize("name", TOOLS)
def test_extra_argument_is_refused(name: str) -> None:
    spec = WORLD.tools[name]
    assert_refused_without_change(fresh(), name, {**plausible(spec), "definitely_not_a_parameter": 1})


@pytest.mark.parametrize("name", [t for t in TOOLS if WORLD.tools[t].parameters["required"]])
def test_missing_argument_is_refused(name: str) -> None:
    spec = WORLD.tools[name]
    arguments = plausible(spec)
    for required in spec.parameters["required"]:
        partial = {k: v for k, v in arguments.items() if k != required}
        assert_refused_without_change(fresh(), name, partial)


@pytest.mark.parametrize("name", [t for t in TOOLS if WORLD.tools[t].parameters["properties"]])
def test_wrongly_typed_argument_is_refused(name: str) -> None:
    spec = WORLD.tools[name]
    for parameter in spec.parameters["properties"]:
        arguments = {**plausible(spec), parameter: {"nested": ["object"]}}
        assert_refused_without_change(fresh(), name, arguments)


@pytest.mark.parametrize("name", TOOLS)
def test_hostile_strings_never_crash_a_tool(name: str) -> None:
    spec = WORLD.tools[name]
    string_params = [p for p, s in spec.parameters["properties"].items()
                     if s.get("type") == "string" or {"type": "string"} in s.get("anyOf", [])]
    for value in HOSTILE_STRINGS:
        world = fresh()
        arguments = {**plausible(spec), **{p: value for p in string_params}}
        record = world.call(name, arguments)
        assert record.error is None or record.error.type not in ("internal_error",), record.error


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("delete_message", {"message_id": -4}),
        ("delete_message", {"message_id": 10**30}),
        ("reserve_flight", {"user_id": "user1", "password": "password123", "flight_no": "CA1234",
                            "cabin": "Economy Class", "payment_method": "bank", "baggage_count": -3}),
        ("modify_flight", {"user_id": "user1", "reservation_id": "res_1", "add_baggage": -1}),
        ("modify_flight", {"user_id": "user1", "reservation_id": "res_1", "new_payment_method": "card"}),
        ("add_food_delivery_order", {"username": "Eve", "merchant_name": "Heytea",
                                     "items": [{"product": "Cheese Milk Tea", "quantity": 1, "price": 0}]}),
        ("add_food_delivery_order", {"username": "Eve", "merchant_name": "Heytea", "items": "Cheese Milk Tea"}),
        ("add_food_delivery_order", {"username": "Eve", "merchant_name": "Heytea",
                                     "items": [{"product": "Cheese Milk Tea", "quantity": 1.5}]}),
    ],
)
def test_out_of_range_and_malformed_values(name: str, arguments: dict) -> None:
    world = fresh()
    before = world.state()
    record = world.call(name, arguments)
    assert (record.error is not None and record.error.type != "internal_error") or (
        isinstance(record.result, dict) and record.result.get("status") is False)
    assert world.state() == before
