"""The API-Bank scorer: stateful call checks and ROUGE-L (needs the API-Bank data)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from evaluators.apibank import Scorer, read_predictions, render_call, rouge_l
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


def test_a_reply_past_the_message_limit_scores_zero_with_a_reason(scorer: Scorer) -> None:
    reference = "The meeting is at 2pm."
    # Whitespace reads as no token, so without the bound this reply would score 1.0 (after a long LCS).
    assert rouge_l(reference, reference.ljust(100_000)) == 1.0  # at the limit: scored
    assert rouge_l(reference, reference.ljust(100_001)) == 0.0
    file, dialogue = next(iter(scorer.dialogues.items()))
    long_reply = dialogue.replies[0].ljust(100_001)
    sample = scorer.score([{"file": file, "kind": "response", "index": 0, "pred": long_reply}]).samples[0]
    assert sample.rouge_l == 0.0 and "100001 characters" in sample.error and "100000" in sample.error
    assert scorer.score_response(file, 0, dialogue.replies[0]).error == ""


@pytest.mark.parametrize(("bad", "reason"), [
    (b'{"file": "f", "kind": "api", "index": 0, "pred": ', "not valid JSON"),
    (b'{"file": "f", "kind": "api", "index": 0, "pred": ' + b"7" * 5000 + b"}", "not valid JSON"),
    (b'{"file": "f", "kind": "api", "index": 0, "pred": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
     "not valid JSON"),
    (b'{"file": "f", "kind": "api", "index": 0, "pred": "\xff"}', "not valid UTF-8"),
], ids=["malformed", "long-integer", "deep-nesting", "bad-utf8"])
def test_a_prediction_line_that_does_not_read_is_named(tmp_path: Path, bad: bytes, reason: str) -> None:
    path = tmp_path / "predictions.jsonl"
    path.write_bytes(b'{"file": "f", "kind": "response", "index": 0, "pred": "hi"}\n' + bad + b"\n")
    with pytest.raises(ValueError, match=rf"^predictions\.jsonl:2: {reason} \(.+\)$"):  # and why, in brackets
        read_predictions(path)


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


def test_gold_calls_written_as_models_write_them_score_correct(scorer: Scorer) -> None:
    rows = [r for r in scorer.gold_predictions() if r["kind"] == "api"]
    wrapped = [{**r, "pred": f"API-Request: {r['pred']}"} for r in rows]
    chatty = [{**r, "pred": f"Sure, let me do that.\n{r['pred']}\nI will tell you the result [soon]."} for r in rows]
    for variant in (wrapped, chatty):
        scores = scorer.score(variant)
        assert len(scores.samples) == 508 and all(s.correct for s in scores.samples)
        assert scores.accuracy(1, scorer.levels()) == scores.accuracy(2, scorer.levels()) == 1.0


def test_the_first_of_several_bracketed_calls_is_the_one_scored(scorer: Scorer) -> None:
    file = "AddAgenda-level-1-1.jsonl"
    gold = scorer.dialogues[file].api_calls[1]
    good = render_call(gold.api_name, gold.param_dict)
    assert scorer.score_api(file, 1, f"{good} and then maybe [QueryAgenda(token='x')]").correct
    assert not scorer.score_api(file, 1, f"first [QueryAgenda(token='x')] then {good}").correct


def test_the_reference_response_set_is_the_478_replies_after_an_api_call(scorer: Scorer) -> None:
    scores = scorer.score([r for r in scorer.gold_predictions() if r["kind"] == "response"])
    assert len(scores.responses(compat_only=True)) == 478 and len(scores.responses()) == 1210
    assert scores.rouge(compat_only=True) == scores.rouge() == 1.0
    file = next(f for f, d in scorer.dialogues.items() if d.replies_after_calls and len(d.replies) > 1)
    after = scorer.dialogues[file].replies_after_calls[0]
    scored = scorer.score([{"file": file, "kind": "response", "index": after, "pred": "nothing alike"}])
    assert scored.rouge(compat_only=True) == scored.rouge() == 0.0
