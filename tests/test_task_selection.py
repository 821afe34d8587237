"""Which episodes a command means: `run --task-ids` refuses ids that would not run, naming them, and
`show RUN TASK_ID` finds every stored episode by its task id, `#` in the id or not."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from scenarios.banking.family import load_tasks
from scenarios.datasets import dataset_dir
from toolworlds.cli import app
from toolworlds.store import RunStore

TASKS = load_tasks("en")
APIBANK = dataset_dir("api-bank")


def _run(db: str, *options: str) -> tuple[int, str]:
    outcome = CliRunner().invoke(app, ["run", "--db", db, "--run-id", "r", *options], env={"COLUMNS": "200"})
    return outcome.exit_code, outcome.output


def test_an_unknown_task_id_is_refused_by_name_with_the_closest_ids(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    known = TASKS[0].id
    code, output = _run(db, "--lang", "en", "--task-ids", f"{known},{known}x,nothing_like_it")
    assert code == 2 and "Traceback" not in output
    assert f"'{known}x' (closest: {known}" in output and "'nothing_like_it'" in output
    assert f"'{known}'" not in output.split("id(s)")[1].split("(closest")[0]  # the known one is not named
    assert RunStore(db).run("r") is None  # nothing ran


def test_a_task_id_left_out_by_another_filter_is_refused_and_one_in_any_language_counts(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    step = next(t for t in TASKS if t.category == "multi_step")
    turn = next(t for t in TASKS if t.category == "multi_turn")
    code, output = _run(db, "--lang", "en", "--task-ids", f"{step.id},{turn.id}", "--categories", "multi_step")
    assert code == 2 and f"'{turn.id}' left out by the other filters" in output
    code, output = _run(db, "--task-ids", step.id)  # en and zh both hold it: both run
    assert code == 0, output
    assert {e.task_set for e in RunStore(db).episodes("r")} == {"banking/en", "banking/zh"}


def test_show_finds_an_episode_by_task_id_set_and_trial(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    task = TASKS[0]
    assert _run(db, "--lang", "en", "--task-ids", task.id, "--trials", "2")[0] == 0
    for which, trial in ((f"{task.id}#1", 1), (f"banking/en:{task.id}#0", 0)):
        shown = CliRunner().invoke(app, ["show", "r", which, "--db", db])
        assert shown.exit_code == 0 and f"trial {trial}" in shown.output, shown.output
    both = CliRunner().invoke(app, ["show", "r", task.id, "--db", db])
    assert both.exit_code == 2 and f"banking/en:{task.id}#1" in both.output


@pytest.mark.skipif(APIBANK is None, reason="API-Bank data not found (../shared/datasets or TOOLWORLDS_DATA)")
def test_show_finds_api_bank_episodes_whose_ids_hold_a_hash(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    code, output = _run(db, "--tasks", "apibank", "--data", str(APIBANK), "--level", "1", "--limit", "2",
                        "--results", str(tmp_path / "results"), "--trials", "2")
    assert code == 0, output
    episodes = RunStore(db).episodes("r")
    assert episodes and all("#" in e.task_id for e in episodes)
    for episode in episodes:
        for which in (f"{episode.task_id}#{episode.trial}", f"apibank/en:{episode.task_id}#{episode.trial}",
                      str(episode.id)):
            shown = CliRunner().invoke(app, ["show", "r", which, "--db", db])
            assert shown.exit_code == 0, shown.output
            assert f"{episode.task_id} trial {episode.trial} " in shown.output
            assert f"episode {episode.id}" in shown.output
    first = episodes[0]
    ambiguous = CliRunner().invoke(app, ["show", "r", first.task_id, "--db", db])
    assert ambiguous.exit_code == 2 and f"{first.task_id}#0" in ambiguous.output
    code, output = _run(f"sqlite:///{tmp_path / 'other.db'}", "--tasks", "apibank", "--data", str(APIBANK),
                        "--task-ids", f"{first.task_id},{first.task_id.replace('#', '#x')}")
    assert code == 2 and f"'{first.task_id.replace('#', '#x')}'" in output and "closest" in output
