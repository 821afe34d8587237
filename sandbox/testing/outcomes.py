"""What became of a call: rejected at the door, refused by the world, crashed, or done."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from ..calllog import CallRecord

if TYPE_CHECKING:
    from ..world import World

Outcome = Literal["invalid", "refused", "crashed", "succeeded"]

# Errors the world raises before any tool runs: the call itself is malformed.
INVALID_ERRORS = frozenset({"invalid_arguments", "unknown_tool", "parse_error"})


def outcome(world: World, record: CallRecord) -> Outcome:
    """`invalid` (never reached a tool), `crashed` (the tool raised something unexpected),
    `refused` (a `ToolError`, or a result its app calls a refusal) or `succeeded`."""
    error = record.error
    if error is not None:
        if error.type in INVALID_ERRORS:
            return "invalid"
        return "crashed" if error.type == "internal_error" else "refused"
    app = world.apps.get(record.app) if record.app is not None else None
    if app is not None and app.refused(record.result):
        return "refused"
    return "succeeded"
