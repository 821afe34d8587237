"""The bundled banking tasks: current, reproducible, lint-clean, and covering what the issue asks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from scenarios.acebench.replay import diagnose
from scenarios.banking.authoring import DATA_DIR, TASKS, build
from scenarios.banking.family import load_tasks
from toolworlds.cli import app


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_committed_task_files_are_current(tmp_path: Path, lang: str) -> None:
    build(tmp_path)
    for generated in (tmp_path / f"data_{lang}").rglob("*.json"):
        committed = DATA_DIR / generated.relative_to(tmp_path)
        assert committed.read_text() == generated.read_text(), f"{committed} is stale: run the authoring module"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_task_reproduces(lang: str) -> None:
    tasks = load_tasks(lang)
    assert len(tasks) >= 30
    assert {t.category for t in tasks} == {"multi_step", "multi_turn"}
    for task in tasks:
        result = diagnose(task)
        assert result.reproduced, (task.id, result.reason)
        assert not result.chosen.repairs, (task.id, result.chosen.repairs)


def test_tasks_cover_preconditions_refusals_and_combinations() -> None:
    paths = [[name for message in spec.path for name, _ in message] for spec in TASKS]
    assert sum("turn_on_wifi" in p or "login_device" in p for p in paths) >= 4
    assert sum(len(set(spec.classes) - {"BaseApi", "Bank"}) > 0 for spec in TASKS) >= 4
    refusals = 0
    for lang in ("en", "zh"):
        for task in load_tasks(lang):
            world = task.world()
            for message in task.paths[0]:
                refusals += sum(not r.ok for r in world.execute(message)
                                if r.error is not None and r.error.type in
                                ("insufficient_funds", "limit_exceeded", "account_frozen", "locked"))
    assert refusals >= 8  # insufficient funds, limit exceeded and frozen accounts, in both languages


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_cli_replay_and_doctor_are_clean(lang: str) -> None:
    runner = CliRunner()
    replay = runner.invoke(app, ["replay", "banking", "--lang", lang])
    assert replay.exit_code == 0 and "reproduced 36/36 tasks" in replay.output
    doctor = runner.invoke(app, ["doctor", "banking", "--lang", lang])
    assert doctor.exit_code == 0, doctor.output
    assert "0 finding(s)" in doctor.output


def test_doctor_reports_a_bad_bank_state_and_lints_every_other_task(tmp_path: Path) -> None:
    """A task whose initial bank state its model refuses (or that is not an object, or names an unknown
    class) is one finding naming the task and the field; the other tasks are still replayed."""
    build(tmp_path)
    prompt_file = tmp_path / "data_en" / "data_agent_multi_step.json"
    tasks = [json.loads(line) for line in prompt_file.read_text().splitlines()]
    tasks[0]["initial_config"]["Bank"] = {"accounts": {"A001": {"account_id": "A001", "customer_id": "C001",
                                                                "kind": "checking", "balance": "lots",
                                                                "initial_balance": "1.00"}}}
    tasks[1]["initial_config"]["Bank"] = [1]
    tasks[2]["involved_classes"] = ["BaseApi", "Bnak"]
    prompt_file.write_text("".join(json.dumps(task, ensure_ascii=False) + "\n" for task in tasks))
    doctor = CliRunner().invoke(app, ["doctor", "banking", "--data", str(prompt_file.parent)], env={"COLUMNS": "200"})
    assert doctor.exit_code == 1, doctor.output
    assert f"{tasks[0]['id']}: initial state invalid: BankState accounts.A001.balance: Input should be a valid " \
           "decimal" in doctor.output
    assert f"{tasks[1]['id']}: initial state invalid: initial_config.Bank must be an object of bank fields, not a " \
           "value of type list" in doctor.output
    assert f"{tasks[2]['id']}: initial state invalid: unknown class 'Bnak'" in doctor.output
    assert "36 rows: 33 reproduce, 3 finding(s)" in doctor.output
