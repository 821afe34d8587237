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
