"""API-Bank's strict checker: the gold call of every level-1/2 call sample passes it, and calls the
reference's lenient checks accept (a content field sharing half its words, a number as text, a field
more) do not. Needs the API-Bank data."""

from __future__ import annotations

from typing import Any

import pytest

from evaluators.apibank.scorer import judge_call
from evaluators.apibank.strict import strict_input
from sandbox import Call
from sandbox.parsing import render_calls
from scenarios.apibank.samples import ApiBankSample
from scenarios.datasets import dataset_dir
from toolworlds.prebuilt import TaskWorlds

pytestmark = pytest.mark.skipif(dataset_dir("api-bank") is None,
                                reason="API-Bank data not found (../shared/datasets or TOOLWORLDS_DATA)")


def _variants(arguments: dict[str, Any]) -> list[dict[str, Any]]:
    """Half-right versions of a gold call's arguments: each text field with a word added, each number as
    text, each boolean as a number, one field left out, one field more."""
    out: list[dict[str, Any]] = []
    for name, value in arguments.items():
        if isinstance(value, str) and len(value.split()) >= 2:
            out.append({**arguments, name: value + " please"})
        elif isinstance(value, bool):
            out.append({**arguments, name: int(value)})
        elif isinstance(value, (int, float)):
            out.append({**arguments, name: str(value)})
    if arguments:
        first = next(iter(arguments))
        out.append({k: v for k, v in arguments.items() if k != first})
    out.append({**arguments, "note": "extra"})
    return out


def test_gold_passes_strict_and_half_right_calls_do_not() -> None:
    worlds = TaskWorlds("apibank", lang="en")
    samples = [t for t in worlds.tasks.values() if isinstance(t, ApiBankSample) and t.gold_call is not None]
    assert len(samples) > 400
    tried = compat_passed = strict_passed = 0
    for task in samples:
        gold = task.gold_call
        assert gold is not None
        text = render_calls([Call(gold.api_name, dict(gold.param_dict))])
        assert judge_call(worlds.fork(task.id), gold, text, checker="strict") == (True, ""), task.id
        for arguments in _variants(dict(gold.param_dict)):
            reply = render_calls([Call(gold.api_name, arguments)])
            tried += 1
            compat_passed += judge_call(worlds.fork(task.id), gold, reply)[0]
            strict_passed += judge_call(worlds.fork(task.id), gold, reply, checker="strict")[0]
    assert tried > 1000 and compat_passed > 0  # the reference's checks accept some of them
    assert strict_passed == 0, (strict_passed, tried)


def test_strict_input_compares_text_folded_and_dates_by_value() -> None:
    gold = {"input": {"topic": "Team  Sync", "date": "2023-03-05", "n": 2}}
    assert strict_input({"input": {"topic": "team sync", "date": "2023-03-05T00:00", "n": 2.0}}, gold) is False
    assert strict_input({"input": {"topic": "team sync", "date": "2023-03-05", "n": 2.0}}, gold) is True
    assert strict_input({"input": {"topic": "team sync meeting", "date": "2023-03-05", "n": 2}}, gold) is False
    assert strict_input({"input": {"topic": "team sync", "date": "2023-03-05", "n": True}}, gold) is False
