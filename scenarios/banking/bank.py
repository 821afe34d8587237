"""The Bank app: logins with lockout, accounts, transfers, history, statements and loans.

Every balance change goes through `_post`, which writes exactly one transaction record,
so balances, history and statements always agree. Refusals are `ToolError`s: the world
reports them as structured errors and rolls back anything the call had started.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from decimal import Decimal
from typing import Annotated, Any, Literal

from pydantic import Field

from sandbox import Lifecycle, Ref, ToolError, tool
from scenarios.acebench.base import AceApp

from . import rules
from .defaults import default_bank_state
from .models import Account, Amount, BankState, Installment, Loan, Transaction, TransactionKind
from .results import (
    AccountList,
    AccountSummary,
    Balance,
    BalanceAfter,
    BankReply,
    LoanDecision,
    LoanDetails,
    OpenedAccount,
    Statement,
    StatementReply,
    TransactionList,
)
from .texts import BankTexts, bank_texts

account_lifecycle = Lifecycle(
    "account",
    states=["open", "frozen", "closed"],
    transitions=[("freeze", "open", "frozen"), ("unfreeze", "frozen", "open"), ("close", "open", "closed")],
    initial="open",
)

loan_lifecycle = Lifecycle(
    "loan",
    states=["applied", "approved", "rejected", "active", "overdue", "paid_off"],
    transitions=[
        ("approve", "applied", "approved"),
        ("reject", "applied", "rejected"),
        ("disburse", "approved", "active"),
        ("fall_behind", "active", "overdue"),
        ("catch_up", "overdue", "active"),
        ("settle", ["active", "overdue"], "paid_off"),
    ],
    initial="applied",
)

Identifier = Annotated[str, Field(min_length=1, max_length=64)]
# What the tools' identifiers name in the state: any customer (to log in), a logged-in customer
# (everything else; any customer while nobody is), an account or a loan of the customer the
# call names, any account.
CustomerId = Annotated[Identifier, Ref("Bank", "customers")]
SessionId = Annotated[Identifier, Ref("Bank", "sessions"), Ref("Bank", "customers")]
OwnAccountId = Annotated[Identifier, Ref("Bank", "accounts", where={"customer_id": "{customer_id}"})]
AccountId = Annotated[Identifier, Ref("Bank", "accounts")]
OwnLoanId = Annotated[Identifier, Ref("Bank", "loans", where={"customer_id": "{customer_id}"})]
# A month, mostly one in which the account the call names has transactions.
Month = Annotated[str, Field(pattern=r"^\d{4}-(0[1-9]|1[0-2])$", description="YYYY-MM"),
                  Ref("Bank", "transactions", "time", where={"account_id": "{account_id}"}, extract=r"^\d{4}-\d{2}")]


class Bank(AceApp[BankState]):
    """A retail bank: accounts, payments, statements and loans."""

    app_name = "Bank"
    saved_attributes = ("customers", "accounts", "transactions", "loans", "sessions")

    def __init__(self, lang: str = "en", state: BankState | Mapping[str, Any] | None = None) -> None:
        self.bank_texts: BankTexts = bank_texts(lang)
        super().__init__(lang, state)

    def default_state(self, lang: str) -> Mapping[str, Any]:
        return default_bank_state()

    # -- checks ------------------------------------------------------------------------------

    def _refuse(self, code: str, template: str, **values: Any) -> ToolError:
        return ToolError(template.format(**values), code=code)

    def _device_ready(self) -> None:
        device = self.device()
        if not device.wifi:
            raise self._refuse("precondition_failed", self.bank_texts.wifi_off)
        if not device.logged_in:
            raise self._refuse("precondition_failed", self.bank_texts.device_logged_out)

    def _session(self, customer_id: str) -> BankState:
        text, state = self.bank_texts, self.state
        self._device_ready()
        if customer_id not in state.customers:
            raise self._refuse("not_found", text.customer_unknown)
        if customer_id not in state.sessions:
            raise self._refuse("precondition_failed", text.not_logged_in, customer_id=customer_id)
        return state

    def _account(self, account_id: str) -> Account:
        account = self.state.accounts.get(account_id)
        if account is None:
            raise self._refuse("not_found", self.bank_texts.account_unknown, account_id=account_id)
        return account

    def _own(self, customer_id: str, account_id: str, *, usable: bool = True) -> Account:
        account = self._account(account_id)
        if account.customer_id != customer_id:
            raise self._refuse("forbidden", self.bank_texts.not_your_account, account_id=account_id,
                               customer_id=customer_id)
        if usable:
            self._usable(account)
        return account

    def _usable(self, account: Account) -> None:
        if account.status == "frozen":
            raise self._refuse("account_frozen", self.bank_texts.account_frozen, account_id=account.account_id)
        if account.status == "closed":
            raise self._refuse("account_closed", self.bank_texts.account_closed, account_id=account.account_id)

    def _can_spend(self, account: Account, amount: Decimal) -> None:
        if account.balance - amount < -account.overdraft_limit:
            raise self._refuse("insufficient_funds", self.bank_texts.insufficient_funds,
                               account_id=account.account_id)

    def _today(self) -> dt.date:
        return self.world.clock.today()

    # -- the one place balances change ---------------------------------------------------------

    def _post(self, account: Account, kind: TransactionKind, amount: Decimal, counterparty: str | None = None,
              memo: str = "", interest: Decimal = Decimal("0.00"), fees: Decimal = Decimal("0.00")) -> Transaction:
        state = self.state
        account.balance += amount
        record = Transaction(
            transaction_id=f"T{state.next_transaction:05d}", account_id=account.account_id, kind=kind,
            amount=amount, balance_after=account.balance, counterparty=counterparty, memo=memo,
            time=self.world.clock.now().isoformat(sep=" "), interest=interest, fees=fees,
        )
        state.next_transaction += 1
        state.transactions.append(record)
        return record

    # -- sessions ----------------------------------------------------------------------------

    @tool(destructive=False, idempotent=True)
    def login_bank(self, customer_id: CustomerId,
                   password: Annotated[str, Ref("Bank", "customers.{customer_id}.password")]) -> BankReply:
        """Log a customer in to online banking (needs Wi-Fi and a logged-in device).

        Three wrong passwords in a row lock the customer out.

        Args:
            customer_id: The customer's id, e.g. C001.
            password: The customer's password.
        """
        text, state = self.bank_texts, self.state
        self._device_ready()
        customer = state.customers.get(customer_id)
        if customer is None:
            raise self._refuse("not_found", text.customer_unknown)
        if customer.locked:
            raise self._refuse("locked", text.customer_locked, customer_id=customer_id)
        if customer.password != password:
            # A failed attempt is recorded, so it is returned rather than raised (which would undo it).
            customer.failed_logins += 1
            if customer.failed_logins >= rules.LOCKOUT_AFTER:
                customer.locked = True
                return {"status": False, "message": text.customer_locked.format(customer_id=customer_id)}
            left = rules.LOCKOUT_AFTER - customer.failed_logins
            return {"status": False, "message": text.wrong_password.format(left=left)}
        if customer_id in state.sessions:
            raise self._refuse("precondition_failed", text.already_logged_in, customer_id=customer_id)
        customer.failed_logins = 0
        state.sessions.append(customer_id)
        return {"status": True, "message": text.logged_in.format(customer_id=customer_id)}

    @tool(destructive=False, idempotent=True)
    def logout_bank(self, customer_id: SessionId) -> BankReply:
        """Log a customer out of online banking.

        Args:
            customer_id: The customer's id.
        """
        state = self._session(customer_id)
        state.sessions.remove(customer_id)
        return {"status": True, "message": self.bank_texts.logged_out.format(customer_id=customer_id)}

    # -- accounts ----------------------------------------------------------------------------

    @tool(mutates=False)
    def list_accounts(self, customer_id: SessionId) -> AccountList:
        """List a customer's accounts with balances and status.

        Args:
            customer_id: The customer's id.
        """
        state = self._session(customer_id)
        accounts: list[AccountSummary] = [
            {"account_id": a.account_id, "kind": a.kind, "balance": a.balance, "status": a.status}
            for a in state.accounts.values() if a.customer_id == customer_id
        ]
        return {"status": True, "accounts": accounts}

    @tool(mutates=False)
    def get_balance(self, customer_id: SessionId, account_id: OwnAccountId) -> Balance:
        """Show one account's balance.

        Args:
            customer_id: The customer's id.
            account_id: The account, e.g. A001.
        """
        self._session(customer_id)
        account = self._own(customer_id, account_id, usable=False)
        return {"status": True, "account_id": account_id, "balance": account.balance, "state": account.status}

    @tool(destructive=False)
    def open_account(self, customer_id: SessionId, kind: Literal["checking", "savings"] = "checking") -> OpenedAccount:
        """Open a new, empty account for a customer.

        Args:
            customer_id: The customer's id.
            kind: checking or savings.
        """
        state = self._session(customer_id)
        account_id = f"A{state.next_account:03d}"
        state.next_account += 1
        state.accounts[account_id] = Account(account_id=account_id, customer_id=customer_id, kind=kind)
        return {"status": True, "message": self.bank_texts.account_opened.format(account_id=account_id),
                "account_id": account_id}

    def _move_account(self, customer_id: str, account_id: str, trigger: str, done: str) -> BankReply:
        self._session(customer_id)
        account = self._own(customer_id, account_id, usable=False)
        text = self.bank_texts
        refusal = text.cannot.format(action=text.actions[trigger], account_id=account_id, status=account.status)
        if trigger == "close" and account.status == "open" and account.balance != 0:
            raise self._refuse("balance_not_zero", text.balance_not_zero, account_id=account_id,
                               balance=account.balance)
        account_lifecycle.fire(account, trigger, refusal=refusal)
        return {"status": True, "message": done.format(account_id=account_id)}

    @tool(destructive=False, idempotent=True)
    def freeze_account(self, customer_id: SessionId, account_id: OwnAccountId) -> BankReply:
        """Freeze an account so no money moves in or out until it is unfrozen.

        Args:
            customer_id: The customer's id.
            account_id: The account to freeze.
        """
        return self._move_account(customer_id, account_id, "freeze", self.bank_texts.froze)

    @tool(destructive=False, idempotent=True)
    def unfreeze_account(self, customer_id: SessionId, account_id: OwnAccountId) -> BankReply:
        """Unfreeze a frozen account.

        Args:
            customer_id: The customer's id.
            account_id: The account to unfreeze.
        """
        return self._move_account(customer_id, account_id, "unfreeze", self.bank_texts.unfroze)

    @tool(idempotent=True)
    def close_account(self, customer_id: SessionId, account_id: OwnAccountId) -> BankReply:
        """Close an open account; its balance must be zero.

        Args:
            customer_id: The customer's id.
            account_id: The account to close.
        """
        return self._move_account(customer_id, account_id, "close", self.bank_texts.closed)

    # -- money -------------------------------------------------------------------------------

    @tool(destructive=False)
    def deposit(self, customer_id: SessionId, account_id: OwnAccountId, amount: Amount) -> BalanceAfter:
        """Deposit cash into an account.

        Args:
            customer_id: The customer's id.
            account_id: The account.
            amount: How much, with at most two decimals.
        """
        self._session(customer_id)
        account = self._own(customer_id, account_id)
        self._post(account, "deposit", amount)
        return {"status": True, "message": self.bank_texts.deposited.format(amount=amount, account_id=account_id),
                "balance": account.balance}

    @tool
    def withdraw(self, customer_id: SessionId, account_id: OwnAccountId, amount: Amount) -> BalanceAfter:
        """Withdraw cash from an account.

        Args:
            customer_id: The customer's id.
            account_id: The account.
            amount: How much, with at most two decimals.
        """
        self._session(customer_id)
        account = self._own(customer_id, account_id)
        self._can_spend(account, amount)
        self._post(account, "withdrawal", -amount)
        return {"status": True, "message": self.bank_texts.withdrew.format(amount=amount, account_id=account_id),
                "balance": account.balance}

    def _sent_today(self, customer_id: str) -> Decimal:
        today = self._today().isoformat()
        accounts = self.state.accounts
        total = Decimal("0.00")
        for record in self.state.transactions:
            if record.kind != "transfer_out" or not record.time.startswith(today):
                continue
            source, target = accounts.get(record.account_id), accounts.get(record.counterparty or "")
            if source is not None and source.customer_id == customer_id and (
                    target is None or target.customer_id != customer_id):
                total -= record.amount
        return total

    @tool
    def transfer(
        self,
        customer_id: SessionId,
        from_account_id: OwnAccountId,
        to_account_id: AccountId,
        amount: Amount,
        memo: Annotated[str, Field(max_length=200)] = "",
    ) -> BalanceAfter:
        """Transfer money to one of the customer's own accounts or to another customer's account.

        Transfers to other customers count against a daily limit of 50,000.00.

        Args:
            customer_id: The customer sending the money.
            from_account_id: The customer's account to send from.
            to_account_id: The receiving account.
            amount: How much, with at most two decimals.
            memo: A note for both statements.
        """
        text = self.bank_texts
        self._session(customer_id)
        source = self._own(customer_id, from_account_id)
        if to_account_id == from_account_id:
            raise self._refuse("invalid_value", text.same_account)
        target = self._account(to_account_id)
        self._usable(target)
        self._can_spend(source, amount)
        if target.customer_id != customer_id:
            used = self._sent_today(customer_id)
            if used + amount > rules.DAILY_TRANSFER_LIMIT:
                raise self._refuse("limit_exceeded", text.limit_exceeded, limit=rules.DAILY_TRANSFER_LIMIT,
                                   used=used)
        self._post(source, "transfer_out", -amount, to_account_id, memo)
        self._post(target, "transfer_in", amount, from_account_id, memo)
        return {"status": True, "message": text.transferred.format(amount=amount, from_id=from_account_id,
                                                                   to_id=to_account_id),
                "balance": source.balance}

    # -- history and statements -------------------------------------------------------------------

    @tool(mutates=False)
    def get_transactions(
        self,
        customer_id: SessionId,
        account_id: OwnAccountId,
        start_date: dt.date | None = None,
        end_date: dt.date | None = None,
        kind: Literal["deposit", "withdrawal", "transfer_in", "transfer_out", "loan_disbursement",
                      "loan_repayment", "fee"] | None = None,
        counterparty: Annotated[str, Ref("Bank", "accounts")] | None = None,
    ) -> TransactionList:
        """List an account's transactions, optionally filtered.

        Args:
            customer_id: The customer's id.
            account_id: The account.
            start_date: Only transactions on or after this date (YYYY-MM-DD).
            end_date: Only transactions on or before this date (YYYY-MM-DD).
            kind: Only transactions of this kind.
            counterparty: Only transactions with this other account.
        """
        self._session(customer_id)
        self._own(customer_id, account_id, usable=False)
        found = [
            record for record in self.state.transactions
            if record.account_id == account_id
            and (start_date is None or record.time[:10] >= start_date.isoformat())
            and (end_date is None or record.time[:10] <= end_date.isoformat())
            and (kind is None or record.kind == kind)
            and (counterparty is None or record.counterparty == counterparty)
        ]
        return {"status": True, "transactions": found}

    @tool(mutates=False)
    def monthly_statement(self, customer_id: SessionId, account_id: OwnAccountId, month: Month) -> StatementReply:
        """A month's statement: opening and closing balance, money in and out, interest and fees.

        Args:
            customer_id: The customer's id.
            account_id: The account.
            month: The month, as YYYY-MM.
        """
        self._session(customer_id)
        account = self._own(customer_id, account_id, usable=False)
        return {"status": True, **statement(account, self.state.transactions, month)}

    # -- loans --------------------------------------------------------------------------------------

    def _loan(self, customer_id: str, loan_id: str) -> Loan:
        loan = self.state.loans.get(loan_id)
        if loan is None or loan.customer_id != customer_id:
            raise self._refuse("not_found", self.bank_texts.loan_unknown, loan_id=loan_id)
        self._accrue(loan)
        return loan

    def _open_loan(self, customer_id: str, loan_id: str) -> Loan:
        """A logged-in customer's loan that still has something to repay."""
        self._session(customer_id)
        loan = self._loan(customer_id, loan_id)
        if loan.status not in rules.OPEN_LOAN_STATUSES:
            raise self._refuse("invalid_transition", self.bank_texts.loan_not_open, loan_id=loan_id)
        return loan

    def _accrue(self, loan: Loan) -> None:
        """Bring a loan up to the simulated date: installments past due become overdue with a fee."""
        if loan.status not in rules.OPEN_LOAN_STATUSES:
            return
        today = self._today().isoformat()
        for installment in loan.schedule:
            if installment.status == "due" and installment.due_date < today and installment.owed > 0:
                installment.late_fee = rules.late_fee(installment.owed)
                installment.status = "overdue"
        if loan.status == "active" and any(i.status == "overdue" for i in loan.schedule):
            loan_lifecycle.fire(loan, "fall_behind")

    @tool(destructive=False)
    def apply_loan(
        self,
        customer_id: SessionId,
        account_id: OwnAccountId,
        amount: Amount,
        term_months: Annotated[int, Field(ge=rules.MIN_TERM, le=rules.MAX_TERM)],
    ) -> LoanDecision:
        """Apply for a loan; the bank decides at once and pays an approved loan into the account.

        Args:
            customer_id: The customer's id.
            account_id: The account to receive the money.
            amount: How much to borrow.
            term_months: Repayment period in months (3 to 60).
        """
        state = self._session(customer_id)
        account = self._own(customer_id, account_id)
        existing = [loan for loan in state.loans.values() if loan.customer_id == customer_id]
        for loan in existing:
            self._accrue(loan)
        income = state.customers[customer_id].monthly_income
        rejection = rules.decide(amount, term_months, income, existing)
        loan_id = f"L{state.next_loan:03d}"
        state.next_loan += 1
        loan = Loan(loan_id=loan_id, customer_id=customer_id, account_id=account_id, principal=amount,
                    term_months=term_months, monthly_rate=rules.MONTHLY_RATE)
        state.loans[loan_id] = loan
        text = self.bank_texts
        if rejection is not None:
            loan_lifecycle.fire(loan, "reject")
            loan.decision = rejection
            reason = text.reasons[rejection]
            return {"status": False, "message": text.loan_rejected.format(reason=reason), "loan_id": loan_id}
        loan_lifecycle.fire(loan, "approve")
        loan.decision = "approved"
        loan.schedule = rules.schedule(amount, term_months, rules.MONTHLY_RATE, self._today())
        self._post(account, "loan_disbursement", amount, loan_id)
        loan_lifecycle.fire(loan, "disburse")
        first = loan.schedule[0]
        return {"status": True, "loan_id": loan_id,
                "message": text.loan_approved.format(loan_id=loan_id, amount=amount, account_id=account_id,
                                                     payment=first.principal + first.interest, due=first.due_date)}

    @tool(destructive=False)
    def get_loan(self, customer_id: SessionId, loan_id: OwnLoanId) -> LoanDetails:
        """Show a loan with its repayment schedule, brought up to date (overdue installments, late fees).

        Args:
            customer_id: The customer's id.
            loan_id: The loan, e.g. L001.
        """
        self._session(customer_id)
        loan = self._loan(customer_id, loan_id)
        return {"status": True, "loan": loan, "owed": _owed(loan)}

    @tool
    def repay_loan(self, customer_id: SessionId, loan_id: OwnLoanId, account_id: OwnAccountId,
                   amount: Amount) -> BankReply:
        """Pay towards a loan from an account: overdue installments first, each fee then interest then principal.

        Args:
            customer_id: The customer's id.
            loan_id: The loan.
            account_id: The account to pay from.
            amount: How much to pay.
        """
        text = self.bank_texts
        loan = self._open_loan(customer_id, loan_id)
        account = self._own(customer_id, account_id)
        owed = _owed(loan)
        if amount > owed:
            raise self._refuse("invalid_value", text.overpaid, amount=amount, owed=owed, loan_id=loan_id)
        self._can_spend(account, amount)
        left, interest, fees = amount, Decimal("0.00"), Decimal("0.00")
        for installment in loan.schedule:
            if left <= 0:
                break
            part = min(left, installment.owed)
            if part > 0:
                fee_part, interest_part = _apply(installment, part)
                fees, interest, left = fees + fee_part, interest + interest_part, left - part
        self._post(account, "loan_repayment", -amount, loan_id, interest=interest, fees=fees)
        self._settle(loan)
        return {"status": True, "message": text.repaid.format(amount=amount, loan_id=loan_id, remaining=_owed(loan))}

    @tool(idempotent=True)
    def pay_off_loan(self, customer_id: SessionId, loan_id: OwnLoanId, account_id: OwnAccountId) -> BankReply:
        """Repay a loan early: fees, the current installment, and all remaining principal (later interest is waived).

        Args:
            customer_id: The customer's id.
            loan_id: The loan.
            account_id: The account to pay from.
        """
        text = self.bank_texts
        loan = self._open_loan(customer_id, loan_id)
        account = self._own(customer_id, account_id)
        unpaid = [i for i in loan.schedule if i.status != "paid"]
        for installment in unpaid[1:]:
            if installment.status == "due":
                installment.interest = Decimal("0.00")  # interest of future months is waived
        total = sum((i.owed for i in unpaid), Decimal("0.00"))
        self._can_spend(account, total)
        interest, fees = Decimal("0.00"), Decimal("0.00")
        for installment in unpaid:
            fee_part, interest_part = _apply(installment, installment.owed)
            fees, interest = fees + fee_part, interest + interest_part
        self._post(account, "loan_repayment", -total, loan_id, "payoff", interest=interest, fees=fees)
        self._settle(loan)
        return {"status": True, "message": text.paid_off.format(loan_id=loan_id, amount=total)}

    def _settle(self, loan: Loan) -> None:
        if all(i.status == "paid" for i in loan.schedule):
            loan_lifecycle.fire(loan, "settle")
        elif loan.status == "overdue" and not any(i.status == "overdue" for i in loan.schedule):
            loan_lifecycle.fire(loan, "catch_up")


def _owed(loan: Loan) -> Decimal:
    return sum((i.owed for i in loan.schedule if i.status != "paid"), Decimal("0.00"))


def statement(account: Account, transactions: list[Transaction], month: str) -> Statement:
    """Opening and closing balance, money in and out, interest and fees of one account in one month.

    `closing_balance == opening_balance + total_in - total_out` holds by construction; the
    interest and fee figures are the parts of `total_out` that went to loan interest and to
    fees (late fees are recorded on each repayment as it is made).
    """
    opening = account.initial_balance
    inside: list[Transaction] = []
    for record in transactions:
        if record.account_id != account.account_id:
            continue
        if record.time[:7] < month:
            opening = record.balance_after
        elif record.time[:7] == month:
            inside.append(record)
    total_in = sum((r.amount for r in inside if r.amount > 0), Decimal("0.00"))
    total_out = -sum((r.amount for r in inside if r.amount < 0), Decimal("0.00"))
    fees = sum((r.fees for r in inside), Decimal("0.00")) - sum((r.amount for r in inside if r.kind == "fee"),
                                                                  Decimal("0.00"))
    interest = sum((r.interest for r in inside), Decimal("0.00"))
    return {
        "account_id": account.account_id, "month": month, "opening_balance": opening,
        "closing_balance": opening + total_in - total_out, "total_in": total_in, "total_out": total_out,
        "interest_paid": interest, "fees": fees, "transactions": inside,
    }


def _apply(installment: Installment, part: Decimal) -> tuple[Decimal, Decimal]:
    """Pay `part` towards an installment (late fee, then interest, then principal).

    Returns the parts that went to the fee and to interest.
    """
    before = installment.paid
    after = before + part

    def fee_cover(paid: Decimal) -> Decimal:
        return min(paid, installment.late_fee)

    def interest_cover(paid: Decimal) -> Decimal:
        return min(max(paid - installment.late_fee, Decimal("0.00")), installment.interest)

    installment.paid = after
    if installment.owed == 0:
        installment.status = "paid"
    return fee_cover(after) - fee_cover(before), interest_cover(after) - interest_cover(before)


__all__ = ["Bank", "Installment", "account_lifecycle", "loan_lifecycle", "statement"]
