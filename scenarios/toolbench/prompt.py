"""The text a ToolBench agent is given: the task, the tools it may use, and the answer format.

It follows mcpbr's ToolBench benchmark in content and contract, in our own wording: the
query (or a note that there is none), the first ten tools as `  - name: description`
lines (a tool known only by name is listed by name), then the instructions that fix the
output format: a JSON array of calls, each an object with "name" and "parameters". An
agent that answers in that format can be scored on its text alone, and the same answer,
read as tool calls, runs in the task's world.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

LISTED_TOOLS = 10  # mcpbr lists at most this many tools in the statement
NO_QUERY = "No query provided"

INSTRUCTIONS = (
    "Instructions:\n"
    "- Pick the tool or tools this task needs.\n"
    "- Give every call the parameters it needs, with the right values.\n"
    "- Answer with your tool calls as a JSON array.\n"
    "- Write each call as an object with a 'name' field and a 'parameters' field."
)


def problem_statement(query: str | None, tools: Sequence[Any]) -> str:
    """The task and its tools, as the benchmark states them (without the output instructions)."""
    text = f"Use the available tools to complete this task:\n\n{NO_QUERY if query is None else query}\n\n"
    if tools:
        text += "Available tools:\n" + "".join(f"  - {_listed(tool)}\n" for tool in tools[:LISTED_TOOLS])
    return text


def agent_prompt(query: str | None, tools: Sequence[Any]) -> str:
    """The problem statement followed by the output instructions: what an agent is sent."""
    return f"{problem_statement(query, tools).rstrip()}\n\n{INSTRUCTIONS}"


def _listed(tool: Any) -> str:
    if isinstance(tool, Mapping):
        description = tool.get("description")
        return f"{tool.get('name', 'unknown')}: {'' if description is None else description}"
    return str(tool)
