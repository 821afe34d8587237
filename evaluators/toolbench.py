"""ToolBench-style sequence metrics, as mcpbr's ToolBench benchmark defines them.

- `resolved`: the agent called exactly the expected sequence of tool names;
- `tool_selection_accuracy`: the share of distinct expected tool names the agent called.

Calls are extracted in the same order of attempts: the whole response as JSON (an object
or a list of objects), then each fenced code block in turn, else none. Entries that are
not objects count as calls with no name (the reference would crash on them in a block).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

_BLOCK = re.compile(r"```(?:json)?\s*\n(.*?)\n```", re.DOTALL)


@dataclass(frozen=True)
class SequenceScore:
    resolved: bool
    tool_selection_accuracy: float | None
    expected_tools: list[str] = field(default_factory=list)
    agent_tools: list[str] = field(default_factory=list)
    error: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"resolved": self.resolved, "tool_selection_accuracy": self.tool_selection_accuracy,
                "expected_tools": self.expected_tools, "agent_tools": self.agent_tools, "error": self.error}


def extract_calls(response: Any) -> list[Any]:
    if not isinstance(response, str):
        return []
    try:
        data = json.loads(response)
    except (json.JSONDecodeError, RecursionError):
        data = None
    if isinstance(data, list):
        return [item for item in data if isinstance(item, dict)]
    if isinstance(data, dict):
        return [data]
    for block in _BLOCK.findall(response):
        try:
            data = json.loads(block)
        except (json.JSONDecodeError, RecursionError):
            continue
        if isinstance(data, list):
            return data
        if isinstance(data, dict):
            return [data]
    return []


def _name(call: Any) -> str:
    name = call.get("name", "") if isinstance(call, dict) else ""
    return name if isinstance(name, str) else str(name)


def score_sequence(expected: list[Any], response: Any) -> SequenceScore:
    """Compare an agent's response with the expected calls (a list of {"name", ...})."""
    if not expected:
        return SequenceScore(False, None, error="No ground truth available")
    calls = extract_calls(response)
    if not calls:
        return SequenceScore(False, None, error="Could not extract tool calls from solution")
    expected_tools = [_name(call) for call in expected if isinstance(call, dict)]
    agent_tools = [_name(call) for call in calls]
    overlap = len(set(expected_tools) & set(agent_tools)) / max(len(set(expected_tools)), 1)
    return SequenceScore(expected_tools == agent_tools, overlap, expected_tools, agent_tools)
