"""Reading tool calls out of untrusted model output.

Model output is data, never code: the bracket syntax is read with `ast.parse` and a
walker that accepts literals only (no evaluation, no name lookup, nothing imported or
called), and JSON with `json.loads`. The common shapes (named arguments holding strings,
numbers, constants, lists and objects) are first tried by a regular-expression scanner
about three times cheaper than `ast.parse`; it reads a strict subset of the syntax, gives
the same calls, and leaves everything else, errors included, to the full path.

Message size, calls per message, nesting, integer digits and name length are bounded by
the world's `InputLimits`, and every failure is a `ParseError` whose message tells the
agent what to fix (and, for a bound, names it).

Accepted forms:
- bracket syntax (ACEBench, BFCL, API-Bank): `[f(a=1, b='x'), g()]`, also a bare call
  or a tuple of calls; `true`/`false`/`null` are read as JSON literals;
- JSON: an OpenAI assistant message with `tool_calls`, one OpenAI tool call, a
  `{"name", "arguments"|"parameters"}` object (arguments as an object or a JSON string),
  or a list of these; also inside a markdown code fence.

When the bracket syntax does not parse, a repair pass fixes the defects found in
ACEBench's own gold data (unescaped apostrophes, stray whitespace, a missing bracket)
and reports each repair. Text the full path is sure to refuse (a string followed by a
name, as `'Domino's'`) is repaired without asking `ast.parse` first.
"""

from __future__ import annotations

import ast
import functools
import json
import re
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from keyword import kwlist
from types import MappingProxyType
from typing import Any

from .errors import ParseError
from .input_limits import DEFAULT_LIMITS, InputLimits, digits_at_least, valid_text

# Text the tokenizer warns about: escapes ("\\d") and numbers run into words ("1if").
# Only such text pays for silencing warnings.
_MAY_WARN = re.compile(r"\\|\d[A-Za-z_]")
# JSON tool calls open with an object, or a list of objects (or an empty list).
_JSON_START = re.compile(r"\{|\[\s*(\{|\]|$)")
# Possessive runs: the language tag and the blanks around it are disjoint classes, so each split is the only
# one, and a fence followed by a long run of blanks is refused in one pass (backtracking over its splits made
# 100,000 characters take 90 s).
_FENCE = re.compile(r"```[ \t]*+([A-Za-z0-9_+-]*+)[ \t]*+\r?\n(.*?)```", re.DOTALL)
_JSON_LITERALS = MappingProxyType({"true": True, "false": False, "null": None})
# Quoted strings, to count the separators outside them (approximately: enough for a bound).
_QUOTED = re.compile(r"'(?:[^'\\\n]|\\.)*'" + r'|"(?:[^"\\\n]|\\.)*"')
# Repairs fix hand-written benchmark data; text longer than this is not theirs to fix.
_REPAIR_CHARS = 20_000


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


def render_calls(calls: Sequence[Call], *, sort_arguments: bool = False) -> str:
    """Calls in bracket syntax (the inverse of `parse_calls`), as ACEBench milestones are written.

    `sort_arguments` gives one spelling per set of calls, whatever order the arguments came in.
    """
    def arguments(call: Call) -> str:
        items = sorted(call.arguments.items()) if sort_arguments else call.arguments.items()
        return ", ".join(f"{k}={v!r}" for k, v in items)

    return "[" + ", ".join(f"{c.name}({arguments(c)})" for c in calls) + "]"


def parse_calls(text: str, *, limits: InputLimits = DEFAULT_LIMITS) -> list[Call]:
    """The tool calls in `text`; raises `ParseError` (and nothing else) when there are none to read."""
    return parse_message(text, limits=limits).calls


def parse_message(text: str, *, limits: InputLimits = DEFAULT_LIMITS) -> ParsedMessage:
    """Read the calls of one model message; raises `ParseError` and nothing else."""
    try:
        return _parse_message(text, limits)
    except ParseError:
        raise
    except (RecursionError, MemoryError) as exc:
        raise ParseError(f"message nested too deeply to read ({type(exc).__name__}; limit max_depth is "
                         f"{limits.max_depth})", limit="max_depth") from None
    except Exception as exc:
        raise ParseError(f"could not read tool calls: {type(exc).__name__}") from None


def _parse_message(text: str, limits: InputLimits) -> ParsedMessage:
    if type(text) is not str:
        raise ParseError("expected the message as text")
    if len(text) > limits.max_message_chars:
        raise ParseError(f"message too long to read as tool calls ({len(text)} characters; limit "
                         f"max_message_chars is {limits.max_message_chars})", limit="max_message_chars")
    body = text.strip()
    if not body:
        raise ParseError("empty message: expected tool calls such as [tool_name(arg='value')]")
    fenced = _FENCE.search(body) if "```" in body else None
    notes: tuple[str, ...] = ()
    if fenced:
        body = fenced.group(2).strip()
        notes = ("read the calls from a markdown code block",)
    # A letter after the opening bracket starts a bracket call, never JSON: the match is skipped for those.
    if (body[:1] != "[" or not body[1:2].isalpha()) and _JSON_START.match(body):
        calls = _try_json(body, limits)
        if calls is not None:
            return _parsed(calls, "json", notes)
    try:
        if body.count(",") > limits.max_items:  # `_check_items`' first test, inline: most messages pass it
            _check_items(body, limits)
        calls = _fast_brackets(body, limits)
        if calls is None:
            mended = _sure_repair(body, limits)
            if mended is not None:
                return _parsed(mended[0], "brackets", notes + mended[1])
            calls = _ast_brackets(body, limits)
        return _parsed(calls, "brackets", notes)
    except ParseError as first_error:
        if first_error.limit is not None or len(body) > _REPAIR_CHARS:
            raise  # a bound, not a typo (or too long to be hand-written): nothing to repair
        repaired, repairs = _repair(body)
        if not repairs:
            raise
        try:
            calls = _parse_brackets(repaired, limits)
        except ParseError:
            raise first_error from None
        if not calls:  # a "repair" that leaves nothing to run repaired nothing
            raise first_error
        return _parsed(calls, "brackets", notes + tuple(repairs))


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


def _each(elements: Sequence[Any], read: Any, limits: InputLimits) -> list[Call | ParseError]:
    if len(elements) > limits.max_calls:
        raise ParseError(f"more than {limits.max_calls} calls in one message (limit max_calls)", limit="max_calls")
    items: list[Call | ParseError] = []
    for element in elements:
        try:
            items.append(read(element))
        except ParseError as exc:
            items.append(exc)
    return items


def _bracket_call(node: ast.expr, limits: InputLimits) -> Call:
    if not isinstance(node, ast.Call):
        raise ParseError(f"every element must be a tool call, found {_kind(node)}")
    return _call(node, limits)


# -- JSON ----------------------------------------------------------------------------------


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


def _too_deep(name: str, limits: InputLimits) -> ParseError:
    return ParseError(f"arguments of {name} are nested more than {limits.max_depth} levels deep "
                      f"(limit max_depth)", limit="max_depth")


# -- bracket syntax ------------------------------------------------------------------------


def _parse_brackets(body: str, limits: InputLimits) -> list[Call]:
    _check_items(body, limits)
    fast = _fast_brackets(body, limits)
    return fast if fast is not None else _ast_brackets(body, limits)


def _ast_brackets(body: str, limits: InputLimits) -> list[Call]:
    """The full path: any bracket text, read through `ast.parse` and a literals-only walk."""
    calls = []
    for element in _ast_elements(body, limits):
        if not isinstance(element, ast.Call):
            raise ParseError(f"every element must be a tool call, found {_kind(element)}")
        calls.append(_call(element, limits))
        _bounded(calls, limits)
    return calls


def _check_items(body: str, limits: InputLimits) -> None:
    # Building the syntax tree costs time per node: refuse a message with more values
    # than any call may hold before paying for it.
    if body.count(",") > limits.max_items and _QUOTED.sub("", body).count(",") > limits.max_items:
        raise ParseError(f"more than {limits.max_items} values in one message (limit max_items)", limit="max_items")


def _bracket_elements(body: str, limits: InputLimits) -> list[ast.expr]:
    """The elements of a bracket message's list (or its one call), read as syntax, not yet as calls."""
    _check_items(body, limits)
    return _ast_elements(body, limits)


def _ast_elements(body: str, limits: InputLimits) -> list[ast.expr]:
    """The full path: any bracket text, read through `ast.parse` (its elements are then read
    by a literals-only walk)."""
    node = _ast_expression(body, limits)
    if isinstance(node, (ast.List, ast.Tuple)):
        return list(node.elts)
    if isinstance(node, ast.Call):
        return [node]
    raise ParseError(f"expected a list of calls such as [tool_name(arg='value')], got {_kind(node)}")


def literal_value(text: str, limits: InputLimits = DEFAULT_LIMITS) -> Any:
    """A value written as a Python literal (a dict, list, string, number, `True`/`False`/`None`, or JSON's
    `true`/`false`/`null`), read by the literals-only walk that reads bracket calls' arguments, within
    `limits`; `ParseError` for anything else. Models write JSON calls with Python's quotes this way."""
    _check_items(text, limits)
    return _literal(_ast_expression(text.strip(), limits), 0, "a literal", limits)


def _ast_expression(body: str, limits: InputLimits) -> ast.expr:
    """`body` parsed as one Python expression (nothing evaluated); every failure a `ParseError`."""
    try:
        if _MAY_WARN.search(body):
            with warnings.catch_warnings():
                # invalid escapes in the model's strings are its problem, not a warning for ours
                warnings.simplefilter("ignore")
                tree = ast.parse(body, mode="eval")
        else:
            tree = ast.parse(body, mode="eval")
    except SyntaxError as exc:
        if "nested" in exc.msg or "too many" in exc.msg:
            raise ParseError(f"call syntax nested too deeply: {exc.msg} (limit max_depth is {limits.max_depth})",
                             limit="max_depth") from None
        if "integer string conversion" in exc.msg:
            raise ParseError(f"an integer with too many digits (limit max_int_digits is {limits.max_int_digits})",
                             limit="max_int_digits") from None
        raise ParseError(f"not valid call syntax: {exc.msg}", position=exc.offset) from None
    except (RecursionError, MemoryError):
        raise ParseError(f"call syntax nested too deeply (limit max_depth is {limits.max_depth})",
                         limit="max_depth") from None
    except ValueError:  # Python's parser takes only text it can encode: a lone surrogate is refused here
        problem = ("text that is not valid Unicode (a lone surrogate)" if not valid_text(body)
                   else "a null character" if "\x00" in body else "text Python's parser refuses")
        raise ParseError(f"call syntax malformed: {problem}") from None
    return tree.body


# -- bracket syntax, fast path ---------------------------------------------------------------
#
# Most messages are flat calls with literal arguments, as `[f(a='x', b=2, c=[{'k': 1}])]`.
# Those are read here by a scanner that accepts a strict subset of what `ast.parse` accepts
# and gives the same calls for it; anything outside the subset, and anything the full path
# would refuse (a bound, a repeated argument, a keyword as a name), returns None so the full
# path reads it and reports exactly what it always reported. Nothing is evaluated here either.

_G = r"[ \t\r\n]*+"
_IDENT = r"[A-Za-z_][A-Za-z0-9_]*+"
_NAME = _IDENT + r"(?:\." + _IDENT + ")*+"
# String bodies without control characters, and only the escapes below (lone surrogates are
# refused before any pattern runs); integers without leading zeros or underscores, short enough
# to stay far from any digit bound; decimal floats; the Python and JSON constants. None may run
# into a following name character. Groups: the quoted string, the sign, the integer, the float,
# the constant.
_STRING_BODY = r"[^{q}\\\x00-\x1f]*+(?:\\['\"\\nt][^{q}\\\x00-\x1f]*+)*+"


def _scalar_pattern(group: str) -> str:
    """The scalar alternatives, their five parts opened by `group`: "(" to read them, "(?:" only to match
    them (Python 3.11's engine misplaces groups captured inside a possessive repeat)."""
    return (
        group + "'" + _STRING_BODY.format(q="'") + "'|\"" + _STRING_BODY.format(q='"') + "\")"
        + "|" + group + r"[-+]?)(?:" + group + r"0|[1-9][0-9]{0,17})|" + group
        + r"[0-9]+\.[0-9]+(?:[eE][-+]?[0-9]+)?))(?![0-9A-Za-z_.])"
        + "|" + group + r"True|False|None|true|false|null)(?![0-9A-Za-z_])"
    )


_SCALAR = _scalar_pattern("(")
_MATCH_SCALAR = "(?:" + _scalar_pattern("(?:") + ")"
# Argument values the one-match path reads: scalars, and lists and objects nested up to `_NESTED_LEVELS`
# deep (as ACEBench's `items=[{'product': 'x', 'quantity': 1}]`); deeper ones go to the token-at-a-time
# scan. Each level costs the patterns' compilation (on first use) about three times the one below.
_NESTED_LEVELS = 2


def _value_pattern(levels: int) -> str:
    """A scalar, or a list or object of values `levels - 1` deep (object keys are scalars, a None key
    being refused when read); items separated by commas, a trailing comma allowed. Python's engine
    has no recursion, so each level holds a copy of the one below."""
    if levels == 0:
        return _MATCH_SCALAR
    inner = _value_pattern(levels - 1)
    return ("(?:" + _MATCH_SCALAR + r"|\[" + _G + "(?:" + inner + _G + r"(?:," + _G + r"|(?=\])))*+\]"
            + r"|\{" + _G + "(?:" + _MATCH_SCALAR + _G + ":" + _G + inner + _G + r"(?:," + _G + r"|(?=\})))*+\})")


# Arguments: items separated by commas, a trailing comma allowed; each item is followed by a comma or the closer.
_ARGUMENTS = (r"\(" + _G + "(?:" + _IDENT + _G + "=" + _G + _value_pattern(_NESTED_LEVELS) + _G
              + r"(?:," + _G + r"|(?=\))))*+\)")
# (No line break between a name and its parenthesis: outside brackets it would end the expression.)
_CALL_TEXT = _NAME + r"[ \t]*+" + _ARGUMENTS
# One match decides whether a message is in the subset; one scan then reads its tokens in order.
_SIMPLE_LIST_TEXT = r"\[" + _G + "(?:" + _CALL_TEXT + _G + r"(?:," + _G + r"|(?=\])))*+\]"


@functools.cache
def _simple_pattern(listed: bool) -> re.Pattern[str]:
    """The subset's pattern for a bracketed list of calls, or for one bare call, compiled on first use.

    Each costs a cold process some 15 ms to compile (Python's regex compiler is Python code, and the
    nested argument values make these the longest patterns here), and most processes read only one
    of the two forms: ACEBench and banking messages are lists, API-Bank's are bare calls.
    """
    return re.compile(_SIMPLE_LIST_TEXT if listed else _CALL_TEXT)
# In text the patterns above matched (but for the message's own brackets and the gap after its opening
# one), every token starts where the previous one ended: a call's name, or a scalar or bracket (with the
# name of the argument it opens, if it does), each with the gap, commas, colons and closing parentheses
# after it.
_TOKENS = re.compile("(?:(" + _NAME + r")[ \t]*+\(|(?:(" + _IDENT + ")" + _G + "=" + _G + ")?(?:" + _SCALAR
                     + r"|([\[\]{}])))[ \t\r\n,:)]*+")
_GAP = re.compile(_G)
# The commonest message of all, one call with a few scalar arguments (`[send_message(a='x', b=2)]`), is read
# by one match whose groups are the call's name, then each argument's name and its scalar's five parts, in
# order: a third of the cost of matching the list and then scanning its tokens. The engine has no repeated
# captures, so each of the `_FLAT_ARGUMENTS` arguments holds a copy of the pattern for the ones after it.
_FLAT_ARGUMENTS = 4


def _flat_arguments(count: int) -> str:
    """Up to `count` named scalar arguments, separated by commas, a trailing comma allowed."""
    if count == 0:
        return ""
    return ("(?:(" + _IDENT + ")" + _G + "=" + _G + "(?:" + _SCALAR + ")" + _G + "(?:," + _G
            + _flat_arguments(count - 1) + ")?)?")


@functools.cache
def _flat_pattern() -> re.Pattern[str]:
    """The one-call pattern, compiled on first use as `_simple_pattern`'s are (a few milliseconds a process
    that reads no bracket list never pays)."""
    return re.compile(r"\[" + _G + "(" + _NAME + r")[ \t]*+\(" + _G + _flat_arguments(_FLAT_ARGUMENTS) + r"\)"
                      + _G + r"\]")
_FAST_OPEN = re.compile("(" + _NAME + r")[ \t]*+\(" + _G)
_FAST_KEY = re.compile("(" + _IDENT + ")" + _G + "=" + _G)
_FAST_SCALAR = re.compile(_SCALAR)
_FAST_ESCAPE = re.compile(r"\\(.)")
_ESCAPED = MappingProxyType({"'": "'", '"': '"', "\\": "\\", "n": "\n", "t": "\t"})
_WORDS = MappingProxyType({"True": True, "False": False, "None": None, **_JSON_LITERALS})
# Python refuses these as argument names (and, but for __debug__, as names at all).
_RESERVED = frozenset(kwlist) | {"__debug__"}
# Nesting the scanner handles; deeper text goes to the full path, which knows the parser's own limits.
_FAST_DEPTH = 16
_NO_VALUE = object()


def _fast_brackets(body: str, limits: InputLimits) -> list[Call] | None:
    """The calls of `body` when it is in the simple subset, else None (the full path decides)."""
    if not valid_text(body):
        return None
    listed = body.startswith("[")
    # A failed flat match costs about what a successful one does: text with an object, a second list or an odd
    # number of apostrophes (as `'Domino's'`, which no pattern matches) is not tried.
    if listed and "{" not in body and body.count("[") == 1 and not body.count("'") & 1:
        flat = _flat_pattern().fullmatch(body)
        if flat is not None:
            return _flat_call(flat.groups(), limits)
    if _simple_pattern(listed).fullmatch(body) is None:
        # Text with `'Domino's'` comes here on its way to the repair: the scan would decline it too.
        return _scan_brackets(body, limits) if _may_nest_past_pattern(body, listed) else None
    calls: list[Call] = []
    arguments: dict[str, Any] = {}
    key = ""
    # The open lists and objects, innermost last, each object followed by a key while its value is to come.
    stack: list[Any] = []
    depth = 0  # lists and objects open
    value: Any
    for name, argument, string, sign, integer, real, word, bracket in _TOKENS.findall(body, listed, len(body) - listed):
        if name:
            if len(name) > limits.max_name_chars or _reserved_name(name):
                return None
            arguments = {}
            calls.append(_new_call(name, arguments))
            continue
        if argument:
            if argument in _RESERVED or argument in arguments:
                return None
            key = argument
        if string:
            value = string[1:-1]
            if "\\" in value:
                value = _FAST_ESCAPE.sub(_unescape, value)
        elif bracket:
            if bracket == "]" or bracket == "}":
                stack.pop()
                depth -= 1
                continue
            depth += 1
            if depth >= limits.max_depth:  # the arguments object is the first level
                return None
            value = [] if bracket == "[" else {}
        else:
            value = _number_or_word(sign, integer, real, word, limits)
            if value is _NO_VALUE:
                return None
        if not depth or (bracket and depth == 1):
            arguments[key] = value
        else:
            top = stack[-1]
            if type(top) is list:
                top.append(value)
            elif type(top) is dict:  # an object's key
                if value is None:
                    return None
                stack.append(value)
                continue
            else:  # the value of the key on top
                stack.pop()
                stack[-1][top] = value
        if bracket:
            stack.append(value)
    return calls if len(calls) <= limits.max_calls else None


def _may_nest_past_pattern(body: str, listed: bool) -> bool:
    """Whether `body` has brackets enough to nest a value deeper than `_simple_pattern` reads, the only text in
    the subset the token scan reads and the pattern does not (brackets inside strings only overcount)."""
    return body.count("[") + body.count("{") - listed > _NESTED_LEVELS


def _flat_call(groups: tuple[Any, ...], limits: InputLimits) -> list[Call] | None:
    """The one call `_flat_pattern()` matched, read from its groups; None wherever `_fast_brackets`'s token
    scan gives up on the same text (the full path decides)."""
    parts = iter(groups)
    name = next(parts)
    if len(name) > limits.max_name_chars or limits.max_calls < 1 or _reserved_name(name):
        return None
    arguments: dict[str, Any] = {}
    value: Any
    # Six groups per argument; the first argument not given leaves its name's group unset.
    for argument, string, sign, integer, real, word in zip(parts, parts, parts, parts, parts, parts, strict=False):
        if argument is None:
            break
        if argument in _RESERVED or argument in arguments:
            return None
        if string:
            value = string[1:-1]
            if "\\" in value:
                value = _FAST_ESCAPE.sub(_unescape, value)
        else:
            value = _number_or_word(sign, integer, real, word, limits)
            if value is _NO_VALUE:
                return None
        arguments[argument] = value
    return [_new_call(name, arguments)]


def _number_or_word(sign: str | None, integer: str | None, real: str | None, word: str | None,
                    limits: InputLimits) -> Any:
    """The value of a scalar token that is not a string (from its groups in `_SCALAR`); `_NO_VALUE` for an
    integer past the bound, which the full path words."""
    if integer:
        number = int(integer)
        if not -limits.int_bound < number < limits.int_bound:
            return _NO_VALUE
        return -number if sign == "-" else number
    if real:
        return -float(real) if sign == "-" else float(real)
    return _WORDS[word]  # type: ignore[index]


def _reserved_name(name: str) -> bool:
    """Whether a tool name is, or has a part that is, a word Python refuses as a name."""
    return name in _RESERVED if "." not in name else any(part in _RESERVED for part in name.split("."))


def _scan_brackets(body: str, limits: InputLimits) -> list[Call] | None:
    """`_fast_brackets` for calls whose arguments hold lists and objects, read one token at a time."""
    bare = not body.startswith("[")
    pos = 0 if bare else _GAP.match(body, 1).end()  # type: ignore[union-attr]  # matches the empty string
    calls: list[Call] = []
    end = len(body)
    while True:
        if not bare and body.startswith("]", pos) and pos + 1 == end:
            break  # an empty list, or a trailing comma
        opened = _FAST_OPEN.match(body, pos)
        if opened is None:
            return None
        name = opened.group(1)
        if len(name) > limits.max_name_chars or _reserved_name(name):
            return None
        pos = opened.end()
        arguments: dict[str, Any] = {}
        while not body.startswith(")", pos):
            key = _FAST_KEY.match(body, pos)
            if key is None or key.group(1) in _RESERVED or key.group(1) in arguments:
                return None
            value, pos = _fast_value(body, key.end(), 1, limits)
            if value is _NO_VALUE:
                return None
            arguments[key.group(1)] = value
            pos = _GAP.match(body, pos).end()  # type: ignore[union-attr]
            if body.startswith(",", pos):
                pos = _GAP.match(body, pos + 1).end()  # type: ignore[union-attr]
            elif not body.startswith(")", pos):
                return None
        calls.append(_new_call(name, arguments))
        if len(calls) > limits.max_calls:
            return None
        pos = _GAP.match(body, pos + 1).end()  # type: ignore[union-attr]
        if bare:
            return calls if pos == end else None
        if body.startswith(",", pos):
            pos = _GAP.match(body, pos + 1).end()  # type: ignore[union-attr]
        elif not (body.startswith("]", pos) and pos + 1 == end):
            return None
    return calls


def _fast_value(body: str, pos: int, depth: int, limits: InputLimits) -> tuple[Any, int]:
    """The literal at `pos` and where it ends; `_NO_VALUE` when it is not in the simple subset.

    `depth` counts the lists and objects enclosing the value, the arguments object included.
    """
    scalar = _FAST_SCALAR.match(body, pos)
    if scalar is not None:
        string, sign, integer, real, word = scalar.groups()
        if string is not None:
            text = string[1:-1]
            return (_FAST_ESCAPE.sub(_unescape, text) if "\\" in text else text), scalar.end()
        value = _number_or_word(sign, integer, real, word, limits)
        return (value, pos) if value is _NO_VALUE else (value, scalar.end())
    opener = body[pos : pos + 1]
    if opener not in ("[", "{") or depth >= limits.max_depth or depth >= _FAST_DEPTH:
        return _NO_VALUE, pos
    closer = "]" if opener == "[" else "}"
    items: list[Any] = []
    mapping: dict[Any, Any] = {}
    pos = _GAP.match(body, pos + 1).end()  # type: ignore[union-attr]
    while not body.startswith(closer, pos):
        item, pos = _fast_value(body, pos, depth + 1, limits)
        if item is _NO_VALUE:
            return _NO_VALUE, pos
        pos = _GAP.match(body, pos).end()  # type: ignore[union-attr]
        if opener == "[":
            items.append(item)
        else:
            if item is None or not isinstance(item, (str, int, float)) or not body.startswith(":", pos):
                return _NO_VALUE, pos
            value, pos = _fast_value(body, _GAP.match(body, pos + 1).end(), depth + 1, limits)  # type: ignore[union-attr]
            if value is _NO_VALUE:
                return _NO_VALUE, pos
            mapping[item] = value
            pos = _GAP.match(body, pos).end()  # type: ignore[union-attr]
        if body.startswith(",", pos):
            pos = _GAP.match(body, pos + 1).end()  # type: ignore[union-attr]
        elif not body.startswith(closer, pos):
            return _NO_VALUE, pos
    return (items if opener == "[" else mapping), pos + 1


def _unescape(match: re.Match[str]) -> str:
    return _ESCAPED[match.group(1)]


def _call(node: ast.Call, limits: InputLimits) -> Call:
    name = _dotted_name(node.func, limits)
    if node.args:
        raise ParseError(
            f"{name}() got a positional argument; name every argument, e.g. {name}(arg=value)"
        )
    arguments: dict[str, Any] = {}
    for keyword in node.keywords:
        if keyword.arg is None:
            raise ParseError(f"{name}() uses ** unpacking; name every argument")
        if keyword.arg in arguments:
            raise ParseError(f"{name}() repeats argument {keyword.arg!r}")
        arguments[keyword.arg] = _literal(keyword.value, 1, name, limits)
    return Call(name, arguments)


def _dotted_name(node: ast.expr, limits: InputLimits) -> str:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        raise ParseError(f"a tool name must be a plain or dotted name, found {_kind(node)}")
    parts.append(node.id)
    return _check_name(".".join(reversed(parts)), limits)


def _literal(node: ast.expr, depth: int, name: str, limits: InputLimits) -> Any:
    """`depth` counts the lists and objects enclosing `node`, the arguments object included."""
    if isinstance(node, ast.Constant):
        value = node.value
        if type(value) is int and not -limits.int_bound < value < limits.int_bound:
            raise ParseError(f"{name}(): an integer of {digits_at_least(value)} or more digits (limit "
                             f"max_int_digits is {limits.max_int_digits})", limit="max_int_digits")
        if value is None or isinstance(value, (str, bool, int, float)):
            return value
        raise ParseError(f"{name}(): {type(value).__name__} values are not supported")
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        operand = node.operand
        if isinstance(operand, ast.Constant) and type(operand.value) in (int, float):
            number: int | float = operand.value  # type: ignore[assignment]  # narrowed by the type check
            return -number if isinstance(node.op, ast.USub) else number
        raise ParseError(f"{name}(): a sign may only precede a number")
    if isinstance(node, (ast.List, ast.Tuple, ast.Dict)) and depth >= limits.max_depth:
        raise _too_deep(name, limits)
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_literal(item, depth + 1, name, limits) for item in node.elts]
    if isinstance(node, ast.Dict):
        result: dict[Any, Any] = {}
        for key_node, value_node in zip(node.keys, node.values, strict=False):
            if key_node is None:
                raise ParseError(f"{name}(): ** unpacking is not allowed in a dict")
            key = _literal(key_node, depth + 1, name, limits)
            if not isinstance(key, (str, int, float, bool)) or key is None:
                raise ParseError(f"{name}(): dict keys must be strings or numbers")
            result[key] = _literal(value_node, depth + 1, name, limits)
        return result
    if isinstance(node, ast.Name) and node.id in _JSON_LITERALS:
        return _JSON_LITERALS[node.id]
    if isinstance(node, ast.Name):
        raise ParseError(f"{name}(): bare word {node.id!r} is not a value; quote strings")
    raise ParseError(f"{name}(): {_kind(node)} is not allowed in arguments; use literal values")


def _check_name(name: str, limits: InputLimits) -> str:
    if len(name) > limits.max_name_chars:
        raise ParseError(f"tool name longer than {limits.max_name_chars} characters (limit max_name_chars)",
                         limit="max_name_chars")
    return name


def _bounded(calls: list[Call], limits: InputLimits) -> list[Call]:
    if len(calls) > limits.max_calls:
        raise ParseError(f"more than {limits.max_calls} calls in one message (limit max_calls)", limit="max_calls")
    return calls


def _kind(node: ast.AST) -> str:
    return {
        ast.BinOp: "an arithmetic expression",
        ast.Lambda: "a lambda",
        ast.Call: "a nested call",
        ast.Attribute: "an attribute access",
        ast.Subscript: "a subscript",
        ast.Name: "a bare name",
        ast.Constant: "a constant",
    }.get(type(node), type(node).__name__)


# -- repairs -------------------------------------------------------------------------------

_CLOSERS = ",)]}:"
_QUOTE_OR_ESCAPE = re.compile(r"['\"\\]")


# A word after a closing quote: Python reads it as a name unless it is a keyword or a string's prefix.
_WORD_AFTER = re.compile(r"[ \t\r\n]*+([A-Za-z_][A-Za-z0-9_]*+)")
_STRING_PREFIXES = frozenset({"r", "u", "f", "b", "fr", "rf", "br", "rb"})
# `_sure_repair` handles short texts only: their syntax errors can be nothing but syntax errors (no
# nesting, recursion or digit bound of the parser's can be reached in so few characters and brackets).
_SURE_CHARS = 500
_SURE_BRACKETS = 100


def _sure_repair(body: str, limits: InputLimits) -> tuple[list[Call], tuple[str, ...]] | None:
    """The calls and repairs of a text the fast path declined, when the full path is sure to refuse it and
    the repaired text is in the fast path's subset; else None (the ordinary way decides).

    Models (and ACEBench's gold data) write `'Domino's'`. The full path refuses that only after
    `ast.parse` has failed, which costs more than reading the repaired text. The refusal is certain
    when the first quote the repair escapes is, for Python, the end of a string followed by a name:
    the text before it is in the fast path's subset (the repaired text is, and they agree up to
    there), and no Python expression has a string and then a name side by side.
    """
    if len(body) > _SURE_CHARS or body.count("(") + body.count("[") + body.count("{") > _SURE_BRACKETS:
        return None
    repaired, repairs, first = _repairs(body)
    if first < 0 or repaired[0] != body[0] or repaired.count(",") > limits.max_items:
        return None  # nothing escaped, or an opening bracket added (the texts differ from the start)
    word = _WORD_AFTER.match(body, first + 1)
    if word is None or word.group(1) in _RESERVED or word.group(1).lower() in _STRING_PREFIXES:
        return None  # the quote is followed by something that might continue an expression
    calls = _fast_brackets(repaired, limits)
    return (calls, tuple(repairs)) if calls else None


def _repair(body: str) -> tuple[str, list[str]]:
    """Fix the defects seen in real benchmark data; returns the new text and what was done."""
    repaired, repairs, _ = _repairs(body)
    return repaired, repairs


def _repairs(body: str) -> tuple[str, list[str], int]:
    """`_repair`, and where in `body` the first apostrophe it escaped is (-1 if none)."""
    repairs: list[str] = []
    text = body
    escaped, count, first = _escape_apostrophes(text)
    if count:
        text = escaped
        repairs.append(f"escaped {count} apostrophe(s) inside single-quoted strings")
    if text.startswith("[") and not text.endswith("]"):
        text += "]"
        repairs.append("added the missing closing ']'")
    elif text.endswith("]") and not text.startswith("["):
        text = "[" + text
        repairs.append("added the missing opening '['")
    return text, repairs, first


def _escape_apostrophes(text: str) -> tuple[str, int, int]:
    """Escape quotes inside single-quoted strings that cannot be closing quotes; the new text, how many
    were escaped, and where the first was (-1 if none).

    A quote closes a string only if what follows it (after spaces) could follow a value:
    a comma, a bracket, a colon or the end. `'Domino's'` thus becomes `'Domino\\'s'`.
    Only quotes and backslashes change the reading, so the scan jumps from one to the next.
    """
    out: list[str] = []
    count = 0
    first = -1  # where the first escaped quote is
    kept = 0  # text[kept:] is not yet in `out`
    at = 0
    end = len(text)
    quote: str | None = None
    while (found := _QUOTE_OR_ESCAPE.search(text, at)) is not None:
        i = found.start()
        ch = text[i]
        at = i + 1
        if quote is None:
            if ch != "\\":
                quote = ch
        elif ch == "\\":
            at = i + 2  # the escaped character is part of the string, whatever it is
        elif ch == quote:
            after = at
            while after < end and text[after] in " \t\r\n":
                after += 1
            if quote == "'" and after < end and text[after] not in _CLOSERS:
                out.append(text[kept:i])
                out.append("\\'")
                kept = at
                if not count:
                    first = i
                count += 1
            else:
                quote = None
    out.append(text[kept:])
    return "".join(out), count, first
