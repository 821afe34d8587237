"""Field-level differences between an expected state and an actual one.

A failing end-state check is only useful if it says which field is wrong; this reports
one line per field, as text for people and JSON for tools, with deepdiff's semantics.
An end-state check runs once per episode (an RL reward, a replay), so it must cost what
differs, not what the state holds: equal states are settled by one comparison in C, and
unequal ones by a walk that descends only into differing dict entries and list items.
Lists of scalars are aligned as deepdiff aligns them, within a work budget (an agent's
end state is untrusted, and difflib's alignment is cubic at worst). deepdiff itself judges
only values JSON cannot hold, and is imported on first such use.

The walk is the `diff` speed lane (`sandbox.lanes`): with the lanes off, every diff is deepdiff's
over the whole state (`deep_diff_states`), the definition the walk is tested against.
"""

from __future__ import annotations

import difflib
import itertools
import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from .lanes import LANES_ON

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
        return self.text()

    def text(self, limit: int | None = None) -> str:
        """One line per difference, cut to `limit` characters; only the lines shown are written,
        so a brief view of a diff of a long list costs what it shows."""
        if not self.differences:
            return "states are equal"[:limit]
        if limit is None:
            return "\n".join(str(d) for d in self.differences)
        lines, length = [], -1
        for difference in self.differences:
            if length >= limit:
                break
            line = str(difference)
            lines.append(line)
            length += len(line) + 1
        return "\n".join(lines)[:limit]

    def to_dict(self) -> list[dict[str, Any]]:
        return [d.to_dict() for d in self.differences]

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, default=str)


def diff_states(expected: Mapping[str, Any], actual: Mapping[str, Any]) -> StateDiff:
    """Compare two JSON-ready states; ints and floats of equal value count as equal.

    Gives exactly what `deep_diff_states` (deepdiff over the whole state) gives, at the cost
    of the parts that differ: an equality test in C settles equal states, and for unequal
    ones a walk follows only the dict entries and list items that differ. One exception,
    for a bounded cost: two lists of scalars that difflib cannot align within
    `_ALIGN_BUDGET` steps are paired by index (`_scalar_list_differences`).

    The walk is the `diff` speed lane (`sandbox.lanes`): with the lanes off, this is `deep_diff_states`,
    which aligns lists however long that takes (so the one exception above does not arise).
    """
    if not LANES_ON:
        return deep_diff_states(expected, actual)
    return walk_diff_states(expected, actual)


def walk_diff_states(expected: Mapping[str, Any], actual: Mapping[str, Any]) -> StateDiff:
    """`diff_states` by the walk (the `diff` lane itself, whatever the switch says)."""
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
        _walk_dicts(expected, actual, path, found)
    elif kind_e is list and kind_a is list:
        _walk_lists(expected, actual, path, found)
    elif (kind_e is str and kind_a is str) or (
        kind_e in _NUMBERS and kind_a in _NUMBERS and expected == expected and actual == actual  # no NaN
    ):
        if expected != actual:
            found.append(FieldDifference(_path(path), "changed", expected, actual))
    else:
        found.extend(_deepdiff(expected, actual, path))


def _walk_dicts(expected: dict[Any, Any], actual: dict[Any, Any], path: list[Any],
                found: list[FieldDifference]) -> None:
    """Two dicts: added and removed keys, then the common ones walked (or deepdiff's whole-dict change)."""
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


def _walk_lists(expected: list[Any], actual: list[Any], path: list[Any], found: list[FieldDifference]) -> None:
    """Two lists: scalars aligned as difflib aligns them, containers paired by index (as deepdiff does)."""
    if expected == actual:
        return
    if expected and actual and _scalars(expected) and _scalars(actual):
        # deepdiff aligns these with difflib (an empty side needs no aligning)
        found.extend(_scalar_list_differences(expected, actual, path))
        return
    # Lists holding containers deepdiff pairs by index; so does this.
    for index, (item_e, item_a) in enumerate(zip(expected, actual, strict=False)):
        if item_e is not item_a and not (type(item_e) is type(item_a) is dict and item_e == item_a):
            _walk(item_e, item_a, [*path, index], found)
    at = _list_path(path)
    found.extend(_missing(at, index, expected[index]) for index in range(len(actual), len(expected)))
    found.extend(_unexpected(at, index, actual[index]) for index in range(len(expected), len(actual)))


def _scalar_list_differences(expected: list[Any], actual: list[Any], path: list[Any]) -> list[FieldDifference]:
    """What deepdiff reports between two lists of JSON scalars, at a cost bounded by their length.

    deepdiff aligns the lists with difflib, then keeps the index pairing instead when the
    alignment gives as many reports or more; reports at one index that are both a removal
    and an addition become one change. This reports the same without deepdiff's cost per
    report (about 90 µs, seconds for a long list). difflib's matching is cubic in the worst
    case (a thousand repeated values take seconds), and an agent's end state is untrusted:
    past `_ALIGN_BUDGET` steps of difflib's search the lists are paired by index, which is
    deepdiff's `zip_ordered_iterables=True` reading.
    """
    at = _list_path(path)
    try:
        aligned = _aligned(expected, actual, at)
    except _OverBudget:
        return _paired_by_index(expected, actual, at)
    if len(aligned) > 1 and len(aligned) >= _paired_count(expected, actual):
        return _paired_by_index(expected, actual, at)
    return _merged_at_one_index(aligned)


# Steps of difflib's longest-match search (one per candidate position it visits) allowed for
# aligning one pair of lists: about 50 ms of work.
_ALIGN_BUDGET = 200_000


class _OverBudget(Exception):
    """Aligning two lists would take more than `_ALIGN_BUDGET` steps."""


class _BudgetedMatcher(difflib.SequenceMatcher[Any]):
    """difflib's matcher, stopping with `_OverBudget` before a search would exceed its budget.

    A search over `a[alo:ahi]` visits, for each item there, every position of that item in
    `b`; the running sums of those counts price each search before it runs.
    """

    def __init__(self, a: list[Any], b: list[Any], budget: int) -> None:
        super().__init__(None, a, b, autojunk=False)
        positions = Counter(b)
        self._prices = list(itertools.accumulate((positions[item] + 1 for item in a), initial=0))
        self._left = budget

    def find_longest_match(self, alo: int = 0, ahi: int | None = None, blo: int = 0,
                           bhi: int | None = None) -> difflib.Match:
        self._left -= self._prices[len(self._prices) - 1 if ahi is None else ahi] - self._prices[alo]
        if self._left < 0:
            raise _OverBudget
        return super().find_longest_match(alo, ahi, blo, bhi)


def _aligned(expected: list[Any], actual: list[Any], at: str) -> list[FieldDifference]:
    """deepdiff's reports from difflib's opcodes: items of a replaced run paired in order."""
    found: list[FieldDifference] = []
    for tag, low_e, high_e, low_a, high_a in _BudgetedMatcher(expected, actual, _ALIGN_BUDGET).get_opcodes():
        if tag == "delete":
            found.extend(_missing(at, i, expected[i]) for i in range(low_e, high_e))
        elif tag == "insert":
            found.extend(_unexpected(at, j, actual[j]) for j in range(low_a, high_a))
        elif tag == "replace":
            for step in range(max(high_e - low_e, high_a - low_a)):
                i, j = low_e + step, low_a + step
                if i >= high_e:
                    found.append(_unexpected(at, j, actual[j]))
                elif j >= high_a:
                    found.append(_missing(at, i, expected[i]))
                elif (i != j and expected[i] == actual[j]) or not _same_scalar(expected[i], actual[j]):
                    # an equal item at another index is deepdiff's "moved", shown as a change here
                    found.append(FieldDifference(f"{at}[{i}]", "changed", expected[i], actual[j]))
    return found


def _paired_by_index(expected: list[Any], actual: list[Any], at: str) -> list[FieldDifference]:
    found = [FieldDifference(f"{at}[{i}]", "changed", item_e, item_a)
             for i, (item_e, item_a) in enumerate(zip(expected, actual, strict=False))
             if not _same_scalar(item_e, item_a)]
    found.extend(_missing(at, i, expected[i]) for i in range(len(actual), len(expected)))
    found.extend(_unexpected(at, i, actual[i]) for i in range(len(expected), len(actual)))
    return found


def _paired_count(expected: list[Any], actual: list[Any]) -> int:
    """How many reports `_paired_by_index` would give, without building them."""
    unequal = sum(not _same_scalar(item_e, item_a) for item_e, item_a in zip(expected, actual, strict=False))
    return unequal + abs(len(expected) - len(actual))


def _list_path(path: list[Any]) -> str:
    """A list's path, to which an item's `[index]` is appended (empty for a list at the root)."""
    return _path(path) if path else ""


def _missing(at: str, index: int, value: Any) -> FieldDifference:
    return FieldDifference(f"{at}[{index}]", "missing", value, None)


def _unexpected(at: str, index: int, value: Any) -> FieldDifference:
    return FieldDifference(f"{at}[{index}]", "unexpected", None, value)


def _merged_at_one_index(found: list[FieldDifference]) -> list[FieldDifference]:
    """An index both missing and unexpected is one change, as deepdiff reports it."""
    missing = {d.path: d for d in found if d.kind == "missing"}
    unexpected = {d.path: d for d in found if d.kind == "unexpected"}
    both = missing.keys() & unexpected.keys()
    if not both:
        return found
    kept = [d for d in found if d.path not in both or d.kind not in ("missing", "unexpected")]
    kept.extend(FieldDifference(p, "changed", missing[p].expected, unexpected[p].actual) for p in missing if p in both)
    return kept


def _same_scalar(expected: Any, actual: Any) -> bool:
    """deepdiff's equality of two JSON scalars: numbers by value (True equals 1, NaN equals NaN),
    anything else by type and value."""
    if expected is actual:
        return True
    kind_e, kind_a = type(expected), type(actual)
    if kind_e in _NUMBERS and kind_a in _NUMBERS:
        return bool(expected == actual or (expected != expected and actual != actual))
    return kind_e is kind_a and expected == actual


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
