"""A hypothesis state machine over the bank's tools proves its money invariants."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from scenarios.banking import banking_world, statement
from scenarios.banking.models import BankState

CUSTOMERS = {"C001": "eve2024", "C002": "frank2024", "C003": "grace2024"}
ACCOUNTS = ["A001", "A002", "A003", "A004", "A005", "A006"]
OWNED = [("C001", "A001"), ("C001", "A002"), ("C002", "A003"), ("C003", "A004"), ("C001", "A005"),
         ("C002", "A006")]
# Mostly an owner with one of their accounts; sometimes any pair (refusals must hold too).
owner_account = st.one_of(st.sampled_from(OWNED), st.sampled_from(OWNED),
                          st.tuples(st.sampled_from(list(CUSTOMERS)), st.sampled_from(ACCOUNTS)))
amounts = st.one_of(st.decimals(min_value=Decimal("0.01"), max_value=Decimal("3000"), places=2),
                    st.decimals(min_value=Decimal("0.01"), max_value=Decimal("70000"), places=2),
                    st.sampled_from([Decimal("-1"), Decimal("0"), Decimal("1.005")]))


class BankMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.world = banking_world(initial_config={"BaseApi": {"wifi": True, "logged_in": True}})
        self.outside = Decimal("0")  # money that entered (+) or left (-) the bank through its doors

    def bank(self) -> BankState:
        return self.world.app("Bank").state  # type: ignore[return-value]

    def total(self) -> Decimal:
        return sum((a.balance for a in self.bank().accounts.values()), Decimal("0"))

    def call(self, tool: str, **arguments: object) -> None:
        before = self.world.state()
        total_before = self.total()
        record = self.world.call(tool, arguments)
        assert record.error is None or record.error.type != "internal_error", record.error
        if record.error is not None:
            assert self.world.state() == before
        elif tool == "deposit":
            self.outside += self.total() - total_before
        elif tool in ("withdraw", "apply_loan", "repay_loan", "pay_off_loan"):
            self.outside += self.total() - total_before  # money to or from the bank's own books
        else:
            assert self.total() == total_before, f"{tool} created or destroyed money"

    @initialize()
    def everyone_logs_in(self) -> None:
        for customer, password in CUSTOMERS.items():
            self.call("login_bank", customer_id=customer, password=password)

    @rule(customer=st.sampled_from(list(CUSTOMERS)), good=st.booleans())
    def login(self, customer: str, good: bool) -> None:
        self.call("login_bank", customer_id=customer, password=CUSTOMERS[customer] if good else "nope")

    @rule(pair=owner_account, amount=amounts)
    def deposit(self, pair: tuple[str, str], amount: Decimal) -> None:
        self.call("deposit", customer_id=pair[0], account_id=pair[1], amount=str(amount))

    @rule(pair=owner_account, amount=amounts)
    def withdraw(self, pair: tuple[str, str], amount: Decimal) -> None:
        self.call("withdraw", customer_id=pair[0], account_id=pair[1], amount=str(amount))

    @rule(pair=owner_account, destination=st.sampled_from(ACCOUNTS), amount=amounts)
    def transfer(self, pair: tuple[str, str], destination: str, amount: Decimal) -> None:
        self.call("transfer", customer_id=pair[0], from_account_id=pair[1], to_account_id=destination,
                  amount=str(amount))

    @rule(pair=owner_account, action=st.sampled_from(["freeze_account", "unfreeze_account", "close_account"]))
    def lifecycle(self, pair: tuple[str, str], action: str) -> None:
        self.call(action, customer_id=pair[0], account_id=pair[1])

    @rule(customer=st.sampled_from(list(CUSTOMERS)))
    def open_account(self, customer: str) -> None:
        self.call("open_account", customer_id=customer)

    @rule(pair=owner_account, amount=st.sampled_from(["1000", "5000", "40000", "300000"]),
          term=st.sampled_from([3, 12, 60]))
    def apply_loan(self, pair: tuple[str, str], amount: str, term: int) -> None:
        self.call("apply_loan", customer_id=pair[0], account_id=pair[1], amount=amount, term_months=term)

    @rule(pair=owner_account, pick=st.integers(0, 7), amount=amounts, payoff=st.booleans())
    def repay(self, pair: tuple[str, str], pick: int, amount: Decimal, payoff: bool) -> None:
        customer, account = pair
        own = [loan_id for loan_id, loan in self.bank().loans.items() if loan.customer_id == customer]
        loan = own[pick % len(own)] if own and pick < 6 else f"L{pick:03d}"
        if payoff:
            self.call("pay_off_loan", customer_id=customer, loan_id=loan, account_id=account)
        else:
            self.call("repay_loan", customer_id=customer, loan_id=loan, account_id=account, amount=str(amount))

    @rule(days=st.integers(1, 40))
    def time_passes(self, days: int) -> None:
        self.world.clock.advance(dt.timedelta(days=days))

    @invariant()
    def no_balance_below_its_overdraft(self) -> None:
        for account in self.bank().accounts.values():
            assert account.balance >= -account.overdraft_limit

    @invariant()
    def every_balance_change_has_exactly_one_record(self) -> None:
        bank = self.bank()
        for account in bank.accounts.values():
            records = [t for t in bank.transactions if t.account_id == account.account_id]
            assert account.balance == account.initial_balance + sum((t.amount for t in records), Decimal("0"))
            running = account.initial_balance
            for record in records:
                running += record.amount
                assert record.balance_after == running
        ids = [t.transaction_id for t in bank.transactions]
        assert len(ids) == len(set(ids))

    @invariant()
    def money_is_conserved(self) -> None:
        initial = sum((a.initial_balance for a in self.bank().accounts.values()), Decimal("0"))
        assert self.total() == initial + self.outside

    @invariant()
    def statements_add_up(self) -> None:
        bank = self.bank()
        for account in bank.accounts.values():
            for month in ("2024-07", "2024-08", "2024-09"):
                report = statement(account, bank.transactions, month)
                assert report["closing_balance"] == (report["opening_balance"] + report["total_in"]
                                                     - report["total_out"])
            current = statement(account, bank.transactions, "9999-12")
            assert current["opening_balance"] == account.balance

    @invariant()
    def amounts_are_cents(self) -> None:
        for record in self.bank().transactions:
            assert record.amount == record.amount.quantize(Decimal("0.01"))


BankMachine.TestCase.settings = settings(max_examples=100, stateful_step_count=30, deadline=None,
                                         suppress_health_check=[HealthCheck.too_slow])
test_bank_invariants = BankMachine.TestCase
