"""The fast end-state comparison gives exactly what deepdiff over the whole state gives.

`diff_states` walks only the differing parts; `deep_diff_states` is the definition it must
match (deepdiff on everything). Pairs are drawn as a state and a few edits of it, so they
share most of their structure the way a ground truth and an episode's end state do.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sandbox.comparison as comparison
from sandbox.comparison import compare_states
from sandbox.diffing import deep_diff_states, diff_states
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


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edited_pairs())
def test_the_walk_reports_what_deepdiff_reports_on_edited_states(pair: tuple[dict, dict]) -> None:
    expected, actual = pair
    assert _shown(diff_states(expected, actual)) == _shown(deep_diff_states(expected, actual))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(STATES, STATES)
def test_the_walk_reports_what_deepdiff_reports_on_unrelated_states(expected: dict, actual: dict) -> None:
    assert _shown(diff_states(expected, actual)) == _shown(deep_diff_states(expected, actual))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edited_pairs(), st.sampled_from(["exact", "acebench"]))
def test_verdicts_and_fractions_are_unchanged(pair: tuple[dict, dict], mode: str) -> None:
    expected, actual = pair
    with pytest.MonkeyPatch.context() as monkeypatch:
        old = _old_comparison(monkeypatch, expected, actual, mode)
    new = compare_states(expected, actual, mode=mode)  # type: ignore[arg-type]
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
        assert _shown(diff_states(expected, actual)) == _shown(deep_diff_states(expected, actual)), expected


DATA = dataset_dir("acebench")


@pytest.mark.skipif(DATA is None, reason="ACEBench data not found (../shared/datasets or TOOLWORLDS_DATA)")
def test_every_acebench_replay_compares_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    reader = FailureReader(texts_for("en"))
    compared = 0
    for task in load_tasks(DATA):
        for index in range(len(task.paths)):
            end_state = replay_path(task, index, reader).end_state
            old = _old_comparison(monkeypatch, task.ground_truth, end_state, "acebench")
            new = compare_states(task.ground_truth, end_state, mode="acebench")
            assert (new.equal, new.fraction, new.notes, _shown(new.diff)) == (
                old.equal, old.fraction, old.notes, _shown(old.diff)), task.id
            compared += 1
    assert compared >= 50
