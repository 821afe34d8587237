"""Where API-Bank's parameters find their values in the state (`sandbox.Ref`).

A token is worth something only if an account holds it; a time only if it is written as
the APIs expect, which the times already in the records are. These declarations leave
every API's schema as the catalogue describes it; property tests and fuzzers read them.
"""

from __future__ import annotations

from typing import Annotated

from sandbox import Ref

# The user (account key) whose token the call passes.
TOKEN_OWNER = Ref("Accounts", "accounts", where={"token": "{token}"})

Token = Annotated[str, Ref("Accounts", "accounts", "token")]
Username = Annotated[str, Ref("Accounts", "accounts")]
Email = Annotated[str, Ref("Accounts", "accounts", "email")]


def owned(app: str, field: str) -> Ref:
    """A field of the records (of a token-gated app) that belong to the user whose token the call passes."""
    return Ref(app, "records", field, where={"username": TOKEN_OWNER})


def recorded(app: str, field: str) -> Ref:
    """A field of any of the app's records (a time in the format the app checks, say)."""
    return Ref(app, "records", field)
