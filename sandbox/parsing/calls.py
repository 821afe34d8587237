"""What reading a message gives (`Call`, `ParsedMessage`), and the bounds every reader holds a call to.

Every reader of model output (the bracket grammar, its fast lane, JSON) builds these, and
refuses a too-long name, too many calls or too deep arguments with the same words.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..errors import ParseError
from ..input_limits import InputLimits


@dataclass(frozen=True)
class Call:
    """One tool call read from a message."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ParsedMessage:
    """The calls of a message, the syntax they were written in, and any repairs made."""

    calls: list[Call]
    format: str
    repairs: tuple[str, ...] = ()


# `Call`s and `ParsedMessage`s of the fast paths are built without their frozen dataclass's `__init__`, which goes
# through `object.__setattr__` once per field: the two took a fifth of reading a short message.
_new_instance = object.__new__


def _new_call(name: str, arguments: dict[str, Any]) -> Call:
    call = _new_instance(Call)
    values = call.__dict__
    values["name"] = name
    values["arguments"] = arguments
    return call


def _parsed(calls: list[Call], syntax: str, repairs: tuple[str, ...]) -> ParsedMessage:
    message = _new_instance(ParsedMessage)
    values = message.__dict__
    values["calls"] = calls
    values["format"] = syntax
    values["repairs"] = repairs
    return message


def _check_name(name: str, limits: InputLimits) -> str:
    if len(name) > limits.max_name_chars:
        raise ParseError(f"tool name longer than {limits.max_name_chars} characters (limit max_name_chars)",
                         limit="max_name_chars")
    return name


def _bounded(calls: list[Call], limits: InputLimits) -> list[Call]:
    if len(calls) > limits.max_calls:
        raise ParseError(f"more than {limits.max_calls} calls in one message (limit max_calls)", limit="max_calls")
    return calls


def _too_deep(name: str, limits: InputLimits) -> ParseError:
    return ParseError(f"arguments of {name} are nested more than {limits.max_depth} levels deep "
                      f"(limit max_depth)", limit="max_depth")
