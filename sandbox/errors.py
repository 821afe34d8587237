"""Exceptions that cross the engine boundary.

Tools raise `ToolError` to refuse a call; the world turns it into an error record and
rolls the call back. `ParseError` is the only exception `parse_calls` ever raises, so
callers handling untrusted model output need exactly one `except` clause.
"""

from __future__ import annotations

from typing import Any


class ToolError(Exception):
    """A tool refuses the call: a precondition does not hold or the request is invalid.

    The world reports `message` to the agent and restores the state it had before the call,
    so a tool may raise this at any point, even after it has started changing state.
    """

    def __init__(self, message: str, *, code: str = "precondition_failed", **data: Any) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.data = data


class ParseError(ValueError):
    """Model output that cannot be read as tool calls; `message` says why, for the agent."""

    def __init__(self, message: str, *, position: int | None = None, limit: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.position = position
        self.limit = limit  # the `InputLimits` field the message broke, if a bound was the reason


class ReadOnlyViolation(RuntimeError):
    """A tool declared `mutates=False` tried to change state (a bug in the tool)."""
