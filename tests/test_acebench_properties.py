"""Random call sequences over the five ACEBench apps keep the worlds' invariants."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scenarios.acebench import ALL_CLASSES, acebench_world

USERS = ["Eve", "Frank", "Grace", "Helen", "Isaac", "Jack", "Zed"]
PASSWORDS = ["password123", "password456", "password789", "password321", "password654", "bad"]
MERCHANTS = {"Domino's": ["Margherita Pizza", "Super Supreme Pizza"], "Heytea": ["Cheese Milk Tea"],
             "Jiutian BBQ": ["Korean Grilled Beef", "Grilled Pork Belly"], "Nowhere": ["Air"]}
TRAVELLERS = [("user1", "password123"), ("user2", "password456"), ("user3", "password789"), ("user9", "x")]
FLIGHTS = ["CA1234", "MU5678", "CZ4321", "CZ4352", "MU3561", "MU1566", "CZ1765", "MH2616", "XX1"]
CABINS = ["Economy Class", "Business Class", "First"]
RESERVATIONS = [f"res_{i}" for i in range(1, 9)]
PRODUCTS = [product for menu in MERCHANTS.values() for product in menu]

calls = st.one_of(
    st.just(("turn_on_wifi", {})),
    st.just(("login_device", {})),
    st.builds(lambda u, p: ("login_food_platform", {"username": u, "password": p}),
              st.sampled_from(USERS), st.sampled_from(PASSWORDS)),
    st.builds(lambda u, m, items: ("add_food_delivery_order", {"username": u, "merchant_name": m, "items": items}),
              st.sampled_from(USERS), st.sampled_from(list(MERCHANTS)),
              st.lists(st.fixed_dictionaries({"product": st.sampled_from(PRODUCTS),
                                              "quantity": st.integers(-1, 4)}), max_size=3)),
    st.builds(lambda s, r, m: ("send_message", {"sender_name": s, "receiver_name": r, "message": m}),
              st.sampled_from(USERS), st.sampled_from(USERS), st.text(max_size=8)),
    st.builds(lambda i: ("delete_message", {"message_id": i}), st.integers(0, 12)),
    st.builds(lambda t: ("add_reminder", {"title": t, "description": "d", "time": "2024-07-20 10:00"}),
              st.text(max_size=5)),
    st.builds(lambda i: ("delete_reminder", {"reminder_id": i}), st.integers(0, 8)),
    st.just(("get_latest_message_id", {})),
    st.builds(lambda up, f, c, pay, bags: ("reserve_flight", {"user_id": up[0], "password": up[1], "flight_no": f,
                                                               "cabin": c, "payment_method": pay,
                                                               "baggage_count": bags}),
              st.sampled_from(TRAVELLERS), st.sampled_from(FLIGHTS), st.sampled_from(CABINS),
              st.sampled_from(["cash", "bank", "card"]), st.integers(0, 5)),
    st.builds(lambda up, r, f, c, bags, pay: ("modify_flight", {"user_id": up[0], "reservation_id": r,
                                                                 "new_flight_no": f, "new_cabin": c,
                                                                 "add_baggage": bags, "new_payment_method": pay}),
              st.sampled_from(TRAVELLERS), st.sampled_from(RESERVATIONS), st.none() | st.sampled_from(FLIGHTS),
              st.none() | st.sampled_from(CABINS), st.integers(0, 3), st.none() | st.sampled_from(["cash", "bank"])),
    st.builds(lambda up, r, why: ("cancel_reservation", {"user_id": up[0], "reservation_id": r, "reason": why}),
              st.sampled_from(TRAVELLERS), st.sampled_from(RESERVATIONS),
              st.sampled_from(["x", "The airline has canceled the flight."])),
)


def money(state: dict) -> float:
    food = state["FoodPlatform"]
    return sum(u["balance"] for u in food["users"].values()) + sum(o["total_price"] for o in food["orders"])


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(calls, max_size=25))
def test_invariants_hold_over_random_sequences(sequence: list) -> None:
    world = acebench_world(ALL_CLASSES, initial_config={"BaseApi": {"wifi": False, "logged_in": False}})
    start_money = money(world.state())
    travel_total = sum(u["cash_balance"] + u["bank_balance"] for u in world.state()["Travel"]["users"].values())
    prepaid = sum(world.state()["Travel"]["fares_paid"].values())
    for name, arguments in sequence:
        before = world.state()
        record = world.call(name, arguments)
        assert record.error is None or record.error.type != "internal_error", record.error
        state = world.state()
        if record.error is not None:
            assert state == before
        # ids are unique and counters never fall behind the ids they issued
        inbox = state["MessageApi"]
        assert all(int(key) <= max(inbox["message_id_counter"], 6) for key in inbox["inbox"])
        reminders = state["ReminderApi"]["reminder_list"]
        assert len({r["reminder_id"] for r in reminders.values()}) == len(reminders)
        reservations = [r["reservation_id"] for r in state["Travel"]["reservations"]]
        assert len(set(reservations)) == len(reservations)
        # balances never go negative; money moves between users and merchants, never appears
        assert all(u["balance"] >= 0 for u in state["FoodPlatform"]["users"].values())
        assert abs(money(state) - start_money) < 1e-6
        users = state["Travel"]["users"].values()
        assert all(u["cash_balance"] >= 0 and u["bank_balance"] >= 0 for u in users)
        # a cancelled reservation can be refunded only once
        if name == "cancel_reservation" and record.ok and "refunded" in str(record.result):
            again = world.call(name, arguments)
            assert again.error is not None and world.state() == state
        # refunds never exceed what was paid: the only money travellers can get back beyond
        # their starting balances is the fares of the reservations they already held
        assert sum(u["cash_balance"] + u["bank_balance"] for u in users) <= travel_total + prepaid + 1e-6
