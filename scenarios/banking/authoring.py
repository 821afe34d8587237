"""The bundled banking tasks, written once for both languages.

Each task states its question (en, zh), the classes and initial config, the gold path as
tool calls, and the facts a correct end state must show (balances, statuses), computed
by hand from the rules in docs/banking.md. `build()` runs every path, checks those facts,
and writes the tasks in ACEBench's format (prompts plus possible answers) under
`scenarios/banking/data/`. Regenerate with `python -m scenarios.banking.authoring`; a test
checks the committed files are current.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from sandbox import Call
from sandbox.parsing import render_calls
from scenarios.acebench.world import saved_state

from .defaults import default_bank_state
from .family import DATA_DIR
from .world import banking_world

LANGS = ("en", "zh")
ON = MappingProxyType({"BaseApi": MappingProxyType({"wifi": True, "logged_in": True})})
EVE = MappingProxyType({"customer_id": "C001", "password": "eve2024"})
FRANK = MappingProxyType({"customer_id": "C002", "password": "frank2024"})
GRACE = MappingProxyType({"customer_id": "C003", "password": "grace2024"})


@dataclass(frozen=True)
class Text:
    """An argument that differs by language."""

    key: str


@dataclass
class TaskSpec:
    category: str
    question: dict[str, str]
    path: list[list[tuple[str, dict[str, Any]]]]
    expect: dict[str, Any] = field(default_factory=dict)
    classes: tuple[str, ...] = ("BaseApi", "Bank")
    config: dict[str, Any] = field(default_factory=lambda: _plain_config(ON))
    texts: dict[str, dict[str, str]] = field(default_factory=dict)


def _plain_config(config: Mapping[str, Any]) -> dict[str, Any]:
    return {key: dict(value) if isinstance(value, Mapping) else value for key, value in config.items()}


def login(who: Mapping[str, str]) -> list[tuple[str, dict[str, Any]]]:
    return [("login_bank", dict(who))]


def one(name: str, **arguments: Any) -> list[tuple[str, dict[str, Any]]]:
    return [(name, arguments)]


def frozen(account_id: str) -> dict[str, Any]:
    """A Bank config entry with one account frozen."""
    accounts = json.loads(json.dumps(default_bank_state()["accounts"], default=str))
    accounts[account_id]["status"] = "frozen"
    return {"accounts": accounts}


TASKS: tuple[TaskSpec, ...] = (
    # ---------------------------------------------------------------- multi_step
    TaskSpec("multi_step",
             {"en": "I am Eve (customer C001, password eve2024). What is the balance of my checking account A001?",
              "zh": "我是Eve（客户号C001，密码eve2024）。请查一下我的支票账户A001的余额。"},
             [login(EVE), one("get_balance", customer_id="C001", account_id="A001")],
             {"Bank.sessions": ["C001"], "Bank.accounts.A001.balance": "12000.00"}),
    TaskSpec("multi_step",
             {"en": "I am Eve (C001, password eve2024). Deposit 2000 into my account A001.",
              "zh": "我是Eve（C001，密码eve2024）。请往我的账户A001存入2000元。"},
             [login(EVE), one("deposit", customer_id="C001", account_id="A001", amount=2000)],
             {"Bank.accounts.A001.balance": "14000.00", "Bank.transactions.0.kind": "deposit"}),
    TaskSpec("multi_step",
             {"en": "I am Eve (C001, password eve2024). Withdraw 500.25 from my savings account A002.",
              "zh": "我是Eve（C001，密码eve2024）。请从我的储蓄账户A002取出500.25元。"},
             [login(EVE), one("withdraw", customer_id="C001", account_id="A002", amount=500.25)],
             {"Bank.accounts.A002.balance": "59499.75"}),
    TaskSpec("multi_step",
             {"en": "I am Eve (C001, password eve2024). Move 5000 from my savings A002 to my checking A001.",
              "zh": "我是Eve（C001，密码eve2024）。请把5000元从我的储蓄账户A002转到支票账户A001。"},
             [login(EVE), one("transfer", customer_id="C001", from_account_id="A002", to_account_id="A001",
                              amount=5000)],
             {"Bank.accounts.A001.balance": "17000.00", "Bank.accounts.A002.balance": "55000.00"}),
    TaskSpec("multi_step",
             {"en": "I am Eve (C001, password eve2024). Pay Frank 1200 for the July rent: send it from A001 to his "
                    "account A003 with the memo 'July rent'.",
              "zh": "我是Eve（C001，密码eve2024）。请从A001向Frank的账户A003转账1200元付七月房租，备注写“七月房租”。"},
             [login(EVE), one("transfer", customer_id="C001", from_account_id="A001", to_account_id="A003",
                              amount=1200, memo=Text("memo"))],
             {"Bank.accounts.A001.balance": "10800.00", "Bank.accounts.A003.balance": "4200.00"},
             texts={"en": {"memo": "July rent"}, "zh": {"memo": "七月房租"}}),
    TaskSpec("multi_step",
             {"en": "I am Eve (C001, password eve2024). Send 300 from A001 to Grace's account A004.",
              "zh": "我是Eve（C001，密码eve2024）。请从A001给Grace的账户A004转300元。"},
             [one("turn_on_wifi"), login(EVE),
              one("transfer", customer_id="C001", from_account_id="A001", to_account_id="A004", amount=300)],
             {"BaseApi.wifi": True, "Bank.accounts.A004.balance": "800.00"},
             config={"BaseApi": {"wifi": False, "logged_in": True}}),
    TaskSpec("multi_step",
             {"en": "I am Frank (C002, password frank2024). Deposit 800 into my account A003.",
              "zh": "我是Frank（C002，密码frank2024）。请往我的账户A003存入800元。"},
             [one("login_device"), login(FRANK), one("deposit", customer_id="C002", account_id="A003", amount=800)],
             {"BaseApi.logged_in": True, "Bank.accounts.A003.balance": "3800.00"},
             config={"BaseApi": {"wifi": True, "logged_in": False}}),
    TaskSpec("multi_step",
             {"en": "I am Grace (C003, password grace2024). Withdraw 100 from my account A004.",
              "zh": "我是Grace（C003，密码grace2024）。请从我的账户A004取出100元。"},
             [one("turn_on_wifi"), one("login_device"), login(GRACE),
              one("withdraw", customer_id="C003", account_id="A004", amount=100)],
             {"Bank.accounts.A004.balance": "400.00"},
             config={"BaseApi": {"wifi": False, "logged_in": False}}),
    TaskSpec("multi_step",
             {"en": "I am Eve (C001, password eve2024). Open a new savings account for me and move 10000 from A001 "
                    "into it.",
              "zh": "我是Eve（C001，密码eve2024）。请为我开一个新的储蓄账户，并从A001转入10000元。"},
             [login(EVE), one("open_account", customer_id="C001", kind="savings"),
              one("transfer", customer_id="C001", from_account_id="A001", to_account_id="A005", amount=10000)],
             {"Bank.accounts.A005.kind": "savings", "Bank.accounts.A005.balance": "10000.00",
              "Bank.accounts.A001.balance": "2000.00"}),
    TaskSpec("multi_step",
             {"en": "I am Eve (C001, password eve2024). I lost the card of my savings account A002; freeze it.",
              "zh": "我是Eve（C001，密码eve2024）。我的储蓄账户A002的卡丢了，请冻结这个账户。"},
             [login(EVE), one("freeze_account", customer_id="C001", account_id="A002")],
             {"Bank.accounts.A002.status": "frozen"}),
    TaskSpec("multi_step",
             {"en": "I am Grace (C003, password grace2024). Send 800 from my account A004 to Eve's account A001.",
              "zh": "我是Grace（C003，密码grace2024）。请从我的账户A004向Eve的账户A001转账800元。"},
             [login(GRACE), one("transfer", customer_id="C003", from_account_id="A004", to_account_id="A001",
                                amount=800)],
             {"Bank.accounts.A004.balance": "500.00", "Bank.transactions": []}),
    TaskSpec("multi_step",
             {"en": "I am Eve (C001, password eve2024). Send 60000 from my savings A002 to Frank's account A003.",
              "zh": "我是Eve（C001，密码eve2024）。请从我的储蓄账户A002向Frank的账户A003转账60000元。"},
             [login(EVE), one("transfer", customer_id="C001", from_account_id="A002", to_account_id="A003",
                              amount=60000)],
             {"Bank.accounts.A002.balance": "60000.00", "Bank.transactions": []}),
    TaskSpec("multi_step",
             {"en": "I am Grace (C003, password grace2024). Deposit 100 into my account A004.",
              "zh": "我是Grace（C003，密码grace2024）。请往我的账户A004存入100元。"},
             [login(GRACE), one("deposit", customer_id="C003", account_id="A004", amount=100)],
             {"Bank.accounts.A004.balance": "500.00", "Bank.accounts.A004.status": "frozen"},
             config={**_plain_config(ON), "Bank": frozen("A004")}),
    TaskSpec("multi_step",
             {"en": "I am Eve (C001, password eve2024). Apply for a 30000 loan over 12 months, paid into A001.",
              "zh": "我是Eve（C001，密码eve2024）。请申请一笔30000元、12个月的贷款，放款到A001。"},
             [login(EVE), one("apply_loan", customer_id="C001", account_id="A001", amount=30000, term_months=12)],
             {"Bank.loans.L002.status": "active", "Bank.accounts.A001.balance": "42000.00",
              "Bank.loans.L002.schedule.0.principal": "2500.00", "Bank.loans.L002.schedule.0.interest": "150.00"}),
    TaskSpec("multi_step",
             {"en": "I am Frank (C002, password frank2024). Apply for a 1000 loan over 6 months into A003.",
              "zh": "我是Frank（C002，密码frank2024）。请申请一笔1000元、6个月的贷款，放款到A003。"},
             [login(FRANK), one("apply_loan", customer_id="C002", account_id="A003", amount=1000, term_months=6)],
             {"Bank.loans.L002.status": "rejected", "Bank.loans.L002.decision": "overdue",
              "Bank.loans.L001.status": "overdue", "Bank.accounts.A003.balance": "3000.00"}),
    TaskSpec("multi_step",
             {"en": "I am Frank (C002, password frank2024). My loan L001 is behind; pay what is overdue from A003.",
              "zh": "我是Frank（C002，密码frank2024）。我的贷款L001逾期了，请从A003还清逾期的部分。"},
             [login(FRANK), one("get_loan", customer_id="C002", loan_id="L001"),
              one("repay_loan", customer_id="C002", loan_id="L001", account_id="A003", amount=1102.5)],
             {"Bank.loans.L001.status": "active", "Bank.loans.L001.schedule.2.late_fee": "52.50",
              "Bank.loans.L001.schedule.2.status": "paid", "Bank.accounts.A003.balance": "1897.50"}),
    TaskSpec("multi_step",
             {"en": "I am Eve (C001, password eve2024). Move everything from savings A002 to A001, then close A002.",
              "zh": "我是Eve（C001，密码eve2024）。请把储蓄账户A002的钱全部转到A001，然后注销A002。"},
             [login(EVE), one("get_balance", customer_id="C001", account_id="A002"),
              one("transfer", customer_id="C001", from_account_id="A002", to_account_id="A001", amount=60000),
              one("close_account", customer_id="C001", account_id="A002")],
             {"Bank.accounts.A002.status": "closed", "Bank.accounts.A001.balance": "72000.00"}),
    TaskSpec("multi_step",
             {"en": "I am Eve (C001, password eve2024). Pay Frank 1200 rent from A001 to A003, then add a reminder "
                    "titled 'Rent' with the description 'Pay Frank 1200' for 2024-08-14 09:00.",
              "zh": "我是Eve（C001，密码eve2024）。请从A001向Frank的A003转1200元房租，然后添加一个提醒，标题“房租”，"
                    "内容“给Frank转1200元”，时间2024-08-14 09:00。"},
             [login(EVE), one("transfer", customer_id="C001", from_account_id="A001", to_account_id="A003",
                              amount=1200),
              one("add_reminder", title=Text("title"), description=Text("desc"), time="2024-08-14 09:00")],
             {"Bank.accounts.A003.balance": "4200.00", "ReminderApi.reminder_list.4.time": "2024-08-14 09:00"},
             classes=("BaseApi", "Bank", "ReminderApi"),
             texts={"en": {"title": "Rent", "desc": "Pay Frank 1200"},
                    "zh": {"title": "房租", "desc": "给Frank转1200元"}}),
    TaskSpec("multi_step",
             {"en": "I am Eve (C001, password eve2024). Send Grace 300 from A001 to her account A004, then text her "
                    "'I sent you 300'. Delete the oldest message first if the inbox is full.",
              "zh": "我是Eve（C001，密码eve2024）。请从A001给Grace的账户A004转300元，然后发短信告诉她“已给你转300元”。"
                    "如果收件箱满了，先删除最早的一条短信。"},
             [login(EVE), one("transfer", customer_id="C001", from_account_id="A001", to_account_id="A004", amount=300),
              one("get_earliest_message_id"), one("delete_message", message_id=3),
              one("send_message", sender_name="Eve", receiver_name="Grace", message=Text("msg"))],
             {"Bank.accounts.A004.balance": "800.00", "MessageApi.inbox.7.receiver_id": "USR102"},
             classes=("BaseApi", "Bank", "MessageApi"),
             texts={"en": {"msg": "I sent you 300"}, "zh": {"msg": "已给你转300元"}}),
    TaskSpec("multi_step",
             {"en": "I am Eve (C001, password eve2024). Deposit 2500 into A001 and show me the July 2024 statement.",
              "zh": "我是Eve（C001，密码eve2024）。请往A001存入2500元，并给我看2024年7月的对账单。"},
             [login(EVE), one("deposit", customer_id="C001", account_id="A001", amount=2500),
              one("monthly_statement", customer_id="C001", account_id="A001", month="2024-07")],
             {"Bank.accounts.A001.balance": "14500.00"}),
    # ---------------------------------------------------------------- multi_turn
    TaskSpec("multi_turn",
             {"en": "You are Eve (C001, password eve2024). You want to know the balances of all your accounts.",
              "zh": "你是Eve（C001，密码eve2024）。你想知道你所有账户的余额。"},
             [login(EVE), one("list_accounts", customer_id="C001")],
             {"Bank.sessions": ["C001"]}),
    TaskSpec("multi_turn",
             {"en": "You are Frank (C002, password frank2024). Deposit 2000 into A003, then pay the overdue part of "
                    "loan L001 from A003.",
              "zh": "你是Frank（C002，密码frank2024）。先往A003存入2000元，再从A003还清贷款L001的逾期部分。"},
             [login(FRANK), one("deposit", customer_id="C002", account_id="A003", amount=2000),
              one("get_loan", customer_id="C002", loan_id="L001"),
              one("repay_loan", customer_id="C002", loan_id="L001", account_id="A003", amount=1102.5)],
             {"Bank.accounts.A003.balance": "3897.50", "Bank.loans.L001.status": "active"}),
    TaskSpec("multi_turn",
             {"en": "You are Frank (C002, password frank2024). Deposit 8000 into A003 and pay off loan L001 early.",
              "zh": "你是Frank（C002，密码frank2024）。往A003存入8000元，然后提前结清贷款L001。"},
             [login(FRANK), one("deposit", customer_id="C002", account_id="A003", amount=8000),
              one("pay_off_loan", customer_id="C002", loan_id="L001", account_id="A003")],
             {"Bank.loans.L001.status": "paid_off", "Bank.accounts.A003.balance": "897.50"}),
    TaskSpec("multi_turn",
             {"en": "You are Eve (C001, password eve2024). You found your card: unfreeze your account A002.",
              "zh": "你是Eve（C001，密码eve2024）。你找到了银行卡，请解冻账户A002。"},
             [login(EVE), one("unfreeze_account", customer_id="C001", account_id="A002")],
             {"Bank.accounts.A002.status": "open"},
             config={**_plain_config(ON), "Bank": frozen("A002")}),
    TaskSpec("multi_turn",
             {"en": "You are Eve (C001). You first give the password eve2023 twice, then remember it is eve2024.",
              "zh": "你是Eve（C001）。你先两次输入密码eve2023，之后想起正确密码是eve2024。"},
             [one("login_bank", customer_id="C001", password="eve2023"),
              one("login_bank", customer_id="C001", password="eve2023"), login(EVE)],
             {"Bank.customers.C001.failed_logins": 0, "Bank.sessions": ["C001"]}),
    TaskSpec("multi_turn",
             {"en": "You are Grace (C003). You keep typing the wrong password grace2023, three times.",
              "zh": "你是Grace（C003）。你连续三次输入了错误的密码grace2023。"},
             [one("login_bank", customer_id="C003", password="grace2023") for _ in range(3)],
             {"Bank.customers.C003.locked": True, "Bank.sessions": []}),
    TaskSpec("multi_turn",
             {"en": "You are Eve (C001, password eve2024). Send Frank 450 from A001 to A003 and text him 'Dinner "
                    "money sent'.",
              "zh": "你是Eve（C001，密码eve2024）。从A001给Frank的A003转450元，并发短信告诉他“晚饭钱已转”。"},
             [one("turn_on_wifi"), login(EVE),
              one("transfer", customer_id="C001", from_account_id="A001", to_account_id="A003", amount=450),
              one("delete_message", message_id=1),
              one("send_message", sender_name="Eve", receiver_name="Frank", message=Text("msg"))],
             {"Bank.accounts.A003.balance": "3450.00", "MessageApi.inbox.7.sender_id": "USR100"},
             classes=("BaseApi", "Bank", "MessageApi"),
             config={"BaseApi": {"wifi": False, "logged_in": True}},
             texts={"en": {"msg": "Dinner money sent"}, "zh": {"msg": "晚饭钱已转"}}),
    TaskSpec("multi_turn",
             {"en": "You are Eve (C001, password eve2024). Send Frank 2000 from A001 to A003, then list today's "
                    "transfers between A001 and A003.",
              "zh": "你是Eve（C001，密码eve2024）。从A001给Frank的A003转2000元，"
                    "然后查看A001与A003之间今天的转账记录。"},
             [login(EVE),
              one("transfer", customer_id="C001", from_account_id="A001", to_account_id="A003", amount=2000),
              one("get_transactions", customer_id="C001", account_id="A001", start_date="2024-07-14",
                  counterparty="A003")],
             {"Bank.accounts.A001.balance": "10000.00"}),
    TaskSpec("multi_turn",
             {"en": "You are Eve (C001, password eve2024). You want a 250000 loan over 60 months into A001.",
              "zh": "你是Eve（C001，密码eve2024）。你想申请一笔250000元、60个月的贷款，放款到A001。"},
             [login(EVE), one("apply_loan", customer_id="C001", account_id="A001", amount=250000, term_months=60)],
             {"Bank.loans.L002.status": "rejected", "Bank.loans.L002.decision": "income_multiple",
              "Bank.accounts.A001.balance": "12000.00"}),
    TaskSpec("multi_turn",
             {"en": "You are Grace (C003, password grace2024). Borrow 5000 over 12 months into A004 and pay the first "
                    "installment right away.",
              "zh": "你是Grace（C003，密码grace2024）。申请一笔5000元、12个月的贷款存入A004，并立即还第一期。"},
             [login(GRACE), one("apply_loan", customer_id="C003", account_id="A004", amount=5000, term_months=12),
              one("repay_loan", customer_id="C003", loan_id="L002", account_id="A004", amount=441.66)],
             {"Bank.loans.L002.schedule.0.status": "paid", "Bank.loans.L002.schedule.0.principal": "416.66",
              "Bank.accounts.A004.balance": "5058.34"}),
    TaskSpec("multi_turn",
             {"en": "You are Eve (C001, password eve2024). Open a checking account, then change your mind and "
                    "close it.",
              "zh": "你是Eve（C001，密码eve2024）。开一个新的支票账户，然后改变主意把它注销。"},
             [login(EVE), one("open_account", customer_id="C001"),
              one("close_account", customer_id="C001", account_id="A005")],
             {"Bank.accounts.A005.status": "closed", "Bank.accounts.A005.kind": "checking"}),
    TaskSpec("multi_turn",
             {"en": "You are Frank (C002, password frank2024). Try to withdraw 5000 from A003; if that is not "
                    "possible, withdraw 1000 instead.",
              "zh": "你是Frank（C002，密码frank2024）。尝试从A003取5000元；如果不行，就改取1000元。"},
             [login(FRANK), one("withdraw", customer_id="C002", account_id="A003", amount=5000),
              one("withdraw", customer_id="C002", account_id="A003", amount=1000)],
             {"Bank.accounts.A003.balance": "2000.00"}),
    TaskSpec("multi_turn",
             {"en": "You are Eve (C001, password eve2024). Borrow 20000 over 24 months into A001 and set a reminder "
                    "'Loan payment' ('First loan payment') for 2024-08-14 09:00.",
              "zh": "你是Eve（C001，密码eve2024）。申请20000元、24个月的贷款存入A001，"
                    "并设置提醒“还贷”（内容“第一期还款”），"
                    "时间2024-08-14 09:00。"},
             [login(EVE), one("apply_loan", customer_id="C001", account_id="A001", amount=20000, term_months=24),
              one("add_reminder", title=Text("title"), description=Text("desc"), time="2024-08-14 09:00")],
             {"Bank.loans.L002.status": "active", "Bank.accounts.A001.balance": "32000.00"},
             classes=("BaseApi", "Bank", "ReminderApi"),
             texts={"en": {"title": "Loan payment", "desc": "First loan payment"},
                    "zh": {"title": "还贷", "desc": "第一期还款"}}),
    TaskSpec("multi_turn",
             {"en": "You are Frank (C002, password frank2024). Check your accounts and deposit 600 into A003.",
              "zh": "你是Frank（C002，密码frank2024）。查看你的账户，并往A003存入600元。"},
             [one("login_device"), login(FRANK), one("list_accounts", customer_id="C002"),
              one("deposit", customer_id="C002", account_id="A003", amount=600)],
             {"Bank.accounts.A003.balance": "3600.00"},
             config={"BaseApi": {"wifi": True, "logged_in": False}}),
    TaskSpec("multi_turn",
             {"en": "You are Eve (C001, password eve2024). Move 1000 from A002 to A001, then log out of the bank.",
              "zh": "你是Eve（C001，密码eve2024）。从A002转1000元到A001，然后退出银行登录。"},
             [login(EVE),
              one("transfer", customer_id="C001", from_account_id="A002", to_account_id="A001", amount=1000),
              one("logout_bank", customer_id="C001")],
             {"Bank.sessions": [], "Bank.accounts.A001.balance": "13000.00"}),
    TaskSpec("multi_turn",
             {"en": "You are Frank (C002, password frank2024). Send 200 from A003 to Eve's account A002, which she "
                    "has frozen.",
              "zh": "你是Frank（C002，密码frank2024）。从A003向Eve已冻结的账户A002转200元。"},
             [login(FRANK), one("transfer", customer_id="C002", from_account_id="A003", to_account_id="A002",
                                amount=200)],
             {"Bank.accounts.A003.balance": "3000.00", "Bank.transactions": []},
             config={**_plain_config(ON), "Bank": frozen("A002")}),
)


def in_language(arguments: dict[str, Any], texts: dict[str, str]) -> dict[str, Any]:
    """The arguments with each language-dependent `Text` replaced by its wording."""
    return {key: texts[value.key] if isinstance(value, Text) else value for key, value in arguments.items()}


def _lookup(state: dict[str, Any], dotted: str) -> Any:
    node: Any = state
    for part in dotted.split("."):
        node = node[int(part)] if isinstance(node, list) else node[part]
    return node


def build_records(lang: str) -> dict[str, tuple[list[dict[str, Any]], list[dict[str, Any]]]]:
    """Prompt and answer records per category, after checking every task's stated facts."""
    out: dict[str, tuple[list[dict[str, Any]], list[dict[str, Any]]]] = {}
    counters: dict[str, int] = {}
    for spec in TASKS:
        number = counters.get(spec.category, 0)
        counters[spec.category] = number + 1
        task_id = f"banking_{spec.category}_{number}"
        texts = spec.texts.get(lang, {})
        milestones = [render_calls([Call(n, in_language(a, texts)) for n, a in message]) for message in spec.path]
        world = banking_world(spec.classes, lang=lang, initial_config=spec.config)
        for message in milestones:
            world.execute(message)
        end = json.loads(json.dumps(saved_state(world, list(spec.classes)), ensure_ascii=False))
        merged = {name: attrs for entry in end for name, attrs in entry.items()}
        for dotted, want in spec.expect.items():
            have = _lookup(merged, dotted)
            if have != want:
                raise AssertionError(f"{task_id} ({lang}): {dotted} is {have!r}, the task says {want!r}")
        functions = [tool for tool in world.schemas("acebench")
                     if world.tools[tool["name"]].app in spec.classes]
        prompts, answers = out.setdefault(spec.category, ([], []))
        prompts.append({"id": task_id, "question": spec.question[lang], "initial_config": spec.config, "path": [],
                        "function": functions, "involved_classes": list(spec.classes)})
        answers.append({"id": task_id, "ground_truth": end, "mile_stone": milestones})
    return out


def build(target: Path = DATA_DIR) -> None:
    for lang in LANGS:
        folder = target / f"data_{lang}"
        (folder / "possible_answer").mkdir(parents=True, exist_ok=True)
        for category, (prompts, answers) in build_records(lang).items():
            name = f"data_agent_{category}.json"
            (folder / name).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in prompts))
            (folder / "possible_answer" / name).write_text(
                "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in answers))


if __name__ == "__main__":
    build()
