"""What strict scoring counts as the same value: one normalisation per kind, written down once.

Every rule here is an equality after a stated normalisation, never a containment, so a
value can pass only by being the gold value (docs/evaluators.md, "strict: equal after a
stated normalisation"):

- free text: Unicode NFKC, then case folding, then every run of whitespace read as one
  space and the ends trimmed (`fold_text`);
- numbers: by value, integers exactly and any number with a float within a relative
  `FLOAT_TOLERANCE` (`same_number`); a boolean is never a number and text never one;
- dates and date-times: a gold written in ISO 8601 is compared by value with any ISO 8601
  writing of the same day or moment (`iso_moment`); a date never equals a date-time.
"""

from __future__ import annotations

import datetime
import math
import re
import unicodedata

# Float answers are written by people and models in decimal; this tolerates only the binary
# rounding of that decimal (0.1 + 0.2 against 0.3), never a different number.
FLOAT_TOLERANCE = 1e-9

# A gold string is read as a date only when it is written as one: YYYY-MM-DD, optionally with a time.
_ISO_GOLD = re.compile(r"\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?")


def fold_text(text: str) -> str:
    """Free text as strict compares it: NFKC, case-folded, whitespace runs as one space, trimmed."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def is_number(value: object) -> bool:
    """An int or float that is not a boolean (`True` is an int to Python, never a number to a scorer)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def same_number(expected: int | float, actual: int | float) -> bool:
    """Equal by value: integers exactly, any float within `FLOAT_TOLERANCE` (relative); NaN never."""
    if isinstance(expected, int) and isinstance(actual, int):
        return expected == actual
    return math.isclose(expected, actual, rel_tol=FLOAT_TOLERANCE, abs_tol=0.0)


def iso_moment(text: str) -> datetime.date | datetime.datetime | None:
    """The day or moment an ISO 8601 string names (any writing `fromisoformat` reads), else None."""
    stripped = text.strip()
    if not stripped or len(stripped) > 64:
        return None
    try:
        if len(stripped) <= 10 and "T" not in stripped and ":" not in stripped:
            return datetime.date.fromisoformat(stripped)
        return datetime.datetime.fromisoformat(stripped)
    except ValueError:
        return None


def gold_moment(text: str) -> datetime.date | datetime.datetime | None:
    """The day or moment a gold string names, when the gold is written as an ISO date (else None)."""
    return iso_moment(text) if _ISO_GOLD.fullmatch(text.strip()) else None


def same_text(expected: str, actual: str) -> bool:
    """Strict text equality: dates by value when the gold is an ISO date, else `fold_text` equality.

    An empty gold (after folding) equals nothing: an answer that says nothing carries no value to
    compare, and the reference's substring test let any text pass for it.
    """
    want = fold_text(expected)
    if not want:
        return False
    moment = gold_moment(expected)
    if moment is not None:
        have = iso_moment(actual)
        return have is not None and type(have) is type(moment) and _same_moment(moment, have)
    return want == fold_text(actual)


def _same_moment(expected: datetime.date, actual: datetime.date) -> bool:
    # Python refuses to order a naive moment against an aware one; neither is the other's value.
    naive = [isinstance(m, datetime.datetime) and m.tzinfo is None for m in (expected, actual)]
    return naive[0] == naive[1] and expected == actual
