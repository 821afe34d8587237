"""The bounds on what a world accepts from a model, and the checks of text, with nothing heavy to import.

`InputLimits` names each bound a call or message must stay within; `limit_walk.py` holds the walk
that enforces them on a call's arguments. These are apart because the parser needs the
bounds and not the walk: the walk knows the state's containers and pydantic models, and
reading a message (`from sandbox import parse_message`) must not pay for building those.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

# The deepest `max_depth` a world may ask for: walks recurse once per level.
DEPTH_CEILING = 200
_LOG2_OF_10 = 3.321928094887362


@dataclass(frozen=True)
class InputLimits:
    """Bounds on what a world accepts from a model; each is named in the error that enforces it.

    Args:
        max_message_chars: Characters in one model message, and in all strings of one call's
            arguments together.
        max_calls: Tool calls in one message.
        max_depth: Nesting of lists and objects inside one call's arguments.
        max_string_chars: Characters in one string argument (or object key).
        max_int_digits: Decimal digits of one integer (Python refuses to print past 4,300).
        max_items: Values in one call's arguments, counted over every level (and, roughly,
            in one message in bracket syntax: reading each costs time before any can be checked).
        max_name_chars: Characters in a tool name.
    """

    max_message_chars: int = 100_000
    max_calls: int = 256
    max_depth: int = 32
    max_string_chars: int = 10_000
    max_int_digits: int = 64
    max_items: int = 2_000
    max_name_chars: int = 128
    int_bound: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for name in ("max_message_chars", "max_calls", "max_depth", "max_string_chars", "max_int_digits",
                     "max_items", "max_name_chars"):
            value = getattr(self, name)
            if type(value) is not int or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        if self.max_depth > DEPTH_CEILING:
            raise ValueError(f"max_depth must be at most {DEPTH_CEILING}")
        if self.max_int_digits > 4000:
            raise ValueError("max_int_digits must be at most 4000 (Python cannot print longer integers)")
        object.__setattr__(self, "int_bound", 10 ** self.max_int_digits)


DEFAULT_LIMITS = InputLimits()


class LimitExceeded(Exception):
    """A value past one of the `InputLimits` (or not JSON data at all); `limit` names which."""

    def __init__(self, limit: str, message: str, *, path: str = "", maximum: int | None = None) -> None:
        super().__init__(message)
        self.limit = limit
        self.message = message
        self.path = path
        self.maximum = maximum

    def details(self) -> dict[str, Any]:
        """The structured form an error record carries."""
        entry: dict[str, Any] = {"limit": self.limit, "problem": self.message}
        if self.path:
            entry["parameter"] = self.path
        if self.maximum is not None:
            entry["maximum"] = self.maximum
        return entry


def type_name(value: Any) -> str:
    """The name of a value's type, read past any metaclass that could raise or lie."""
    try:
        name = type.__dict__["__name__"].__get__(type(value), type)
        return name if type(name) is str else "object"
    except Exception:
        return "object"


def digits_at_least(value: int) -> int:
    """A lower bound on the decimal digits of `value`, without converting it to text."""
    return max(1, int((abs(value).bit_length() - 1) / _LOG2_OF_10) + 1)


def valid_text(text: str) -> bool:
    """False for strings holding lone surrogates: no UTF-8 encoder, database or JSON peer accepts them."""
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def exception_line(exc: BaseException, limit: int = 500) -> str:
    """`Type: message` on one printable line, for an error record or a failed episode: whatever raised
    may carry a message that fails to format, spans lines, or runs to megabytes (cut at `limit`)."""
    try:
        message = str(exc)
    except Exception:
        message = ""
    message = " ".join(message.split()) if type(message) is str else ""
    if len(message) > limit:
        message = message[:limit - 3] + "..."
    return printable_text(f"{type_name(exc)}: {message}" if message else type_name(exc))


def printable_text(text: str) -> str:
    """`text` with lone surrogates written as `\\udxxx` escapes, so it can be stored and shown."""
    return text if valid_text(text) else text.encode("utf-8", "backslashreplace").decode("utf-8")


# A lone surrogate; in JSON text written with ensure_ascii=False, only a string can hold one.
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def printable_json(text: str) -> str:
    """JSON text (written with ensure_ascii=False) made writable as UTF-8: each lone surrogate in its
    strings reads back as the escape `printable_text` writes (`\\udxxx`, six characters). Escaping
    the JSON text itself would not do: JSON reads its own `\\udxxx` back as the surrogate."""
    return text if valid_text(text) else _LONE_SURROGATE.sub(lambda found: f"\\\\u{ord(found.group()):04x}", text)
