"""ToolBench's two metrics, exactly as mcpbr's ToolBench benchmark reports them.

- `resolved`: the agent's tool names, in order, equal the expected ones;
- `tool_selection_accuracy`: the share of distinct expected tool names the agent used
  (|expected ∩ agent| / |expected|, both as sets).

A response is read in three steps: the whole text as JSON (a list, keeping its objects,
or one object); else each fenced block (```json or ```) in turn, the first that parses as
a list or an object; else nothing, and the verdict is an error. The verdict is mcpbr's
dict: `{resolved, tool_selection_accuracy, expected_tools, agent_tools}`, or
`{"resolved": false, "error": ...}` with no other key.

Three places where mcpbr would crash are defined instead: a fenced list may hold entries
that are not objects (each counts as a call with the name ""), a name that is a list
or an object is compared as its text, and text the decoder refuses by raising rather than
as bad JSON (nesting past its stack, an integer past Python's 4,300 digits) is not JSON.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from scenarios.jsonlines import JsonTextError, json_value

NO_GROUND_TRUTH = "No ground truth available"
NO_CALLS = "Could not extract tool calls from solution"

_BLOCK = re.compile(r"```(?:json)?\s*\n(.*?)\n```", re.DOTALL)


@dataclass(frozen=True)
class SequenceScore:
    resolved: bool
    tool_selection_accuracy: float | None
    expected_tools: list[Any] = field(default_factory=list)
    agent_tools: list[Any] = field(default_factory=list)
    error: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The verdict as mcpbr reports it, key for key."""
        if self.error:
            return {"resolved": False, "error": self.error}
        return {"resolved": self.resolved, "tool_selection_accuracy": self.tool_selection_accuracy,
                "expected_tools": list(self.expected_tools), "agent_tools": list(self.agent_tools)}


def extract_calls(response: Any) -> list[Any]:
    """The calls in a response, by mcpbr's three steps; [] when none can be read."""
    if not isinstance(response, str):
        return []
    data = _decoded(response)
    if isinstance(data, list):
        return [item for item in data if isinstance(item, dict)]
    if isinstance(data, dict):
        return [data]
    for block in _blocks(response):
        data = _decoded(block)
        if isinstance(data, list):
            return data
        if isinstance(data, dict):
            return [data]
    return []


def _blocks(response: str) -> list[str]:
    """The fenced blocks of a response, as `_BLOCK.findall` finds them. Every block ends with a line opening
    "```": none can end past the last such line, so the search stops there. Without that bound each opener
    left unclosed is followed to the end of the text (80,000 characters of them: 12 s)."""
    last = response.rfind("\n```")
    return _BLOCK.findall(response, 0, last + 4) if last >= 0 else []


def _decoded(text: str) -> Any:
    """`text` as JSON, or None where the decoder refuses it, whichever way it does (`json_value`)."""
    try:
        return json_value(text)
    except JsonTextError:
        return None


def tool_name(call: Any) -> Any:
    """A call's `name` as mcpbr reads it ("" when absent); unhashable names become text."""
    name = call.get("name", "") if isinstance(call, dict) else ""
    return name if name is None or isinstance(name, (str, int, float, bool)) else json.dumps(name, sort_keys=True)


def score_calls(expected: Sequence[Any], calls: Sequence[Any]) -> SequenceScore:
    """Compare calls already read (objects with a "name") with the expected calls."""
    if not expected:
        return SequenceScore(False, None, error=NO_GROUND_TRUTH)
    if not calls:
        return SequenceScore(False, None, error=NO_CALLS)
    expected_tools = [tool_name(call) for call in expected if isinstance(call, dict)]
    agent_tools = [tool_name(call) for call in calls]
    overlap = len(set(expected_tools) & set(agent_tools)) / max(len(set(expected_tools)), 1)
    return SequenceScore(expected_tools == agent_tools, overlap, expected_tools, agent_tools)


def score_sequence(expected: Sequence[Any], response: Any) -> SequenceScore:
    """Score an agent's response text against the expected calls (a list of {"name", ...})."""
    return score_calls(expected, extract_calls(response))
