"""End-state comparison: does a state match the expected one, and if not, where not?

Two modes:
- `exact`: the whole state must be equal.
- `acebench`: ACEBench's rules. Only the classes and attributes the expected state lists
  are compared; a dict attribute passes when every expected key is present with an equal
  value (extra keys in the world are ignored); other values compare with `==`
  (412 equals 412.0). Expected class names that are misspelled (`ReminderAPI`) are matched
  to the closest real class and reported, never silently skipped as the reference does.

Both give a field-level diff and the fraction of compared fields that match.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from .diffing import StateDiff, diff_states

Mode = Literal["exact", "acebench"]


@dataclass(frozen=True)
class StateComparison:
    equal: bool
    diff: StateDiff
    fraction: float
    notes: tuple[str, ...] = field(default=())

    def __bool__(self) -> bool:
        return self.equal

    def to_dict(self) -> dict[str, Any]:
        return {"equal": self.equal, "fraction": self.fraction, "diff": self.diff.to_dict(),
                "notes": list(self.notes)}


def compare_states(expected: Any, actual: Any, mode: Mode = "exact", *, misspelled: str = "match"
                   ) -> StateComparison:
    """Compare states given as `{App: {field: value}}` or ACEBench's `[{App: {...}}, ...]`.

    `misspelled` (acebench mode): "match" compares an expected class whose name is not in
    the state with the closest real class; "skip" leaves it uncompared, as the reference does,
    and reads a class the actual state lists twice from its first entry, as the reference's
    lookup does ("match" keeps the last). In acebench mode a state holding an entry that is
    not an object (or that is neither a mapping nor a list) is never equal: the reference
    crashes on it (`.keys()`), and a crash is a failure with a reason, given in `notes`.
    """
    reference_reading = mode == "acebench" and misspelled == "skip"
    expected_map, expected_notes, expected_sound = _as_mapping(expected, "expected")
    actual_map, actual_notes, actual_sound = _as_mapping(actual, "actual", keep_first=reference_reading)
    notes = expected_notes + actual_notes
    if mode == "exact":
        diff = diff_states(expected_map, actual_map)
        # Counting the fields is a walk over the whole state; equal states score 1 whatever it gives.
        fraction = _fraction(diff, max(_count_leaves(expected_map), 1)) if diff else 1.0
        return StateComparison(not diff and not notes, diff, fraction, tuple(notes))
    if mode != "acebench":
        raise ValueError(f"unknown comparison mode {mode!r}; use 'exact' or 'acebench'")
    comparison = _acebench(expected_map, actual_map, notes, misspelled)
    if expected_sound and actual_sound:
        return comparison
    return StateComparison(False, comparison.diff, comparison.fraction, comparison.notes)


def _acebench(expected: Mapping[str, Any], actual: Mapping[str, Any], notes: list[str],
              misspelled: str = "match") -> StateComparison:
    expected_view: dict[str, Any] = {}
    actual_view: dict[str, Any] = {}
    compared = 0
    for written_name, attributes in expected.items():
        if misspelled == "skip" and written_name not in actual:
            notes.append(f"expected class {written_name!r} is not in the state and was not compared")
            continue
        name = _resolve_class(written_name, actual, notes)
        if name is None:
            expected_view[written_name] = attributes
            compared += 1
            continue
        got = actual[name]
        if not isinstance(attributes, Mapping) or not isinstance(got, Mapping):
            expected_view[name], actual_view[name] = attributes, got
            compared += 1
            continue
        expected_view[name], actual_view[name] = {}, {}
        for attribute, want in attributes.items():
            if attribute not in got:
                expected_view[name][attribute] = want
                compared += 1
                continue
            have = got[attribute]
            if isinstance(want, Mapping) and isinstance(have, Mapping):
                # expected ⊆ actual: extra keys in the world are not differences
                have = {key: have[key] for key in want if key in have}
                compared += max(len(want), 1)
            else:
                compared += 1
            expected_view[name][attribute] = want
            actual_view[name][attribute] = have
    diff = diff_states(expected_view, actual_view)
    equal = not diff and not any("no class of that name" in n for n in notes)
    return StateComparison(equal, diff, _fraction(diff, max(compared, 1)), tuple(notes))


def _resolve_class(name: Any, actual: Mapping[Any, Any], notes: list[str]) -> Any:
    """The state's class an expected class name stands for, or None (noted) when there is none.

    Only text names are compared loosely: a name of another type (possible from Python, never
    from JSON) matches only itself, and the state's keys of other types are never close matches.
    """
    if name in actual:
        return name
    match = closest_class(name, [key for key in actual if isinstance(key, str)]) if isinstance(name, str) else None
    if match is None:
        notes.append(f"expected class {name!r}: no class of that name in the state")
        return None
    notes.append(f"expected class {name!r} is misspelled; compared as {match!r}")
    return match


def closest_class(name: str, names: list[str]) -> str | None:
    """The name a misspelled class name stands for: the same name in other case, else the closest by
    difflib's ratio (at least 0.6), else None."""
    lowered = {key.lower(): key for key in names}
    match = lowered.get(name.lower())
    if match is None:
        close = difflib.get_close_matches(name, names, n=1, cutoff=0.6)
        match = close[0] if close else None
    return match


def _as_mapping(state: Any, side: str, keep_first: bool = False) -> tuple[dict[Any, Any], list[str], bool]:
    """A state as one `{class: attributes}` mapping, the notes on how it was read, and whether it is
    sound (every entry an object): a class listed twice keeps its first entry with `keep_first`, the
    reference's reading, else its last."""
    if isinstance(state, Mapping):
        return dict(state), [], True
    if not isinstance(state, Sequence) or isinstance(state, (str, bytes)):
        return {}, [f"{side} state is not a mapping or a list of classes"], False
    notes: list[str] = []
    merged: dict[Any, Any] = {}
    sound = True
    for entry in state:
        if not isinstance(entry, Mapping):
            notes.append(f"{side} state has a non-object entry")
            sound = False
            continue
        for key, value in entry.items():
            if key in merged:
                notes.append(f"{side} state lists class {key!r} twice; the {'first' if keep_first else 'last'} "
                             "entry is compared")
                if keep_first:
                    continue
            merged[key] = value
    return merged, notes, sound


def _count_leaves(value: Any) -> int:
    """Fields in a state, as the partial-credit fraction counts them (an empty container is one)."""
    kind = type(value)
    if kind is dict or (kind is not list and isinstance(value, Mapping)):
        items: Any = value.values()
    elif kind is list or isinstance(value, list):
        items = value
    else:
        return 1
    count = 0
    for item in items:
        item_kind = type(item)
        if item_kind is str or item_kind is int or item_kind is float or item_kind is bool or item is None:
            count += 1
        else:
            count += _count_leaves(item)
    return count or 1


def _fraction(diff: StateDiff, total: int) -> float:
    return round(max(0.0, 1.0 - len(diff) / total), 4)
