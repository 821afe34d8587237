"""The API-Bank scorer: stateful call checks and ROUGE-L (needs the API-Bank data)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from evaluators.apibank import Scorer, render_call, rouge_l
from scenarios.datasets import dataset_dir
from toolworlds.cli import app

DATA = dataset_dir("api-bank")
pytestmark = pytest.mark.skipif(DATA is None, reason="API-Bank data not found (../shared/datasets or TOOLWORLDS_DATA)")


@pytest.fixture(scope="module")
def scorer() -> Scorer:
    return Scorer(DATA)


def test_every_gold_call_scores_correct_statefully(scorer: Scorer) -> None:
    scores = scorer.score(scorer.gold_predictions())
    api = [s for s in scores.samples if s.kind == "api"]
    assert len(api) == 508 and all(s.correct for s in api)
    assert scores.accuracy(1, scorer.levels()) == scores.accuracy(2, scorer.levels()) == 1.0
    assert scores.rouge() == 1.0


def test_calls_that_depend_on_earlier_calls_are_scored_in_context(scorer: Scorer) -> None:
    file = next(f for f, d in scorer.dialogues.items()
                if [c.api_name for c in d.api_calls][:2] == ["ForgotPassword", "ForgotPassword"])
    second = scorer.dialogues[file].api_calls[1]
    assert scorer.score_api(file, 1, render_call(second.api_name, second.param_dict)).correct


def test_wrong_calls_are_incorrect_with_a_reason(scorer: Scorer) -> None:
    file = "AddAgenda-level-1-1.jsonl"
    gold = scorer.dialogues[file].api_calls[1]
    assert gold.api_name == "AddAgenda"
    renamed = scorer.score_api(file, 1, render_call("AddReminder", gold.param_dict))
    assert not renamed.correct and "name mismatch" in renamed.error
    wrong_time = dict(gold.param_dict, time="2021-09-29 14:00:00")
    assert not scorer.score_api(file, 1, render_call("AddAgenda", wrong_time)).correct
    close_content = dict(gold.param_dict, content="Meeting with the marketing team today")
    assert scorer.score_api(file, 1, render_call("AddAgenda", close_content)).correct  # Jaccard > 0.5
    assert "parse" in scorer.score_api(file, 1, "I will add it now.").error


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=120), st.integers(-2, 6), st.sampled_from(["api", "response"]))
def test_scoring_never_raises(scorer: Scorer, text: str, index: int, kind: str) -> None:
    scores = scorer.score([{"file": "AddAgenda-level-1-1.jsonl", "kind": kind, "index": index, "pred": text}])
    assert len(scores.samples) == 1


def test_rouge_l() -> None:
    assert rouge_l("The meeting is at 2pm.", "Your meeting is at 2pm") == 0.8
    assert rouge_l("Hello there", "...") == 0.0 and rouge_l("Hello", None) == 0.0


def test_score_cli(tmp_path: Path, scorer: Scorer) -> None:
    predictions = tmp_path / "predictions.jsonl"
    rows = scorer.gold_predictions()[:40]
    rows[0] = {**rows[0], "pred": "[Nope()]"}
    predictions.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "scores.json"
    result = CliRunner().invoke(app, ["score", "apibank", "--results", str(predictions), "--json", str(out)])
    assert result.exit_code == 0, result.output
    assert "API call accuracy" in result.output and "ROUGE-L" in result.output
    data = json.loads(out.read_text())
    assert data["samples"][0]["correct"] is False and 0.9 < data["accuracy"] < 1.0
