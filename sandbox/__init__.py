"""toolworlds' engine: apps, tools, worlds, the call log, safe parsing and state machines.

Typical use::

    from sandbox import World
    from scenarios.todo import TodoApp

    world = World([TodoApp()])
    world.execute("[add_task(title='buy milk')]")
    world.state()
"""

from __future__ import annotations

from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from .app import App
from .calllog import CallError, CallLog, CallRecord
from .clock import SimClock
from .errors import ParseError, ReadOnlyViolation, ToolError
from .parsing import Call, ParsedMessage, parse_calls, parse_message, render_calls
from .refs import Ref
from .rng import WorldRandom
from .schemas import FORMATS, export
from .state import StateModel, TrackedDict, TrackedList, TrackedSet
from .tools import ToolSpec, tool
from .world import Snapshot, World

if TYPE_CHECKING:
    from .comparison import StateComparison, compare_states
    from .diffing import FieldDifference, StateDiff
    from .lifecycle import Lifecycle, Transition

__all__ = [
    "App", "Call", "CallError", "CallLog", "CallRecord", "FORMATS", "FieldDifference",
    "Lifecycle", "ParseError", "ParsedMessage", "ReadOnlyViolation", "Ref", "SimClock", "Snapshot",
    "StateComparison", "StateDiff", "StateModel", "ToolError", "ToolSpec", "TrackedDict", "TrackedList",
    "TrackedSet", "Transition", "World", "WorldRandom", "export", "parse_calls",
    "compare_states", "parse_message", "render_calls", "tool",
]

_LAZY = MappingProxyType({
    "Lifecycle": ".lifecycle", "Transition": ".lifecycle",
    "StateDiff": ".diffing", "FieldDifference": ".diffing",
    "StateComparison": ".comparison", "compare_states": ".comparison",
})


def __getattr__(name: str) -> Any:
    """Import the heavier pieces (transitions, deepdiff) only when they are used."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module 'sandbox' has no attribute {name!r}")
