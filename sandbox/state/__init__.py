"""Typed, journaled world state, shared between forks and copied only where a world writes.

One job per module, each importing only those before it:

- `ownership`: generations (who may change an object in place) and the journal notes of a change;
- `containers`: `TrackedList`, `TrackedDict`, `TrackedSet`, `track` and `adopt`, and how a container
  hands out only items of its own generation (structural sharing);
- `model`: `StateModel`, and `own`, its shallow copy for a generation;
- `sharing`: claim on read, the first writing call's copy of only the top fields it reads (a speed lane);
- `copying`: `clone` (deep copies) and `plain` / `plain_fields` (JSON-ready dumps).

Every name is importable from `sandbox.state` as before the split.
"""

from __future__ import annotations

from .containers import TrackedDict, TrackedList, TrackedSet, adopt, track
from .copying import _idle_wrapper, clone, plain, plain_fields
from .model import CLAIM_ON_READ_FROM, WITH_INTERNAL, StateModel, own, own_fields
from .ownership import ATOMIC_TYPES, OWNER, Generation, _owner
from .sharing import MAX_TWINS, settle, taken_on_read

__all__ = [
    "ATOMIC_TYPES",
    "CLAIM_ON_READ_FROM",
    "MAX_TWINS",
    "OWNER",
    "WITH_INTERNAL",
    "Generation",
    "StateModel",
    "TrackedDict",
    "TrackedList",
    "TrackedSet",
    "_idle_wrapper",
    "_owner",
    "adopt",
    "clone",
    "own",
    "own_fields",
    "plain",
    "plain_fields",
    "settle",
    "taken_on_read",
    "track",
]
