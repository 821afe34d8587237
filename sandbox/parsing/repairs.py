"""Repairs of the defects found in ACEBench's own gold data: unescaped apostrophes, a missing bracket.

Used only when the bracket syntax does not read as written; each repair is reported.
"""

from __future__ import annotations

import functools
import re

from .. import lanes

_CLOSERS = ",)]}:"
_QUOTE_OR_ESCAPE = re.compile(r"['\"\\]")
# A quote that, inside a single-quoted string, cannot close it (what follows it, after spaces, is none of
# `_CLOSERS` nor the end), and one that can.
_INNER_QUOTE = r"'(?=[ \t\r\n]*+[^,)\]}:])"
_CLOSING_QUOTE = r"'(?![ \t\r\n]*+[^,)\]}:])"
# From inside a single-quoted string of a text with no double quote or backslash: the strings closed and
# opened after it, up to the next inner quote, which the match ends with.
_TO_INNER_QUOTE = "(?:[^']*+" + _CLOSING_QUOTE + "[^']*+')*+[^']*+" + _INNER_QUOTE


@functools.cache
def _inner_quote_patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """The first inner quote of a text (from outside any string), and the next one (from inside a string);
    compiled on first use, as only texts to repair need them."""
    return re.compile("[^']*+'" + _TO_INNER_QUOTE), re.compile(_TO_INNER_QUOTE)


def _repair(body: str) -> tuple[str, list[str]]:
    """Fix the defects seen in real benchmark data; returns the new text and what was done."""
    repaired, repairs, _ = _repairs(body)
    return repaired, repairs


def _repairs(body: str) -> tuple[str, list[str], list[int]]:
    """`_repair`, and where in `body` the apostrophes it escaped are."""
    repairs: list[str] = []
    text = body
    escaped, places = _escape_apostrophes(text)
    if places:
        text = escaped
        repairs.append(f"escaped {len(places)} apostrophe(s) inside single-quoted strings")
    if text.startswith("[") and not text.endswith("]"):
        text += "]"
        repairs.append("added the missing closing ']'")
    elif text.endswith("]") and not text.startswith("["):
        text = "[" + text
        repairs.append("added the missing opening '['")
    return text, repairs, places


def _escape_apostrophes(text: str) -> tuple[str, list[int]]:
    """Escape quotes inside single-quoted strings that cannot be closing quotes; the new text, and where in
    `text` the quotes escaped are.

    A quote closes a string only if what follows it (after spaces) could follow a value:
    a comma, a bracket, a colon or the end. `'Domino's'` thus becomes `'Domino\\'s'`.
    Only quotes and backslashes change the reading, so the scan jumps from one to the next; with the speed
    lanes on (`parse_brackets`), in text with neither double quotes nor backslashes (all of ACEBench's), from
    one quote to escape to the next.
    """
    if lanes.LANES_ON and '"' not in text and "\\" not in text:
        places = _inner_quotes(text)
    else:
        places = _inner_quotes_by_scan(text)
    if not places:
        return text, places
    out: list[str] = []
    kept = 0  # text[kept:] is not yet in `out`
    for place in places:
        out.append(text[kept:place])
        out.append("\\'")
        kept = place + 1
    out.append(text[kept:])
    return "".join(out), places


def _inner_quotes_by_scan(text: str) -> list[int]:
    """Where the quotes `_escape_apostrophes` escapes are, in any text: a quote or backslash at a time."""
    places: list[int] = []
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
                places.append(i)
            else:
                quote = None
    return places


def _inner_quotes(text: str) -> list[int]:
    """`_inner_quotes_by_scan` for text with no double quote or backslash, a match per quote to escape: every
    quote outside a string opens one, and inside it, each quote is the string's end or escaped, as what
    follows it says."""
    first, following = _inner_quote_patterns()
    places: list[int] = []
    found = first.match(text)
    while found is not None:
        place = found.end() - 1
        places.append(place)
        found = following.match(text, place + 1)
    return places
