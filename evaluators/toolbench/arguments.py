"""An argument-level check of ToolBench calls: our extension, reported beside mcpbr's verdict.

mcpbr's ToolBench scores tool names only. Here each expected call is compared with the
agent's call at the same position: the same tool, and the same parameters after
normalisation (strings trimmed, inner whitespace collapsed and case-folded; numbers
compared by value, so "5", 5 and 5.0 agree; a parameter given as null counts as left out;
booleans stay booleans). `accuracy` is the share of expected calls matched; `exact` also
needs the agent to have made no further calls.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from scenarios.toolbench.tasks import parameters_of

from .sequence import tool_name

# One way to read each number (digits, then an optional point and digits): with `\d+\.?\d*`, a long run of
# digits that is not a number was tried split every way (32,000 digits: 30 s).
_NUMBER = re.compile(r"[+-]?(\d+(?:\.\d*)?|\.\d+)(e[+-]?\d+)?")


@dataclass(frozen=True)
class CallCheck:
    """One expected call against the agent's call at its position (`agent` None: no call there)."""

    position: int
    expected: Any
    agent: Any
    match: bool
    differing: tuple[str, ...] = ()  # parameters whose values differ, or are on one side only

    def to_dict(self) -> dict[str, Any]:
        return {"position": self.position, "expected": self.expected, "agent": self.agent, "match": self.match,
                "differing": list(self.differing)}


@dataclass(frozen=True)
class ArgumentScore:
    calls: tuple[CallCheck, ...]
    accuracy: float
    exact: bool

    def to_dict(self) -> dict[str, Any]:
        return {"accuracy": self.accuracy, "exact": self.exact, "calls": [c.to_dict() for c in self.calls]}


def check_arguments(expected: Sequence[Any], calls: Sequence[Any]) -> ArgumentScore:
    """Compare each expected call (objects only) with the agent's call at the same position."""
    wanted = [call for call in expected if isinstance(call, dict)]
    checks = []
    for position, call in enumerate(wanted):
        name = tool_name(call)
        if position >= len(calls):
            checks.append(CallCheck(position, name, None, False))
            continue
        given = calls[position]
        given_name = tool_name(given)
        if given_name != name:
            checks.append(CallCheck(position, name, given_name, False))
            continue
        differing = _differing(parameters_of(call), parameters_of(given) if isinstance(given, dict) else {})
        checks.append(CallCheck(position, name, given_name, not differing, differing))
    matched = sum(check.match for check in checks)
    accuracy = matched / len(wanted) if wanted else 0.0
    return ArgumentScore(tuple(checks), accuracy, bool(wanted) and matched == len(wanted) == len(calls))


def _differing(expected: Any, given: Any) -> tuple[str, ...]:
    left, right = normalize(expected), normalize(given)
    if not isinstance(left, dict) or not isinstance(right, dict):
        return () if left == right else ("(parameters)",)
    return tuple(sorted(key for key in left.keys() | right.keys() if left.get(key) != right.get(key)))


def normalize(value: Any) -> Any:
    """A value in the form parameters are compared in (see the module docstring)."""
    if isinstance(value, Mapping):
        return {str(key): normalize(item) for key, item in value.items() if item is not None}
    if isinstance(value, (list, tuple)):
        return [normalize(item) for item in value]
    if isinstance(value, bool):
        return ("bool", value)  # True must not equal 1
    if isinstance(value, str):
        text = " ".join(value.split()).casefold()
        return _number(text) if _NUMBER.fullmatch(text) else text
    return value  # numbers compare by value as they are (5 == 5.0)


def _number(text: str) -> int | float:
    try:
        return int(text)
    except ValueError:
        return float(text)
