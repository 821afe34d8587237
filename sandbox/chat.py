"""Chat-API tool calls in and tool results out: OpenAI `tool_calls`, Anthropic `tool_use` blocks.

A model served through a chat API answers with structured tool calls rather than text; the
conversation goes on once each call has a result message tied to its id. This module reads
those calls (as the SDKs' response objects or as plain dicts; the engine never imports an SDK),
runs them through `World.call`, and writes the result messages in each API's shape. A refused
or malformed call becomes an error result the model can read and correct, never an exception.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from .calllog import CallRecord
from .errors import ParseError
from .input_limits import InputLimits
from .parsing import Call, decode_arguments


class CallRunner(Protocol):
    """What running structured calls needs of a world: its input limits and `execute`. `sandbox.world.World`
    is the implementation; a protocol, because that module imports this one."""

    @property
    def limits(self) -> InputLimits: ...
    def execute(self, message: str | Sequence[Call | ParseError]) -> list[CallRecord]: ...


@dataclass(frozen=True)
class ToolUse:
    """One structured tool call: the id the API gave it, the tool's name, and its arguments.

    `arguments` is as the API gave it: JSON text (OpenAI's form, kept verbatim) or an object
    (Anthropic's `input`, or OpenAI arguments a caller decoded). `uses_message` reads it as the
    world reads a JSON call's arguments.
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

    `function.arguments` is JSON text in the API; an already-decoded object is accepted too.
    Both are kept as given: the world decodes text within its own limits (`uses_message`).
    What is not a list of calls (a number, text, a call that is not an object, a name that is not
    text) is kept as a call without a name, which the world refuses with a `parse_error` in its place.
    """
    calls = field_of(tool_calls, "tool_calls", tool_calls)
    if calls is None:
        return []
    if isinstance(calls, Mapping) and "function" in calls:  # one call given alone
        calls = [calls]
    if isinstance(calls, (str, bytes, bytearray, Mapping)) or not isinstance(calls, Iterable):
        return [ToolUse("call_0", "", None)]
    uses = []
    for index, call in enumerate(calls):
        function = field_of(call, "function")
        name = field_of(function, "name", "")
        raw = field_of(function, "arguments")
        uses.append(ToolUse(str(field_of(call, "id") or f"call_{index}"), name if isinstance(name, str) else "",
                            _plain(raw)))
    return uses


def anthropic_uses(content: Any) -> list[ToolUse]:
    """The `tool_use` blocks in Anthropic message content (a list of blocks, or a whole message). Content as
    text holds none; content that is neither text nor a list of blocks is one call without a name, which the
    world refuses in its place."""
    blocks = field_of(content, "content", content)
    if blocks is None or isinstance(blocks, str):
        return []
    if isinstance(blocks, (bytes, bytearray, Mapping)) or not isinstance(blocks, Iterable):
        return [ToolUse("toolu_0", "", None)]
    uses = []
    for block in blocks:
        if field_of(block, "type") != "tool_use":
            continue
        name = field_of(block, "name", "")
        uses.append(ToolUse(str(field_of(block, "id", "")), name if isinstance(name, str) else "",
                            _plain(field_of(block, "input", {}))))
    return uses


def _plain(arguments: Any) -> Any:
    """Arguments as given when they are JSON values; anything else (an object of no JSON type, in them or
    alone) as its type's name, text the world refuses as arguments, so that writing them out never fails."""
    if arguments is None or isinstance(arguments, (str, int, float, bool)):
        return arguments
    if isinstance(arguments, (list, Mapping)):
        try:
            json.dumps(arguments)
        except (TypeError, ValueError, RecursionError):
            return f"<{type(arguments).__name__} holding values that are not JSON>"
        return arguments
    return f"<{type(arguments).__name__}>"


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


def run_uses(world: CallRunner, uses: Iterable[ToolUse]) -> list[tuple[ToolUse, CallRecord]]:
    """Each call with the record answering it. The calls are one message, so the world's `max_calls` bounds
    them: a message past it runs none, and every call is answered with that one refusal."""
    listed = list(uses)
    records = world.execute(uses_message(listed, world.limits))
    return list(zip(listed, answering(records, len(listed)), strict=True))


class StructuredCall(Protocol):
    """What the readers below need of a structured call: a `ToolUse`, or a runner's record of one as sent."""

    @property
    def id(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def arguments(self) -> Any: ...


def uses_message(uses: Sequence[StructuredCall], limits: InputLimits) -> list[Call] | str:
    """The message the world runs for structured calls: their `Call`s when every call's arguments read as
    a JSON object (text decoded within `limits`, as `decode_arguments` decodes a JSON call's; no text or
    null is no arguments), else the calls as a JSON `tool_calls` message (`uses_json`), which the world
    reads call by call. A call whose arguments are not a JSON object (cut-off text, a list) is then a
    `parse_error` in its place, worded as for a written message, while the calls beside it run: the same
    answers whether the calls reach the world here, in a run (`--protocol native`) or in `ToolEnv`."""
    calls = []
    for use in uses:
        arguments = use.arguments
        if not use.name:  # no call without a name: the world refuses it in place, as written
            return uses_json(uses)
        if isinstance(arguments, str):
            try:
                arguments = decode_arguments(use.name, arguments, limits)
            except ParseError:
                return uses_json(uses)
        elif arguments is None:
            arguments = {}
        elif not isinstance(arguments, Mapping):
            return uses_json(uses)
        calls.append(Call(use.name, arguments))
    return calls


def uses_json(uses: Iterable[StructuredCall]) -> str:
    """Structured calls as one JSON message of `tool_calls`, arguments as given: what the world reads
    when it reads them as text, and what a transcript replays."""
    return json.dumps({"tool_calls": [{"id": use.id, "function": {"name": use.name, "arguments": use.arguments}}
                                      for use in uses]}, ensure_ascii=False, default=str)


def answering(records: list[CallRecord], calls: int) -> list[CallRecord]:
    """The record answering each of a message's `calls`: its own, or, for a message refused whole, that refusal."""
    return records if len(records) == calls else records[:1] * calls


def run_openai(world: CallRunner, tool_calls: Any) -> list[dict[str, Any]]:
    """Run OpenAI tool calls in order; one `{"role": "tool", "tool_call_id", "content"}` each."""
    return [openai_message(use, record) for use, record in run_uses(world, openai_uses(tool_calls))]


def run_anthropic(world: CallRunner, content: Any) -> list[dict[str, Any]]:
    """Run Anthropic `tool_use` blocks in order; one `tool_result` block each (with `is_error`)."""
    return [anthropic_block(use, record) for use, record in run_uses(world, anthropic_uses(content))]

