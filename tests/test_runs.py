"""Runs: the SQL store, resume, parallel workers, surviving SIGKILL, reports, PostgreSQL."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from scenarios.banking.family import load_tasks
from toolworlds.agents import Turn
from toolworlds.cli import app
from toolworlds.report_html import html_report
from toolworlds.runner import AgentSpec, ConfigMismatch, TaskSet, execute_run
from toolworlds.store import RunStore

from .browser import render

pytestmark = pytest.mark.long_running  # collected first: see tests/conftest.py

ROOT = Path(__file__).resolve().parents[1]


def task_sets(limit: int | None = None) -> list[TaskSet]:
    return [TaskSet("banking", lang, load_tasks(lang)[:limit])
            for lang in ("en", "zh")]


def scores(store: RunStore, run_id: str) -> dict[tuple[str, str, str], float]:
    return {(s.task_set, s.category, s.metric): s.value for s in store.scores(run_id)}


def test_a_run_stores_episodes_calls_and_scores(tmp_path: Path) -> None:
    store = RunStore(f"sqlite:///{tmp_path / 'runs.db'}")
    episodes = execute_run(store, "r1", task_sets(5), AgentSpec("noisy", noise=0.4, seed=2))
    assert len(episodes) == 10
    first = episodes[0]
    assert store.calls(first.id)[0].tool == "login_bank"  # type: ignore[arg-type]
    table = scores(store, "r1")
    assert table[("all", "all", "episodes")] == 10
    assert 0 <= table[("all", "all", "end_to_end")] < 1
    assert table[("banking/en", "multi_step", "process")] >= table[("banking/en", "multi_step", "end_to_end")]


def test_resume_skips_finished_episodes(tmp_path: Path) -> None:
    store = RunStore(f"sqlite:///{tmp_path / 'runs.db'}")
    execute_run(store, "r1", task_sets(3), AgentSpec())
    first_ids = [e.id for e in store.episodes("r1")]
    episodes = execute_run(store, "r1", task_sets(6), AgentSpec())
    assert len(episodes) == 12
    assert [e.id for e in episodes][:6] == first_ids  # the first six were not run again
    assert scores(store, "r1")[("all", "all", "end_to_end")] == 1.0


def test_two_workers_give_the_same_scores_as_one(tmp_path: Path) -> None:
    store = RunStore(f"sqlite:///{tmp_path / 'runs.db'}")
    spec = AgentSpec("noisy", noise=0.3, seed=7)
    execute_run(store, "one", task_sets(), spec, workers=1)
    execute_run(store, "two", task_sets(), spec, workers=2)
    assert scores(store, "one") == scores(store, "two")
    one = {(e.task_set, e.task_id): (e.success, e.process, e.diff) for e in store.episodes("one")}
    two = {(e.task_set, e.task_id): (e.success, e.process, e.diff) for e in store.episodes("two")}
    assert one == two


def test_a_run_killed_with_sigkill_loses_no_finished_episode(tmp_path: Path) -> None:
    database = tmp_path / "runs.db"
    command = [sys.executable, "-m", "toolworlds.cli", "run", "--db", f"sqlite:///{database}", "--run-id", "crash",
               "--pause", "0.05"]
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def stored() -> int:
        if not database.exists():
            return 0
        with sqlite3.connect(database) as connection:
            try:
                return connection.execute("select count(*) from episodes").fetchone()[0]
            except sqlite3.OperationalError:
                return 0

    deadline = time.time() + 60
    while stored() < 5 and time.time() < deadline:
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=10)
    survivors = stored()
    assert 5 <= survivors < 72, "the run should have been killed midway"
    with sqlite3.connect(database) as connection:
        before = connection.execute("select id, task_set, task_id from episodes order by id").fetchall()

    resumed = CliRunner().invoke(app, ["run", "--db", f"sqlite:///{database}", "--run-id", "crash", "--resume"])
    assert resumed.exit_code == 0, resumed.output
    with sqlite3.connect(database) as connection:
        after = connection.execute("select id, task_set, task_id from episodes order by id").fetchall()
        orphans = connection.execute(
            "select count(*) from calls where episode_id not in (select id from episodes)").fetchone()[0]
    assert after[:len(before)] == before  # finished episodes kept, untouched
    assert len(after) == 72 and len({(s, t) for _, s, t in after}) == 72
    assert orphans == 0
    assert "1.000" in resumed.output


def test_cli_run_and_report(tmp_path: Path) -> None:
    runner = CliRunner()
    url = f"sqlite:///{tmp_path / 'runs.db'}"
    result = runner.invoke(app, ["run", "--db", url, "--limit", "4", "--agent", "noisy", "--noise", "0.5"])
    assert result.exit_code == 0, result.output
    assert "run-1" in result.output and "banking/zh" in result.output
    again = runner.invoke(app, ["run", "--db", url, "--run-id", "run-1"])
    assert again.exit_code == 2 and "already exists" in again.output
    page = tmp_path / "report.html"
    shown = runner.invoke(app, ["report", "--db", url, "--html", str(page)])
    assert shown.exit_code == 0, shown.output
    text = page.read_text()
    assert text.count("data:image/png;base64,") == 2 and "<table>" in text
    assert "http" not in text.replace("http-equiv", "")  # self-contained: nothing fetched
    for bad in (["run", "--agent", "psychic"], ["run", "--tasks", "nope"], ["run", "--resume"],
                ["report", "--db", url, "--run-id", "nope"], ["run", "--agent", "llm"]):
        failed = runner.invoke(app, bad)
        assert failed.exit_code == 2 and failed.output.startswith("error:") and "Traceback" not in failed.output


def test_html_report_names_the_failed_episodes(tmp_path: Path) -> None:
    store = RunStore(f"sqlite:///{tmp_path / 'runs.db'}")
    execute_run(store, "r", task_sets(6), AgentSpec("noisy", noise=0.6, seed=1))
    page = html_report(store, "r")
    failed = [e.task_id for e in store.episodes("r") if not e.success]
    assert failed and all(task_id in page for task_id in failed)


# -- PostgreSQL -----------------------------------------------------------------------------------


def _pg_bin(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    for folder in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True):
        if (folder / name).exists():
            return str(folder / name)
    return None


@pytest.fixture
def postgres_url() -> Iterator[str]:
    pytest.importorskip("psycopg", reason="the postgres extra (psycopg) is not installed")
    initdb, pg_ctl = _pg_bin("initdb"), _pg_bin("pg_ctl")
    if not (initdb and pg_ctl):
        pytest.skip("no PostgreSQL server binaries (initdb, pg_ctl) on this machine")
    prefix: list[str] = []
    # Not pytest's tmp_path: the server user must be able to reach the folder.
    tmp_path = Path(tempfile.mkdtemp(prefix="toolworlds-pg-"))
    if os.geteuid() == 0:
        if shutil.which("runuser") is None:
            pytest.skip("running as root without runuser: PostgreSQL refuses to start as root")
        prefix = ["runuser", "-u", "postgres", "--"]
        tmp_path.chmod(0o777)
    data = tmp_path / "pgdata"
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    try:
        subprocess.run([*prefix, initdb, "-D", str(data), "-A", "trust", "-U", "postgres"], check=True,
                       capture_output=True, timeout=120)
        subprocess.run([*prefix, pg_ctl, "-D", str(data), "-w", "-l", str(tmp_path / "pg.log"), "-o",
                        f"-p {port} -k {tmp_path} -c listen_addresses=127.0.0.1", "start"], check=True,
                       capture_output=True, timeout=120)
    except subprocess.CalledProcessError as exc:
        pytest.skip(f"could not start a PostgreSQL server here: {exc.stderr.decode(errors='replace')[-300:]}")
    except (subprocess.TimeoutExpired, OSError) as exc:
        pytest.skip(f"could not start a PostgreSQL server here: {exc}")
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run([*prefix, pg_ctl, "-D", str(data), "-m", "immediate", "stop"], capture_output=True,
                       timeout=60)
        shutil.rmtree(tmp_path, ignore_errors=True)


def test_runs_work_on_postgresql(postgres_url: str) -> None:
    store = RunStore(postgres_url)
    execute_run(store, "pg", task_sets(3), AgentSpec("noisy", noise=0.3, seed=1))
    assert len(store.episodes("pg")) == 6
    execute_run(store, "pg", task_sets(4), AgentSpec("noisy", noise=0.3, seed=1))
    assert len(store.episodes("pg")) == 8
    sqlite = RunStore("sqlite://")
    execute_run(sqlite, "pg", task_sets(4), AgentSpec("noisy", noise=0.3, seed=1))
    assert scores(store, "pg") == scores(sqlite, "pg")
    # PostgreSQL's text holds neither NUL nor a lone surrogate: both are stored as their escapes.
    task = load_tasks("en")[0]
    odd = task.model_copy(update={"id": f"{task.id}\x00\ud800", "category": "multi\x00step"})
    (episode,) = execute_run(store, "odd", [TaskSet("banking", "en", [odd])], AgentSpec())
    assert (episode.task_id, episode.category) == (f"{task.id}\\x00\\ud800", "multi\\x00step")
    assert episode.success and episode.error is None
    # A token count past PostgreSQL's integers (a `DataError` there) fails only its own episode.
    huge = execute_run(store, "huge", task_sets(2), AgentSpec("tests.test_runs:HugeUsage"))
    assert sorted(e.task_id for e in huge if e.error) == ["banking_multi_step_0", "banking_multi_step_0"]
    store.close()


def test_html_report_renders_in_headless_chromium(tmp_path: Path) -> None:
    store = RunStore(f"sqlite:///{tmp_path / 'runs.db'}")
    execute_run(store, "r", task_sets(4), AgentSpec("noisy", noise=0.5, seed=3))
    page = tmp_path / "report.html"
    page.write_text(html_report(store, "r"))
    shot = tmp_path / "report.png"
    dom = render(page, shot, "1000,1400")
    assert shot.stat().st_size > 30_000  # a page with two plots, not a blank one
    assert dom.count("<img") == 2 and "End-to-end accuracy per category" in dom


def test_the_html_report_stays_readable_at_21_categories_and_two_runs(tmp_path: Path) -> None:
    """Twenty-one categories by two runs drew bars about 3 px wide with labels to match, and a category a run
    lacked as a 0.00 bar. Now one row per category: the plot grows with them (each run's bar at least 20 px
    high at the size the browser shows it), and an absent category is absent: '-' in the table, no bar."""
    import base64
    import datetime as dt
    import io
    import re

    from toolworlds.store import EpisodeRow

    pyplot = pytest.importorskip("matplotlib.pyplot", reason="HTML reports need matplotlib")
    store = RunStore(f"sqlite:///{tmp_path / 'runs.db'}")
    categories = [f"category_{n:02d}" for n in range(21)]
    for run, skipped in (("model-a", ""), ("model-b", "category_20")):
        store.start_run(run, f"llm({run})", {})
        for number, category in enumerate(categories):
            if category == skipped:
                continue
            solved = (number + len(run)) % 3 != 0
            store.save_episode(EpisodeRow(
                run_id=run, task_set="acebench/en", task_id=f"{category}_0", category=category, success=solved,
                state_fraction=1.0, process=1.0, steps=1, calls=1, errors=0, finished=True, trial=0,
                finished_at=dt.datetime(2026, 1, 1, tzinfo=dt.UTC)), [])
    page = tmp_path / "report.html"
    page.write_text(html_report(store, ["model-a", "model-b"]))
    dom = render(page, tmp_path / "report.png", "1400,2400")
    assert dom.count("<img") == 2 and "End-to-end accuracy per category" in dom
    row = re.search(r"<tr><td>acebench/en</td><td>category_20</td>(.*?)</tr>", dom)
    assert row is not None and row.group(1).endswith("<td>-</td><td>-</td>"), row
    plot = re.findall(r'src="data:image/png;base64,([^"]+)"', page.read_text())[0]
    image = pyplot.imread(io.BytesIO(base64.b64decode(plot)), format="png")
    height, width = image.shape[:2]
    shown = min(1.0, (1400 - 64) / width)  # img max-width: 100% of the body, inside its 2rem margins
    assert height * shown / (len(categories) * 2) >= 20, (height, width)


def test_generated_run_ids_never_reuse_a_taken_name(tmp_path: Path) -> None:
    store = RunStore(f"sqlite:///{tmp_path / 'runs.db'}")
    store.start_run("run-2", "oracle", {})
    assert store.new_run_id() == "run-3"
    store.start_run("run-3", "oracle", {})
    store.start_run("mine", "oracle", {})
    assert store.new_run_id() == "run-4"


def test_a_database_from_before_the_error_column_opens_and_resumes(tmp_path: Path) -> None:
    database = tmp_path / "old.db"
    store = RunStore(f"sqlite:///{database}")
    execute_run(store, "old", task_sets(2), AgentSpec())
    store.close()
    with sqlite3.connect(database) as connection:  # the schema an older release wrote
        connection.execute("alter table episodes drop column error")
        assert "error" not in [row[1] for row in connection.execute("pragma table_info(episodes)")]
    reopened = RunStore(f"sqlite:///{database}")
    with sqlite3.connect(database) as connection:
        assert "error" in [row[1] for row in connection.execute("pragma table_info(episodes)")]
    episodes = execute_run(reopened, "old", task_sets(3), AgentSpec())
    assert len(episodes) == 6 and all(e.error is None for e in episodes)
    assert scores(reopened, "old")[("all", "all", "failed")] == 0


class HugeUsage:
    """An agent (`tests.test_runs:HugeUsage`) whose reply on each `..._0` task reports 10**20 prompt tokens."""

    def __init__(self, task: Any) -> None:
        self.huge = task.id.endswith("_0")

    def act(self, conversation: Any, tools: Any) -> Turn:
        return Turn(text="Done.", usage={"prompt_tokens": 10 ** 20 if self.huge else 12})


def test_a_value_the_database_refuses_fails_only_its_own_episode(tmp_path: Path) -> None:
    """A token count past SQLite's 64-bit integers stopped the whole run (`OverflowError`) and every resume
    of it; now that episode is stored as failed, saying why, and the others are stored as they ran."""
    store = RunStore(f"sqlite:///{tmp_path / 'runs.db'}")
    episodes = execute_run(store, "r", task_sets(2), AgentSpec("tests.test_runs:HugeUsage"))
    assert len(episodes) == 4
    refused = [e for e in episodes if e.error]
    assert sorted(e.task_id for e in refused) == ["banking_multi_step_0", "banking_multi_step_0"]
    assert all(e.error.startswith("store: its record holds a value the database refuses (OverflowError")
               for e in refused)
    assert all(store.messages(e.id) for e in episodes if not e.error)


def test_failed_episodes_are_kept_on_resume_and_replaced_on_retry(tmp_path: Path) -> None:
    store = RunStore(f"sqlite:///{tmp_path / 'runs.db'}")
    broken = AgentSpec("llm", model="m", base_url="http://127.0.0.1:9/v1", timeout=0.2, retries=0)
    first = execute_run(store, "r", task_sets(2), broken)
    assert len(first) == 4 and all(e.error and "EndpointError" in e.error for e in first)
    assert store.failed("r") == {(e.task_set, e.task_id, 0) for e in first}
    # Another agent: refused unless forced (and then recorded); new tasks run, failed ones stay as they are.
    with pytest.raises(ConfigMismatch, match="kind: stored \"llm\", given \"oracle\""):
        execute_run(store, "r", task_sets(3), AgentSpec())
    resumed = execute_run(store, "r", task_sets(3), AgentSpec(), force=True)
    run = store.run("r")
    assert run is not None and "kind: stored" in json.loads(run.config)["forced"][0]["differences"][0]
    assert [(e.id, e.error) for e in resumed[:4]] == [(e.id, e.error) for e in first]
    assert sum(e.error is None for e in resumed) == 2
    retried = execute_run(store, "r", task_sets(3), AgentSpec(), retry_failed=True, force=True)
    assert len(retried) == 6 and all(e.error is None for e in retried) and store.failed("r") == set()
    with sqlite3.connect(tmp_path / "runs.db") as connection:
        orphans = connection.execute(
            "select count(*) from calls where episode_id not in (select id from episodes)").fetchone()[0]
    assert orphans == 0
    refused = CliRunner().invoke(app, ["run", "--db", f"sqlite:///{tmp_path / 'runs.db'}", "--run-id", "r",
                                       "--retry-failed"])
    assert refused.exit_code == 2 and "--resume" in refused.output
