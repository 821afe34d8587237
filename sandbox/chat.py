"""Chat-API tool calls in and tool results out: OpenAI `tool_calls`, Anthropic `tool_use` blocks.

A model served through a chat API answers with structured tool calls rather than text; the
conversation goes on once each call has a result message tied to its id. This module reads
those calls (as the SDKs' response objects or as plain dicts; the engine never imports an SDK),
runs them through `World.call`, and writes the result messages in each API's shape. A refused
or malformed call becomes an error result the model can read and correct, never an exception.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .calllog import CallRecord
from .parsing import Call, render_calls

if TYPE_CHECKING:
    from .world import World


@dataclass(frozen=True)
class ToolUse:
    """One structured tool call: the id the API gave it, the tool's name, and its arguments.

    `arguments` is the decoded object, or the text as sent when it is not a JSON object (the
    world then refuses the call with an `invalid_arguments` error naming the tool).
    """

    id: str
    name: str
    arguments: Any


def field_of(obj: Any, name: str, default: Any = None) -> Any:
    """A field of an SDK object (attribute) or of its plain-dict form (key)."""
    if isinstance(obj, Mapping):
        return obj.get(name, default)
    return getattr(obj, name, default)


def openai_uses(tool_calls: Any) -> list[ToolUse]:
    """The calls in OpenAI `tool_calls` (a list, or a whole assistant message holding one).

    `function.arguments` is JSON text in the API; an already-decoded object is accepted too,
    and empty text means no arguments.
    """
    calls = field_of(tool_calls, "tool_calls", tool_calls)
    uses = []
    for index, call in enumerate(calls or ()):
        function = field_of(call, "function")
        name = field_of(function, "name", "")
        raw = field_of(function, "arguments")
        uses.append(ToolUse(str(field_of(call, "id") or f"call_{index}"), name if isinstance(name, str) else "",
                            _decode(raw)))
    return uses


def anthropic_uses(content: Any) -> list[ToolUse]:
    """The `tool_use` blocks in Anthropic message content (a list of blocks, or a whole message)."""
    blocks = field_of(content, "content", content)
    uses = []
    for block in blocks or ():
        if field_of(block, "type") != "tool_use":
            continue
        name = field_of(block, "name", "")
        uses.append(ToolUse(str(field_of(block, "id", "")), name if isinstance(name, str) else "",
                            field_of(block, "input", {})))
    return uses


def _decode(raw: Any) -> Any:
    """Arguments text decoded, or the text as sent. The model wrote it: text that is not JSON, nests past
    the decoder's stack or holds an integer Python will not convert (past 4,300 digits) stays text, which
    the world refuses naming the tool, rather than raising here. What decodes is bounded by the world."""
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return {}
    if not isinstance(raw, str):
        return raw
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):  # `json.JSONDecodeError` is a ValueError, as is the digit refusal
        return raw


def result_text(record: CallRecord) -> str:
    """What the model reads back: the result (text as is, anything else as JSON), or the error
    with its type, message and per-parameter details."""
    if record.error is not None:
        return json.dumps({"error": record.error.type, "message": record.error.message,
                           "details": [dict(d) for d in record.error.details]}, ensure_ascii=False, default=str)
    if isinstance(record.result, str):
        return record.result
    return json.dumps(record.result, ensure_ascii=False, default=str)


def openai_message(use: ToolUse, record: CallRecord) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": use.id, "content": result_text(record)}


def anthropic_block(use: ToolUse, record: CallRecord) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": use.id, "content": result_text(record),
            "is_error": record.error is not None}


def run_uses(world: World, uses: Iterable[ToolUse]) -> list[tuple[ToolUse, CallRecord]]:
    """Each call with the record answering it. The calls are one message, so the world's `max_calls` bounds
    them: a message past it runs none, and every call is answered with that one refusal."""
    listed = list(uses)
    records = world.execute([Call(use.name, use.arguments) for use in listed])
    return list(zip(listed, answering(records, len(listed)), strict=True))


def answering(records: list[CallRecord], calls: int) -> list[CallRecord]:
    """The record answering each of a message's `calls`: its own, or, for a message refused whole, that refusal."""
    return records if len(records) == calls else records[:1] * calls


def run_openai(world: World, tool_calls: Any) -> list[dict[str, Any]]:
    """Run OpenAI tool calls in order; one `{"role": "tool", "tool_call_id", "content"}` each."""
    return [openai_message(use, record) for use, record in run_uses(world, openai_uses(tool_calls))]


def run_anthropic(world: World, content: Any) -> list[dict[str, Any]]:
    """Run Anthropic `tool_use` blocks in order; one `tool_result` block each (with `is_error`)."""
    return [anthropic_block(use, record) for use, record in run_uses(world, anthropic_uses(content))]


def as_calls(uses: Iterable[ToolUse]) -> tuple[Call, ...]:
    return tuple(Call(use.name, use.arguments) for use in uses)


def render_uses(uses: Iterable[ToolUse]) -> str:
    """The calls in bracket syntax (how milestones are written); arguments that were not a JSON
    object are shown as the text that was sent."""
    parts = []
    for use in uses:
        if isinstance(use.arguments, Mapping):
            parts.append(render_calls([Call(use.name, dict(use.arguments))])[1:-1])
        else:
            parts.append(f"{use.name}({use.arguments!r})")
    return "[" + ", ".join(parts) + "]"
