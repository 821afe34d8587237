"""API-Bank's worlds (levels 1-2, and level 3) keep their invariants over drawn calls (the kit's state machine)."""

from __future__ import annotations

from typing import Any

from sandbox import Call, CallRecord
from scenarios.apibank.world import apibank_world
from tests.worlds import check_world

LEVEL3_TABLES = ("flights", "hotels", "places", "weather", "salaries", "likes", "posts", "genres", "restaurants",
                 "organizations", "statuses", "watched", "preferences", "meetings")
FIXED_AT_LEVEL3 = {name: apibank_world(level=3).state()["Level3"][name] for name in LEVEL3_TABLES}
BALANCES = apibank_world().state()["BankAccounts"]["balances"]
ADDING = {"AddAlarm": "Alarm", "AddAgenda": "Agenda", "AddReminder": "Reminder", "AddMeeting": "Meeting"}


def tokens_are_unique(state: dict[str, Any]) -> bool:
    tokens = [account["token"] for account in state["Accounts"]["accounts"].values()]
    return len(tokens) == len(set(tokens))


def balances_are_only_read(state: dict[str, Any]) -> bool:
    return state["BankAccounts"]["balances"] == BALANCES


def owner(before: dict[str, Any], token: str) -> str | None:
    return next((name for name, account in before["Accounts"]["accounts"].items() if account["token"] == token), None)


def an_added_record_belongs_to_the_token_owner(call: Call, record: CallRecord, before: dict[str, Any],
                                               after: dict[str, Any]) -> bool:
    """A successful Add* of a token-gated app adds exactly one record, owned by the user whose token was passed."""
    app = ADDING.get(call.name)
    if app is None or record.error is not None:
        return True
    old, new = before[app]["records"], after[app]["records"]
    added = [new[key] for key in new if key not in old]
    token_owner = owner(before, call.arguments["token"])
    return len(new) == len(old) + 1 and len(added) == 1 and added[0]["username"] == token_owner


def a_deleted_account_is_the_token_owners(call: Call, record: CallRecord, before: dict[str, Any],
                                          after: dict[str, Any]) -> bool:
    if call.name != "DeleteAccount" or record.error is not None:
        return True
    gone = set(before["Accounts"]["accounts"]) - set(after["Accounts"]["accounts"])
    return gone == {owner(before, call.arguments["token"])}


def level3_tables_never_change(state: dict[str, Any]) -> bool:
    """Only accounts (addresses) and the added meetings change at level 3; every other table is fixed data."""
    return all(state["Level3"][name] == table for name, table in FIXED_AT_LEVEL3.items())


def test_api_bank_levels_1_and_2_keep_their_invariants() -> None:
    check_world(apibank_world, invariants=[tokens_are_unique, balances_are_only_read],
                postconditions=[an_added_record_belongs_to_the_token_owner, a_deleted_account_is_the_token_owners],
                name="apibank")


def test_api_bank_level_3_keeps_its_invariants() -> None:
    check_world(lambda: apibank_world(level=3), invariants=[level3_tables_never_change], name="apibank_level3")
