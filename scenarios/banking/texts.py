"""Every message the bank returns, in English and Chinese."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType


@dataclass(frozen=True)
class BankTexts:
    wifi_off: str
    device_logged_out: str
    customer_unknown: str
    customer_locked: str  # {customer_id}
    wrong_password: str  # {left}
    already_logged_in: str  # {customer_id}
    logged_in: str  # {customer_id}
    not_logged_in: str  # {customer_id}
    logged_out: str  # {customer_id}
    account_unknown: str  # {account_id}
    not_your_account: str  # {account_id} {customer_id}
    account_frozen: str  # {account_id}
    account_closed: str  # {account_id}
    insufficient_funds: str  # {account_id}
    limit_exceeded: str  # {limit} {used}
    same_account: str
    deposited: str  # {amount} {account_id}
    withdrew: str  # {amount} {account_id}
    transferred: str  # {amount} {from_id} {to_id}
    account_opened: str  # {account_id}
    froze: str  # {account_id}
    unfroze: str  # {account_id}
    closed: str  # {account_id}
    cannot: str  # {action} {account_id} {status}
    balance_not_zero: str  # {account_id} {balance}
    loan_approved: str  # {loan_id} {amount} {account_id} {payment} {due}
    loan_rejected: str  # {reason}
    loan_unknown: str  # {loan_id}
    loan_not_open: str  # {loan_id}
    repaid: str  # {amount} {loan_id} {remaining}
    overpaid: str  # {amount} {owed} {loan_id}
    paid_off: str  # {loan_id} {amount}
    reasons: Mapping[str, str]
    actions: Mapping[str, str]


EN = BankTexts(
    wifi_off="Wi-Fi is off, unable to reach the bank",
    device_logged_out="Device not logged in, unable to use the bank",
    customer_unknown="Customer does not exist",
    customer_locked="Customer {customer_id} is locked after too many failed logins",
    wrong_password="Incorrect password ({left} attempts left)",
    already_logged_in="{customer_id} is already logged in",
    logged_in="Customer {customer_id} has logged in to the bank",
    not_logged_in="Customer {customer_id} is not logged in to the bank",
    logged_out="Customer {customer_id} has logged out",
    account_unknown="Account {account_id} does not exist",
    not_your_account="Account {account_id} does not belong to {customer_id}",
    account_frozen="Account {account_id} is frozen",
    account_closed="Account {account_id} is closed",
    insufficient_funds="Insufficient funds in {account_id}",
    limit_exceeded="Daily transfer limit of {limit} exceeded ({used} already sent today)",
    same_account="Cannot transfer to the same account",
    deposited="Deposited {amount} into {account_id}",
    withdrew="Withdrew {amount} from {account_id}",
    transferred="Transferred {amount} from {from_id} to {to_id}",
    account_opened="Opened account {account_id}",
    froze="Account {account_id} has been frozen",
    unfroze="Account {account_id} has been unfrozen",
    closed="Account {account_id} has been closed",
    cannot="Cannot {action} account {account_id}: it is {status}",
    balance_not_zero="Account {account_id} still holds {balance}; empty it before closing",
    loan_approved=("Loan {loan_id} approved: {amount} paid into {account_id}; first payment of {payment} "
                   "due {due}"),
    loan_rejected="Loan application rejected: {reason}",
    loan_unknown="Loan {loan_id} does not exist",
    loan_not_open="Loan {loan_id} is not being repaid",
    repaid="Repaid {amount} on loan {loan_id}; {remaining} still owed",
    overpaid="Repayment of {amount} exceeds the {owed} owed on loan {loan_id}",
    paid_off="Loan {loan_id} paid off with {amount}",
    reasons=MappingProxyType({
        "overdue": "an existing loan is overdue",
        "too_many": "at most 2 open loans",
        "income_multiple": "the amount exceeds 10 times the monthly income",
        "debt_share": "monthly payments would exceed 40% of monthly income",
    }),
    actions=MappingProxyType({"freeze": "freeze", "unfreeze": "unfreeze", "close": "close"}),
)

ZH = BankTexts(
    wifi_off="wifi未打开，无法连接银行",
    device_logged_out="device未登录，无法使用银行服务",
    customer_unknown="客户不存在",
    customer_locked="客户 {customer_id} 因多次登录失败已被锁定",
    wrong_password="密码错误（还剩 {left} 次机会）",
    already_logged_in="{customer_id} 已经登录",
    logged_in="客户 {customer_id} 已登录银行",
    not_logged_in="客户 {customer_id} 未登录银行",
    logged_out="客户 {customer_id} 已退出登录",
    account_unknown="账户 {account_id} 不存在",
    not_your_account="账户 {account_id} 不属于 {customer_id}",
    account_frozen="账户 {account_id} 已冻结",
    account_closed="账户 {account_id} 已销户",
    insufficient_funds="账户 {account_id} 余额不足",
    limit_exceeded="超出每日转账限额 {limit}（今日已转出 {used}）",
    same_account="不能向同一账户转账",
    deposited="已向 {account_id} 存入 {amount}",
    withdrew="已从 {account_id} 取出 {amount}",
    transferred="已从 {from_id} 向 {to_id} 转账 {amount}",
    account_opened="已开立账户 {account_id}",
    froze="账户 {account_id} 已被冻结",
    unfroze="账户 {account_id} 已解冻",
    closed="账户 {account_id} 已销户成功",
    cannot="无法{action}账户 {account_id}：当前状态为 {status}",
    balance_not_zero="账户 {account_id} 仍有余额 {balance}，请先转出",
    loan_approved="贷款 {loan_id} 已批准：{amount} 已存入 {account_id}；首期还款 {payment}，到期日 {due}",
    loan_rejected="贷款申请被拒绝：{reason}",
    loan_unknown="贷款 {loan_id} 不存在",
    loan_not_open="贷款 {loan_id} 不在还款中",
    repaid="贷款 {loan_id} 已还款 {amount}，剩余应还 {remaining}",
    overpaid="还款 {amount} 超过贷款 {loan_id} 的应还金额 {owed}",
    paid_off="贷款 {loan_id} 已提前结清，支付 {amount}",
    reasons=MappingProxyType({
        "overdue": "已有贷款逾期",
        "too_many": "最多只能有 2 笔未结清贷款",
        "income_multiple": "贷款金额超过月收入的 10 倍",
        "debt_share": "月还款额将超过月收入的 40%",
    }),
    actions=MappingProxyType({"freeze": "冻结", "unfreeze": "解冻", "close": "注销"}),
)


def bank_texts(lang: str) -> BankTexts:
    if lang == "en":
        return EN
    if lang == "zh":
        return ZH
    raise ValueError(f"unknown language {lang!r}; use 'en' or 'zh'")
