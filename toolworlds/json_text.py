"""JSON text as `json.dumps(value, ensure_ascii=False, default=str)` writes it, the one owner of that writing.

Tool results handed to an agent (`episodes`) and the values an episode stores (`episode_record.stored_json`) are
written this way, a dozen times an episode: `json.dumps` with options builds an encoder on every call, and the
encoder's own `encode` builds its C encoder (with a table of the containers it is inside) on every call too:
half the cost of writing a short result. The speed lane `json_text` (`sandbox.lanes`) makes that C encoder
once, without the table, which holds no state; a structure that contains itself (or nests past the
interpreter's depth) is handed to the plain encoder, which names it as `json.dumps` does, as is everything
where json has no C encoder.
"""

from __future__ import annotations

import json
from json.encoder import c_make_encoder, encode_basestring  # type: ignore[attr-defined]
from typing import Any

from sandbox.lanes import LANES_ON

# Immutable settings made once, not state: neither holds anything between calls.
_PLAIN = json.JSONEncoder(ensure_ascii=False, default=str)
_C_ENCODER = (c_make_encoder(None, str, encode_basestring, None, ": ", ", ", False, False, True)
              if c_make_encoder is not None and LANES_ON else None)


def json_text(value: Any) -> str:
    """`json.dumps(value, ensure_ascii=False, default=str)`, raising what it raises."""
    if _C_ENCODER is not None:
        try:
            return "".join(_C_ENCODER(value, 0))
        except RecursionError:  # a cycle, or nested too deep: the plain encoder says which
            pass
    return _PLAIN.encode(value)
