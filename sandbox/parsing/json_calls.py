"""JSON tool calls: an OpenAI message's `tool_calls`, one OpenAI call, `{"name", "arguments"}` objects, lists of these.

Read with `json.loads` only (its integers bounded before Python converts them); each call's
arguments must be an object of named values, nested no deeper than the world's limits allow.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from ..errors import ParseError
from ..input_limits import DEFAULT_LIMITS, InputLimits
from .calls import Call, _bounded, _check_name, _too_deep

# JSON tool calls open with an object, or a list of objects (or an empty list).
_JSON_START = re.compile(r"\{|\[\s*(\{|\]|$)")

def decode_json(text: str, limits: InputLimits = DEFAULT_LIMITS) -> Any:
    """`json.loads` that refuses integers longer than `max_int_digits` before converting them.

    Python cannot even convert an integer of more than 4,300 digits; the refusal comes first
    and names the bound. Raises `ParseError` for that, `json.JSONDecodeError` for bad JSON
    and `RecursionError` for nesting deeper than the decoder's stack.
    """
    return json.loads(text, parse_int=_bounded_integers(limits))


def decode_json_at(text: str, position: int, limits: InputLimits = DEFAULT_LIMITS) -> tuple[Any, int]:
    """The JSON value starting at `position` in `text` and where it ends (`json.JSONDecoder.raw_decode`:
    the text after it is not read), integers bounded and errors raised as in `decode_json`."""
    return json.JSONDecoder(parse_int=_bounded_integers(limits)).raw_decode(text, position)


def _bounded_integers(limits: InputLimits) -> Callable[[str], int]:
    """`parse_int` for the JSON decoder: digits past `max_int_digits` are refused before Python converts them."""
    def integer(digits: str) -> int:
        if len(digits.lstrip("-")) > limits.max_int_digits:
            raise ParseError(f"an integer of {len(digits.lstrip('-'))} digits (limit max_int_digits is "
                             f"{limits.max_int_digits})", limit="max_int_digits")
        return int(digits)

    return integer


def json_call(item: Any, limits: InputLimits = DEFAULT_LIMITS) -> Call:
    """One decoded JSON tool call (`{"name", "arguments"|"parameters"}`, or an OpenAI call with its
    `function`) as a `Call`; `ParseError` saying what is wrong with it."""
    return _json_call(item, limits)


def decode_arguments(name: str, text: str, limits: InputLimits = DEFAULT_LIMITS) -> dict[str, Any]:
    """The arguments of a JSON tool call, given as a JSON string (OpenAI's form); `ParseError` if unreadable."""
    if len(text) > limits.max_message_chars:
        raise ParseError(f"arguments of {name} too long to read ({len(text)} characters; limit max_message_chars is "
                         f"{limits.max_message_chars})", limit="max_message_chars")
    try:
        arguments = decode_json(text, limits) if text.strip() else {}
    except (json.JSONDecodeError, RecursionError):
        raise ParseError(f"arguments of {name} are not valid JSON") from None
    if arguments is None:
        return {}
    if not isinstance(arguments, dict):
        raise ParseError(f"arguments of {name} must be a JSON object of named values")
    return arguments


def _try_json(body: str, limits: InputLimits) -> list[Call] | None:
    """Calls from JSON, None when `body` is not JSON at all (it may be bracket syntax)."""
    try:
        data = decode_json(body, limits)
    except json.JSONDecodeError:
        return None
    except RecursionError:
        raise ParseError(f"JSON nested too deeply (limit max_depth is {limits.max_depth})",
                         limit="max_depth") from None
    if isinstance(data, dict):
        if "tool_calls" in data:
            items = data["tool_calls"]
            if not isinstance(items, list):
                raise ParseError("'tool_calls' must be a list")
            return _bounded([_json_call(item, limits) for item in _first_calls(items, limits)], limits)
        return [_json_call(data, limits)]
    if isinstance(data, list):
        if data and all(isinstance(item, dict) for item in data):
            return _bounded([_json_call(item, limits) for item in _first_calls(data, limits)], limits)
        if not data:
            return []
        return None
    raise ParseError("a JSON tool call must be an object or a list of objects")


def _first_calls(items: list[Any], limits: InputLimits) -> list[Any]:
    """No more calls than the limit allows, plus one so `_bounded` sees the excess without reading it all."""
    return items[: limits.max_calls + 1]


def _json_call(item: Any, limits: InputLimits) -> Call:
    if not isinstance(item, dict):
        raise ParseError("each JSON tool call must be an object")
    if isinstance(item.get("function"), dict):
        item = item["function"]
    name = item.get("name")
    if not isinstance(name, str) or not name:
        raise ParseError("a JSON tool call needs a string 'name'")
    arguments: Any = {}
    for key in ("arguments", "parameters", "args", "input"):
        if key in item:
            arguments = item[key]
            break
    if isinstance(arguments, str):
        arguments = decode_arguments(name, arguments, limits)
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise ParseError(f"arguments of {name} must be a JSON object of named values")
    _check_depth(arguments, 1, name, limits)
    return Call(_check_name(name, limits), arguments)


def _check_depth(value: Any, depth: int, name: str, limits: InputLimits) -> None:
    """`depth` counts the lists and objects enclosing `value`'s items, the arguments object included."""
    if depth > limits.max_depth:
        raise _too_deep(name, limits)
    if isinstance(value, dict):
        for item in value.values():
            if isinstance(item, (dict, list)):
                _check_depth(item, depth + 1, name, limits)
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, (dict, list)):
                _check_depth(item, depth + 1, name, limits)
