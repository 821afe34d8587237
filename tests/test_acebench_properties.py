"""The five ACEBench apps keep their invariants over drawn call sequences, en and zh (the kit's state machine)."""

from __future__ import annotations

from typing import Any

import pytest

from sandbox import Call, CallRecord
from scenarios.acebench.travel import BAG_FEE
from tests.worlds import acebench, check_world


def food_money(state: dict[str, Any]) -> float:
    food = state["FoodPlatform"]
    return sum(u["balance"] for u in food["users"].values()) + sum(o["total_price"] for o in food["orders"])


def travel_money(state: dict[str, Any]) -> float:
    return sum(u["cash_balance"] + u["bank_balance"] for u in state["Travel"]["users"].values())


def inbox_never_above_capacity(state: dict[str, Any]) -> bool:
    inbox = state["MessageApi"]
    return len(inbox["inbox"]) <= inbox["max_capacity"]


def message_ids_never_reused(state: dict[str, Any]) -> bool:
    """Sent messages take ids above every id the counter has issued (the default six included)."""
    inbox = state["MessageApi"]
    return all(int(key) <= max(inbox["message_id_counter"], 6) for key in inbox["inbox"])


def reminders_within_capacity_with_unique_ids(state: dict[str, Any]) -> bool:
    reminders = state["ReminderApi"]
    ids = [r["reminder_id"] for r in reminders["reminder_list"].values()]
    return len(ids) <= reminders["max_capacity"] and len(set(ids)) == len(ids)


def food_balances_never_negative(state: dict[str, Any]) -> bool:
    return all(u["balance"] >= 0 for u in state["FoodPlatform"]["users"].values())


def travel_balances_never_negative(state: dict[str, Any]) -> bool:
    return all(u["cash_balance"] >= 0 and u["bank_balance"] >= 0 for u in state["Travel"]["users"].values())


def reservations_unique_and_seats_never_negative(state: dict[str, Any]) -> bool:
    travel = state["Travel"]
    ids = [r["reservation_id"] for r in travel["reservations"]]
    return len(set(ids)) == len(ids) and all(f["seats_available"] >= 0 for f in travel["flights"])


def food_money_only_changes_hands(call: Call, record: CallRecord, before: dict[str, Any],
                                  after: dict[str, Any]) -> bool:
    """Balances plus what orders cost stay the same: an order moves money from a user to its merchant."""
    return abs(food_money(after) - food_money(before)) < 1e-6


def travel_refunds_only_what_was_paid(call: Call, record: CallRecord, before: dict[str, Any],
                                      after: dict[str, Any]) -> bool:
    """Travellers never gain money except a cancellation's refund, at most the fare paid, once."""
    gained = travel_money(after) - travel_money(before)
    if gained <= 1e-6:
        return True
    if call.name == "cancel_reservation":
        reservation = call.arguments["reservation_id"]
        was = before["Travel"]["reservation_status"].get(reservation)
        paid = before["Travel"]["fares_paid"].get(reservation, 0)
        return was != "cancelled" and gained <= paid + 1e-6
    if call.name == "modify_flight":
        # A cheaper cabin refunds the difference, never more than was paid; bags added in the
        # same call are charged whole bag fees out of that refund.
        reservation = call.arguments["reservation_id"]
        paid_before = before["Travel"]["fares_paid"].get(reservation, 0)
        paid_after = after["Travel"]["fares_paid"].get(reservation, 0)
        bag_fees = (paid_before - paid_after) - gained
        whole_bags = abs(bag_fees / BAG_FEE - round(bag_fees / BAG_FEE)) < 1e-6
        return bag_fees > -1e-6 and whole_bags and paid_after >= 0
    return False


INVARIANTS = [inbox_never_above_capacity, message_ids_never_reused, reminders_within_capacity_with_unique_ids,
              food_balances_never_negative, travel_balances_never_negative,
              reservations_unique_and_seats_never_negative]
POSTCONDITIONS = [food_money_only_changes_hands, travel_refunds_only_what_was_paid]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_acebench_apps_keep_their_invariants(lang: str) -> None:
    check_world(lambda: acebench(lang, online=True), invariants=INVARIANTS, postconditions=POSTCONDITIONS,
                name=f"acebench_{lang}")


def test_starting_offline_the_apps_keep_their_invariants_too() -> None:
    check_world(lambda: acebench("en", online=False), invariants=INVARIANTS, postconditions=POSTCONDITIONS,
                examples=6, name="acebench_offline")
