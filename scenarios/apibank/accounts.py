"""Accounts (users, passwords, tokens) and the bank APIs that use them."""

from __future__ import annotations

import string
from typing import Annotated, Any, Literal, TypeVar

from typing_extensions import TypedDict

from sandbox import App, Ref, StateModel

from .api_common import ApiError, api
from .references import Token, Username


# What the account APIs answer (API-Bank's outputs; a refusal is an `ApiError`, its exception).
class TokenReply(TypedDict):
    token: str


class UsernameReply(TypedDict):
    username: str


class Success(TypedDict):
    status: Literal["success"]


class RecordedDraws(StateModel):
    """State of an app that draws random values (ids, tokens): the values a replay queued
    so that the recorded ones come back, taken before any seeded draw.

    A state field, so a call journals it (a failed call gives a taken value back) and
    snapshots, forks and restores carry it. It is the harness's input, as the world's
    random source is, not a fact of the world, so dumps leave it out (`internal_fields`):
    `World.state()` and end-state comparisons read the same with or without a queue.
    """

    internal_fields = frozenset({"queued_draws"})

    queued_draws: tuple[str, ...] = ()


D = TypeVar("D", bound=RecordedDraws)


class RandomSource(App[D]):
    """An app whose random draws a replay can dictate."""

    def queue(self, value: str) -> None:
        state = self.state
        state.queued_draws = (*state.queued_draws, value)

    def take(self) -> str | None:
        """The next queued value (None when the queue is empty), from inside a call."""
        state = self.state
        if not state.queued_draws:
            return None
        value, *rest = state.queued_draws
        state.queued_draws = tuple(rest)
        return value


class AccountsState(RecordedDraws):
    accounts: dict[str, Any] = {}  # username -> {password, token, email}
    verification_code: int | None = None
    reset_user: str | None = None


class Accounts(RandomSource[AccountsState]):
    """User accounts and their tokens (Account.json)."""

    app_name = "Accounts"

    def username_for(self, token: str) -> str:
        """The token checker every token-gated API uses (first match wins)."""
        for username, record in self.state.accounts.items():
            if record.get("token") == token:
                return username
        raise ApiError("The token is invalid.")

    @api("GetUserToken", mutates=False)
    def get_user_token(self, username: Username,
                       password: Annotated[str, Ref("Accounts", "accounts.{username}.password")]) -> TokenReply:
        record = self.state.accounts.get(username)
        if record is None:
            raise ApiError("The username does not exist.")
        if record.get("password") != password:
            raise ApiError("The password is incorrect.")
        return {"token": record["token"]}

    @api("CheckToken", mutates=False, omit_name=True)
    def check_token(self, token: Token) -> UsernameReply:
        return {"username": self.username_for(token)}

    @api("RegisterUser", omit_name=True, destructive=False)
    def register_user(self, username: str, password: str, email: str) -> TokenReply:
        if username in self.state.accounts:
            raise ApiError("The username already exists.")
        token = self.take()
        if token is None:
            alphabet = string.ascii_letters + string.digits
            token = "".join(self.world.rng.generator().choices(alphabet, k=18)).lower()
        self.state.accounts[username] = {"password": password, "token": token, "email": email}
        return {"token": token}

    @api("DeleteAccount", omit_name=True, idempotent=True)
    def delete_account(self, token: Token) -> Success:
        username = self.username_for(token)
        del self.state.accounts[username]
        return {"status": "success"}

    @api("ModifyPassword", idempotent=True)
    def modify_password(
        self, token: Token,
        old_password: Annotated[str, Ref("Accounts", "accounts", "password", where={"token": "{token}"})],
        new_password: str,
    ) -> Success:
        username = self.username_for(token)
        record = self.state.accounts[username]
        if record.get("password") != old_password:
            raise ApiError("The old password is incorrect.")
        record["password"] = new_password
        return {"status": "success"}

    @api("ForgotPassword", echo="given", omit_name=True)
    def forgot_password(
        self, status: str, username: Username | None = None,
        email: Annotated[str, Ref("Accounts", "accounts.{username}.email")] | None = None,
        verification_code: Annotated[int, Ref("Accounts", "verification_code")] | None = None,
        new_password: str | None = None,
    ) -> int | str:
        state = self.state
        if status == "Forgot Password":
            if username is None or email is None:
                raise ApiError("The username and email are required for the first call.")
            record = state.accounts.get(username)
            if record is None:
                raise ApiError("The username does not exist.")
            if record.get("email") != email:
                raise ApiError("The email is incorrect.")
            state.verification_code = 970420  # the reference's fixed code
            state.reset_user = username
            return state.verification_code
        if status == "Verification Code":
            if not state.verification_code:
                raise ApiError("You need to call the API with status 'Forgot Password' at first.")
            if new_password is None or verification_code is None:
                raise ApiError("The new password and verification code are required for the second call.")
            if verification_code != state.verification_code:
                raise ApiError("The verification code is incorrect.")
            record = state.accounts.get(state.reset_user)  # type: ignore[arg-type]
            if record is None:  # deleted since the first call (the reference raised a KeyError)
                raise ApiError("The username does not exist.")
            record["password"] = new_password
            return "success"
        raise ApiError("The status is only 'Forgot Password' or 'Verification Code'.")


class BankState(StateModel):
    balances: dict[str, Any] = {}  # username -> {balance, age, city} (Bank.json)
    opened: dict[str, Any] = {"0": {"account": "test", "password": "test", "name": "yifei"}}


class Bank(App[BankState]):
    """Balances (Bank.json) and OpenBankAccount's own small registry."""

    app_name = "BankAccounts"

    def refused(self, result: Any) -> bool:
        """OpenBankAccount answers a taken account name with "failed" rather than an exception."""
        return result == "failed"

    @api("QueryBalance", mutates=False)
    def query_balance(self, token: Token) -> float:
        try:
            username = self.world.app("Accounts").username_for(token)  # type: ignore[attr-defined]
        except ApiError:
            raise ApiError("The token is incorrect.") from None
        record = self.state.balances.get(username)
        if record is None:
            raise ApiError("The user does not have an account.")
        return record["balance"]

    @api("OpenBankAccount", destructive=False)
    def open_bank_account(self, account: str, password: str, name: str) -> str:
        opened = self.state.opened
        if any(entry.get("account") == account for entry in opened.values()):
            return "failed"
        opened[str(len(opened) + 1)] = {"account": account, "password": password, "name": name}
        return "success"
