"""toolworlds' engine: apps, tools, worlds, the call log, safe parsing and state machines.

Typical use::

    from toolworlds import TodoApp, World

    world = World([TodoApp()])
    world.execute("[add_task(title='buy milk')]")
    world.state()
"""

from __future__ import annotations

from types import MappingProxyType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .app import App
    from .calllog import CallError, CallLog, CallRecord
    from .clock import SimClock
    from .comparison import StateComparison, compare_states
    from .diffing import FieldDifference, StateDiff
    from .errors import ParseError, ReadOnlyViolation, ToolError
    from .lifecycle import Lifecycle, Transition
    from .parsing import Call, ParsedMessage, parse_calls, parse_message, render_calls
    from .refs import Ref
    from .replies import Reply, read_reply
    from .rng import WorldRandom
    from .schemas import FORMATS, export, output_schema
    from .state import StateModel, TrackedDict, TrackedList, TrackedSet
    from .tools import ToolSpec, tool
    from .world import Snapshot, World

__all__ = [
    "App", "Call", "CallError", "CallLog", "CallRecord", "FORMATS", "FieldDifference",
    "Lifecycle", "ParseError", "ParsedMessage", "ReadOnlyViolation", "Ref", "Reply", "SimClock", "Snapshot",
    "StateComparison", "StateDiff", "StateModel", "ToolError", "ToolSpec", "TrackedDict", "TrackedList",
    "TrackedSet", "Transition", "World", "WorldRandom", "export", "output_schema", "parse_calls",
    "compare_states", "parse_message", "read_reply", "render_calls", "tool",
]

# Where each exported name lives. Nothing is imported until a name is first used: building
# pydantic models (every state, every tool's argument model) costs most of a cold start, and
# a process that only parses calls, or only reads a stored run, need not pay for it.
_LAZY = MappingProxyType({
    "App": ".app", "CallError": ".calllog", "CallLog": ".calllog", "CallRecord": ".calllog",
    "SimClock": ".clock", "StateComparison": ".comparison", "compare_states": ".comparison",
    "FieldDifference": ".diffing", "StateDiff": ".diffing",
    "ParseError": ".errors", "ReadOnlyViolation": ".errors", "ToolError": ".errors",
    "Lifecycle": ".lifecycle", "Transition": ".lifecycle",
    "Call": ".parsing", "ParsedMessage": ".parsing", "parse_calls": ".parsing", "parse_message": ".parsing",
    "render_calls": ".parsing", "Ref": ".refs", "Reply": ".replies", "read_reply": ".replies",
    "WorldRandom": ".rng", "FORMATS": ".schemas", "export": ".schemas", "output_schema": ".schemas",
    "StateModel": ".state", "TrackedDict": ".state", "TrackedList": ".state", "TrackedSet": ".state",
    "ToolSpec": ".tools", "tool": ".tools", "Snapshot": ".world", "World": ".world",
})


def __getattr__(name: str) -> Any:
    """Import an exported name's module when the name is first used."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module 'sandbox' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
