"""Field-level differences between an expected state and an actual one.

A failing end-state check is only useful if it says which field is wrong; this turns
deepdiff's tree report into one line per field, as text for people and JSON for tools.
deepdiff is imported on first use so that importing a world stays cheap.
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
    """Compare two JSON-ready states; ints and floats of equal value count as equal."""
    expected, actual = dict(expected), dict(actual)
    if expected == actual:  # the common case, and far cheaper than a deepdiff walk
        return StateDiff(())
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
            found.append(FieldDifference(_path(item.path(output_format="list")), kind,
                                         expected_value, actual_value))
    found.sort(key=lambda d: d.path)
    return StateDiff(tuple(found))


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
