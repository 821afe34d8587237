"""The banking world: sessions, accounts, payments, statements and loans."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

import pytest

from sandbox import World
from scenarios.banking import banking_world, rules
from scenarios.banking.rules import add_months, decide, schedule

EVE = {"customer_id": "C001", "password": "eve2024"}
FRANK = {"customer_id": "C002", "password": "frank2024"}
GRACE = {"customer_id": "C003", "password": "grace2024"}


def bank(*logins: dict[str, str], wifi: bool = True, logged_in: bool = True, **config: Any) -> World:
    world = banking_world(initial_config={"BaseApi": {"wifi": wifi, "logged_in": logged_in}, **config})
    for who in logins:
        assert world.call("login_bank", who).ok
    return world


def ok(world: World, tool: str, **arguments: Any) -> Any:
    record = world.call(tool, arguments)
    assert record.error is None, record.error
    return record.result


def refused(world: World, tool: str, code: str, **arguments: Any) -> str:
    before = world.state()
    record = world.call(tool, arguments)
    assert record.error is not None and record.error.type == code, (record.error, record.result)
    assert world.state() == before
    return record.error.message


def balance(world: World, account_id: str) -> str:
    return world.state()["Bank"]["accounts"][account_id]["balance"]


# -- sessions -----------------------------------------------------------------------------------


def test_login_needs_wifi_and_a_logged_in_device() -> None:
    assert refused(bank(wifi=False), "login_bank", "precondition_failed", **EVE) == (
        "Wi-Fi is off, unable to reach the bank")
    assert refused(bank(logged_in=False), "login_bank", "precondition_failed", **EVE) == (
        "Device not logged in, unable to use the bank")


def test_three_wrong_passwords_lock_the_customer_out() -> None:
    world = bank()
    assert ok(world, "login_bank", customer_id="C003", password="x")["message"] == (
        "Incorrect password (2 attempts left)")
    ok(world, "login_bank", customer_id="C003", password="x")
    assert ok(world, "login_bank", customer_id="C003", password="x") == {
        "status": False, "message": "Customer C003 is locked after too many failed logins"}
    assert refused(world, "login_bank", "locked", **GRACE).startswith("Customer C003 is locked")
    assert world.state()["Bank"]["customers"]["C003"]["locked"] is True


def test_a_good_password_resets_the_failure_count() -> None:
    world = bank()
    ok(world, "login_bank", customer_id="C001", password="x")
    ok(world, "login_bank", **EVE)
    assert world.state()["Bank"]["customers"]["C001"]["failed_logins"] == 0
    refused(world, "login_bank", "precondition_failed", **EVE)  # already logged in
    ok(world, "logout_bank", customer_id="C001")
    refused(world, "get_balance", "precondition_failed", customer_id="C001", account_id="A001")


def test_every_bank_tool_needs_a_session() -> None:
    world = bank()
    assert refused(world, "deposit", "precondition_failed", customer_id="C001", account_id="A001",
                   amount=5) == "Customer C001 is not logged in to the bank"
    refused(world, "list_accounts", "not_found", customer_id="C999")


# -- accounts and money ------------------------------------------------------------------------------


def test_deposit_withdraw_and_their_records() -> None:
    world = bank(EVE)
    assert ok(world, "deposit", customer_id="C001", account_id="A001", amount="100.10")["balance"] == "12100.10"
    ok(world, "withdraw", customer_id="C001", account_id="A001", amount=0.1)
    records = world.state()["Bank"]["transactions"]
    assert [(r["kind"], r["amount"], r["balance_after"]) for r in records] == [
        ("deposit", "100.10", "12100.10"), ("withdrawal", "-0.10", "12100.00")]
    assert records[0]["transaction_id"] == "T00001" and records[0]["time"] == "2024-07-14 06:00:00"


def test_insufficient_funds_and_overdraft() -> None:
    world = bank(GRACE)
    assert refused(world, "withdraw", "insufficient_funds", customer_id="C003", account_id="A004",
                   amount=500.01) == "Insufficient funds in A004"
    ok(world, "withdraw", customer_id="C003", account_id="A004", amount=500)
    assert balance(world, "A004") == "0.00"
    overdraft = bank(GRACE, Bank={"accounts": {"A004": {"account_id": "A004", "customer_id": "C003",
                                                         "balance": "500.00", "initial_balance": "500.00",
                                                         "overdraft_limit": "200.00"}}})
    ok(overdraft, "withdraw", customer_id="C003", account_id="A004", amount=700)
    assert balance(overdraft, "A004") == "-200.00"
    refused(overdraft, "withdraw", "insufficient_funds", customer_id="C003", account_id="A004", amount=0.01)


def test_transfers_between_customers_and_the_daily_limit() -> None:
    world = bank(EVE)
    ok(world, "transfer", customer_id="C001", from_account_id="A002", to_account_id="A001", amount=40000)
    ok(world, "transfer", customer_id="C001", from_account_id="A001", to_account_id="A003", amount=49999.99)
    message = refused(world, "transfer", "limit_exceeded", customer_id="C001", from_account_id="A001",
                      to_account_id="A004", amount=0.02)
    assert message == "Daily transfer limit of 50000.00 exceeded (49999.99 already sent today)"
    ok(world, "transfer", customer_id="C001", from_account_id="A001", to_account_id="A002", amount=1000)
    world.clock.advance(dt.timedelta(days=1))
    ok(world, "transfer", customer_id="C001", from_account_id="A001", to_account_id="A004", amount=0.02)
    assert balance(world, "A003") == "52999.99"


def test_transfer_refusals() -> None:
    world = bank(EVE)
    refused(world, "transfer", "forbidden", customer_id="C001", from_account_id="A003", to_account_id="A001",
            amount=1)
    refused(world, "transfer", "invalid_value", customer_id="C001", from_account_id="A001",
            to_account_id="A001", amount=1)
    refused(world, "transfer", "not_found", customer_id="C001", from_account_id="A001", to_account_id="A999",
            amount=1)


def test_account_lifecycle() -> None:
    world = bank(EVE)
    ok(world, "freeze_account", customer_id="C001", account_id="A002")
    assert refused(world, "withdraw", "account_frozen", customer_id="C001", account_id="A002",
                   amount=1) == "Account A002 is frozen"
    assert refused(world, "freeze_account", "invalid_transition", customer_id="C001",
                   account_id="A002") == "Cannot freeze account A002: it is frozen"
    refused(world, "close_account", "invalid_transition", customer_id="C001", account_id="A002")
    ok(world, "unfreeze_account", customer_id="C001", account_id="A002")
    refused(world, "close_account", "balance_not_zero", customer_id="C001", account_id="A002")
    created = ok(world, "open_account", customer_id="C001", kind="savings")
    assert created["account_id"] == "A005"
    ok(world, "close_account", customer_id="C001", account_id="A005")
    refused(world, "deposit", "account_closed", customer_id="C001", account_id="A005", amount=1)
    refused(world, "unfreeze_account", "invalid_transition", customer_id="C001", account_id="A005")


def test_history_filters() -> None:
    world = bank(EVE)
    ok(world, "deposit", customer_id="C001", account_id="A001", amount=10)
    world.clock.advance(dt.timedelta(days=2))
    ok(world, "transfer", customer_id="C001", from_account_id="A001", to_account_id="A003", amount=20)
    ok(world, "transfer", customer_id="C001", from_account_id="A001", to_account_id="A002", amount=30)

    def ids(**filters: Any) -> list[str]:
        found = ok(world, "get_transactions", customer_id="C001", account_id="A001", **filters)["transactions"]
        return [t["amount"] for t in found]

    assert ids() == ["10.00", "-20.00", "-30.00"]
    assert ids(start_date="2024-07-15") == ["-20.00", "-30.00"]
    assert ids(end_date="2024-07-14") == ["10.00"]
    assert ids(kind="transfer_out", counterparty="A003") == ["-20.00"]


def test_statement_balances_add_up_across_months() -> None:
    world = bank(EVE)
    ok(world, "deposit", customer_id="C001", account_id="A001", amount=1000)
    world.clock.set(dt.datetime(2024, 8, 3, 10, 0))
    ok(world, "withdraw", customer_id="C001", account_id="A001", amount=250.5)
    ok(world, "deposit", customer_id="C001", account_id="A001", amount=40)
    july = ok(world, "monthly_statement", customer_id="C001", account_id="A001", month="2024-07")
    august = ok(world, "monthly_statement", customer_id="C001", account_id="A001", month="2024-08")
    assert (july["opening_balance"], july["closing_balance"]) == ("12000.00", "13000.00")
    assert (august["opening_balance"], august["total_in"], august["total_out"], august["closing_balance"]) == (
        "13000.00", "40.00", "250.50", "12789.50")
    assert august["closing_balance"] == balance(world, "A001")
    empty = ok(world, "monthly_statement", customer_id="C001", account_id="A001", month="2024-06")
    assert empty["opening_balance"] == empty["closing_balance"] == "12000.00"


# -- loans -------------------------------------------------------------------------------------------


def test_schedule_is_equal_principal_with_interest_on_the_outstanding_amount() -> None:
    plan = schedule(Decimal("1000.00"), 3, rules.MONTHLY_RATE, dt.date(2024, 1, 31))
    assert [(i.due_date, str(i.principal), str(i.interest)) for i in plan] == [
        ("2024-02-28", "333.33", "5.00"), ("2024-03-28", "333.33", "3.33"), ("2024-04-28", "333.34", "1.67")]
    assert add_months(dt.date(2024, 11, 14), 3) == dt.date(2025, 2, 14)


def test_decision_rules_in_order() -> None:
    income = Decimal("3000")
    assert decide(Decimal("5000"), 12, income, []) is None
    assert decide(Decimal("30001"), 60, income, []) == "income_multiple"
    assert decide(Decimal("12000"), 12, income, []) is None  # 1000 + 60 <= 1200
    assert decide(Decimal("14000"), 12, income, []) == "debt_share"  # 1166.67 + 70 > 1200
    assert decide(Decimal("14000"), 36, income, []) is None  # 388.89 + 70 <= 1200


def test_approved_loan_is_paid_in_and_scheduled() -> None:
    world = bank(EVE)
    result = ok(world, "apply_loan", customer_id="C001", account_id="A001", amount=30000, term_months=12)
    assert result["message"] == ("Loan L002 approved: 30000.00 paid into A001; first payment of 2650.00 "
                                 "due 2024-08-14")
    loan = world.state()["Bank"]["loans"]["L002"]
    assert loan["status"] == "active" and len(loan["schedule"]) == 12
    assert balance(world, "A001") == "42000.00"
    assert world.state()["Bank"]["transactions"][-1]["kind"] == "loan_disbursement"


def test_rejections_name_the_rule() -> None:
    frank = bank(FRANK)
    assert ok(frank, "apply_loan", customer_id="C002", account_id="A003", amount=100, term_months=3) == {
        "status": False, "message": "Loan application rejected: an existing loan is overdue", "loan_id": "L002"}
    assert frank.state()["Bank"]["loans"]["L002"]["status"] == "rejected"
    eve = bank(EVE)
    ok(eve, "apply_loan", customer_id="C001", account_id="A001", amount=1000, term_months=12)
    ok(eve, "apply_loan", customer_id="C001", account_id="A001", amount=1000, term_months=12)
    third = ok(eve, "apply_loan", customer_id="C001", account_id="A001", amount=1000, term_months=12)
    assert third["message"] == "Loan application rejected: at most 2 open loans"
    refused(eve, "apply_loan", "invalid_arguments", customer_id="C001", account_id="A001", amount=1000,
            term_months=2)


def test_overdue_installments_get_one_late_fee_and_catching_up_restores_the_loan() -> None:
    world = bank(FRANK)
    loan = ok(world, "get_loan", customer_id="C002", loan_id="L001")
    assert loan["loan"]["status"] == "overdue" and loan["owed"] == "10327.50"  # 10000 + 275 interest + 52.50 fee
    third = loan["loan"]["schedule"][2]
    assert (third["status"], third["late_fee"]) == ("overdue", "52.50")
    ok(world, "get_loan", customer_id="C002", loan_id="L001")  # a second look adds no second fee
    assert world.state()["Bank"]["loans"]["L001"]["schedule"][2]["late_fee"] == "52.50"
    ok(world, "repay_loan", customer_id="C002", loan_id="L001", account_id="A003", amount=1000)
    assert world.state()["Bank"]["loans"]["L001"]["status"] == "overdue"  # 102.50 of it still unpaid
    ok(world, "repay_loan", customer_id="C002", loan_id="L001", account_id="A003", amount=102.5)
    state = world.state()["Bank"]
    assert state["loans"]["L001"]["status"] == "active"
    assert state["transactions"][-1]["fees"] == "0.00" and state["transactions"][0]["fees"] == "52.50"
    # the first 1000 went to the fee (52.50), then interest (50.00), then principal (897.50)
    assert state["transactions"][0]["interest"] == "50.00"
    assert state["transactions"][1]["interest"] == "0.00"
    world.clock.set(dt.datetime(2024, 7, 15, 9, 0))  # July's installment is now a day late
    assert ok(world, "get_loan", customer_id="C002", loan_id="L001")["loan"]["status"] == "overdue"


def test_pay_off_waives_future_interest() -> None:
    world = bank(FRANK)
    ok(world, "deposit", customer_id="C002", account_id="A003", amount=8000)
    assert ok(world, "pay_off_loan", customer_id="C002", loan_id="L001", account_id="A003")["message"] == (
        "Loan L001 paid off with 10102.50")
    assert world.state()["Bank"]["loans"]["L001"]["status"] == "paid_off"
    refused(world, "repay_loan", "invalid_transition", customer_id="C002", loan_id="L001", account_id="A003",
            amount=1)
    refused(world, "pay_off_loan", "invalid_transition", customer_id="C002", loan_id="L001", account_id="A003")


def test_overpayment_and_other_customers_loans_are_refused() -> None:
    world = bank(FRANK, EVE)
    refused(world, "repay_loan", "invalid_value", customer_id="C002", loan_id="L001", account_id="A003",
            amount=20000)
    refused(world, "get_loan", "not_found", customer_id="C001", loan_id="L001")


def test_zh_messages() -> None:
    world = banking_world(lang="zh", initial_config={"BaseApi": {"wifi": True, "logged_in": True}})
    assert world.call("login_bank", EVE).result["message"] == "客户 C001 已登录银行"
    record = world.call("withdraw", {"customer_id": "C001", "account_id": "A001", "amount": 99999})
    assert record.error is not None and record.error.message == "账户 A001 余额不足"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_default_world_state_is_json_ready(lang: str) -> None:
    import json

    json.dumps(banking_world(lang=lang).state())


def test_banking_docs_show_the_current_state_machines() -> None:
    from pathlib import Path

    from scenarios.banking import account_lifecycle, loan_lifecycle

    page = (Path(__file__).resolve().parents[1] / "docs" / "banking.md").read_text()
    assert account_lifecycle.to_mermaid().strip() in page
    assert loan_lifecycle.to_mermaid().strip() in page
