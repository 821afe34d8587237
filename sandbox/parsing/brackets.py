"""Reading a message in bracket syntax: the fast lane when the lanes are on, else the grammar; then repairs.

With `sandbox.lanes.LANES_ON` the fast lane (`fast_lanes`) reads the text it is sure of and the
grammar (`grammar`) the rest; with the lanes off every message goes through the grammar. Both
ways give the same calls, repairs and errors. When the text does not read as written, the
repairs (`repairs`) fix the defects found in real benchmark data, and each one is reported.
"""

from __future__ import annotations

from .. import lanes
from ..errors import ParseError
from ..input_limits import InputLimits
from .calls import Call, ParsedMessage, _new_instance, _parsed
from .fast_lanes import _fast_brackets, _sure_repair
from .grammar import _ast_brackets, _check_items
from .repairs import _repair

# Repairs fix hand-written benchmark data; text longer than this is not theirs to fix.
_REPAIR_CHARS = 20_000


def read_brackets(body: str, limits: InputLimits, notes: tuple[str, ...]) -> ParsedMessage:
    """The calls of a bracket message, with `notes` and the repairs made to read them; `ParseError` when it does
    not read."""
    try:
        # `_check_items`' first test, inline (a text has no more commas than characters): most messages pass it.
        if len(body) > limits.max_items and body.count(",") > limits.max_items:
            _check_items(body, limits)
        if lanes.LANES_ON:
            calls = _fast_brackets(body, limits)
            if calls is not None:  # `_parsed`, inline: the commonest way out
                message = _new_instance(ParsedMessage)
                fields = message.__dict__
                fields["calls"] = calls
                fields["format"] = "brackets"
                fields["repairs"] = notes
                return message
            mended = _sure_repair(body, limits)
            if mended is not None:
                return _parsed(mended[0], "brackets", notes + mended[1])
        return _parsed(_ast_brackets(body, limits), "brackets", notes)
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


def _parse_brackets(body: str, limits: InputLimits) -> list[Call]:
    _check_items(body, limits)
    fast = _fast_brackets(body, limits) if lanes.LANES_ON else None
    return fast if fast is not None else _ast_brackets(body, limits)
