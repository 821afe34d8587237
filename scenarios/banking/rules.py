"""The bank's documented rules: limits, fees, loan decisions and repayment schedules.

Pure functions of their inputs, so docs/banking.md and the tests can state them exactly.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from decimal import ROUND_DOWN, ROUND_HALF_UP, Decimal

from .models import CENT, Installment, Loan

LOCKOUT_AFTER = 3  # failed logins in a row lock the customer out
DAILY_TRANSFER_LIMIT = Decimal("50000.00")  # per customer per day, transfers to other customers
MONTHLY_RATE = Decimal("0.005")  # 6% a year, on the outstanding principal
MIN_TERM, MAX_TERM = 3, 60  # months
MAX_INCOME_MULTIPLE = 10  # a loan may not exceed ten months of income
MAX_DEBT_SHARE = Decimal("0.40")  # monthly debt payments may not exceed 40% of income
MAX_OPEN_LOANS = 2
LATE_FEE_RATE = Decimal("0.05")  # of the unpaid part of an overdue installment
MIN_LATE_FEE = Decimal("10.00")
OPEN_LOAN_STATUSES = frozenset({"active", "overdue"})  # loans that still ask for repayments


def cents(value: Decimal) -> Decimal:
    return value.quantize(CENT, rounding=ROUND_HALF_UP)


def add_months(day: dt.date, months: int) -> dt.date:
    """The same day `months` later; days past the 28th fall back to the 28th."""
    month_index = day.month - 1 + months
    return dt.date(day.year + month_index // 12, month_index % 12 + 1, min(day.day, 28))


def schedule(principal: Decimal, term: int, rate: Decimal, start: dt.date) -> list[Installment]:
    """Equal principal each month (the last absorbs the rounding), interest on what is still owed."""
    share = (principal / term).quantize(CENT, rounding=ROUND_DOWN)
    outstanding = principal
    plan = []
    for number in range(1, term + 1):
        part = share if number < term else outstanding
        plan.append(Installment(number=number, due_date=add_months(start, number).isoformat(), principal=part,
                                interest=cents(outstanding * rate)))
        outstanding -= part
    return plan


def first_payment(principal: Decimal, term: int, rate: Decimal) -> Decimal:
    return cents(principal / term + principal * rate)


def monthly_debt(loans: Iterable[Loan]) -> Decimal:
    """What a customer's open loans ask for each month (their next unpaid installment)."""
    total = Decimal("0.00")
    for loan in loans:
        if loan.status in OPEN_LOAN_STATUSES:
            nxt = next((i for i in loan.schedule if i.status != "paid"), None)
            if nxt is not None:
                total += nxt.principal + nxt.interest
    return total


def decide(amount: Decimal, term: int, income: Decimal, existing: list[Loan]) -> str | None:
    """None to approve a loan application, else the code of the rule that rejects it.

    Rules, in order: no open loan may be overdue; at most two open loans; the amount may
    not exceed ten months of income; the first monthly payment plus what open loans ask
    each month may not exceed 40% of monthly income.
    """
    open_loans = [loan for loan in existing if loan.status in OPEN_LOAN_STATUSES]
    if any(loan.status == "overdue" for loan in open_loans):
        return "overdue"
    if len(open_loans) >= MAX_OPEN_LOANS:
        return "too_many"
    if amount > income * MAX_INCOME_MULTIPLE:
        return "income_multiple"
    if first_payment(amount, term, MONTHLY_RATE) + monthly_debt(open_loans) > income * MAX_DEBT_SHARE:
        return "debt_share"
    return None


def late_fee(unpaid: Decimal) -> Decimal:
    return max(MIN_LATE_FEE, cents(unpaid * LATE_FEE_RATE))
