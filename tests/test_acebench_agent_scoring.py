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


@pytest.mark.parametrize("bad", [
    b'{"id": "b", "result": ' + b"1" * 5000 + b"}",  # past Python's integer digit limit: a plain ValueError
    b'{"id": "b", "result": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",  # past the parser's recursion
    b'{"id": "b", "result": "\xff"}',  # not UTF-8
], ids=["long-integer", "deep-nesting", "bad-utf8"])
def test_a_line_that_does_not_read_scores_as_missing_and_spares_the_others(tmp_path: Path, bad: bytes) -> None:
    rows = tmp_path / "rows.json"
    # U+2028 inside a string is valid JSON: it must not split its line either.
    rows.write_bytes(b'{"id": "a"}\n' + bad + b'\n{"id": "c", "result": "x\xe2\x80\xa8y"}\n')
    assert read_jsonl(rows) == [{"id": "a"}, {}, {"id": "c", "result": "x\u2028y"}]


@pytest.mark.parametrize("mode", ["compat", "strict"])
@pytest.mark.parametrize("process", [5, True, 1.5, 0, "[turn_on_wifi()]"])
def test_a_process_that_is_not_a_list_scores_its_item_zero_with_a_reason(process: Any, mode: str) -> None:
    right = [{"MessageApi": {"inbox": {"1": {"text": "hi"}}}}, {"BaseApi": {"wifi": True}}]
    results = {"agent_multi_step_0": {"result": right, "process": process},
               "agent_multi_step_1": result([], ["[a()]", "[b()]"])}
    scored = score_agent(PROMPTS, ANSWERS, results, "agent_multi_step", mode)  # type: ignore[arg-type]
    bad, other = scored.items
    assert (bad["valid"], bad["error_type"]) == (False, "malformed_process")
    assert type(process).__name__ in bad["detail"]
    assert other["error_type"] == "wrong number of class"  # the other item is still scored
    assert scored.process == 0.5  # 0 for the malformed item, 1.0 for the other's alternative [a(), b()]


def test_compat_end_state_fails_on_entries_that_are_not_objects_and_reads_a_repeated_class_first() -> None:
    right_base, wrong_base = {"BaseApi": {"wifi": True}}, {"BaseApi": {"wifi": False}}
    right = [{"MessageApi": {"inbox": {"1": {"text": "hi"}}}}, right_base]

    def verdict(state: list[Any], mode: str) -> dict[str, Any]:
        return score_agent(PROMPTS[:1], ANSWERS, {"agent_multi_step_0": result(state, [])}, "agent_multi_step",
                           mode).items[0]  # type: ignore[arg-type]

    for garbage in ([1, 2], ["x", None], [right[0], 7]):
        for mode in ("compat", "strict"):
            item = verdict(garbage, mode)
            assert (item["valid"], item["error_type"]) == (False, "end_state"), (garbage, mode)
        assert "non-object entry" in verdict(garbage, "compat")["detail"]
    # The reference compares the first entry of a class listed twice (its lookup stops at the first).
    assert not verdict([wrong_base, right_base], "compat")["valid"]
    assert verdict([right_base, wrong_base], "compat")["valid"]  # MessageApi absent: left uncompared
    assert not verdict([wrong_base, right_base], "strict")["valid"]  # strict as before: MessageApi is missing
    assert not verdict([right_base, wrong_base], "strict")["valid"]


@needs_data
def test_score_names_every_result_line_it_cannot_read_and_exits_non_zero(tmp_path: Path) -> None:
    """`score acebench --results DIR` over a file that is not JSON printed a table of 0.000, exit 0: each
    unreadable line is named by file and line and nothing is scored."""
    (tmp_path / "data_normal_atom_bool_result.json").write_text('not json\n{"id": "normal_atom_bool_0"}\n[1]\n')
    result = CliRunner().invoke(app, ["score", "acebench", "--results", str(tmp_path)], env={"COLUMNS": "300"})
    assert result.exit_code == 2, result.output
    said = " ".join(result.output.split())
    assert "2 result line(s) could not be read: data_normal_atom_bool_result.json:1: not valid JSON" in said
    assert "data_normal_atom_bool_result.json:3: not a JSON object" in said and "0.000" not in said


@needs_data
def test_score_shows_groups_without_result_files_as_absent(tmp_path: Path) -> None:
    """One category's results: the groups none of whose categories has a file print '-', not 0.000, and the
    compat overall says it counts them as 0, as the reference does."""
    rows = read_jsonl(ACE / "data_en" / "data_normal_atom_bool.json")
    (tmp_path / "data_normal_atom_bool_result.json").write_text(
        "".join(json.dumps({"id": row["id"], "result": "[x()]"}) + "\n" for row in rows))
    result = CliRunner().invoke(app, ["score", "acebench", "--results", str(tmp_path)], env={"COLUMNS": "300"})
    assert result.exit_code == 0, result.output
    cells = {line.split("│")[1].strip(): line.split("│")[2].strip() for line in result.output.splitlines()
             if line.count("│") >= 3}
    assert cells["atom"] == "0.000" and cells["special"] == "-" and cells["agent"] == "-"
    assert "groups without results count as 0" in result.output
