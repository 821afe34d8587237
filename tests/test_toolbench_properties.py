"""The ToolBench world keeps its record of answered calls over drawn call sequences (the kit's state machine)."""

from __future__ import annotations

from typing import Any

from sandbox import Call, CallRecord
from scenarios.toolbench.family import example_world
from tests.worlds import check_world


def every_answered_call_is_recorded_once(call: Call, record: CallRecord, before: dict[str, Any],
                                         after: dict[str, Any]) -> bool:
    """An answered call appends exactly its own name and validated arguments to the record; nothing else does."""
    old, new = before["ToolBench"]["calls"], after["ToolBench"]["calls"]
    if record.error is not None:
        return new == old
    return new[:-1] == old and new[-1] == {"name": call.name, "parameters": record.validated}


def test_the_toolbench_world_records_every_answered_call() -> None:
    check_world(example_world, postconditions=[every_answered_call_is_recorded_once], name="toolbench")
