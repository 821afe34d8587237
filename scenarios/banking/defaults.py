"""The bank's default data: three customers, four accounts and one loan part-way through."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

from . import rules


def default_bank_state() -> dict[str, Any]:
    """Three customers, four accounts, and Frank's 12-month loan from March with June's installment unpaid."""
    loan_schedule = rules.schedule(Decimal("12000.00"), 12, rules.MONTHLY_RATE, dt.date(2024, 3, 14))
    for installment in loan_schedule[:2]:
        installment.paid = installment.principal + installment.interest
        installment.status = "paid"
    return {
        "customers": {
            # The same people as ACEBench's phone users, so tasks can combine banking and messages.
            "C001": {"name": "Eve", "password": "eve2024", "monthly_income": Decimal("20000.00")},
            "C002": {"name": "Frank", "password": "frank2024", "monthly_income": Decimal("8000.00")},
            "C003": {"name": "Grace", "password": "grace2024", "monthly_income": Decimal("3000.00")},
        },
        "accounts": {
            account_id: {"account_id": account_id, "customer_id": owner, "kind": kind,
                         "balance": Decimal(balance), "initial_balance": Decimal(balance)}
            for account_id, owner, kind, balance in (
                ("A001", "C001", "checking", "12000.00"), ("A002", "C001", "savings", "60000.00"),
                ("A003", "C002", "checking", "3000.00"), ("A004", "C003", "checking", "500.00"),
            )
        },
        "loans": {"L001": {"loan_id": "L001", "customer_id": "C002", "account_id": "A003",
                           "principal": Decimal("12000.00"), "term_months": 12, "monthly_rate": rules.MONTHLY_RATE,
                           "status": "active", "decision": "approved",
                           "schedule": [i.model_dump() for i in loan_schedule]}},
        "next_account": 5,
        "next_transaction": 1,
        "next_loan": 2,
    }
