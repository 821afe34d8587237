"""Replay and doctor against the real ACEBench data (skipped when it is not on this machine)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from scenarios.acebench.replay import diagnose
from scenarios.acebench.tasks import load_tasks, read_tasks
from scenarios.datasets import dataset_dir
from toolworlds.cli import app

DATA = dataset_dir("acebench")
pytestmark = pytest.mark.skipif(DATA is None, reason="ACEBench data not found (../shared/datasets or TOOLWORLDS_DATA)")

# The gold paths that cannot reproduce their ground truth, and the defect each one has.
DEFECTS = {
    "agent_multi_step_0": "unknown product 'Super Supreme'",
    "agent_multi_step_1": "unknown product 'Super Supreme'",
    "agent_multi_step_12": "Helen is not logged in to the food platform",
    "agent_multi_step_13": "Helen is not logged in to the food platform",
    "agent_multi_step_14": "ground truth contradicts its own path",
    "agent_multi_step_15": "ground truth contradicts its own path",
    "agent_multi_step_16": "the device is logged out",
    "agent_multi_step_17": "ground truth contradicts its own path",
    "agent_multi_turn_6": "the device is logged out",
}


@pytest.fixture(scope="module")
def diagnoses() -> dict:
    return {task.id: diagnose(task) for task in load_tasks(DATA)}


def test_loader_reads_every_agent_task() -> None:
    tasks = load_tasks(DATA)
    assert len(tasks) == 50
    assert sum(t.category == "multi_step" for t in tasks) == 20
    step6 = next(t for t in tasks if t.id == "agent_multi_step_6")
    assert len(step6.paths) == 2 and step6.functions[0]["name"] == "turn_on_wifi"


def test_at_least_41_tasks_reproduce_and_the_rest_are_explained(diagnoses: dict) -> None:
    reproduced = {task_id for task_id, d in diagnoses.items() if d.reproduced}
    assert len(reproduced) >= 41
    failing = set(diagnoses) - reproduced
    assert failing <= set(DEFECTS)
    for task_id in failing:
        assert DEFECTS[task_id] in diagnoses[task_id].reason, (task_id, diagnoses[task_id].reason)


def test_repairs_and_misspelled_classes_are_reported(diagnoses: dict) -> None:
    assert any("apostrophe" in r for r in diagnoses["agent_multi_turn_8"].chosen.repairs)
    assert any("trailing whitespace" in r for r in diagnoses["agent_multi_step_6"].chosen.repairs)
    assert any("'Reminderpi' is misspelled" in r for r in diagnoses["agent_multi_turn_7"].chosen.repairs)
    assert diagnoses["agent_multi_step_6"].path == 0


def test_replay_cli_writes_one_object_per_task(tmp_path: Path) -> None:
    out = tmp_path / "replay.json"
    result = CliRunner().invoke(app, ["replay", "acebench", "--data", str(DATA), "--json", str(out)])
    assert result.exit_code == 0, result.output
    rows = json.loads(out.read_text())
    assert len(rows) == 50
    assert set(rows[0]) >= {"id", "reproduced", "path", "diff", "reason"}
    assert sum(r["reproduced"] for r in rows) >= 41
    failed = next(r for r in rows if r["id"] == "agent_multi_step_14")
    assert any(d["path"].startswith("MessageApi.inbox") for d in failed["diff"])


def test_doctor_names_each_defect_and_exits_nonzero() -> None:
    result = CliRunner().invoke(app, ["doctor", "acebench", "--data", str(DATA)])
    assert result.exit_code == 1
    for task_id in DEFECTS:
        assert f"{task_id}:" in result.output


def test_doctor_lints_a_broken_file(tmp_path: Path) -> None:
    prompts = tmp_path / "data_agent_multi_step.json"
    answers = tmp_path / "possible_answer" / "data_agent_multi_step.json"
    answers.parent.mkdir()
    task = {"id": "t1", "question": "q", "initial_config": {"BaseApi": {"wifi": False}},
            "involved_classes": ["BaseApi", "MessageApi"], "function": []}
    prompts.write_text(json.dumps(task) + "\n{not json\n")
    answers.write_text(json.dumps({"id": "t1", "ground_truth": [{"MessageApi": {"inbox": {"7": {"message": "x"}}}}],
                                   "mile_stone": ["[send_message(sender_name='Eve', receiver_name='Frank', "
                                                  "message='x')]", "[oops(]"]}) + "\n")
    loaded = read_tasks(prompts)
    assert loaded.problems == ["data_agent_multi_step.json:2: not valid JSON (Expecting property name enclosed in "
                               "double quotes)"]
    result = CliRunner().invoke(app, ["doctor", "acebench", "--data", str(prompts)])
    assert result.exit_code == 1
    assert "not valid JSON" in result.output
    assert "milestone 2 is unparseable" in result.output
    assert "Wi-Fi is off" in result.output


def test_every_advertised_tool_exists_with_the_same_parameters() -> None:
    from scenarios.acebench import ALL_CLASSES, acebench_world

    world = acebench_world(ALL_CLASSES)
    ours = {tool["name"]: tool["parameters"] for tool in world.schemas("acebench")}
    for task in load_tasks(DATA):
        for advertised in task.functions:
            name = advertised["name"]
            assert name in ours, name
            assert set(advertised["parameters"]["properties"]) == set(ours[name]["properties"]), name
            required = set(advertised["parameters"].get("required", []))
            required.discard("payment_methods")  # a typo in the dataset's reserve_flight schema
            if name == "reserve_flight":
                required.add("payment_method")
            assert required == set(ours[name]["required"]), name


def _same_json(value: object, read_back: object) -> bool:
    """Equal with the same types throughout (1, 1.0 and True are told apart) and keys in the same order."""
    if type(value) is not type(read_back):
        return False
    if isinstance(value, dict):
        assert isinstance(read_back, dict)
        return list(value) == list(read_back) and all(_same_json(value[k], read_back[k]) for k in value)
    if isinstance(value, list):
        assert isinstance(read_back, list)
        return len(value) == len(read_back) and all(_same_json(a, b) for a, b in zip(value, read_back, strict=True))
    return value == read_back


def test_an_end_state_is_what_reading_its_result_file_back_gives() -> None:
    """`AceTask.end_state` skips the JSON round trip of a result file: for every task, before and after its
    gold path, the state is already exactly what writing it as JSON and reading it back gives."""
    for task in load_tasks(DATA):
        world = task.world()
        for message in [None, *task.paths[0]]:
            if message is not None:
                world.execute(message)
            state = task.end_state(world)
            assert _same_json(state, json.loads(json.dumps(state, ensure_ascii=False))), task.id
    # Fresh for each caller: changing one does not reach the world, nor the next caller's.
    state, before = task.end_state(world), json.dumps(task.end_state(world))
    for entry in state:
        for saved in entry.values():
            for value in saved.values():
                if isinstance(value, (dict, list)):
                    value.clear()
    assert json.dumps(task.end_state(world)) == before
