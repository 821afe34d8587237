"""The fast end-state comparison gives exactly what deepdiff over the whole state gives.

`diff_states` walks only the differing parts (`walk_diff_states`, the `diff` speed lane, which these
tests call whatever the switch says); `deep_diff_states` is the definition it must match (deepdiff on
everything), and what `diff_states` is with the lanes off. Pairs are drawn as a state and a few edits
of it, so they share most of their structure the way a ground truth and an episode's end state do.
"""

from __future__ import annotations

import copy
import difflib
import functools
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sandbox.comparison as comparison
import sandbox.diffing as diffing
from sandbox.comparison import compare_states
from sandbox.diffing import deep_diff_states, diff_states, walk_diff_states
from sandbox.lanes import LANES_ON
from scenarios.acebench.replay import FailureReader, replay_path
from scenarios.acebench.tasks import load_tasks
from scenarios.acebench.texts import texts_for
from scenarios.datasets import dataset_dir

KEYS = st.sampled_from(["a", "b", "c", "id", "name", "1", "2", "10", "x.y", "inbox"])
SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from([0.0, 1.0, 2.5, -1.0, 412.0]),
    st.sampled_from(["", "a", "b", "Eve", "1", "True"]),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=5), st.dictionaries(KEYS, inner, max_size=5)),
    max_leaves=30,
)
STATES = st.dictionaries(KEYS, VALUES, max_size=5)


@st.composite
def edited_pairs(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    """A state and a copy of it with a few values replaced, added or removed somewhere inside."""
    expected = draw(STATES)
    actual = copy.deepcopy(expected)
    for _ in range(draw(st.integers(0, 4))):
        containers = list(_containers(actual))
        target = draw(st.sampled_from(containers))
        if isinstance(target, dict):
            key = draw(st.one_of(KEYS, st.sampled_from(sorted(target) or ["a"])))
            if target and draw(st.booleans()) and key in target:
                del target[key]
            else:
                target[key] = draw(VALUES)
        elif target and draw(st.booleans()):
            target[draw(st.integers(0, len(target) - 1))] = draw(VALUES)
        elif target and draw(st.booleans()):
            del target[draw(st.integers(0, len(target) - 1))]
        else:
            target.insert(draw(st.integers(0, len(target))), draw(VALUES))
    # Share untouched subtrees, as a fork does with its parent: expected's own values where equal.
    return expected, _share(expected, actual)


def _containers(value: Any) -> Any:
    if isinstance(value, dict):
        yield value
        for item in value.values():
            yield from _containers(item)
    elif isinstance(value, list):
        yield value
        for item in value:
            yield from _containers(item)


def _share(expected: Any, actual: Any) -> Any:
    if type(expected) is type(actual) is dict:
        return {key: _share(expected[key], value) if key in expected else value for key, value in actual.items()}
    if expected == actual and type(expected) is type(actual):
        return expected
    return actual


def _shown(diff: Any) -> list[tuple[str, str, str, str]]:
    # Sorted whole: deepdiff orders two reports of one path by a set's (per-process) order.
    return sorted((d.path, d.kind, repr(d.expected), repr(d.actual)) for d in diff.differences)


def _old_comparison(monkeypatch: pytest.MonkeyPatch, expected: Any, actual: Any, mode: str) -> Any:
    with monkeypatch.context() as patched:
        patched.setattr(comparison, "diff_states", deep_diff_states)
        return compare_states(expected, actual, mode=mode)  # type: ignore[arg-type]


def _new_comparison(monkeypatch: pytest.MonkeyPatch, expected: Any, actual: Any, mode: str) -> Any:
    with monkeypatch.context() as patched:
        patched.setattr(comparison, "diff_states", walk_diff_states)
        return compare_states(expected, actual, mode=mode)  # type: ignore[arg-type]


def test_the_switch_decides_whether_diffs_take_the_walk(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(diffing, "walk_diff_states", lambda expected, actual: "walk")
    monkeypatch.setattr(diffing, "deep_diff_states", lambda expected, actual: "deepdiff")
    assert diffing.diff_states({"a": 1}, {"a": 2}) == ("walk" if LANES_ON else "deepdiff")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edited_pairs())
def test_the_walk_reports_what_deepdiff_reports_on_edited_states(pair: tuple[dict, dict]) -> None:
    expected, actual = pair
    assert _shown(walk_diff_states(expected, actual)) == _shown(deep_diff_states(expected, actual))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(STATES, STATES)
def test_the_walk_reports_what_deepdiff_reports_on_unrelated_states(expected: dict, actual: dict) -> None:
    assert _shown(walk_diff_states(expected, actual)) == _shown(deep_diff_states(expected, actual))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edited_pairs(), st.sampled_from(["exact", "acebench"]))
def test_verdicts_and_fractions_are_unchanged(pair: tuple[dict, dict], mode: str) -> None:
    expected, actual = pair
    with pytest.MonkeyPatch.context() as monkeypatch:
        old = _old_comparison(monkeypatch, expected, actual, mode)
        new = _new_comparison(monkeypatch, expected, actual, mode)
    assert (new.equal, new.fraction, new.notes) == (old.equal, old.fraction, old.notes)
    assert _shown(new.diff) == _shown(old.diff)


def test_special_values_follow_deepdiff() -> None:
    nan = float("nan")
    cases = [
        ({"a": True}, {"a": 1}), ({"a": 1}, {"a": 1.0}), ({"a": nan}, {"a": float("nan")}),
        ({"a": [nan]}, {"a": [float("nan")]}), ({"a": {1: 2}}, {"a": {"1": 2}}), ({"a": (1, 2)}, {"a": [1, 2]}),
        ({"a": {"x": 1, "y": 2, "z": 3}}, {"a": {"x": 1, "p": 2, "q": 3}}), ({"a": None}, {"a": 0}),
        ({"a": ["Helen"]}, {"a": []}), ({"a": []}, {"a": [1, None, 2.5]}), ({"a": ["x", "y"]}, {"a": ["y"]}),
    ]
    for expected, actual in cases:
        assert _shown(walk_diff_states(expected, actual)) == _shown(deep_diff_states(expected, actual)), expected


DATA = dataset_dir("acebench")


@pytest.mark.skipif(DATA is None, reason="ACEBench data not found (../shared/datasets or TOOLWORLDS_DATA)")
def test_every_acebench_replay_compares_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    reader = FailureReader(texts_for("en"))
    compared = 0
    for task in load_tasks(DATA):
        for index in range(len(task.paths)):
            end_state = replay_path(task, index, reader).end_state
            old = _old_comparison(monkeypatch, task.ground_truth, end_state, "acebench")
            new = _new_comparison(monkeypatch, task.ground_truth, end_state, "acebench")
            assert (new.equal, new.fraction, new.notes, _shown(new.diff)) == (
                old.equal, old.fraction, old.notes, _shown(old.diff)), task.id
            compared += 1
    assert compared >= 50


# A small alphabet, so lists repeat values and difflib's alignment has choices to make; numbers
# of three types and NaN, which deepdiff reads by value.
LIST_ITEMS = st.sampled_from(["a", "b", "", "1", 1, 1.0, 0, True, False, None, 2.5, float("nan")])


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(LIST_ITEMS, min_size=1, max_size=9), st.lists(LIST_ITEMS, min_size=1, max_size=9))
def test_lists_of_scalars_are_aligned_as_deepdiff_aligns_them(expected: list, actual: list) -> None:
    assert _shown(walk_diff_states({"l": expected}, {"l": actual})) == _shown(deep_diff_states({"l": expected},
                                                                                          {"l": actual}))


def test_lists_too_costly_to_align_are_paired_by_index_as_deepdiff_pairs_them(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import deepdiff

    monkeypatch.setattr(diffing, "_ALIGN_BUDGET", 20)
    expected = {"inbox": {"names": ["a", "b", "a", "c", "a", "b"] * 4}}
    actual = {"inbox": {"names": ["x", *expected["inbox"]["names"], 1.0]}}
    bounded = _shown(walk_diff_states(expected, actual))
    aligned = _shown(deep_diff_states(expected, actual))
    monkeypatch.setattr(deepdiff, "DeepDiff", functools.partial(deepdiff.DeepDiff, zip_ordered_iterables=True))
    assert bounded == _shown(deep_diff_states(expected, actual))
    assert len(aligned) == 2 < len(bounded)  # with room to align, "x" and 1.0 are the only differences
    monkeypatch.setattr(diffing, "_ALIGN_BUDGET", 200_000)
    monkeypatch.undo()
    assert _shown(walk_diff_states(expected, actual)) == aligned


def test_a_long_list_of_repeated_values_is_not_aligned(monkeypatch: pytest.MonkeyPatch) -> None:
    # difflib's alignment is cubic at worst: 2,000 repeated values would take about a minute.
    searches = []
    search = difflib.SequenceMatcher.find_longest_match

    def counted(self: difflib.SequenceMatcher, *bounds: Any) -> Any:
        searches.append(bounds)
        assert len(searches) < 50, "the alignment is searching on and on"
        return search(self, *bounds)

    monkeypatch.setattr(difflib.SequenceMatcher, "find_longest_match", counted)
    expected = {"App": {"tags": [f"t{i % 2}" for i in range(2000)]}}
    actual = {"App": {"tags": [f"t{i % 3}" for i in range(2000)]}}
    diff = walk_diff_states(expected, actual)
    assert searches == []  # priced before the first search
    assert len(diff) == sum(a != b for a, b in zip(expected["App"]["tags"], actual["App"]["tags"], strict=True))


def test_a_brief_diff_writes_only_the_lines_it_shows(monkeypatch: pytest.MonkeyPatch) -> None:
    diff = walk_diff_states({"App": {"users": ["Eve"]}}, {"App": {"users": [f"user{i}" for i in range(10_000)]}})
    assert len(diff) == 10_000
    for limit in (0, 1, 30, 31, 500):
        assert diff.text(limit) == str(diff)[:limit]
    written = []
    shown = diffing.FieldDifference.__str__
    monkeypatch.setattr(diffing.FieldDifference, "__str__", lambda self: written.append(self) or shown(self))
    assert len(diff.text(500)) == 500
    assert len(written) < 20
    assert diff_states({"a": 1}, {"a": 1}).text(5) == "state"
