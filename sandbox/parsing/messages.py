"""Reading the tool calls of one model message, whichever accepted form it is written in.

Accepted forms:
- bracket syntax (ACEBench, BFCL, API-Bank): `[f(a=1, b='x'), g()]`, also a bare call
  or a tuple of calls; `true`/`false`/`null` are read as JSON literals (`brackets`);
- JSON: an OpenAI assistant message with `tool_calls`, one OpenAI tool call, a
  `{"name", "arguments"|"parameters"}` object (arguments as an object or a JSON string),
  or a list of these (`json_calls`); also inside a markdown code fence.

Message size, calls per message, nesting, integer digits and name length are bounded by
the world's `InputLimits`, and every failure is a `ParseError` whose message tells the
agent what to fix (and, for a bound, names it).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import TypeVar

from ..errors import ParseError
from ..input_limits import DEFAULT_LIMITS, InputLimits
from .brackets import read_brackets
from .calls import Call, ParsedMessage, _parsed
from .grammar import _bracket_call, _bracket_elements
from .json_calls import _JSON_START, _json_call, _try_json, decode_json

# Possessive runs: the language tag and the blanks around it are disjoint classes, so each split is the only
# one, and a fence followed by a long run of blanks is refused in one pass (backtracking over its splits made
# 100,000 characters take 90 s).
_FENCE = re.compile(r"```[ \t]*+([A-Za-z0-9_+-]*+)[ \t]*+\r?\n(.*?)```", re.DOTALL)
_Element = TypeVar("_Element")


def parse_calls(text: str, *, limits: InputLimits = DEFAULT_LIMITS) -> list[Call]:
    """The tool calls in `text`; raises `ParseError` (and nothing else) when there are none to read."""
    return parse_message(text, limits=limits).calls


def parse_message(text: str, *, limits: InputLimits = DEFAULT_LIMITS) -> ParsedMessage:
    """Read the calls of one model message; raises `ParseError` and nothing else."""
    # One frame for all of it (the `try` costs nothing until something raises): a frame was a tenth of reading
    # a short message.
    try:
        if type(text) is not str:
            raise ParseError("expected the message as text")
        if len(text) > limits.max_message_chars:
            raise ParseError(f"message too long to read as tool calls ({len(text)} characters; limit "
                             f"max_message_chars is {limits.max_message_chars})", limit="max_message_chars")
        body = text.strip()
        if not body:
            raise ParseError("empty message: expected tool calls such as [tool_name(arg='value')]")
        notes: tuple[str, ...] = ()
        if "`" in body:  # (a character is found faster than three)
            fenced = _FENCE.search(body)
            if fenced:
                body = fenced.group(2).strip()
                notes = ("read the calls from a markdown code block",)
                if not body:  # nothing in the block: the grammar says what it says of that
                    return read_brackets(body, limits, notes)
        # A letter after the opening bracket starts a bracket call, never JSON: the match is skipped for those.
        if (body[0] != "[" or not body[1:2].isalpha()) and _JSON_START.match(body):
            calls = _try_json(body, limits)
            if calls is not None:
                return _parsed(calls, "json", notes)
        return read_brackets(body, limits, notes)
    except ParseError:
        raise
    except (RecursionError, MemoryError) as exc:
        raise ParseError(f"message nested too deeply to read ({type(exc).__name__}; limit max_depth is "
                         f"{limits.max_depth})", limit="max_depth") from None
    except Exception as exc:
        raise ParseError(f"could not read tool calls: {type(exc).__name__}") from None


def parse_items(text: str, *, limits: InputLimits = DEFAULT_LIMITS) -> list[Call | ParseError]:
    """Every call of a message in order, each read on its own: a `Call`, or the `ParseError`
    saying why that one cannot be read, in its place.

    A message whose calls all read is `parse_message`'s calls. Otherwise, when the message's
    frame still reads (a JSON list of calls, `tool_calls`, or bracket syntax that is valid
    Python), each element is read alone, so one call with broken arguments does not stop the
    others. A message that breaks a bound, or whose frame does not read, raises `ParseError`.
    """
    try:
        return list(parse_message(text, limits=limits).calls)
    except ParseError as whole:
        if whole.limit is not None:
            raise
        try:
            items = _items(text, limits)
        except ParseError:
            raise whole from None
        except (RecursionError, MemoryError, ValueError):
            raise whole from None
        if items is None or not any(isinstance(item, Call) for item in items):
            raise whole from None
        return items


def _items(text: str, limits: InputLimits) -> list[Call | ParseError] | None:
    """Elements read one by one; None when the message is not a list of separate elements."""
    body = text.strip()
    fenced = _FENCE.search(body)
    if fenced:
        body = fenced.group(2).strip()
    if _JSON_START.match(body):
        try:
            data = decode_json(body, limits)
        except json.JSONDecodeError:
            data = None
        if isinstance(data, dict) and isinstance(data.get("tool_calls"), list):
            data = data["tool_calls"]
        if isinstance(data, list):
            return _each(data, lambda item: _json_call(item, limits), limits)
        if data is not None:
            return None
    return _each(_bracket_elements(body, limits), lambda node: _bracket_call(node, limits), limits)


def _each(elements: Sequence[_Element], read: Callable[[_Element], Call],
          limits: InputLimits) -> list[Call | ParseError]:
    if len(elements) > limits.max_calls:
        raise ParseError(f"more than {limits.max_calls} calls in one message (limit max_calls)", limit="max_calls")
    items: list[Call | ParseError] = []
    for element in elements:
        try:
            items.append(read(element))
        except ParseError as exc:
            items.append(exc)
    return items
