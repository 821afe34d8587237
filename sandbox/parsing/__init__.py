"""Reading tool calls out of untrusted model output, and writing them back.

One job per module:
- `calls`: what reading gives (`Call`, `ParsedMessage`) and the bounds every reader holds a call to;
- `messages`: one message, in whichever accepted form (`parse_message`, `parse_calls`, `parse_items`);
- `json_calls`: JSON tool calls, read with `json.loads` (`decode_json`, `json_call`, `decode_arguments`);
- `brackets`: bracket syntax, through the fast lane or the grammar, then the repairs;
- `grammar`: the reference bracket grammar, Python's `ast` and a literals-only walk (`literal_value`);
- `fast_lanes`: the `parse_brackets` speed lane (`sandbox.lanes`), a regular-expression scanner for
  the common calls that gives exactly what the grammar gives, or declines;
- `repairs`: the fixes for defects found in real benchmark data;
- `rendering`: calls written back in bracket syntax (`render_calls`).

Model output is data, never code: nothing is evaluated, looked up, imported or called.
"""

from __future__ import annotations

# Besides the public names, the speed lane's and the grammar's own entry points stay importable here as they were
# before the package: the tests that hold one to the other and the benches use them.
from .calls import Call, ParsedMessage
from .fast_lanes import _FLAT_ARGUMENTS as _FLAT_ARGUMENTS
from .fast_lanes import _fast_brackets as _fast_brackets
from .fast_lanes import _flat_pattern as _flat_pattern
from .fast_lanes import _json_form as _json_form
from .fast_lanes import _may_nest_past_pattern as _may_nest_past_pattern
from .fast_lanes import _scan_brackets as _scan_brackets
from .fast_lanes import _simple_pattern as _simple_pattern
from .fast_lanes import _sure_repair as _sure_repair
from .grammar import _ast_brackets as _ast_brackets
from .grammar import literal_value
from .json_calls import decode_arguments, decode_json, decode_json_at, json_call
from .messages import _FENCE as _FENCE
from .messages import parse_calls, parse_items, parse_message
from .rendering import render_calls
from .repairs import _repair as _repair

__all__ = [
    "Call",
    "ParsedMessage",
    "decode_arguments",
    "decode_json",
    "decode_json_at",
    "json_call",
    "literal_value",
    "parse_calls",
    "parse_items",
    "parse_message",
    "render_calls",
]
