"""Text a model wrote, made safe to show a person on a terminal or in a log.

A reply, a tool name or a call id can hold an escape sequence (ESC [2J clears the screen, ESC ]0;
retitles the window), a carriage return that overwrites the line, or a bidi control that shows
text reversed. Printed as they are, they let a model's output forge what `toolworlds show` or a
run's summary says. Here each becomes a visible escape (`\\x1b`, `\\u202e`); line breaks are kept
in running text and escaped in one-line fields (names, ids, headings), where a newline would
forge a new transcript turn.
"""

from __future__ import annotations

import re

# C0 controls but tab and newline, DEL, C1 controls, and the bidi marks, embeddings, overrides and isolates.
_CONTROLS = "\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_IN_TEXT = re.compile(f"[{_CONTROLS}]")
_IN_LINE = re.compile(f"[{_CONTROLS}\t\n]")


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible_text(text: str) -> str:
    """`text` with its control and bidi characters written as escapes; tabs and line breaks (CRLF read as
    one) kept."""
    return _IN_TEXT.sub(_escaped, text.replace("\r\n", "\n"))


def visible_line(text: str) -> str:
    """`text` on one line: as `visible_text`, with tabs and line breaks escaped too."""
    return _IN_LINE.sub(_escaped, text)
