"""ACEBench worlds: defaults, reference messages, id rules, config, and each deliberate fix."""

from __future__ import annotations

import dataclasses
import re
from datetime import datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sandbox import CallRecord, World
from scenarios.acebench import ALL_CLASSES, acebench_world, saved_state
from scenarios.acebench.replay import _SUCCESS_FIELDS, FailureReader
from scenarios.acebench.tasks import AceTask
from scenarios.acebench.texts import texts_for

PHONE = ["BaseApi", "MessageApi", "ReminderApi", "FoodPlatform"]


def phone(wifi: bool = True, logged_in: bool = True, lang: str = "en", **device: Any) -> World:
    return acebench_world(PHONE, lang=lang, initial_config={"BaseApi": {"wifi": wifi, "logged_in": logged_in,
                                                                         **device}})


def result(world: World, tool: str, **arguments: Any) -> Any:
    record = world.call(tool, arguments)
    assert record.error is None, record.error
    return record.result


# -- layout and defaults ---------------------------------------------------------------------


def test_state_uses_the_reference_class_and_attribute_names() -> None:
    state = acebench_world(ALL_CLASSES).state()
    assert list(state) == ["BaseApi", "MessageApi", "ReminderApi", "FoodPlatform", "Travel"]
    assert set(state["MessageApi"]) == {"max_capacity", "message_id_counter", "user_list", "inbox"}
    assert set(state["ReminderApi"]) == {"max_capacity", "reminder_list", "reminder_id_counter"}
    assert set(state["FoodPlatform"]) == {"users", "merchant_list", "logged_in_users", "orders"}
    assert {"users", "flights", "reservations"} <= set(state["Travel"])
    assert state["MessageApi"]["inbox"]["1"]["time"] == "2024-06-09"
    assert state["FoodPlatform"]["users"]["Eve"] == {"user_id": "U100", "password": "password123", "balance": 500.0}
    assert state["Travel"]["reservations"][3]["flight_no"] == "MU2616"  # the reference's data defect, kept


def test_saved_state_matches_acebench_extraction() -> None:
    world = phone()
    saved = saved_state(world, ["BaseApi", "FoodPlatform"])
    assert saved == [
        {"BaseApi": {"wifi": True, "logged_in": True}},
        {"FoodPlatform": {"users": world.state()["FoodPlatform"]["users"], "logged_in_users": [], "orders": []}},
    ]


def test_initial_config_only_the_baseapi_entry_counts() -> None:
    world = acebench_world(PHONE, initial_config={
        "BaseApi": {"wifi": False, "logged_in": False, "logged_in_users": ["Eve"]},
        "FoodPlatform": {"logged_in_users": ["Frank"], "wifi": True},
    })
    assert world.state()["BaseApi"] == {"wifi": False, "logged_in": False}
    assert world.state()["FoodPlatform"]["logged_in_users"] == ["Eve"]
    defaults = acebench_world(PHONE)
    assert defaults.state()["BaseApi"] == {"wifi": False, "logged_in": True}


@pytest.mark.parametrize(("config", "refusal"), [
    ({"BaseApi": {"logged_in_users": "Eve"}}, "BaseApi.logged_in_users must be a list of user names, not 'Eve'"),
    ({"BaseApi": {"logged_in_users": ["Eve", 3]}}, "BaseApi.logged_in_users[1] must be a user name"),
    ({"BaseApi": {"wifi": "false"}}, "BaseApi.wifi must be true or false, not 'false'"),
    ({"BaseApi": {"logged_in": 0}}, "BaseApi.logged_in must be true or false, not a number"),
    ({"BaseApi": [1, 2]}, "BaseApi must be an object, not a list"),
])
def test_an_initial_config_of_the_wrong_type_is_refused_naming_its_field(config: dict, refusal: str) -> None:
    """The reference stores these values as given, so `"false"` turns the Wi-Fi on, and `list()` of a name
    logs in one user per letter: the task is invalid, and says why, instead of running in such a world."""
    with pytest.raises(ValueError, match=re.escape(f"initial_config.{refusal}")):
        acebench_world(PHONE, initial_config=config)


def test_valid_initial_configs_give_the_worlds_they_always_gave() -> None:
    world = acebench_world(PHONE, initial_config={"BaseApi": {"wifi": True, "logged_in_users": ["Eve"]}})
    assert world.state()["BaseApi"] == {"wifi": True, "logged_in": True}
    assert world.state()["FoodPlatform"]["logged_in_users"] == ["Eve"]
    for empty in ({}, {"BaseApi": {}}, {"BaseApi": None}, {"Travel": {}}):
        assert acebench_world(PHONE, initial_config=empty).state() == acebench_world(PHONE).state()


def test_phone_apps_bring_the_device_along() -> None:
    assert "BaseApi" in acebench_world(["MessageApi"]).apps
    assert list(acebench_world(["Travel"]).apps) == ["Travel"]
    with pytest.raises(KeyError, match="unknown ACEBench classes"):
        acebench_world(["Finance"])


# -- BaseApi and MessageApi ------------------------------------------------------------------


def test_device_tools() -> None:
    world = phone(wifi=False, logged_in=False)
    assert result(world, "turn_on_wifi") == {"status": True, "message": "Wi-Fi has been turned on"}
    assert result(world, "login_device") == {"status": True, "message": "Device has been logged in"}
    assert world.state()["BaseApi"] == {"wifi": True, "logged_in": True}


def test_send_message_checks_in_reference_order() -> None:
    assert result(phone(logged_in=False, wifi=False), "send_message", sender_name="Eve", receiver_name="Frank",
                  message="x")["message"] == "Device not logged in, unable to send message"
    assert result(phone(wifi=False), "send_message", sender_name="Eve", receiver_name="Frank",
                  message="x")["message"] == "Wi-Fi is turned off, cannot send messages at this time"
    full = phone()
    assert result(full, "send_message", sender_name="Eve", receiver_name="Frank", message="x")["message"] == (
        "Inbox capacity is full. You need to ask the user which message to delete.")
    result(full, "delete_message", message_id=2)
    assert result(full, "send_message", sender_name="Eve", receiver_name="Zed", message="x") == {
        "status": False, "message": "Sender or receiver does not exist"}


def test_message_ids_start_at_seven_and_are_never_reused() -> None:
    world = phone()
    assert result(world, "delete_message", message_id=4)["message"] == "Message ID 4 has been successfully deleted."
    assert result(world, "send_message", sender_name="Eve", receiver_name="Frank", message="hi") == {
        "status": True, "message": "Message successfully sent to Frank."}
    inbox = world.state()["MessageApi"]["inbox"]
    assert inbox["7"] == {"sender_id": "USR100", "receiver_id": "USR101", "message": "hi"}  # no time key
    result(world, "delete_message", message_id=7)
    result(world, "send_message", sender_name="Eve", receiver_name="Frank", message="again")
    assert "8" in world.state()["MessageApi"]["inbox"]
    assert result(world, "delete_message", message_id=4) == {"status": False, "message": "Message ID does not exist"}


def test_latest_and_earliest_message() -> None:
    world = phone()
    assert result(world, "get_latest_message_id") == {
        "status": True, "message": "The latest message ID is 4", "message_id": 4}
    assert result(world, "get_earliest_message_id")["message_id"] == 3


def test_latest_after_a_send_does_not_crash() -> None:
    world = phone()
    result(world, "delete_message", message_id=1)
    result(world, "send_message", sender_name="Eve", receiver_name="Frank", message="new")
    assert result(world, "get_latest_message_id")["message_id"] == 7
    assert result(world, "get_earliest_message_id")["message_id"] == 3
    times = result(world, "get_all_message_times_with_ids")
    assert times["7"] is None and times["3"] == "2023-12-05"


def test_view_and_search_messages() -> None:
    world = phone()
    assert result(world, "view_messages_between_users", sender_name="Eve", receiver_name="Frank")["messages"] == [
        {"id": 1, "sender": "Eve", "receiver": "Frank",
         "message": "Hey Frank, don't forget about our meeting on 2024-06-11 at 4 PM in Conference Room 1."}]
    assert result(world, "view_messages_between_users", sender_name="Frank", receiver_name="Eve") == {
        "status": False, "message": "No related message records found"}
    found = result(world, "search_messages", user_name="Grace", keyword="PIZZA")
    assert [m["id"] for m in found["messages"]] == [2]
    assert result(world, "search_messages", user_name="Zed", keyword="x")["message"] == "User does not exist"


# -- ReminderApi -------------------------------------------------------------------------------


def test_reminders_add_view_delete() -> None:
    world = phone()
    assert result(world, "add_reminder", title="Gym", description="Leg day", time="2024-07-20 07:00") == {
        "status": True, "message": "Reminder 'Gym' was successfully added."}
    reminders = world.state()["ReminderApi"]["reminder_list"]
    assert reminders["4"] == {"reminder_id": 4, "title": "Gym", "description": "Leg day",
                              "time": "2024-07-20 07:00", "notified": False}
    assert result(world, "view_reminder_by_title", title="Gym")["reminder"]["reminder_id"] == 4
    missing = result(world, "view_reminder_by_title", title="Nope")
    assert missing["message"] == "No reminder found with the title 'Nope'."
    assert result(world, "delete_reminder", reminder_id=1001)["message"] == "Reminder ID does not exist."
    assert result(world, "delete_reminder", reminder_id=1)["message"] == "Reminder ID 1 was successfully deleted."


def test_reminder_capacity_is_six() -> None:
    world = phone()
    for i in range(3):
        assert result(world, "add_reminder", title=f"r{i}", description="d", time="t")["status"] is True
    assert result(world, "add_reminder", title="r4", description="d", time="t")["message"] == (
        "Reminder capacity is full. Unable to add a new reminder.")


def test_search_reminders_exists_in_english_too() -> None:
    world = phone()
    found = result(world, "search_reminders", keyword="checkup")
    assert found["reminders"][0]["title"] == "Doctor's Appointment"
    assert result(world, "search_reminders", keyword="zzz")["status"] is False
    assert result(world, "mark_as_notified", reminder_id=2)["status"] is True
    assert world.state()["ReminderApi"]["reminder_list"]["2"]["notified"] is True


# -- FoodPlatform --------------------------------------------------------------------------------


def test_food_login_rules() -> None:
    assert result(phone(wifi=False), "login_food_platform", username="Eve", password="password123")["message"] == (
        "Wi-Fi is not enabled, unable to login")
    world = phone()
    assert result(world, "login_food_platform", username="Eve", password="nope")["message"] == "Incorrect password"
    assert result(world, "login_food_platform", username="Zed", password="x")["message"] == "User does not exist"
    assert result(world, "login_food_platform", username="Eve", password="password123")["message"] == (
        "User Eve has successfully logged in!")
    assert result(world, "login_food_platform", username="Eve", password="password123")["message"] == (
        "Eve is already logged in")


def test_order_pays_from_balance_and_is_recorded() -> None:
    world = phone(logged_in_users=["Eve"])
    outcome = result(world, "add_food_delivery_order", username="Eve", merchant_name="Hema Fresh",
                     items=[{"product": "Fresh Gift Pack", "quantity": 2}])
    assert outcome["message"] == "Food delivery order successfully placed with Hema Fresh. Total amount: 198.0 yuan"
    food = world.state()["FoodPlatform"]
    assert food["users"]["Eve"]["balance"] == 302.0
    assert food["orders"] == [{"user_name": "Eve", "merchant_name": "Hema Fresh", "total_price": 198.0,
                               "items": [{"product": "Fresh Gift Pack", "quantity": 2, "price_per_unit": 99.0}]}]
    assert result(world, "check_balance", user_name="Eve") == 302.0


def test_order_failures_change_nothing() -> None:
    world = phone(logged_in_users=["Jack"])
    before = world.state()
    cases = [
        ({"username": "Eve", "merchant_name": "Heytea", "items": []}, "User Eve is not logged in to the food platform"),
        ({"username": "Jack", "merchant_name": "KFC", "items": []}, "Merchant does not exist"),
        ({"username": "Jack", "merchant_name": "Domino's", "items": [{"product": "Super Supreme", "quantity": 1}]},
         "Product Super Supreme does not exist in Domino's's menu"),
        ({"username": "Jack", "merchant_name": "Heytea", "items": [{"product": "Cheese Milk Tea", "quantity": 0}]},
         "Invalid quantity 0 for product Cheese Milk Tea"),
        ({"username": "Jack", "merchant_name": "Jiutian BBQ",
          "items": [{"product": "Korean Grilled Beef", "quantity": 1}]}, "Insufficient balance to place the order"),
    ]
    for arguments, message in cases:
        assert result(world, "add_food_delivery_order", **arguments) == {"status": False, "message": message}
    assert world.state() == before


def test_exact_balance_en_allows_zh_refuses() -> None:
    en = phone(logged_in_users=["Jack"])
    jack_items = [{"product": "Grilled Pork Belly", "quantity": 1}]
    result(en, "add_food_delivery_order", username="Jack", merchant_name="Jiutian BBQ", items=jack_items)
    assert en.state()["FoodPlatform"]["users"]["Jack"]["balance"] == 42.0
    assert result(en, "add_food_delivery_order", username="Jack", merchant_name="Heytea",
                  items=[{"product": "Four Seasons Spring Milk Tea", "quantity": 1}, {"product": "Cheese Milk Tea"}]
                  )["message"].endswith("Total amount: 47.0 yuan") is False  # 47 > 42: refused
    zh = phone(lang="zh", logged_in_users=["Grace"])
    # Grace has 150.0: 68 + 82 would use it all; zh refuses an order equal to the balance
    zh_items = [{"product": "玛格丽特披萨", "quantity": 1}, {"product": "超级至尊披萨", "quantity": 1}]
    assert result(zh, "add_food_delivery_order", username="Grace", merchant_name="达美乐", items=zh_items) == {
        "status": False, "message": "余额不足，无法下单"}
    en2 = phone(logged_in_users=["Grace"])
    en_items = [{"product": "Margherita Pizza", "quantity": 1}, {"product": "Margherita Pizza", "quantity": 1}]
    assert result(en2, "add_food_delivery_order", username="Grace", merchant_name="Domino's", items=en_items)[
        "status"] is True  # 136 <= 150


def test_get_products_and_order_search() -> None:
    world = phone(logged_in_users=["Eve"])
    assert result(world, "get_products", merchant_name="Heytea") == [
        {"product": "Cheese Milk Tea", "price": 25.0}, {"product": "Four Seasons Spring Milk Tea", "price": 22.0}]
    assert result(world, "get_products", merchant_name="KFC") == {
        "status": False, "message": "Merchant 'KFC' does not exist"}
    result(world, "add_food_delivery_order", username="Eve", merchant_name="Heytea",
           items=[{"product": "Cheese Milk Tea"}])
    assert result(world, "search_orders", keyword="cheese")["orders"][0]["total_price"] == 25.0
    assert result(world, "view_orders", user_name="Frank")["message"] == "User has no order records"
    assert result(world, "check_balance", user_name="Zed") == {"status": False, "message": "User Zed does not exist!"}


# -- Travel ------------------------------------------------------------------------------------------


def travel(lang: str = "en") -> World:
    return acebench_world(["Travel"], lang=lang)


def test_flight_search_and_user_details() -> None:
    world = travel()
    flights = result(world, "get_flight_details", origin="Shanghai", destination="Beijing")
    assert [f["flight_no"] for f in flights] == ["MU5678", "CZ4321", "CZ4352"]
    assert result(world, "get_flight_details", origin="Paris") == "There are no direct flights that meet the criteria."
    assert result(world, "get_user_details", user_id="user1", password="password123") == {
        "user_name": "Eve", "cash_balance": 2000.0, "bank_balance": 50000.0, "membership_level": "regular"}
    assert result(world, "get_user_details", user_id="user1", password="x") == {
        "status": "error", "message": "Incorrect username or password."}
    pairs = result(world, "find_transfer_flights", origin_city="Beijing", transfer_city="Nanjing",
                   destination_city="Shenzhen")
    assert [(p["first_leg"]["flight_no"], p["second_leg"]["depart_time"]) for p in pairs] == [
        ("MU3561", "2024-07-18 12:30:00")]


def test_reserve_flight_charges_fare_and_bags() -> None:
    world = travel()
    assert result(world, "reserve_flight", user_id="user1", password="password123", flight_no="CA1234",
                  cabin="Economy Class", payment_method="cash", baggage_count=3) == (
        "Booking successful. Reservation ID: res_5. Total cost: 1300 yuan (including baggage fees).")
    state = world.state()["Travel"]
    assert state["users"]["user1"]["cash_balance"] == 700.0
    assert state["reservations"][-1] == {"reservation_id": "res_5", "user_id": "user1", "flight_no": "CA1234",
                                         "payment_method": "cash", "cabin": "Economy Class", "baggage": 3}
    assert state["flights"][0]["seats_available"] == 4


@pytest.mark.parametrize(
    ("arguments", "reply"),
    [
        ({"password": "wrong"}, "Authentication failed. Please check your user ID and password."),
        ({"user_id": "user9"}, "Authentication failed. Please check your user ID and password."),
        ({"flight_no": "XX999"}, "Flight XX999 does not exist or is not available for booking."),
        ({"cabin": "economy"}, "Invalid cabin class: economy. Choose Economy Class or Business Class."),
        ({"payment_method": "card"}, "Invalid payment method"),
        ({"payment_method": "cash", "flight_no": "MU3561", "cabin": "Business Class"},
         "Your cash balance is insufficient. Please consider using another payment method."),
    ],
)
def test_reserve_flight_refusals_change_nothing(arguments: dict, reply: str) -> None:
    world = travel()
    before = world.state()
    base = {"user_id": "user1", "password": "password123", "flight_no": "CA1234", "cabin": "Economy Class",
            "payment_method": "bank", "baggage_count": 1}
    assert result(world, "reserve_flight", **{**base, **arguments}) == reply
    assert world.state() == before


def test_full_flight_cannot_be_booked() -> None:
    world = travel()
    for _ in range(5):
        result(world, "reserve_flight", user_id="user1", password="password123", flight_no="CA1234",
               cabin="Economy Class", payment_method="bank", baggage_count=0)
    assert result(world, "reserve_flight", user_id="user1", password="password123", flight_no="CA1234",
                  cabin="Economy Class", payment_method="bank", baggage_count=0) == (
        "No seats are available on flight CA1234.")


def test_modify_flight_matches_ground_truth_numbers() -> None:
    bags = travel()
    assert result(bags, "modify_flight", user_id="user1", reservation_id="res_2", new_flight_no="CZ4321",
                  add_baggage=2) == (
        "Flight number has been changed. Baggage has been added. Additional fee to be paid: 50.")
    assert bags.state()["Travel"]["users"]["user1"]["bank_balance"] == 49950.0
    cabin = travel()
    # The downgrade is priced on the original flight MU5678 (3000 - 1900), as the reference does.
    assert result(cabin, "modify_flight", user_id="user1", reservation_id="res_2", new_flight_no="CZ4352",
                  new_cabin="Economy Class") == (
        "Flight number has been changed. Cabin change successful. Price difference refunded: 1100.")
    assert cabin.state()["Travel"]["users"]["user1"]["bank_balance"] == 51100.0
    assert cabin.state()["Travel"]["reservation_status"]["res_2"] == "changed"


def test_modify_flight_refusals() -> None:
    world = travel()
    assert result(world, "modify_flight", user_id="user2", reservation_id="res_1") == (
        "Reservation not found or user ID does not match.")
    assert result(world, "modify_flight", user_id="user2", reservation_id="res_4", add_baggage=1) == (
        "Flight information not found.")
    assert result(world, "modify_flight", user_id="user1", reservation_id="res_2", new_flight_no="CA1234") == (
        "Flight change failed: Invalid new flight number or destination does not match.")
    assert result(world, "modify_flight", user_id="user1", reservation_id="res_2") == (
        "Modification completed with no additional fees.")
    assert world.state()["Travel"]["reservation_status"]["res_2"] == "booked"  # nothing changed


def test_failed_cabin_upgrade_keeps_the_old_cabin() -> None:
    world = travel()
    assert result(world, "reserve_flight", user_id="user3", password="password789", flight_no="MU3561",
                  cabin="Economy Class", payment_method="bank", baggage_count=0).startswith("Booking successful")
    # business costs 2500 more; user3 has 1000 in cash
    assert result(world, "modify_flight", user_id="user3", reservation_id="res_5", new_cabin="Business Class",
                  new_payment_method="cash") == "Insufficient balance to pay the cabin price difference."
    reservation = world.state()["Travel"]["reservations"][-1]
    assert reservation["cabin"] == "Economy Class"
    assert world.state()["Travel"]["users"]["user3"]["cash_balance"] == 1000.0


def test_unpaid_baggage_leaves_the_reservation_unchanged() -> None:
    world = travel()
    result(world, "reserve_flight", user_id="user3", password="password789", flight_no="MU3561",
           cabin="Economy Class", payment_method="bank", baggage_count=0)
    # 100 bags cost far more than user3's 1000 in cash
    assert result(world, "modify_flight", user_id="user3", reservation_id="res_5", add_baggage=100,
                  new_payment_method="cash") == "Insufficient balance to pay the additional baggage fees."
    travel_state = world.state()["Travel"]
    assert travel_state["reservations"][-1]["baggage"] == 0
    assert travel_state["reservation_status"]["res_5"] == "booked"


def test_bags_already_over_the_allowance_are_not_charged_again() -> None:
    world = travel()
    result(world, "reserve_flight", user_id="user1", password="password123", flight_no="CA1234",
           cabin="Economy Class", payment_method="bank", baggage_count=3)  # 2 over, paid 100 at booking
    assert result(world, "modify_flight", user_id="user1", reservation_id="res_5", add_baggage=1) == (
        "Baggage has been added. Additional fee to be paid: 50.")


def test_cancellation_refunds_once_to_the_payment_method_and_frees_the_seat() -> None:
    world = travel()
    assert result(world, "cancel_reservation", user_id="user1", reservation_id="res_1", reason="plans changed") == (
        "More than 24 hours before departure. Free cancellation successful, 1200 yuan has been refunded.")
    state = world.state()["Travel"]
    assert state["users"]["user1"]["bank_balance"] == 51200.0
    assert state["users"]["user1"]["cash_balance"] == 2000.0
    assert state["reservation_status"]["res_1"] == "cancelled"
    assert state["flights"][0]["seats_available"] == 6
    again = world.call("cancel_reservation", {"user_id": "user1", "reservation_id": "res_1", "reason": "x"})
    assert again.error is not None and again.error.type == "invalid_transition"
    assert again.error.message == "Reservation res_1 has already been cancelled."
    assert world.state()["Travel"] == state
    modify = world.call("modify_flight", {"user_id": "user1", "reservation_id": "res_1", "add_baggage": 1})
    assert modify.error is not None and modify.error.type == "invalid_transition"


@pytest.mark.parametrize(("tool", "arguments", "copied"), [
    ("reserve_flight", {"user_id": "user1", "password": "password123", "flight_no": "CA1234",
                        "cabin": "Economy Class", "payment_method": "cash", "baggage_count": 3}, {"Flight": 1}),
    ("modify_flight", {"user_id": "user1", "reservation_id": "res_2", "new_flight_no": "CZ4321",
                       "add_baggage": 2}, {"Reservation": 1}),
    ("cancel_reservation", {"user_id": "user1", "reservation_id": "res_1", "reason": "plans changed"},
     {"Flight": 1}),
])
def test_travel_writes_copy_only_the_items_they_change(monkeypatch: pytest.MonkeyPatch, tool: str,
                                                       arguments: dict[str, Any], copied: dict[str, int]) -> None:
    """On a fork (state shared with its parent), a writing tool copies the one flight or reservation it
    changes, not every one its lookup passes; results and end states are those of an unforked world."""
    from scenarios.acebench.travel import Flight, Reservation

    alone, parent = travel(), travel()
    expected = result(alone, tool, **arguments)
    world = parent.fork()
    copies: dict[str, int] = {}
    for kind in (Flight, Reservation):
        def counting(model: Any, owner: Any, *rest: Any, real: Any = kind._tw_copy_for, name: str = kind.__name__,
                     ) -> Any:
            copies[name] = copies.get(name, 0) + 1
            return real(model, owner, *rest)
        monkeypatch.setattr(kind, "_tw_copy_for", counting)
    assert result(world, tool, **arguments) == expected
    assert copies == copied
    assert world.state() == alone.state()
    assert parent.state() == travel().state()


def test_late_cancellation_fee_and_airline_cancellation() -> None:
    import datetime as dt

    world = travel()
    world.clock.set(dt.datetime(2024, 7, 15, 0, 0))  # 8 hours before CA1234 departs
    assert result(world, "cancel_reservation", user_id="user1", reservation_id="res_1", reason="x") == (
        "Less than 24 hours before departure. A cancellation fee of 120.0 yuan has been deducted, "
        "and 1080.0 yuan has been refunded.")
    other = travel()
    assert result(other, "cancel_reservation", user_id="user1", reservation_id="res_2",
                  reason="The airline has canceled the flight.").startswith("The flight has been canceled.")
    late = travel()
    late.clock.set(dt.datetime(2024, 7, 16, 0, 0))
    assert result(late, "cancel_reservation", user_id="user1", reservation_id="res_1", reason="x") == (
        "The flight segment has been used and cannot be canceled.")


def test_baggage_helpers() -> None:
    world = travel()
    assert result(world, "get_baggage_allowance", membership_level="silver", cabin_class="Business Class") == 3
    assert result(world, "get_baggage_allowance", membership_level="platinum", cabin_class="Economy Class") == 0
    assert result(world, "calculate_baggage_fee", membership_level="regular", cabin_class="Economy Class",
                  baggage_count=3) == 100
    bad = world.call("calculate_baggage_fee", {"membership_level": "x", "cabin_class": "y", "baggage_count": 1})
    assert bad.error is not None and bad.error.type == "invalid_value"


# -- zh ---------------------------------------------------------------------------------------------


def test_zh_world_speaks_chinese_with_the_same_numbers() -> None:
    world = phone(lang="zh")
    assert result(world, "turn_on_wifi") == {"status": True, "message": "wifi已经打开"}
    login = result(world, "login_food_platform", username="Eve", password="password123")
    assert login["message"] == "用户Eve登陆成功！"
    assert result(world, "add_food_delivery_order", username="Eve", merchant_name="达美乐",
                  items=[{"product": "超级至尊披萨", "quantity": 1}])["message"] == (
        "外卖订单成功下单给 达美乐，总金额为 88.0 元")
    assert world.state()["FoodPlatform"]["users"]["Eve"]["balance"] == 412.0
    trip = travel("zh")
    assert result(trip, "reserve_flight", user_id="user3", password="password789", flight_no="MU1566",
                  cabin="商务舱", payment_method="bank", baggage_count=3) == (
        "预订成功，预订号：res_5，总费用：4000元（包含行李费用）。")
    assert [f["flight_no"] for f in result(trip, "get_flight_details", origin="北京", destination="南京")] == [
        "MU3561", "MU1566"]
    with pytest.raises(ValueError):
        acebench_world(["BaseApi"], lang="fr")


def test_cancellation_refunds_the_fare_paid_not_the_new_flights_price() -> None:
    world = travel()
    # MU5678 business (3000 paid) -> CZ4321 business (4000): the reference charges nothing for the change
    assert result(world, "modify_flight", user_id="user1", reservation_id="res_2", new_flight_no="CZ4321") == (
        "Flight number has been changed.")
    assert result(world, "cancel_reservation", user_id="user1", reservation_id="res_2", reason="x") == (
        "More than 24 hours before departure. Free cancellation successful, 3000 yuan has been refunded.")
    assert world.state()["Travel"]["users"]["user1"]["bank_balance"] == 53000.0


# -- reading the reference's failure replies ---------------------------------------------------


class _EveryPattern(FailureReader):
    """The reader with each failure template compiled up front and tried on every message: what the
    reader's own lazily compiled, literal-text-filtered matching must agree with."""

    def __init__(self, texts: Any) -> None:
        super().__init__(texts)
        self.patterns = {}
        for item in dataclasses.fields(texts):
            if item.name not in _SUCCESS_FIELDS:
                template = re.escape(getattr(texts, item.name))
                self.patterns[item.name] = re.compile(re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>.+?)", template))

    def _match(self, name: str, clue: str, message: str) -> re.Match[str] | None:
        return self.patterns[name].search(message)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_failure_replies_are_read_as_every_template_reads_them_compiling_only_what_may_match(lang: str) -> None:
    texts = texts_for(lang)
    oracle = _EveryPattern(texts)
    templates = [getattr(texts, name) for name in oracle.patterns]
    filled = [re.sub(r"\{(\w+)\}", r"<\1 Zoë>", template) for template in templates]
    successes = [re.sub(r"\{(\w+)\}", "7", getattr(texts, name)) for name in sorted(_SUCCESS_FIELDS)]
    clues = [max(re.split(r"\{\w+\}", template), key=len) for template in templates]
    failures = 0
    for message in [*filled, *successes, "", "no such thing", *(text + " (again)" for text in filled[:5])]:
        reader = FailureReader(texts)
        record = CallRecord(1, "send_message", "MessageApi", {}, {}, message, None, False, datetime(2024, 1, 1))
        assert reader.failure(record) == oracle.failure(record), message
        assert reader.explain("send_message", message) == oracle.explain("send_message", message), message
        failures += reader.failure(record) is not None
        if not any(clue in message for clue in clues):  # no template's literal text: nothing compiled
            assert reader._compiled == {}, message
    assert failures >= len(filled)


def test_each_task_has_its_own_empty_defaults() -> None:
    """A task read without configuration, classes, functions, ground truth or paths gets fresh ones:
    filling one task's never shows in another's."""
    first, second = AceTask(id="a", category="multi_step"), AceTask(id="b", category="multi_step")
    first.initial_config["BaseApi"] = {"wifi": True}
    first.involved_classes.append("BaseApi")
    first.functions.append({"name": "turn_on_wifi"})
    first.ground_truth.append({"BaseApi": {"wifi": True}})
    first.paths.append(["[turn_on_wifi()]"])
    assert (second.initial_config, second.involved_classes, second.functions, second.ground_truth,
            second.paths) == ({}, [], [], [], [])
    assert AceTask.model_fields["paths"].description == "gold milestone paths (alternatives)"


@settings(max_examples=200, deadline=None)
@given(st.builds(
    dict, reservation_id=st.text(max_size=4), user_id=st.text(max_size=3), flight_no=st.text(max_size=3),
    payment_method=st.sampled_from(["cash", "bank", ""]), cabin=st.text(max_size=3), baggage=st.integers(-2, 9),
    origin=st.one_of(st.none(), st.text(max_size=3)), destination=st.one_of(st.none(), st.text(max_size=3))))
def test_a_reservation_as_stored_is_its_dump(fields: dict[str, Any]) -> None:
    """`Reservation.stored` is `model_dump()` (the same keys in the same order, the same values), whichever fields
    are given or left out, for the travel tools that read it instead."""
    from scenarios.acebench.travel import Reservation

    names = list(fields)
    for chosen in (names, names[:6], [name for name in names if fields[name] is not None]):
        reservation = Reservation(**{name: fields[name] for name in chosen})
        assert list(reservation.stored().items()) == list(reservation.model_dump().items())
