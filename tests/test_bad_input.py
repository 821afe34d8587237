"""Every tool of every bundled world against missing, extra, wrongly typed and hostile arguments."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from sandbox import ToolSpec, World
from scenarios.acebench import ALL_CLASSES, acebench_world
from scenarios.banking import CLASSES as BANKING_CLASSES
from scenarios.banking import banking_world

ON = {"BaseApi": {"wifi": True, "logged_in": True}}


def acebench() -> World:
    return acebench_world(ALL_CLASSES, initial_config=ON)


def banking() -> World:
    world = banking_world(BANKING_CLASSES, initial_config=ON)
    world.call("login_bank", {"customer_id": "C001", "password": "eve2024"})
    return world


def apibank() -> World:
    from scenarios.apibank import apibank_world

    return apibank_world()


def apibank3() -> World:
    from scenarios.apibank import apibank_world

    return apibank_world(level=3)


WORLDS: dict[str, Callable[[], World]] = {"acebench": acebench, "banking": banking, "apibank": apibank,
                                          "apibank3": apibank3}
CASES = [(family, tool) for family, make in WORLDS.items() for tool in sorted(make().tools)]
HOSTILE_STRINGS = ["", "__import__('os').system('echo pwned')", "'; DROP TABLE users; --", "\x00\ud800",
                   "x" * 10_000, "Eve\n", "{{message}}", "%s%s%s"]


def plausible(spec: ToolSpec) -> dict[str, Any]:
    values = {"string": "C001", "integer": 3, "boolean": True, "number": 1.0, "array": []}
    out = {}
    for name, schema in spec.parameters["properties"].items():
        kind = schema.get("type") or schema.get("anyOf", [{}])[0].get("type", "string")
        out[name] = values.get(kind, "C001")
    return out


def assert_refused_without_change(world: World, name: str, arguments: Any) -> None:
    before = world.state()
    record = world.call(name, arguments)
    assert record.error is not None and record.error.type == "invalid_arguments", (name, arguments, record)
    assert record.error.details, "the error must name the parameter"
    assert world.state() == before


@pytest.mark.parametrize(("family", "name"), CASES)
def test_extra_argument_is_refused(family: str, name: str) -> None:
    world = WORLDS[family]()
    assert_refused_without_change(world, name, {**plausible(world.tools[name]), "definitely_not_a_parameter": 1})


@pytest.mark.parametrize(("family", "name"), [c for c in CASES if WORLDS[c[0]]().tools[c[1]].parameters["required"]])
def test_missing_argument_is_refused(family: str, name: str) -> None:
    world = WORLDS[family]()
    spec = world.tools[name]
    arguments = plausible(spec)
    for required in spec.parameters["required"]:
        assert_refused_without_change(world, name, {k: v for k, v in arguments.items() if k != required})


@pytest.mark.parametrize(("family", "name"), CASES)
def test_wrongly_typed_argument_is_refused(family: str, name: str) -> None:
    world = WORLDS[family]()
    spec = world.tools[name]
    for parameter in spec.parameters["properties"]:
        assert_refused_without_change(world, name, {**plausible(spec), parameter: {"nested": ["object"]}})


@pytest.mark.parametrize(("family", "name"), CASES)
def test_hostile_strings_never_crash_a_tool(family: str, name: str) -> None:
    spec = WORLDS[family]().tools[name]
    string_params = [p for p, s in spec.parameters["properties"].items()
                     if s.get("type") == "string" or {"type": "string"} in s.get("anyOf", [])]
    for value in HOSTILE_STRINGS:
        world = WORLDS[family]()
        before = world.state()
        record = world.call(name, {**plausible(spec), **{p: value for p in string_params}})
        assert record.error is None or record.error.type != "internal_error", record.error
        if record.error is not None:
            assert world.state() == before


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
def test_acebench_out_of_range_and_malformed_values(name: str, arguments: dict) -> None:
    world = acebench()
    before = world.state()
    record = world.call(name, arguments)
    refused = record.error is not None and record.error.type != "internal_error"
    assert refused or (isinstance(record.result, dict) and record.result.get("status") is False)
    assert world.state() == before


@pytest.mark.parametrize("amount", [-5, 0, "-0.01", float("nan"), "NaN", float("inf"), 10**30, "12.505", 0.001,
                                    True, "twelve", None, [1], {"value": 1}])
@pytest.mark.parametrize("tool", ["deposit", "withdraw", "transfer"])
def test_banking_amounts_must_be_positive_cents_within_limits(tool: str, amount: Any) -> None:
    world = banking()
    arguments: dict[str, Any] = {"customer_id": "C001", "amount": amount}
    if tool == "transfer":
        arguments.update(from_account_id="A001", to_account_id="A003")
    else:
        arguments["account_id"] = "A001"
    assert_refused_without_change(world, tool, arguments)


@pytest.mark.parametrize(
    ("tool", "arguments", "code"),
    [
        ("withdraw", {"customer_id": "C001", "account_id": "A003", "amount": 1}, "forbidden"),
        ("deposit", {"customer_id": "C001", "account_id": "A004", "amount": 1}, "forbidden"),
        ("get_balance", {"customer_id": "C001", "account_id": "A003"}, "forbidden"),
        ("freeze_account", {"customer_id": "C001", "account_id": "A003"}, "forbidden"),
        ("transfer", {"customer_id": "C001", "from_account_id": "A003", "to_account_id": "A001", "amount": 1},
         "forbidden"),
        ("repay_loan", {"customer_id": "C001", "loan_id": "L001", "account_id": "A001", "amount": 1}, "not_found"),
        ("get_transactions", {"customer_id": "C002", "account_id": "A001"}, "precondition_failed"),
    ],
)
def test_another_customers_accounts_and_loans_are_off_limits(tool: str, arguments: dict, code: str) -> None:
    world = banking()
    before = world.state()
    record = world.call(tool, arguments)
    assert record.error is not None and record.error.type == code, record.error
    assert world.state() == before
