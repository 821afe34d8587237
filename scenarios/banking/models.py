"""Banking state: customers, accounts, transactions, loans. All money is `Decimal` in cents."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Literal

from pydantic import AfterValidator, Field

from sandbox import StateModel

CENT = Decimal("0.01")
MAX_AMOUNT = Decimal("1000000000")


def _to_cents(value: Decimal) -> Decimal:
    return value.quantize(CENT)


# An amount an agent may move: positive, at most two decimals, at most one billion.
Amount = Annotated[Decimal, Field(gt=0, le=MAX_AMOUNT, decimal_places=2), AfterValidator(_to_cents)]

AccountStatus = Literal["open", "frozen", "closed"]
LoanStatus = Literal["applied", "approved", "rejected", "active", "overdue", "paid_off"]
TransactionKind = Literal[
    "deposit", "withdrawal", "transfer_in", "transfer_out", "loan_disbursement", "loan_repayment", "fee",
]


class Customer(StateModel):
    name: str
    password: str
    monthly_income: Decimal
    failed_logins: int = 0
    locked: bool = False


class Account(StateModel):
    account_id: str
    customer_id: str
    kind: Literal["checking", "savings"] = "checking"
    balance: Decimal = Decimal("0.00")
    # What the balance was before the first recorded transaction (initial data); with the
    # transactions it accounts for every cent of `balance`.
    initial_balance: Decimal = Decimal("0.00")
    overdraft_limit: Decimal = Decimal("0.00")
    status: AccountStatus = "open"


class Transaction(StateModel):
    transaction_id: str
    account_id: str
    kind: TransactionKind
    amount: Decimal  # signed: money into the account is positive
    balance_after: Decimal
    time: str
    counterparty: str | None = None
    memo: str = ""
    # For loan repayments: the parts of the payment that went to interest and to late fees.
    interest: Decimal = Decimal("0.00")
    fees: Decimal = Decimal("0.00")


class Installment(StateModel):
    number: int
    due_date: str
    principal: Decimal
    interest: Decimal
    paid: Decimal = Decimal("0.00")
    late_fee: Decimal = Decimal("0.00")
    status: Literal["due", "paid", "overdue"] = "due"

    @property
    def owed(self) -> Decimal:
        return self.principal + self.interest + self.late_fee - self.paid


class Loan(StateModel):
    loan_id: str
    customer_id: str
    account_id: str
    principal: Decimal
    term_months: int
    monthly_rate: Decimal
    status: LoanStatus = "applied"
    decision: str = ""
    schedule: list[Installment] = []


class BankState(StateModel):
    customers: dict[str, Customer] = {}
    accounts: dict[str, Account] = {}
    transactions: list[Transaction] = []
    loans: dict[str, Loan] = {}
    sessions: list[str] = []
    next_account: int = 1
    next_transaction: int = 1
    next_loan: int = 1
