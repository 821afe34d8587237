"""The bracket syntax's fast lane (`parse_brackets` in `sandbox.lanes`): the common calls read by regular expressions.

Most messages are flat calls with literal arguments, as `[f(a='x', b=2, c=[{'k': 1}])]`.
Those are read here by a scanner that accepts a strict subset of what `ast.parse` accepts
and gives the same calls for it, several times cheaper than the grammar (`grammar`): one
call of scalars by one match, and lists and objects by json's C scanner where JSON reads
them as Python does (`_json_form`), else a token at a time;
anything outside the subset, and anything the grammar would refuse (a bound, a repeated
argument, a keyword as a name), returns None so the grammar reads it and reports exactly
what it always reported. Nothing is evaluated here either.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from json import JSONDecoder
from keyword import kwlist
from types import MappingProxyType
from typing import Any, Final

from ..input_limits import InputLimits, valid_text
from .calls import Call, _new_call, _new_instance
from .grammar import _JSON_LITERALS
from .repairs import _repairs

_G = r"[ \t\r\n]*+"
_IDENT = r"[A-Za-z_][A-Za-z0-9_]*+"
_NAME = _IDENT + r"(?:\." + _IDENT + ")*+"
# String bodies without control characters, and only the escapes below (lone surrogates are
# refused before any pattern runs); integers without leading zeros or underscores, short enough
# to stay far from any digit bound; decimal floats; the Python and JSON constants. None may run
# into a following name character. Groups: the quoted string, and any other scalar (a signed number
# or a constant) as written, which `_other_value` reads: two groups, not one per kind, as each group
# costs every match (the token scan's most of all) a slice.
_PLAIN_BODY = r"[^{q}\\\x00-\x1f]*+"
_STRING_BODY = _PLAIN_BODY + r"(?:\\['\"\\nt]" + _PLAIN_BODY + ")*+"
_NUMBER_OR_CONSTANT = (r"[-+]?(?:0|[1-9][0-9]{0,17}|[0-9]+\.[0-9]+(?:[eE][-+]?[0-9]+)?)(?![0-9A-Za-z_.])"
                       r"|(?:True|False|None|true|false|null)(?![0-9A-Za-z_])")


def _scalar_pattern(group: str) -> str:
    """The scalar alternatives, their two parts opened by `group`: "(" to read them, "(?:" only to match
    them (Python 3.11's engine misplaces groups captured inside a possessive repeat)."""
    return (group + "'" + _STRING_BODY.format(q="'") + "'|\"" + _STRING_BODY.format(q='"') + "\")"
            + "|" + group + _NUMBER_OR_CONSTANT + ")")


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
# after it. Compiled on first use, with the patterns above: text JSON's scanner reads (`_json_form`) needs neither.
@functools.cache
def _tokens() -> re.Pattern[str]:
    """The token pattern, compiled on first use."""
    return re.compile("(?:(" + _NAME + r")[ \t]*+\(|(?:(" + _IDENT + ")" + _G + "=" + _G + ")?(?:" + _SCALAR
                      + r"|([\[\]{}])))[ \t\r\n,:)]*+")


_GAP = re.compile(_G)
# The commonest message of all, one call with a few scalar arguments (`[send_message(a='x', b=2)]`), is read
# by one match whose groups are the call's name, then three for each argument: its name, the text of a string
# in single quotes without escapes (the value as it is: no slice, no unescaping) and any other scalar as
# written (`_written_value` reads it), in order; a third of the cost of matching the list and then scanning its
# tokens. The engine has no repeated captures, so each of the `_FLAT_ARGUMENTS` arguments holds a copy of the
# pattern for the ones after it.
_FLAT_ARGUMENTS = 4
# The groups of the arguments' names, three apart (a tuple made once costs the loop less than a range would).
_FLAT_NAME_GROUPS = tuple(range(1, 1 + 3 * _FLAT_ARGUMENTS, 3))
# An optional part is written `(?:part|)`, not `(?:part)?`: Python's engine takes an alternative with an empty
# branch without the bookkeeping of a repeat, which was a quarter of the one-call match. Same matches, same groups.
_OR_NOT = "|)"
# A flat argument's value: a plain string's text, or (a string with an escape or in double quotes, or a number
# or a constant) as written. The branches match disjoint texts, so a failing match never tries one text both
# ways (with every plain string of a call read twice, a text with an object failed in 2.7 times the work).
_ESCAPED_BODY = _PLAIN_BODY + r"(?:\\['\"\\nt]" + _PLAIN_BODY + ")++"
_FLAT_VALUE = ("(?:'(" + _PLAIN_BODY.format(q="'") + ")'|('" + _ESCAPED_BODY.format(q="'") + "'|\""
               + _STRING_BODY.format(q='"') + "\"|" + _NUMBER_OR_CONSTANT + "))")


def _flat_arguments(count: int) -> str:
    """Up to `count` named scalar arguments, separated by commas, a trailing comma allowed."""
    if count == 0:
        return ""
    return ("(?:(" + _IDENT + ")" + _G + "=" + _G + _FLAT_VALUE + _G + "(?:," + _G
            + _flat_arguments(count - 1) + _OR_NOT + _OR_NOT)


@functools.cache
def _flat_pattern() -> re.Pattern[str]:
    """The one-call pattern, compiled on first use as `_simple_pattern`'s are (a few milliseconds a process
    that reads no bracket list never pays)."""
    return re.compile(r"\[" + _G + "(" + _NAME + r")[ \t]*+\(" + _G + "(?>" + _flat_arguments(_FLAT_ARGUMENTS) + r")\)"
                      + _G + r"\]")
# A call's name and opening parenthesis, and its first argument's name and `=` if it has one (group 2); and the
# same after a list's opening bracket and the gap after it.
_OPEN_TEXT = "(" + _NAME + r")[ \t]*+\(" + _G + "(?:(" + _IDENT + ")" + _G + "=" + _G + _OR_NOT
_FAST_OPEN = re.compile(_OPEN_TEXT)
_LIST_OPEN = re.compile(r"\[" + _G + _OPEN_TEXT)
# What may follow an argument's value, so that one match takes each argument, and the end of its call with the
# opening of the next: after a gap, either a comma, a gap and the next argument's name and `=` (group 1), or the
# call's closing parenthesis (after a comma and a gap, or not), then a gap, then a comma and a gap (group 2) and
# the next call's name and opening parenthesis (group 3) and its first argument's name and `=` (group 4), or not.
# The groups come in order, none inside another, so the last one set (`lastindex`) says which way it went.
@functools.cache
def _after_value() -> re.Pattern[str]:
    """The pattern above, compiled on first use (only text with lists, objects or several calls needs it)."""
    return re.compile(_G + "(?:," + _G + "(" + _IDENT + ")" + _G + "=" + _G + "|(?:," + _G + _OR_NOT + r"\)"
                      + _G + "(?:(,)" + _G + "(?:" + _OPEN_TEXT + _OR_NOT + _OR_NOT + ")")


_FAST_SCALAR = re.compile(_SCALAR)
_FAST_ESCAPE = re.compile(r"\\(.)")
_ESCAPED = MappingProxyType({"'": "'", '"': '"', "\\": "\\", "n": "\n", "t": "\t"})
_WORDS = MappingProxyType({"True": True, "False": False, "None": None, **_JSON_LITERALS})
# Python refuses these as argument names (and, but for __debug__, as names at all).
_RESERVED = frozenset(kwlist) | {"__debug__"}
# Nesting the scanner handles; deeper text goes to the full path, which knows the parser's own limits.
_FAST_DEPTH = 16
_NO_VALUE = object()
# The most digits an integer the patterns read has (`_SCALAR`).
_INT_DIGITS = 18


def _short_int(text: str) -> int:
    """An integer the JSON scanner read, when it has no more digits than the patterns read (a longer one is
    refused, so the usual way declines it and the full path words any bound)."""
    if len(text) > _INT_DIGITS and len(text.lstrip("-")) > _INT_DIGITS:
        raise ValueError(text)
    return int(text)


def _not_a_literal(text: str) -> Any:
    """JSON's scanner takes NaN and Infinity; Python's grammar reads them as bare names, which it refuses."""
    raise ValueError(text)


_Scanner = Callable[[str, int], tuple[Any, int]]
#: The value at a position of a `_json_form` text and where it ends, read by json's C scanner (StopIteration
#: or ValueError when there is none); it keeps nothing between calls.
_SCAN_JSON: Final[_Scanner] = JSONDecoder(  # type: ignore[attr-defined]  # set by __init__, not in typeshed
    parse_int=_short_int, parse_constant=_not_a_literal).scan_once


def _json_form(body: str, listed: bool, limits: InputLimits, apostrophes: list[int] | None = None) -> str | None:
    """`body` with its quotes turned into JSON's, where JSON's scanner reads each value as the grammar does:
    no double quote or backslash (so every string is a single-quoted one without escapes, which reads the
    same in either syntax, and the text keeps its length), integers within the bound and containers within
    the depth, and within the depth the rest of the lane reads (brackets in strings only overcount). Else None.

    What JSON reads that Python does not (NaN, Infinity) is refused by the scanner; what Python reads that
    JSON does not (True, `+1`, a trailing comma, a number as an object's key) is read the usual way.

    `apostrophes`: the places of quotes the repair escapes (`_repairs`), kept as they are: inside JSON's
    strings they read as the escaped quotes of the repaired text do."""
    if ('"' in body or "\\" in body or limits.max_int_digits < _INT_DIGITS
            or body.count("[") + body.count("{") - listed >= min(limits.max_depth, _FAST_DEPTH)):
        return None
    text = body.replace("'", '"')
    for place in apostrophes or ():
        text = text[:place] + "'" + text[place + 1:]
    return text


def _fast_brackets(body: str, limits: InputLimits) -> list[Call] | None:
    """The calls of `body` when it is in the simple subset, else None (the full path decides)."""
    if not (body.isascii() or valid_text(body)):  # ASCII text, most of it, is valid without the call
        return None
    listed = body[0] == "[" if body else False  # (no slice made)
    # A failed flat match costs about what a successful one does: text with an object, or a list after an `=` and
    # no gap or a space, is not tried (a list after another gap is, and fails; `count` and `find` cost more in
    # parsing their arguments than two tests of `in` do). Text with an apostrophe to repair is, as the test for it
    # would cost every other text as much.
    if listed and "{" not in body and "=[" not in body and "= [" not in body:
        flat = _flat_pattern().fullmatch(body)
        if flat is not None:
            # The one call, read from the groups here rather than in a function of its own (a frame is a tenth
            # of the whole); None wherever the token scan gives up on the same text (the full path decides).
            groups = flat.groups()
            name = groups[0]
            # `_reserved_name`'s test inline for a name without a dot (every tool name of the bundled worlds).
            if len(name) > limits.max_name_chars or limits.max_calls < 1 or (
                    name in _RESERVED if "." not in name else _reserved_name(name)):
                return None
            arguments: dict[str, Any] = {}
            # Three groups per argument; the first argument not given leaves its name's group unset (the first
            # one's in a quarter of ACEBench's calls).
            if groups[1] is not None:
                for at in _FLAT_NAME_GROUPS:
                    argument = groups[at]
                    if argument is None:
                        break
                    if argument in _RESERVED or argument in arguments:
                        return None
                    value = groups[at + 1]  # a plain string's text
                    if value is None:
                        value = _written_value(groups[at + 2], limits)
                        if value is _NO_VALUE:
                            return None
                    arguments[argument] = value
            call = _new_instance(Call)
            fields = call.__dict__
            fields["name"] = name
            fields["arguments"] = arguments
            return [call]
    # Lists and objects: read by JSON's scanner where it reads as the grammar does (`_json_form`), which needs
    # neither the patterns below nor a token at a time inside them.
    json_form = _json_form(body, listed, limits)
    if json_form is not None:
        # Such text's quotes all delimit strings, in pairs: an odd number is an apostrophe to repair (or a
        # triple-quoted string), which the scan would decline only after reading up to it.
        return _scan_brackets(json_form, limits, _SCAN_JSON) if not body.count("'") & 1 else None
    if _simple_pattern(listed).fullmatch(body) is None:
        # Text with `'Domino's'` comes here on its way to the repair: the scan would decline it too.
        return _scan_brackets(body, limits) if _may_nest_past_pattern(body, listed) else None
    return _read_tokens(body, listed, limits)


def _read_tokens(body: str, listed: bool, limits: InputLimits) -> list[Call] | None:
    """The calls of text `_simple_pattern(listed)` matched, read token by token (`_tokens()`); None where the
    full path would refuse it or words a bound."""
    calls: list[Call] = []
    arguments: dict[str, Any] = {}
    key = ""
    # The open lists and objects, innermost last, each object followed by a key while its value is to come.
    stack: list[Any] = []
    depth = 0  # lists and objects open
    value: Any
    for name, argument, string, other, bracket in _tokens().findall(body, listed, len(body) - listed):
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
            value = _other_value(other, limits)
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


def _written_value(written: str, limits: InputLimits) -> Any:
    """The value of a scalar as written (`_MATCH_SCALAR`): a string in quotes, else `_other_value`'s."""
    if written[0] == "'" or written[0] == '"':
        text = written[1:-1]
        return _FAST_ESCAPE.sub(_unescape, text) if "\\" in text else text
    return _other_value(written, limits)


def _other_value(other: str, limits: InputLimits) -> Any:
    """The value of a scalar that is not a string (`_SCALAR`'s second group: a signed number or a constant, as
    written); `_NO_VALUE` for an integer past the bound, which the full path words. `int` and `float` read a
    sign as Python's unary minus and plus do (`-0.0` included); only a float has a point, and only a constant
    ends in a letter."""
    if "." in other:
        return float(other)
    if other[-1] > "9":
        return _WORDS[other]
    number = int(other)
    if not -limits.int_bound < number < limits.int_bound:
        return _NO_VALUE
    return number


def _reserved_name(name: str) -> bool:
    """Whether a tool name is, or has a part that is, a word Python refuses as a name."""
    return name in _RESERVED if "." not in name else any(part in _RESERVED for part in name.split("."))


def _scan_brackets(body: str, limits: InputLimits, scan: _Scanner | None = None) -> list[Call] | None:
    """`_fast_brackets` for calls whose arguments hold lists and objects, read one argument at a time; with `scan`
    (`_SCAN_JSON`, for a `_json_form` text), each value is read by the JSON scanner first."""
    listed = body.startswith("[")
    end = len(body)
    opened = (_LIST_OPEN if listed else _FAST_OPEN).match(body)
    if opened is None:  # no call: only an empty list reads
        pos = _GAP.match(body, 1).end()  # type: ignore[union-attr]  # matches the empty string
        return [] if listed and pos == end - 1 and body[pos] == "]" else None
    calls: list[Call] = []
    after_value = _after_value().match
    name, argument = opened.groups()
    pos = opened.end()
    while True:  # a call at a time: `name`, its first `argument` (or None) at `pos`
        # `_reserved_name`'s test inline for a name without a dot, as in `_fast_brackets`.
        if len(name) > limits.max_name_chars or (name in _RESERVED if "." not in name else _reserved_name(name)):
            return None
        arguments: dict[str, Any] = {}
        if argument is None:
            if not body.startswith(")", pos):
                return None  # `(,)`: no argument, and so no trailing comma
            following = after_value(body, pos)
        while argument is not None:
            if argument in _RESERVED or argument in arguments:
                return None
            if scan is None:
                value = _NO_VALUE
            else:
                try:
                    value, pos = scan(body, pos)
                except (StopIteration, ValueError, RecursionError):
                    value = _NO_VALUE  # not JSON: read the usual way
            if value is _NO_VALUE:
                value, pos = _fast_value(body, pos, 1, limits)
                if value is _NO_VALUE:
                    return None
            arguments[argument] = value
            following = after_value(body, pos)
            if following is None:
                return None  # neither another argument nor the end of the arguments
            if following.lastindex != 1:
                break  # the call's end
            argument = following[1]
            pos = following.end()
        calls.append(_new_call(name, arguments))
        if len(calls) > limits.max_calls:
            return None
        pos = following.end()  # type: ignore[union-attr]  # the `)` is there
        last = following.lastindex  # type: ignore[union-attr]
        if last is None or last == 2:  # no call follows: the text ends (a list after a trailing comma or none)
            if not listed:
                return calls if pos == end and last is None else None
            return calls if pos == end - 1 and body[pos] == "]" else None
        if not listed:
            return None  # calls without brackets around them: the full path reads them
        name, argument = following.group(3, 4)  # type: ignore[union-attr]


def _fast_value(body: str, pos: int, depth: int, limits: InputLimits) -> tuple[Any, int]:
    """The literal at `pos` and where it ends; `_NO_VALUE` when it is not in the simple subset.

    `depth` counts the lists and objects enclosing the value, the arguments object included.
    """
    scalar = _FAST_SCALAR.match(body, pos)
    if scalar is not None:
        string, other = scalar.groups()
        if string is not None:
            text = string[1:-1]
            return (_FAST_ESCAPE.sub(_unescape, text) if "\\" in text else text), scalar.end()
        value = _other_value(other, limits)
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




# -- repair first -------------------------------------------------------------------------------
#
# Text the grammar is sure to refuse (a string followed by a name, as `'Domino's'`) is repaired
# without asking `ast.parse` first: part of the same lane (`parse_brackets`).


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
    repaired, repairs, places = _repairs(body)
    if not places or repaired[0] != body[0] or repaired.count(",") > limits.max_items:
        return None  # nothing escaped, or an opening bracket added (the texts differ from the start)
    word = _WORD_AFTER.match(body, places[0] + 1)
    if word is None or word.group(1) in _RESERVED or word.group(1).lower() in _STRING_PREFIXES:
        return None  # the quote is followed by something that might continue an expression
    # Where the repair only escaped apostrophes, `body` in JSON's quotes but for those reads as `repaired` does.
    json_form = (_json_form(body, repaired[0] == "[", limits, places)
                 if len(repaired) == len(body) + len(places) and (body.isascii() or valid_text(body)) else None)
    calls = _fast_brackets(repaired, limits) if json_form is None else _scan_brackets(json_form, limits, _SCAN_JSON)
    return (calls, tuple(repairs)) if calls else None
