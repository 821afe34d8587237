"""Reading one API call out of a model's reply, the way API-Bank's evaluator finds it.

API-Bank's models answer with text such as `API-Request: [ToolSearcher(keywords='...')]`,
often with words before or after the call. The reference takes the first `[Name(...)]`
span of the text (greedy: up to the last `)]`) and reads the call from it. We do the
same, reading the span with `sandbox.parse_message` (literals only, never evaluated); when
the greedy span does not parse (two calls with prose between them), shorter spans ending
at an earlier `)]` are tried, so the first complete call wins. Text with no bracketed call
is read whole (JSON tool calls, a bare `Name(...)`), which the reference cannot read.
"""

from __future__ import annotations

import re

from sandbox import Call, ParseError, parse_message

_CALL_START = re.compile(r"\[\s*[A-Za-z_][\w.]*\s*\(")
_CALL_END = re.compile(r"\)\s*\]")
MAX_SPANS = 50  # ends tried per reply; a reply is bounded by the engine's input limits anyway


def call_span(text: str) -> str | None:
    """The part of a reply that holds its first bracketed call: the first span that reads as
    calls, else the greedy span (so its reader can say why it does not); None without one.

    A conversation uses this to tell a call from words to the user, as the reference's
    simulator does: a reply with a bracketed call anywhere in it is a call.
    """
    start = _CALL_START.search(text)
    if start is None:
        return None
    ends = [m.end() for m in _CALL_END.finditer(text, start.start())][-MAX_SPANS:]
    for end in reversed(ends):
        try:
            if parse_message(text[start.start():end]).calls:
                return text[start.start():end]
        except ParseError:
            continue
    return text[start.start():ends[-1]] if ends else None


def first_call(text: str) -> Call:
    """The first API call of a reply; `ParseError` when it holds none that can be read."""
    span = call_span(text)
    calls = parse_message(span if span is not None else text).calls
    if not calls:
        raise ParseError("no API call in the reply")
    return calls[0]
