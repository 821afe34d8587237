"""Calls written back as text: the bracket syntax `parse_calls` reads."""

from __future__ import annotations

from collections.abc import Sequence

from .calls import Call


def render_calls(calls: Sequence[Call], *, sort_arguments: bool = False) -> str:
    """Calls in bracket syntax (the inverse of `parse_calls`), as ACEBench milestones are written.

    `sort_arguments` gives one spelling per set of calls, whatever order the arguments came in.
    """
    def arguments(call: Call) -> str:
        items = sorted(call.arguments.items()) if sort_arguments else call.arguments.items()
        return ", ".join(f"{k}={v!r}" for k, v in items)

    return "[" + ", ".join(f"{c.name}({arguments(c)})" for c in calls) + "]"
