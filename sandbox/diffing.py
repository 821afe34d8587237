"""Field-level differences between an expected state and an actual one.

A failing end-state check is only useful if it says which field is wrong; this reports
one line per field, as text for people and JSON for tools, with deepdiff's semantics.
An end-state check runs once per episode (an RL reward, a replay), so it must cost what
differs, not what the state holds: equal states are settled by one comparison in C, and
unequal ones by a walk that descends only into differing dict entries and leaves deepdiff
the smallest values it cannot judge itself. deepdiff is imported on first such use.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

_KINDS = MappingProxyType({
    "values_changed": "changed",
    "type_changes": "changed",
    "dictionary_item_added": "unexpected",
    "dictionary_item_removed": "missing",
    "iterable_item_added": "unexpected",
    "iterable_item_removed": "missing",
    "set_item_added": "unexpected",
    "set_item_removed": "missing",
})


@dataclass(frozen=True)
class FieldDifference:
    """One differing field. `kind`: changed, missing (expected but absent), unexpected."""

    path: str
    kind: str
    expected: Any
    actual: Any

    def __str__(self) -> str:
        if self.kind == "missing":
            return f"{self.path}: missing (expected {_show(self.expected)})"
        if self.kind == "unexpected":
            return f"{self.path}: unexpected {_show(self.actual)}"
        return f"{self.path}: expected {_show(self.expected)}, got {_show(self.actual)}"

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "kind": self.kind, "expected": self.expected, "actual": self.actual}


@dataclass(frozen=True)
class StateDiff:
    """All differences; falsy when the states match."""

    differences: tuple[FieldDifference, ...]

    @property
    def equal(self) -> bool:
        return not self.differences

    def __bool__(self) -> bool:
        return bool(self.differences)

    def __len__(self) -> int:
        return len(self.differences)

    def __str__(self) -> str:
        if not self.differences:
            return "states are equal"
        return "\n".join(str(d) for d in self.differences)

    def to_dict(self) -> list[dict[str, Any]]:
        return [d.to_dict() for d in self.differences]

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, default=str)


def diff_states(expected: Mapping[str, Any], actual: Mapping[str, Any]) -> StateDiff:
    """Compare two JSON-ready states; ints and floats of equal value count as equal.

    Gives exactly what `deep_diff_states` (deepdiff over the whole state) gives, at the cost
    of the parts that differ: an equality test in C settles equal states, and for unequal
    ones a walk follows only the dict entries and list items that differ, so deepdiff runs
    only on the smallest differing values it cannot judge itself (lists of scalars, which it
    aligns with difflib, and values of other types).
    """
    expected, actual = dict(expected), dict(actual)
    if expected == actual:  # the common case: one comparison in C, which skips shared objects
        return StateDiff(())
    found: list[FieldDifference] = []
    _walk(expected, actual, [], found)
    found.sort(key=_by_path)
    return StateDiff(tuple(found))


def deep_diff_states(expected: Mapping[str, Any], actual: Mapping[str, Any]) -> StateDiff:
    """`diff_states` by deepdiff over the whole state: the definition the walk must match."""
    expected, actual = dict(expected), dict(actual)
    if expected == actual:
        return StateDiff(())
    found = _deepdiff(expected, actual, [])
    found.sort(key=_by_path)
    return StateDiff(tuple(found))


# deepdiff's number group under ignore_numeric_type_changes (bool included: True equals 1)
_NUMBERS = frozenset({int, float, bool})
# Below this share of common keys, deepdiff reports a whole dict as changed (its default
# `threshold_to_diff_deeper`) instead of listing added and removed keys.
_DEEPER = 0.33


def _walk(expected: Any, actual: Any, path: list[Any], found: list[FieldDifference]) -> None:
    """Add the differences deepdiff would report between two values at `path`."""
    if expected is actual:
        return
    kind_e, kind_a = type(expected), type(actual)
    if kind_e is dict and kind_a is dict:
        if expected == actual:
            return
        if not (_text_keys(expected) and _text_keys(actual)):
            found.extend(_deepdiff(expected, actual, path))
            return
        common = expected.keys() & actual.keys()
        union = len(expected) + len(actual) - len(common)
        if union > 1 and len(common) / union < _DEEPER:
            found.append(FieldDifference(_path(path), "changed", expected, actual))
            return
        for key in actual:
            if key not in common:
                found.append(FieldDifference(_path([*path, key]), "unexpected", None, actual[key]))
        for key in expected:
            if key not in common:
                found.append(FieldDifference(_path([*path, key]), "missing", expected[key], None))
        for key in expected:
            if key in common:
                _walk(expected[key], actual[key], [*path, key], found)
        return
    if kind_e is list and kind_a is list:
        if expected == actual:
            return
        if expected and actual and _scalars(expected) and _scalars(actual):
            # deepdiff aligns these with difflib: leave it to it (an empty side needs no aligning)
            found.extend(_deepdiff(expected, actual, path))
            return
        # Lists holding containers deepdiff pairs by index; so does this.
        for index, (item_e, item_a) in enumerate(zip(expected, actual, strict=False)):
            if item_e is not item_a and not (type(item_e) is type(item_a) is dict and item_e == item_a):
                _walk(item_e, item_a, [*path, index], found)
        for index in range(len(actual), len(expected)):
            found.append(FieldDifference(_path([*path, index]), "missing", expected[index], None))
        for index in range(len(expected), len(actual)):
            found.append(FieldDifference(_path([*path, index]), "unexpected", None, actual[index]))
        return
    if (kind_e is str and kind_a is str) or (
        kind_e in _NUMBERS and kind_a in _NUMBERS and expected == expected and actual == actual  # no NaN
    ):
        if expected != actual:
            found.append(FieldDifference(_path(path), "changed", expected, actual))
        return
    found.extend(_deepdiff(expected, actual, path))


def _text_keys(value: dict[Any, Any]) -> bool:
    return all(type(key) is str for key in value)


def _scalars(values: list[Any]) -> bool:
    """Whether every item is a JSON scalar (deepdiff's "basic hashable" values, for JSON data)."""
    for value in values:
        kind = type(value)
        if not (kind is str or kind is int or kind is float or kind is bool or value is None):
            return False
    return True


def _deepdiff(expected: Any, actual: Any, prefix: list[Any]) -> list[FieldDifference]:
    from deepdiff import DeepDiff

    report = DeepDiff(
        expected, actual, view="tree", ignore_numeric_type_changes=True,
        verbose_level=2,
    )
    found: list[FieldDifference] = []
    for report_type, items in report.items():
        kind = _KINDS.get(report_type, "changed")
        for item in items:
            expected_value = None if kind == "unexpected" else _value(item.t1)
            actual_value = None if kind == "missing" else _value(item.t2)
            found.append(FieldDifference(_path([*prefix, *item.path(output_format="list")]), kind,
                                         expected_value, actual_value))
    return found


def _by_path(difference: FieldDifference) -> str:
    return difference.path


def _path(parts: list[Any]) -> str:
    text = ""
    for part in parts:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += ("." if text else "") + str(part)
    return text or "(root)"


def _value(value: Any) -> Any:
    from deepdiff.helper import NotPresent

    return None if isinstance(value, NotPresent) else value


def _show(value: Any, limit: int = 120) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."
