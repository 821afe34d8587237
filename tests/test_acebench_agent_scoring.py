"""ACEBench's agent categories: end-state and process scoring of result records, compat and strict."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from evaluators.acebench import read_jsonl, score_agent, score_directory
from scenarios.acebench.replay import diagnose
from scenarios.acebench.tasks import load_tasks
from scenarios.datasets import dataset_dir
from toolworlds.cli import app

ACE = dataset_dir("acebench")
needs_data = pytest.mark.skipif(ACE is None, reason="ACEBench data not found (../shared/datasets or TOOLWORLDS_DATA)")

PROMPTS = [{"id": "agent_multi_step_0"}, {"id": "agent_multi_step_1"}]
ANSWERS = [
    {"id": "agent_multi_step_0",
     "ground_truth": [{"MessageApi": {"inbox": {"1": {"text": "hi"}}}}, {"BaseApi": {"wifi": True}}],
     "mile_stone": ["[turn_on_wifi()]", "[send_message(text='hi')]"]},
    {"id": "agent_multi_step_1",
     "ground_truth": [{"ReminderAPI": {"reminders": {"1": {"title": "call mom"}}}}],
     "mile_stone": [["[a()]", "[b()]"], ["[c()]"]]},
]


def result(state: list[dict[str, Any]], process: list[str]) -> dict[str, Any]:
    return {"result": state, "process": process}


def test_matching_end_state_scores_and_gives_full_process_credit() -> None:
    # Dict attributes compare as expected-subset at their first level: other messages may exist.
    state = [{"MessageApi": {"inbox": {"1": {"text": "hi"}, "2": {"text": "other"}}}}, {"BaseApi": {"wifi": True}}]
    scored = score_agent(PROMPTS[:1], ANSWERS, {"agent_multi_step_0": result(state, [])}, "agent_multi_step")
    assert (scored.accuracy, scored.process, scored.total) == (1.0, 1.0, 1)
    assert scored.items == [{"id": "agent_multi_step_0", "valid": True, "error_type": "", "detail": ""}]


def test_wrong_end_state_fails_with_the_field_and_partial_process_credit() -> None:
    state = [{"MessageApi": {"inbox": {"1": {"text": "bye"}}}}, {"BaseApi": {"wifi": True}}]
    process = ["[turn_on_wifi()]", "[send_message(text='bye')]"]
    scored = score_agent(PROMPTS[:1], ANSWERS, {"agent_multi_step_0": result(state, process)}, "agent_multi_step")
    item = scored.items[0]
    assert (scored.accuracy, item["valid"], item["error_type"]) == (0.0, False, "end_state")
    assert "inbox" in item["detail"] and "bye" in item["detail"]
    assert scored.process == 0.5  # the first milestone matched, the second did not


def test_a_missing_result_and_a_class_count_mismatch_fail() -> None:
    one_class = [{"MessageApi": {"inbox": {"1": {"text": "hi"}}}}]
    scored = score_agent(PROMPTS, ANSWERS, {"agent_multi_step_0": result(one_class, [])}, "agent_multi_step")
    assert [(i["id"], i["error_type"]) for i in scored.items] == [
        ("agent_multi_step_0", "wrong number of class"), ("agent_multi_step_1", "missing_result")]
    assert (scored.accuracy, scored.process) == (0.0, 0.0)


def test_misspelled_expected_class_is_skipped_in_compat_and_compared_in_strict() -> None:
    # The expected state names "ReminderAPI"; the world's class is "ReminderApi".
    wrong = [{"ReminderApi": {"reminders": {"1": {"title": "buy milk"}}}}]
    results = {"agent_multi_step_1": result(wrong, [])}
    compat = score_agent(PROMPTS[1:], ANSWERS, results, "agent_multi_step", "compat")
    strict = score_agent(PROMPTS[1:], ANSWERS, results, "agent_multi_step", "strict")
    assert compat.accuracy == 1.0  # the reference never compares a class it cannot find by name
    assert strict.accuracy == 0.0 and strict.items[0]["error_type"] == "end_state"


def test_process_takes_the_best_alternative_path_and_strict_ignores_spelling() -> None:
    wrong = [{"ReminderApi": {"reminders": {"1": {"title": "buy milk"}}}}]
    both = {"agent_multi_step_1": result(wrong, ["[a()]", "[c()]"])}
    assert score_agent(PROMPTS[1:], ANSWERS, both, "agent_multi_step", "strict").process == 1.0  # path 2: [c()]
    unsent = [{"MessageApi": {"inbox": {}}}, {"BaseApi": {"wifi": True}}]
    spaced = {"agent_multi_step_0": result(unsent, ["[ turn_on_wifi( ) ]"])}
    assert score_agent(PROMPTS[:1], ANSWERS, spaced, "agent_multi_step", "compat").process == 0.0
    assert score_agent(PROMPTS[:1], ANSWERS, spaced, "agent_multi_step", "strict").process == 0.5


@needs_data
@pytest.mark.parametrize("category", ["multi_step", "multi_turn"])
def test_gold_path_results_score_what_replay_reproduces(tmp_path: Path, category: str) -> None:
    """Result files written from gold-path replays score exactly the tasks replay reproduces."""
    assert ACE is not None
    tasks = [t for t in load_tasks(ACE) if t.category == category]
    diagnoses = {t.id: diagnose(t) for t in tasks}
    lines = []
    for task in tasks:
        chosen = diagnoses[task.id].chosen
        path = task.paths[chosen.index] if chosen is not None else []
        state = chosen.end_state if chosen is not None else []
        lines.append(json.dumps({"id": task.id, "result": state, "process": path}, ensure_ascii=False))
    (tmp_path / f"data_agent_{category}_result.json").write_text("\n".join(lines) + "\n", encoding="utf-8")

    scored = score_directory(ACE / "data_en", tmp_path, "compat")[f"agent_{category}"]
    reproduced = {task_id for task_id, d in diagnoses.items() if d.reproduced}
    assert {i["id"] for i in scored.items if i["valid"]} == reproduced
    assert scored.total == len(tasks)
    assert scored.accuracy == round(len(reproduced) / len(tasks), 3)

    shown = CliRunner().invoke(app, ["score", "acebench", "--results", str(tmp_path)])
    assert shown.exit_code == 0, shown.output
    assert f"agent_{category}" in shown.output and "not scored" not in shown.output
    out = tmp_path / "strict.json"
    strict = CliRunner().invoke(app, ["score", "acebench", "--results", str(tmp_path), "--mode", "strict",
                                      "--json", str(out)])
    assert strict.exit_code == 0, strict.output
    payload = json.loads(out.read_text())
    assert "normal_atom_bool" in payload["missing"] and f"agent_{category}" not in payload["missing"]
    assert set(payload["summary"]) == {"agent", "overall"}  # only what was scored


def test_result_rows_that_are_not_objects_score_as_missing(tmp_path: Path) -> None:
    bad = tmp_path / "rows.json"
    bad.write_text('{"id": "a"}\n[1, 2]\nnot json\n', encoding="utf-8")
    assert read_jsonl(bad) == [{"id": "a"}, {}, {}]
