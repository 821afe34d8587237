"""What banking customers say, in English and Chinese: several paraphrases per request.

Each entry is a list of templates; the generator picks one with its seeded RNG. Placeholders:
`{acct}`/`{src}`/`{dst}` an account as the user names it, `{amount}` money as the user writes it,
`{payee}` a person, `{memo}` a note, `{months}` a loan term as the user says it.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

Phrases = Mapping[str, Mapping[str, tuple[str, ...]]]

PHRASES: Phrases = MappingProxyType({
    "en": MappingProxyType({
        "identity": (
            "I'm {name} (customer {cid}, password {pw}).",
            "Hi, this is {name}. My customer number is {cid} and my password is {pw}.",
            "{name} here, customer ID {cid}, password {pw}.",
            "Hello, I'm {name}; log in as {cid} with the password {pw}.",
        ),
        "deposit": (
            "deposit {amount} into {acct}",
            "put {amount} into {acct}",
            "add {amount} in cash to {acct}",
        ),
        "withdraw": (
            "withdraw {amount} from {acct}",
            "take {amount} out of {acct}",
            "I need {amount} in cash from {acct}",
        ),
        "move": (
            "move {amount} from {src} to {dst}",
            "transfer {amount} from {src} into {dst}",
            "shift {amount} over from {src} to {dst}",
        ),
        "pay": (
            "send {amount} from {src} to {payee}'s account {dst}",
            "pay {payee} {amount} from {src}; their account is {dst}",
            "transfer {amount} to {payee} (account {dst}) from {src}",
        ),
        "pay_memo": (
            "send {amount} from {src} to {payee}'s account {dst} with the note '{memo}'",
            "pay {payee} {amount} for {memo} from {src}; their account is {dst}",
            "transfer {amount} to {payee} (account {dst}) from {src}, memo '{memo}'",
        ),
        "freeze": (
            "freeze {acct}, I think my card was stolen",
            "block {acct} for now",
            "I lost the card for {acct}, please freeze it",
        ),
        "open_fund": (
            "open a new {kind} account and move {amount} from {src} into it",
            "set up a {kind} account for me and fund it with {amount} from {src}",
            "I'd like a new {kind} account with {amount} transferred in from {src}",
        ),
        "empty_close": (
            "move everything in {acct} over to {dst} and then close {acct}",
            "empty {acct} into {dst} and close it",
            "I want to close {acct}: transfer whatever is left in it to {dst} first",
        ),
        "loan_first": (
            "apply for a loan of {amount} over {months} paid into {acct}, and pay the first installment right away",
            "borrow {amount} for {months} into {acct}, then pay off the first monthly installment at once",
            "take out a loan of {amount} over {months} to {acct} and settle the first installment immediately",
        ),
        "then": (" Then ", " After that, ", " Next, ", " Also, "),
        "own": ("my account {id}", "account {id}", "my {kind} account {id}"),
        "own_kind": ("my {kind} account", "my {kind}", "the {kind} account"),
        "new": ("the new account",),
        "memo": ("rent", "dinner", "the concert tickets", "books", "the electricity bill", "a birthday gift"),
        # Requests no tool serves (ACEBench's irrelevant special case).
        "irrelevant": (
            "please order me a new debit card",
            "change my online banking password to {pw}x",
            "raise the overdraft limit on my checking account to 1000",
            "what is today's exchange rate from dollars to euros?",
            "set up a standing order paying 200 every month",
            "increase my credit card limit",
        ),
        # Requests missing a detail a tool needs (ACEBench's incomplete special case).
        "incomplete_amount": ("move some money from {src} to {dst}", "transfer a bit from {src} into {dst}"),
        "incomplete_payee": ("send {amount} to {payee}", "pay {payee} {amount} from {src}"),
        "incomplete_term": ("I'd like to borrow {amount} into {acct}", "apply for a loan of {amount} into {acct}"),
        # Requests with a value that cannot be right (ACEBench's error special case).
        "error_month": ("show me the statement of {acct} for the month {month}",
                        "I need {acct}'s monthly statement for {month}"),
        "error_date": ("list the transactions of {acct} since {date}",
                       "show me what went through {acct} from {date} on"),
    }),
    "zh": MappingProxyType({
        "identity": (
            "我是{name}（客户号{cid}，密码{pw}）。",
            "你好，我是{name}，客户号是{cid}，密码是{pw}。",
            "{name}在此，客户编号{cid}，登录密码{pw}。",
            "您好，我叫{name}，请用客户号{cid}和密码{pw}登录。",
        ),
        "deposit": ("往{acct}存{amount}", "给{acct}存入{amount}现金", "在{acct}里存{amount}"),
        "withdraw": ("从{acct}取{amount}", "从{acct}取出{amount}现金", "我要从{acct}提{amount}"),
        "move": ("从{src}转{amount}到{dst}", "把{amount}从{src}转到{dst}", "从{src}划{amount}到{dst}"),
        "pay": (
            "从{src}给{payee}的账户{dst}转{amount}",
            "用{src}付给{payee}{amount}，对方账户是{dst}",
            "从{src}向{payee}（账户{dst}）转账{amount}",
        ),
        "pay_memo": (
            "从{src}给{payee}的账户{dst}转{amount}，备注“{memo}”",
            "用{src}付给{payee}{amount}作为{memo}，对方账户是{dst}",
            "从{src}向{payee}（账户{dst}）转账{amount}，备注写“{memo}”",
        ),
        "freeze": ("冻结{acct}，我的卡好像被偷了", "把{acct}冻结", "{acct}的卡丢了，请冻结它"),
        "open_fund": (
            "开一个新的{kind}账户，再从{src}转{amount}进去",
            "帮我开个{kind}账户，并从{src}转入{amount}",
            "我想开一个{kind}账户，从{src}转{amount}过去",
        ),
        "empty_close": (
            "把{acct}里的钱全部转到{dst}，然后注销{acct}",
            "清空{acct}（全部转到{dst}）再把它注销",
            "我要注销{acct}：先把里面剩下的钱都转到{dst}",
        ),
        "loan_first": (
            "申请一笔{amount}、{months}的贷款放款到{acct}，并马上还第一期",
            "贷款{amount}，期限{months}，打到{acct}，然后立即还掉第一期",
            "办一笔{months}的{amount}贷款存入{acct}，再把第一期还款付了",
        ),
        "then": ("然后", "接着", "之后", "另外"),
        "own": ("我的账户{id}", "账户{id}", "我的{kind}账户{id}"),
        "own_kind": ("我的{kind}账户", "我的{kind}户", "{kind}账户"),
        "new": ("新账户",),
        "memo": ("房租", "晚饭钱", "演唱会门票", "买书", "电费", "生日礼物"),
        "irrelevant": (
            "请给我补办一张新的借记卡",
            "把我的网银密码改成{pw}x",
            "把我支票账户的透支额度提高到1000元",
            "今天美元兑欧元的汇率是多少？",
            "帮我设置每月自动转账200元",
            "提高我的信用卡额度",
        ),
        "incomplete_amount": ("从{src}转一些钱到{dst}", "从{src}往{dst}转点钱"),
        "incomplete_payee": ("给{payee}转{amount}", "从{src}付给{payee}{amount}"),
        "incomplete_term": ("我想贷款{amount}，放款到{acct}", "申请一笔{amount}的贷款到{acct}"),
        "error_month": ("给我看{acct}在{month}这个月的对账单", "我要{acct}在{month}的月结单"),
        "error_date": ("列出{acct}从{date}起的交易记录", "查一下{acct}自{date}以来的流水"),
    }),
})

KINDS: Mapping[str, Mapping[str, str]] = MappingProxyType({
    "en": MappingProxyType({"checking": "checking", "savings": "savings"}),
    "zh": MappingProxyType({"checking": "支票", "savings": "储蓄"}),
})

# Loan terms as people say them.
TERMS: Mapping[str, Mapping[int, tuple[str, ...]]] = MappingProxyType({
    "en": MappingProxyType({6: ("6 months", "half a year"), 12: ("12 months", "a year"),
                            24: ("24 months", "two years"), 36: ("36 months", "three years")}),
    "zh": MappingProxyType({6: ("6个月", "半年"), 12: ("12个月", "一年"), 24: ("24个月", "两年"),
                            36: ("36个月", "三年")}),
})

NAMES: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "en": ("Eve", "Frank", "Grace", "Henry", "Iris", "Jack", "Karen", "Leo", "Maya", "Nina", "Oscar", "Paul",
           "Quinn", "Rosa", "Sam", "Tara", "Umar", "Vera", "Will", "Zoe"),
    "zh": ("王芳", "李娜", "张伟", "刘洋", "陈静", "杨磊", "赵敏", "黄强", "周婷", "吴昊", "徐丽", "孙杰",
           "马超", "朱琳", "胡军", "郭燕", "林峰", "何雪", "高翔", "罗欣"),
})

# Chinese punctuation the generator joins requests with.
ZH_COMMA, ZH_STOP, ZH_QUESTION = "，", "。", "？"
