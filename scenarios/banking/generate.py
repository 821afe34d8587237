"""Generated banking tasks: a random bank per task, requests a customer would make, in en and zh.

Each candidate draws a small bank (three or four customers with checking and savings accounts,
balances and incomes), picks the customer who speaks, and strings together requests whose number
and kind follow the difficulty level (`scenarios.generation.LEVELS`):

1. one request, accounts named by number;
2. two requests, the customer's own accounts named as they know them ("my savings account"), so
   the agent lists the accounts first;
3. a request whose later call needs an earlier call's output (a new account's number, a loan's
   number and first installment, a balance to move whole) and another request;
4. as 3 with one request more, on a phone whose Wi-Fi is off or which is logged out (the
   instruction does not say), with the messaging or reminder tools offered beside the bank's; the
   requests written as one message (`scenarios.generation.one_request`);
5. two requests of the kind of 3 and three more, as 4; one candidate in twenty is instead an ACEBench special case (an
   amount, payee account or loan term missing; a month or date that does not exist; a request no
   tool serves).

The generator keeps its own account of balances, so each candidate states the balances and
statuses its end state must show; `scenarios.generation.verify` replays the gold path and checks them.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from types import MappingProxyType
from typing import Any

from sandbox import Call

from ..acebench.generated import AceFormatGenerator
from ..generation import SPECIAL_SHARE, Candidate, one_message, one_request, special_category
from . import rules
from .phrases import KINDS, NAMES, PHRASES, TERMS, ZH_COMMA, ZH_QUESTION, ZH_STOP
from .world import banking_world

VERSION = "2"  # levels 4 and 5 written as one message; 1 to 3 give the bytes of version 1 (`STREAM`)
STREAM = "1"
TODAY = dt.date(2024, 7, 14)  # the simulated clock's first day
_WORDS = ("sunny", "river", "maple", "tiger", "lotus", "amber", "cedar", "pearl", "comet", "olive")
_ON: Mapping[str, bool] = MappingProxyType({"wifi": True, "logged_in": True})


@dataclass
class _Account:
    id: str
    owner: str
    kind: str
    balance: Decimal
    status: str = "open"
    new: bool = False


@dataclass
class _Person:
    cid: str
    name: str
    password: str
    income: Decimal


@dataclass
class _Bank:
    people: list[_Person]
    accounts: list[_Account]
    next_account: int

    def config(self) -> dict[str, Any]:
        return {
            "customers": {p.cid: {"name": p.name, "password": p.password, "monthly_income": str(p.income)}
                          for p in self.people},
            "accounts": {a.id: {"account_id": a.id, "customer_id": a.owner, "kind": a.kind,
                                "balance": str(a.balance), "initial_balance": str(a.balance)}
                         for a in self.accounts},
            "loans": {}, "transactions": [], "sessions": [],
            "next_account": self.next_account, "next_transaction": 1, "next_loan": 1,
        }


def _money(rng: random.Random, low: int, high: int, step: int = 10) -> Decimal:
    value = Decimal(rng.randrange(low, high + 1, step))
    if rng.random() < 0.15:
        value += Decimal("0.50")
    return value.quantize(Decimal("0.01"))


def _bank(rng: random.Random, lang: str) -> _Bank:
    names = rng.sample(NAMES[lang], rng.choice((3, 4)))
    people: list[_Person] = []
    accounts: list[_Account] = []
    for number, name in enumerate(names, start=1):
        cid = f"C{number:03d}"
        password = f"{rng.choice(_WORDS)}{rng.randrange(1000, 10000)}"
        people.append(_Person(cid, name, password, Decimal(rng.randrange(3000, 30001, 500)).quantize(Decimal("0.01"))))
        kinds = ["checking", "savings"] if number == 1 or rng.random() < 0.7 else ["checking"]
        for kind in kinds:
            balance = _money(rng, 1500, 20000, 50) if kind == "checking" else _money(rng, 3000, 80000, 100)
            accounts.append(_Account(f"A{len(accounts) + 1:03d}", cid, kind, balance))
    return _Bank(people, accounts, len(accounts) + 1)


def _arg(amount: Decimal) -> int | float:
    """An amount as a model writes it in a call: whole numbers without decimals."""
    return int(amount) if amount == amount.to_integral_value() else float(amount)


class _Draft:
    """One candidate being written: the simulated bank, the gold messages, the words, the facts."""

    def __init__(self, rng: random.Random, lang: str, difficulty: int) -> None:
        self.rng, self.lang, self.difficulty = rng, lang, difficulty
        self.bank = _bank(rng, lang)
        self.initial = self.bank.config()  # before any request changes the simulated bank
        both = [p for p in self.bank.people if sum(a.owner == p.cid for a in self.bank.accounts) > 1]
        self.me = rng.choice(both or self.bank.people)
        self.phrases = PHRASES[lang]
        self.messages: list[tuple[Call, ...]] = []
        self.requests: list[str] = []
        self.by_kind = difficulty >= 2  # own accounts named as the user knows them: a lookup first
        self.touched: set[str] = set()
        self.loans = 0
        self.closed_last = False

    # -- words -------------------------------------------------------------------------------

    def say(self, key: str, **values: Any) -> str:
        return self.rng.choice(self.phrases[key]).format(**values)

    def amount(self, value: Decimal) -> str:
        text = f"{value:,}" if self.lang == "en" and self.rng.random() < 0.5 else f"{value}"
        text = text[:-3] if text.endswith(".00") else text
        if self.lang == "zh":
            return f"{text}元"
        return f"${text}" if self.rng.random() < 0.3 else text

    def name_of(self, account: _Account) -> str:
        kind = KINDS[self.lang][account.kind]
        if account.new:
            return self.say("new")
        mine = [a for a in self.bank.accounts if a.owner == self.me.cid and a.kind == account.kind and not a.new]
        if self.by_kind and len(mine) == 1:
            return self.say("own_kind", kind=kind)
        return self.say("own", id=account.id, kind=kind)

    # -- the simulated bank --------------------------------------------------------------------

    def mine(self, usable: bool = True) -> list[_Account]:
        return [a for a in self.bank.accounts if a.owner == self.me.cid and (a.status == "open" or not usable)]

    def others(self) -> list[_Account]:
        return [a for a in self.bank.accounts if a.owner != self.me.cid and a.status == "open"]

    def call(self, name: str, **arguments: Any) -> None:
        self.messages.append((Call(name, {"customer_id": self.me.cid, **arguments}),))

    # -- requests: each returns False when the bank as it stands cannot take it --------------------

    def deposit(self) -> bool:
        account = self.rng.choice(self.mine())
        amount = _money(self.rng, 20, 3000)
        self.call("deposit", account_id=account.id, amount=_arg(amount))
        account.balance += amount
        self.touched.add(account.id)
        self.requests.append(self.say("deposit", amount=self.amount(amount), acct=self.name_of(account)))
        return True

    def withdraw(self) -> bool:
        choices = [a for a in self.mine() if a.balance >= 40]
        if not choices:
            return False
        account = self.rng.choice(choices)
        amount = _money(self.rng, 20, int(min(account.balance, Decimal(2000))) - 10)
        self.call("withdraw", account_id=account.id, amount=_arg(amount))
        account.balance -= amount
        self.touched.add(account.id)
        self.requests.append(self.say("withdraw", amount=self.amount(amount), acct=self.name_of(account)))
        return True

    def move(self) -> bool:
        own = self.mine()
        sources = [a for a in own if a.balance >= 40]
        if len(own) < 2 or not sources:
            return False
        source = self.rng.choice(sources)
        target = self.rng.choice([a for a in own if a is not source])
        amount = _money(self.rng, 20, int(min(source.balance, Decimal(10000))) - 10)
        self._transfer(source, target, amount)
        self.requests.append(self.say("move", amount=self.amount(amount), src=self.name_of(source),
                                      dst=self.name_of(target)))
        return True

    def pay(self) -> bool:
        sources = [a for a in self.mine() if a.balance >= 40]
        if not sources or not self.others():
            return False
        source = self.rng.choice(sources)
        target = self.rng.choice(self.others())
        payee = next(p.name for p in self.bank.people if p.cid == target.owner)
        amount = _money(self.rng, 20, int(min(source.balance, Decimal(4000))) - 10)
        values = {"amount": self.amount(amount), "src": self.name_of(source), "dst": target.id, "payee": payee}
        if self.rng.random() < 0.4:
            memo = self.rng.choice(self.phrases["memo"])
            self._transfer(source, target, amount, memo)
            self.requests.append(self.say("pay_memo", memo=memo, **values))
        else:
            self._transfer(source, target, amount)
            self.requests.append(self.say("pay", **values))
        return True

    def freeze(self) -> bool:
        account = self.rng.choice([a for a in self.mine() if not a.new] or self.mine())
        self.call("freeze_account", account_id=account.id)
        account.status = "frozen"
        self.touched.add(account.id)
        self.requests.append(self.say("freeze", acct=self.name_of(account)))
        return True

    def open_fund(self) -> bool:
        sources = [a for a in self.mine() if a.balance >= 40]
        if not sources or any(a.new for a in self.bank.accounts):
            return False
        source = self.rng.choice(sources)
        kind = self.rng.choice(("checking", "savings"))
        new = _Account(f"A{self.bank.next_account:03d}", self.me.cid, kind, Decimal("0.00"), new=True)
        self.bank.next_account += 1
        self.bank.accounts.append(new)
        amount = _money(self.rng, 20, int(min(source.balance, Decimal(10000))) - 10)
        self.call("open_account", kind=kind)
        self._transfer(source, new, amount)
        self.requests.append(self.say("open_fund", kind=KINDS[self.lang][kind], amount=self.amount(amount),
                                      src=self.name_of(source)))
        return True

    def empty_close(self) -> bool:
        own = [a for a in self.mine() if not a.new]
        if len(own) < 2:
            return False
        source = self.rng.choice([a for a in own if a.balance > 0] or own)
        target = self.rng.choice([a for a in own if a is not source])
        self.messages.append((Call("get_balance", {"customer_id": self.me.cid, "account_id": source.id}),))
        if source.balance > 0:
            self._transfer(source, target, source.balance)
        self.call("close_account", account_id=source.id)
        source.status = "closed"
        self.requests.append(self.say("empty_close", acct=self.name_of(source), dst=self.name_of(target)))
        return True

    def loan_first(self) -> bool:
        accounts = self.mine()
        if self.loans:
            return False
        account = self.rng.choice(accounts)
        term = self.rng.choice((6, 12, 24, 36))
        amount = Decimal(self.rng.randrange(1000, int(self.me.income) * 3 + 1, 500)).quantize(Decimal("0.01"))
        if rules.decide(amount, term, self.me.income, []) is not None:
            return False
        first = rules.schedule(amount, term, rules.MONTHLY_RATE, TODAY)[0]
        payment = first.principal + first.interest
        loan_id = f"L{self.loans + 1:03d}"
        self.loans += 1
        self.call("apply_loan", account_id=account.id, amount=_arg(amount), term_months=term)
        self.messages.append((Call("get_loan", {"customer_id": self.me.cid, "loan_id": loan_id}),))
        self.call("repay_loan", loan_id=loan_id, account_id=account.id, amount=_arg(payment))
        account.balance += amount - payment
        self.touched.add(account.id)
        self.requests.append(self.say("loan_first", amount=self.amount(amount), acct=self.name_of(account),
                                      months=self.rng.choice(TERMS[self.lang][term])))
        return True

    def _transfer(self, source: _Account, target: _Account, amount: Decimal, memo: str = "") -> None:
        arguments: dict[str, Any] = {"from_account_id": source.id, "to_account_id": target.id, "amount": _arg(amount)}
        if memo:
            arguments["memo"] = memo
        self.call("transfer", **arguments)
        source.balance -= amount
        target.balance += amount
        self.touched.update((source.id, target.id))

    # -- the candidate --------------------------------------------------------------------------

    def write(self) -> Candidate | None:
        level = self.difficulty
        simple = [self.deposit, self.withdraw, self.move, self.pay]
        compound = [self.open_fund, self.empty_close, self.loan_first]
        plan: list[Any] = {1: [simple], 2: [simple, simple], 3: [compound, simple], 4: [compound, simple, simple],
                           5: [compound, compound, simple, simple, simple]}[level]
        plan = self.rng.sample(plan, len(plan))
        if level >= 2 and plan[-1] is simple and self.rng.random() < 0.2:
            plan[-1] = [self.freeze]  # a freeze ends a request list: nothing moves after it
        for choices in plan:
            if not self.rng.choice(choices)():
                return None
        classes: tuple[str, ...] = ("BaseApi", "Bank")
        device = dict(_ON)
        opening: list[tuple[Call, ...]] = []
        if level >= 4:
            classes += (self.rng.choice(("MessageApi", "ReminderApi")),)
            missing = self.rng.choice(("wifi", "logged_in"))
            device[missing] = False
            opening.append((Call("turn_on_wifi" if missing == "wifi" else "login_device", {}),))
        opening.append((Call("login_bank", {"customer_id": self.me.cid, "password": self.me.password}),))
        if self.by_kind:
            opening.append((Call("list_accounts", {"customer_id": self.me.cid}),))
        expect: dict[str, Any] = {}
        for account in self.bank.accounts:
            if account.id in self.touched or account.status != "open":
                expect[f"Bank.accounts.{account.id}.balance"] = str(account.balance)
                expect[f"Bank.accounts.{account.id}.status"] = account.status
        return Candidate("multi_step", self.question(), classes, {"BaseApi": device, "Bank": self.initial},
                         tuple(opening + self.messages), expect)

    def question(self) -> str:
        identity = self.say("identity", name=self.me.name, cid=self.me.cid, pw=self.me.password)
        if self.difficulty >= 4:
            return one_request(self.requests, self.lang, self.rng, identity)
        return one_message(identity, self.requests, self.lang, self.rng, self.phrases["then"], zh_direct=("我",),
                           zh_question=ZH_QUESTION, zh_comma=ZH_COMMA, zh_stop=ZH_STOP)


def _special(draft: _Draft) -> Candidate:
    """One of ACEBench's special cases, asked by the draft's customer of the draft's bank."""
    rng, me = draft.rng, draft.me
    draft.by_kind = True
    own = draft.mine()
    source = rng.choice(own)
    other = rng.choice([a for a in own if a is not source])
    answer: Mapping[str, Any] = {}
    request = draft.say("irrelevant", pw=me.password)  # drawn before the category, as always
    category = special_category(rng, 0.45, 0.75)
    if category == "special_incomplete":
        kind = rng.choice(("incomplete_amount", "incomplete_payee", "incomplete_term"))
        payee = next(p.name for p in draft.bank.people if p.cid != me.cid)
        values = {"src": draft.name_of(source), "dst": draft.name_of(other), "acct": draft.name_of(source),
                  "payee": payee,
                  "amount": draft.amount(_money(rng, 1000, 30000, 500) if kind == "incomplete_term" else
                                         _money(rng, 50, 2000))}
        request = draft.say(kind, **values)
        answer = {"apply_loan": ["term_months"]} if kind == "incomplete_term" else \
            {"transfer": ["to_account_id" if kind == "incomplete_payee" else "amount"]}
    elif category == "special_error_param":
        if rng.random() < 0.5:
            month = f"2024-{rng.choice(('13', '14', '00'))}"
            request, answer = draft.say("error_month", acct=draft.name_of(source), month=month), {"month": [month]}
        else:
            day = rng.choice(("2024-02-30", "2024-06-31", "2024-04-31", "2024-09-31"))
            request, answer = draft.say("error_date", acct=draft.name_of(source), date=day), {"start_date": [day]}
    draft.requests = [request]
    return Candidate(category, draft.question(), ("BaseApi", "Bank"), {"BaseApi": dict(_ON), "Bank": draft.initial},
                     special=answer)


GENERATOR = AceFormatGenerator("banking", VERSION, banking_world, _Draft, _special, SPECIAL_SHARE, stream=STREAM)
