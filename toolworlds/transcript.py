"""Stored transcripts read back: replayed into a fresh world, and written out for a person to read.

A transcript is the `messages` rows of one episode. What the world was given is in them
exactly: an assistant message's `tool_calls` (name and arguments as the model sent them),
or its `call_text` when the world read the calls from text. Replaying feeds the same input,
in the same order, to a fresh world of the task, so the end state is the episode's own
(worlds are deterministic: seeded, simulated clock, per-world ids). `agent_process` gives back
the agent's messages as the episode handed them to its scorer, so `toolworlds rescore` scores a
stored episode again without asking any model.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from sandbox.calllog import CallRecord
from sandbox.chat import uses_json
from sandbox.errors import ParseError
from sandbox.parsing import Call, decode_arguments, render_calls
from sandbox.world import World
from scenarios.family import Task, task_hook

from .agents import ToolCall
from .store import MessageRow
from .visible import visible_line, visible_text


def world_inputs(messages: Sequence[MessageRow]) -> list[str | list[Call]]:
    """What each assistant message gave the world, in order: text it read, or calls it ran."""
    inputs: list[str | list[Call]] = []
    for message in messages:
        if message.role != "assistant" or message.source != "agent":
            continue
        if message.call_text is not None:
            inputs.append(message.call_text)
        elif message.tool_calls:
            inputs.append([_call(item) for item in json.loads(message.tool_calls)])
    return inputs


def _call(item: dict[str, Any]) -> Call:
    arguments = item.get("arguments")
    if isinstance(arguments, str):  # a native call: arguments as the JSON text the model wrote
        try:
            arguments = decode_arguments(item["name"], arguments)
        except ParseError:
            arguments = {}
    return Call(item["name"], arguments if isinstance(arguments, dict) else {})


def agent_process(messages: Sequence[MessageRow], *, single_reply: bool = False) -> list[str]:
    """The episode's `process` (`toolworlds.episodes.Episode`): each agent message the world was given, as
    the episode wrote it down. Written calls are the message's own text; native calls are the text the
    world read (a message of calls it could not read as objects) or the calls rendered in bracket syntax;
    a single-reply task's one reply is its text, or its native calls as the JSON message scorers read."""
    process: list[str] = []
    for message in messages:
        if message.role != "assistant" or message.source != "agent":
            continue
        native = _native_calls(message)
        if single_reply:
            process.append(uses_json(native) if native else message.content)
            break
        if native:
            process.append(message.call_text if message.call_text is not None
                           else render_calls([_call({"name": c.name, "arguments": c.arguments}) for c in native]))
        elif message.tool_calls or message.call_text is not None:
            process.append(message.content)
    return process


def _native_calls(message: MessageRow) -> list[ToolCall]:
    """A message's native tool calls (those the model sent with an id), as sent; [] for written calls."""
    items = json.loads(message.tool_calls) if message.tool_calls else []
    if not any(isinstance(item, dict) and item.get("id") is not None for item in items):
        return []
    return [ToolCall(item.get("id"), item.get("name"), item.get("arguments")) for item in items]


def replay(task: Task, messages: Sequence[MessageRow], *, single_reply: bool | None = None) -> tuple[World,
                                                                                                     list[CallRecord]]:
    """A fresh world of `task` given every input the transcript's agent gave its world; the world
    and the records. A single-reply episode ran nothing, so neither does its replay."""
    world = task.world()
    if single_reply if single_reply is not None else bool(task_hook(task, "single_reply", False)):
        return world, []
    records: list[CallRecord] = []
    for given in world_inputs(messages):
        records.extend(world.execute(given))
    return world, records


def transcript_text(messages: Sequence[MessageRow]) -> list[tuple[str, str]]:
    """The transcript as (heading, body) pairs for a person: who spoke, and what they said or called.

    What a model wrote is shown with its control characters escaped (`toolworlds.visible`), and call
    ids, names and argument text on one line each, so no reply can forge another turn or act on a terminal.
    """
    shown = []
    for message in messages:
        heading = {"system": f"system ({message.source})", "user": "user" if message.source != "task" else "task",
                   "assistant": "assistant", "tool": "tool result"}.get(message.role, message.role)
        if message.tool_call_id:
            heading += f" [{_call_id(message.tool_call_id)}]"
        cost = _cost(message)
        if cost:
            heading += f"  ({cost})"
        body = visible_text(message.content or "")
        if message.role == "assistant" and message.tool_calls:
            calls = json.loads(message.tool_calls)
            lines = [f"-> {visible_line(str(c.get('name')))}({visible_line(_arguments(c.get('arguments')))})"
                     + (f"  [{_call_id(str(c['id']))}]" if c.get("id") else "") for c in calls]
            body = "\n".join([*([body] if body else []), *lines])
        elif message.role == "assistant" and message.call_text not in (None, message.content or ""):
            body = "\n".join([*([body] if body else []), f"-> {visible_text(message.call_text or '')}"])
        shown.append((heading, body))
    return shown


# Call ids are a few dozen characters from any real endpoint; a longer one is cut where it is shown.
_CALL_ID_CHARS = 100


def _call_id(text: str) -> str:
    return visible_line(text if len(text) <= _CALL_ID_CHARS else text[:_CALL_ID_CHARS] + "...")


def _arguments(arguments: Any) -> str:
    if isinstance(arguments, str):
        return arguments
    return json.dumps(arguments, ensure_ascii=False)


def _cost(message: MessageRow) -> str:
    parts = []
    if message.prompt_tokens is not None or message.completion_tokens is not None:
        parts.append(f"{message.prompt_tokens or 0}+{message.completion_tokens or 0} tokens")
    if message.latency_ms is not None:
        parts.append(f"{message.latency_ms:.0f} ms")
    return ", ".join(parts)
