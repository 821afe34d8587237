"""The bank's money invariants, checked by the property-testing kit's state machine, en and zh.

Each check is shown to fail on a deliberately broken bank, so none of them holds by
construction: the money check compares the bank's balances with what the calls' own
arguments and the loan books say moved, and the statement check recomputes every
statement the bank hands out from its transaction records.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis.stateful import run_state_machine_as_test

from sandbox import Call, CallRecord, World, tool
from sandbox.testing import world_machine
from scenarios.acebench import BaseApi
from scenarios.acebench.world import apply_initial_config
from scenarios.banking import Bank
from tests.worlds import BANK_CUSTOMERS, ONLINE, banking, check_world

ZERO = Decimal("0.00")
# The default example budget, without shrinking what is found (the tests only need the finding).
FINDING = settings(deadline=None, database=None, phases=[Phase.generate],
                   suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def money(amount: Any) -> Decimal:
    return Decimal(str(amount))


def balances(state: dict[str, Any]) -> Decimal:
    return sum((money(a["balance"]) for a in state["Bank"]["accounts"].values()), ZERO)


def repaid(state: dict[str, Any], loan_id: str) -> Decimal:
    """What the loan book says has been paid towards a loan (fees, interest and principal)."""
    loan = state["Bank"]["loans"].get(loan_id)
    return sum((money(i["paid"]) for i in loan["schedule"]), ZERO) if loan else ZERO


# -- invariants of the state -----------------------------------------------------------------------


def no_balance_below_its_overdraft(state: dict[str, Any]) -> bool:
    return all(money(a["balance"]) >= -money(a["overdraft_limit"]) for a in state["Bank"]["accounts"].values())


def every_balance_change_has_exactly_one_record(state: dict[str, Any]) -> bool:
    bank = state["Bank"]
    for account in bank["accounts"].values():
        running = money(account["initial_balance"])
        for record in (t for t in bank["transactions"] if t["account_id"] == account["account_id"]):
            running += money(record["amount"])
            if money(record["balance_after"]) != running:
                return False
        if running != money(account["balance"]):
            return False
    ids = [t["transaction_id"] for t in bank["transactions"]]
    return len(ids) == len(set(ids))


def transfers_pair_up(state: dict[str, Any]) -> bool:
    """Every transfer out of an account arrived, in full, in the account it names, and nothing else did."""
    out, into = Counter(), Counter()
    for record in state["Bank"]["transactions"]:
        if record["kind"] == "transfer_out":
            out[(record["account_id"], record["counterparty"], -money(record["amount"]), record["time"])] += 1
        elif record["kind"] == "transfer_in":
            into[(record["counterparty"], record["account_id"], money(record["amount"]), record["time"])] += 1
    return out == into


def amounts_are_cents(state: dict[str, Any]) -> bool:
    return all(money(t["amount"]) == money(t["amount"]).quantize(Decimal("0.01"))
               for t in state["Bank"]["transactions"])


# -- postconditions of each call ---------------------------------------------------------------------


def money_is_conserved(call: Call, record: CallRecord, before: dict[str, Any], after: dict[str, Any]) -> bool:
    """The bank's balances change by exactly what the call moved across its doors, no more.

    The flow is read from the call's own arguments (deposits, withdrawals, repayments) and
    from the loan books (what a loan received, what an approved loan lent), never from the
    transaction records the bank writes for itself.
    """
    change = balances(after) - balances(before)
    if record.error is not None:
        return change == ZERO
    result = record.result if isinstance(record.result, dict) else {}
    arguments = call.arguments
    if call.name == "deposit":
        return change == money(arguments["amount"])
    if call.name == "withdraw":
        return change == -money(arguments["amount"])
    if call.name == "repay_loan":
        received = repaid(after, arguments["loan_id"]) - repaid(before, arguments["loan_id"])
        return change == -money(arguments["amount"]) and received == money(arguments["amount"])
    if call.name == "pay_off_loan":
        received = repaid(after, arguments["loan_id"]) - repaid(before, arguments["loan_id"])
        return received > ZERO and change == -received
    if call.name == "apply_loan" and result.get("status") is True:
        loan = after["Bank"]["loans"][result["loan_id"]]
        lent = sum((money(i["principal"]) for i in loan["schedule"]), ZERO)
        return lent == money(arguments["amount"]) == money(loan["principal"]) and change == lent
    return change == ZERO


def statements_add_up(call: Call, record: CallRecord, before: dict[str, Any], after: dict[str, Any]) -> bool:
    """A statement the bank hands out agrees with its transaction records for that account and month."""
    if call.name != "monthly_statement" or record.error is not None:
        return True
    report, month = record.result, call.arguments["month"]
    bank = after["Bank"]
    account = bank["accounts"][call.arguments["account_id"]]
    records = [t for t in bank["transactions"] if t["account_id"] == account["account_id"]]
    opening = money(account["initial_balance"])
    for t in records:
        if t["time"][:7] < month:
            opening = money(t["balance_after"])
    inside = [t for t in records if t["time"][:7] == month]
    closing = money(inside[-1]["balance_after"]) if inside else opening
    money_in = sum((money(t["amount"]) for t in inside if money(t["amount"]) > 0), ZERO)
    money_out = -sum((money(t["amount"]) for t in inside if money(t["amount"]) < 0), ZERO)
    return (money(report["opening_balance"]), money(report["closing_balance"]), money(report["total_in"]),
            money(report["total_out"])) == (opening, closing, money_in, money_out)


INVARIANTS = [no_balance_below_its_overdraft, every_balance_change_has_exactly_one_record, transfers_pair_up,
              amounts_are_cents]
POSTCONDITIONS = [money_is_conserved, statements_add_up]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_bank_keeps_its_invariants(lang: str) -> None:
    check_world(lambda: banking(lang, online=True), invariants=INVARIANTS, postconditions=POSTCONDITIONS,
                name=f"bank_{lang}")


# -- each check can fail --------------------------------------------------------------------------


class GenerousBank(Bank):
    """Transfers arrive with a cent more than left, and the records say so."""

    def _post(self, account: Any, kind: Any, amount: Decimal, *args: Any, **kwargs: Any) -> Any:
        if kind == "transfer_in":
            amount += Decimal("0.01")
        return super()._post(account, kind, amount, *args, **kwargs)


class MisrecordingBank(Bank):
    """Deposit records carry a running balance a cent off (the balances themselves are right)."""

    def _post(self, account: Any, kind: Any, amount: Decimal, *args: Any, **kwargs: Any) -> Any:
        made = super()._post(account, kind, amount, *args, **kwargs)
        if kind == "deposit":
            made.balance_after += Decimal("0.01")
        return made


class CrossedTransferBank(Bank):
    """Money arriving by transfer is recorded as coming from the account it arrived in."""

    def _post(self, account: Any, kind: Any, amount: Decimal, counterparty: Any = None, *args: Any,
              **kwargs: Any) -> Any:
        if kind == "transfer_in":
            counterparty = account.account_id
        return super()._post(account, kind, amount, counterparty, *args, **kwargs)


def _forgetful(statement_tool: Callable[..., dict]) -> Callable[..., dict]:
    @functools.wraps(statement_tool)
    def monthly_statement(self: Bank, *args: Any, **kwargs: Any) -> dict:
        report = statement_tool(self, *args, **kwargs)
        report["closing_balance"] = report["opening_balance"] + report["total_in"]
        return report

    return monthly_statement


class ForgetfulStatementBank(Bank):
    """Statements leave money out of the closing balance (the tool is the bank's own, wrapped)."""

    monthly_statement = tool(mutates=False)(_forgetful(Bank.monthly_statement))


def broken_bank(bank: type[Bank]) -> World:
    world = World([BaseApi("en"), bank("en")])
    apply_initial_config(world, ONLINE)
    for customer, password in BANK_CUSTOMERS.items():
        assert world.call("login_bank", {"customer_id": customer, "password": password}).ok
    return world


@pytest.mark.parametrize(("bank", "tools", "check"), [
    (GenerousBank, ["transfer", "list_accounts"], "money_is_conserved"),
    (MisrecordingBank, ["deposit", "get_balance"], "every_balance_change_has_exactly_one_record"),
    (CrossedTransferBank, ["transfer", "list_accounts"], "transfers_pair_up"),
    (ForgetfulStatementBank, ["withdraw", "monthly_statement"], "statements_add_up"),
])
def test_each_check_fails_on_a_bank_broken_for_it(bank: type[Bank], tools: list[str], check: str) -> None:
    machine = world_machine(lambda: broken_bank(bank), invariants=INVARIANTS, postconditions=POSTCONDITIONS,
                            tools=tools)
    with pytest.raises(AssertionError, match=check):
        run_state_machine_as_test(machine, settings=FINDING)
