"""Strict pays for no reward hack: the adversarial corpus (`tests/reward_hacking.py`) over every
ACEBench category, perfect answers still 1.0 strict, and compat still the reference's verdicts.

Compat is held to the reference by `tests/test_evaluators.py` (perfect answers, per category,
equal to the reference's counts); here it only shows what the reference would have paid for.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest

from evaluators.acebench import NORMAL_CATEGORIES, SPECIAL_CATEGORIES
from scenarios.datasets import dataset_dir

from .reward_hacking import perfect_agent, tally_agent, tally_category

ACE = dataset_dir("acebench")
needs_data = pytest.mark.skipif(ACE is None, reason="ACEBench data not found (../shared/datasets or TOOLWORLDS_DATA)")
EN = ACE / "data_en" if ACE else Path("missing")


@functools.cache
def replays() -> dict[str, tuple[list[dict[str, Any]], list[str]]]:
    """Each reproduced agent task's end state after its gold path, with that path."""
    from scenarios.acebench.replay import diagnose
    from scenarios.acebench.tasks import load_tasks

    assert ACE is not None
    found = {}
    for task in load_tasks(ACE):
        if task.category in ("multi_step", "multi_turn"):
            chosen = diagnose(task).chosen
            if chosen is not None and diagnose(task).reproduced:
                found[task.id] = (chosen.end_state, task.paths[chosen.index])
    return found


@needs_data
@pytest.mark.parametrize("category", NORMAL_CATEGORIES + SPECIAL_CATEGORIES)
def test_strict_passes_no_adversarial_answer(category: str) -> None:
    tally = tally_category(EN, category)
    assert len(tally.items) >= 50 and tally.total >= (4 if category in SPECIAL_CATEGORIES else 8) * len(tally.items)
    assert tally.strict_passes == [], tally.strict_passes[:5]
    # The corpus is not a straw man: the reference pays for some of it in every normal category.
    if category in NORMAL_CATEGORIES:
        assert sum(tally.compat.values()) > 0


@needs_data
@pytest.mark.parametrize("category", ["multi_step", "multi_turn"])
def test_strict_passes_no_adversarial_end_state(category: str) -> None:
    found = replays()
    assert perfect_agent(EN, category, found, "strict") == 1.0  # the reproduced tasks, each perfect
    assert perfect_agent(EN, category, found, "compat") == 1.0
    tally = tally_agent(EN, category, found)
    assert len(tally.items) == sum(1 for item in found if category in item) and tally.total >= 7 * len(tally.items)
    assert tally.strict_passes == [], tally.strict_passes[:5]
    assert sum(tally.compat.values()) > 0  # the reference's end-state rule pays for some of them


ISSUE_38_TABLE = [  # issue 38's measurements on main: compat passed all five, strict the last three
    ("[f(days=9)]", {"f": {"days": 5}}),
    ("[f(o={'n': 100})]", {"f": {"o": {"n": 10}}}),
    ("[f(city='Paris Texas')]", {"f": {"city": "Paris"}}),
    ("[f(o={'s': '100'})]", {"f": {"o": {"s": "10"}}}),
    ("[f(e='anything')]", {"f": {"e": ""}}),
]
F = [{"name": "f", "parameters": {"type": "object", "required": [], "properties": {
    "days": {"type": "integer"}, "city": {"type": "string"}, "e": {"type": "string"},
    "o": {"type": "object", "properties": {"n": {"type": "integer"}, "s": {"type": "string"}}}}}}]


@pytest.mark.parametrize(("output", "answer"), ISSUE_38_TABLE)
def test_issue_38_table_passes_compat_and_fails_strict(output: str, answer: dict[str, Any]) -> None:
    from evaluators.acebench import check_item

    assert check_item("normal_atom_number", F, output, answer, "compat").valid  # the reference's leniency, kept
    assert not check_item("normal_atom_number", F, output, answer, "strict").valid


@pytest.mark.parametrize(("value", "gold", "same"), [
    ("  new   YORK ", "New York", True), ("\uff2e\uff25\uff37 \uff39\uff2f\uff32\uff2b", "New York", True),
    ("Straße", "STRASSE", True),
    ("New York City", "New York", False), ("York", "New York", False), ("", "", False), ("x", " ", False),
    ("2023-01-01", "2023-01-01", True), ("20230101", "2023-01-01", True), ("2023-01-01T00:00:00", "2023-01-01", False),
    ("2022-12-10 15:00", "2022-12-10T15:00:00", True), ("2022-12-10T15:00:00+00:00", "2022-12-10T15:00:00", False),
    ("January 1, 2023", "2023-01-01", False), ("2023-1-1", "2023-01-01", False),
])
def test_strict_text_rules(value: str, gold: str, same: bool) -> None:
    from evaluators.acebench.normalise import same_text

    assert same_text(gold, value) is same


@pytest.mark.parametrize(("value", "gold", "same"), [
    (5, 5, True), (5.0, 5, True), (0.30000000000000004, 0.3, True), (0.3 * (1 + 1e-6), 0.3, False),
    (6, 5, False), (True, 1, False), (float("nan"), float("nan"), False),
])
def test_strict_number_rules(value: Any, gold: Any, same: bool) -> None:
    from evaluators.acebench.normalise import is_number, same_number

    assert (is_number(value) and same_number(gold, value)) is same
