"""The differential script against ACEBench's reference worlds, and the argument decisions it led to.

The script's comparison logic runs here on our side only: a stand-in "reference" built
from our own world must agree with it everywhere, and a stand-in that refuses numeric
text for ids (as the reference does) must be classed as row A1. With the reference's
classes on disk (`ACEBENCH_REFERENCE`, the root of an extracted ACEBench tree) a short
real run must find only documented classes.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from scenarios.acebench import ALL_CLASSES, acebench_world

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "diff_reference.py"


@pytest.fixture(scope="module")
def diff() -> ModuleType:
    spec = importlib.util.spec_from_file_location("diff_reference", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


class StandIn:
    """One reference class played by our world: tool methods and the attributes the script compares."""

    def __init__(self, world: Any, name: str, refuse_text_ids: bool) -> None:
        self._world, self._name, self._refuse_text_ids = world, name, refuse_text_ids

    def __getattr__(self, attribute: str) -> Any:
        world = self._world
        if attribute in world.tools:
            if world.tools[attribute].app != self._name:
                raise AttributeError(attribute)
            return lambda **arguments: self._call(attribute, arguments)
        state = world.state().get(self._name)
        if state is None or attribute not in state:
            raise AttributeError(attribute)
        return state[attribute]

    def _call(self, tool: str, arguments: dict[str, Any]) -> Any:
        if self._refuse_text_ids and isinstance(arguments.get("message_id"), str):
            return {"status": False, "message": "Message ID does not exist"}
        record = self._world.call(tool, arguments)
        if record.error is not None:
            raise ValueError(record.error.message)
        return record.result


def stand_in(refuse_text_ids: bool = False) -> Any:
    def build(config: Mapping[str, Any]) -> dict[str, StandIn]:
        world = acebench_world(ALL_CLASSES, initial_config=config)
        return {name: StandIn(world, name, refuse_text_ids) for name in ALL_CLASSES}
    return build


def test_our_world_as_its_own_reference_never_diverges(diff: ModuleType) -> None:
    report = diff.run(stand_in(), calls=300, seed=3)
    assert report.calls == 300
    assert sum(report.variants[kind] for kind in ("numeric_text", "null_optional", "empty_optional",
                                                    "wrong_type")) > 50
    assert dict(report.classes) == {}


def test_a_reference_refusing_text_ids_is_class_a1(diff: ModuleType) -> None:
    report = diff.run(stand_in(refuse_text_ids=True), calls=200, seed=1, tools=("delete_message", "send_message"))
    assert set(report.classes) == {"numeric text as id: reference refused, ours succeeded"}
    assert diff.argument_row(next(iter(report.classes))) == "A1"
    example = next(iter(report.examples.values()))
    assert example.tool == "delete_message" and example.states_differ


def test_classes_name_the_value_given_and_the_parameter_role(diff: ModuleType) -> None:
    def divergence(tool: str, kind: str, path: str, declared: str, value: Any, writes: bool) -> Any:
        return diff.Divergence(tool, {}, diff.Variant(kind, path, declared, value), diff.Side("succeeded", ""),
                               diff.Side("invalid", ""), False, writes)

    cases = {
        ("add_reminder", "wrong_type", "time", "string", 7, True): "non-text as written text",
        ("get_flight_details", "wrong_type", "origin", "string", None, False): "non-text as looked-up text",
        ("modify_flight", "wrong_type", "add_baggage", "integer", 2.5, True): "fraction as count",
        ("delete_message", "wrong_type", "message_id", "integer", 2.0, True): "integral float as id",
        ("modify_flight", "empty_optional", "new_payment_method", "string", "", True): "'' as choice",
    }
    for args, prefix in cases.items():
        key = diff.divergence_class(divergence(*args))
        assert key.startswith(prefix + ":"), key
        assert diff.argument_row(key) is not None


def test_states_compare_numbers_by_value_and_booleans_apart(diff: ModuleType) -> None:
    assert diff.canonical({1: 1200}) == diff.canonical({"1": 1200.0})
    assert diff.canonical({"baggage": False}) != diff.canonical({"baggage": 0})


@pytest.mark.parametrize("coercion", ["lax", "strict"])
def test_blank_payment_method_keeps_the_reservations_own(coercion: str) -> None:
    """Row A3: '' is "not given", as the reference reads it (and as new_flight_no/new_cabin read it)."""
    world = acebench_world(["Travel"], coercion=coercion)  # type: ignore[arg-type]
    record = world.call("modify_flight", {"user_id": "user1", "reservation_id": "res_1",
                                          "new_cabin": "Business Class", "new_payment_method": ""})
    assert record.error is None and record.result == "Cabin change successful. Price difference paid: 1800."
    user = world.state()["Travel"]["users"]["user1"]
    assert (user["bank_balance"], user["cash_balance"]) == (48200.0, 2000.0)  # res_1 was paid by bank
    refused = world.call("modify_flight", {"user_id": "user1", "reservation_id": "res_1", "new_payment_method": "x"})
    assert refused.error is not None and refused.error.type == "invalid_arguments"
    schema = world.tools["modify_flight"].parameters["properties"]["new_payment_method"]
    assert schema["anyOf"][0]["enum"] == ["cash", "bank"]  # '' is accepted, not advertised


REFERENCE = os.environ.get("ACEBENCH_REFERENCE")


@pytest.mark.skipif(not REFERENCE, reason="set ACEBENCH_REFERENCE to an extracted ACEBench tree to compare with it")
def test_every_divergence_from_the_reference_is_documented(diff: ModuleType) -> None:
    import functools

    classes = diff.load_reference_classes(Path(str(REFERENCE)).resolve(), "en")
    report = diff.run(functools.partial(diff.reference_world, classes), calls=2000, seed=0)
    undocumented = [key for key in report.classes if not key.startswith("documented") and not diff.argument_row(key)]
    assert undocumented == []
