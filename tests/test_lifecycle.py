"""Lifecycle: legal moves, clear refusals, introspection and diagrams."""

from __future__ import annotations

import pytest

from sandbox import Lifecycle, StateModel, ToolError
from scenarios.todo import task_lifecycle, todo_world


class Order(StateModel):
    status: str = "placed"


ORDER = Lifecycle(
    "order",
    states=["placed", "preparing", "delivered", "cancelled"],
    transitions=[("prepare", "placed", "preparing"), ("deliver", "preparing", "delivered"),
                 ("cancel", ["placed", "preparing"], "cancelled")],
    initial="placed",
)


def test_legal_moves_change_the_status() -> None:
    order = Order()
    assert ORDER.fire(order, "prepare") == "preparing"
    assert ORDER.allowed(order) == ["deliver", "cancel"]
    assert ORDER.can(order, "cancel") and not ORDER.can(order, "prepare")
    ORDER.fire(order, "deliver")
    assert order.status == "delivered"


def test_illegal_move_is_a_clear_tool_error() -> None:
    order = Order(status="delivered")
    with pytest.raises(ToolError) as info:
        ORDER.fire(order, "cancel")
    assert info.value.message == "cannot cancel a delivered order"
    assert info.value.code == "invalid_transition"
    assert info.value.data == {"entity": "order", "status": "delivered", "trigger": "cancel"}
    assert order.status == "delivered"


def test_unknown_trigger_is_a_programming_error() -> None:
    with pytest.raises(ValueError):
        ORDER.fire(Order(), "teleport")


def test_definitions_are_checked() -> None:
    with pytest.raises(ValueError, match="unknown state"):
        Lifecycle("x", ["a"], [("go", "a", "b")], initial="a")
    with pytest.raises(ValueError, match="initial"):
        Lifecycle("x", ["a"], [], initial="z")


def test_wildcard_source() -> None:
    machine = Lifecycle("ticket", ["new", "open", "closed"], [("close", "*", "closed")], initial="new")
    assert {(t.source, t.dest) for t in machine.transitions} == {
        ("new", "closed"), ("open", "closed"), ("closed", "closed")}


def test_introspection_and_mermaid() -> None:
    assert ORDER.states == ("placed", "preparing", "delivered", "cancelled")
    assert ("cancel", "preparing", "cancelled") in {(t.trigger, t.source, t.dest) for t in ORDER.transitions}
    diagram = ORDER.to_mermaid()
    assert "stateDiagram" in diagram and "preparing --> delivered: deliver" in diagram


def test_illegal_transition_through_a_tool_is_an_error_record() -> None:
    world = todo_world(tasks=1)
    world.call("archive_task", {"task_id": 1})
    record = world.call("complete_task", {"task_id": 1})
    assert record.error is not None and record.error.type == "invalid_transition"
    assert record.error.message == "cannot complete an archived task; no tool can move it now"
    assert task_lifecycle.triggers == ("complete", "reopen", "archive")


def test_a_refusal_names_the_tools_that_can_move_the_entity_not_its_triggers() -> None:
    """An agent knows tools: a todo refusal names `reopen_task` and `archive_task`, never the
    triggers `reopen`/`archive` behind them, and carries them as data too."""
    world = todo_world(seed=0)
    world.call("add_task", {"title": "buy milk"})
    world.call("complete_task", {"task_id": 1})
    again = world.call("complete_task", {"task_id": 1})
    assert again.error is not None and again.error.type == "invalid_transition"
    assert again.error.message == "cannot complete a done task; tools that can move it now: reopen_task, archive_task"
    world.call("archive_task", {"task_id": 1})
    stuck = world.call("reopen_task", {"task_id": 1})
    assert stuck.error is not None
    assert stuck.error.message == "cannot reopen an archived task; no tool can move it now"


def test_triggers_no_tool_fires_are_left_out_and_a_map_naming_an_unknown_trigger_is_refused() -> None:
    cycle = Lifecycle("loan", ["active", "overdue", "paid"],
                      [("fall_behind", "active", "overdue"), ("settle", ["active", "overdue"], "paid")],
                      initial="active", tools={"settle": "repay_loan"})
    assert cycle.tools_from("active") == ["repay_loan"]
    with pytest.raises(ToolError) as refused:
        cycle.move("paid", "settle")
    assert refused.value.data["tools_now"] == []
    plain = Lifecycle("loan", ["active", "paid"], [("settle", "active", "paid"), ("reopen", "paid", "active")],
                      initial="active")
    with pytest.raises(ToolError, match=r"; moves possible now: reopen$"):
        plain.move("paid", "settle")
    with pytest.raises(ValueError, match="unknown triggers"):
        Lifecycle("loan", ["active", "paid"], [("settle", "active", "paid")], initial="active", tools={"pay": "x"})
