"""Repairs of the defects found in ACEBench's own gold data: unescaped apostrophes, a missing bracket.

Used only when the bracket syntax does not read as written; each repair is reported.
"""

from __future__ import annotations

import re

_CLOSERS = ",)]}:"
_QUOTE_OR_ESCAPE = re.compile(r"['\"\\]")


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
