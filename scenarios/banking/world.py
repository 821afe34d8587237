"""Building banking worlds: the Bank next to ACEBench's device (and, for combined tasks,
its messages and reminders), with the bank's default customers, accounts and one loan."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from decimal import Decimal
from typing import Any

from sandbox import World
from scenarios.acebench.world import APP_CLASSES as ACEBENCH_APPS
from scenarios.acebench.world import apply_initial_config

from . import rules
from .bank import Bank

CLASSES: tuple[str, ...] = ("BaseApi", "Bank", "MessageApi", "ReminderApi")


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


def banking_world(
    classes: Iterable[str] = ("BaseApi", "Bank"),
    *,
    lang: str = "en",
    initial_config: Mapping[str, Any] | None = None,
    seed: int = 0,
) -> World:
    """A world with the bank and the named ACEBench phone apps (the device is always there).

    `initial_config` follows ACEBench: the "BaseApi" entry sets wifi and login; a "Bank"
    entry replaces the listed bank fields (e.g. accounts with a frozen one).
    """
    names = list(dict.fromkeys(["BaseApi", *classes]))
    apps = []
    for name in names:
        if name == "Bank":
            apps.append(Bank(lang))
        elif name in ACEBENCH_APPS:
            apps.append(ACEBENCH_APPS[name](lang))
        else:
            raise KeyError(f"unknown class {name!r}; banking worlds know {', '.join(CLASSES)}")
    world = World(apps, seed=seed)
    config = dict(initial_config or {})
    apply_initial_config(world, config)
    if "Bank" in config and "Bank" in world.apps:
        world.load({"Bank": config["Bank"]})
    return world
