"""What the Bank's tools return: one type per reply shape, so the shapes are documented and exported.

The types describe the replies only; the tools build plain dicts, returned as they are. A refused call
raises (a structured error) and returns nothing, except a failed login and a rejected loan, which are
recorded in the state and so are replies with `status: False`.
"""

from __future__ import annotations

from decimal import Decimal

# pydantic reads these to export schemas, and on Python 3.11 needs typing_extensions' TypedDict.
from typing_extensions import TypedDict

from scenarios.acebench.base import Reply as BankReply

from .models import AccountStatus, Loan, Transaction


class OpenedAccount(BankReply):
    account_id: str


class BalanceAfter(BankReply):
    """A deposit, withdrawal or transfer done: the (source) account's balance after it."""

    balance: Decimal


class LoanDecision(BankReply):
    loan_id: str


class AccountSummary(TypedDict):
    account_id: str
    kind: str
    balance: Decimal
    status: AccountStatus


class AccountList(TypedDict):
    status: bool
    accounts: list[AccountSummary]


class Balance(TypedDict):
    status: bool
    account_id: str
    balance: Decimal
    state: AccountStatus


class TransactionList(TypedDict):
    status: bool
    transactions: list[Transaction]


class Statement(TypedDict):
    """One account's month: `closing_balance == opening_balance + total_in - total_out`."""

    account_id: str
    month: str
    opening_balance: Decimal
    closing_balance: Decimal
    total_in: Decimal
    total_out: Decimal
    interest_paid: Decimal
    fees: Decimal
    transactions: list[Transaction]


class StatementReply(Statement):
    status: bool


class LoanDetails(TypedDict):
    status: bool
    loan: Loan
    owed: Decimal
