"""The toolworlds command line, driven in-process."""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from toolworlds.cli import app

runner = CliRunner()


def test_worlds_lists_the_bundled_families() -> None:
    result = runner.invoke(app, ["worlds"])
    assert result.exit_code == 0
    assert "todo" in result.stdout and "Todo" in result.stdout


def test_tools_exports_each_format() -> None:
    for fmt, key in (("openai", "function"), ("anthropic", "input_schema"), ("acebench", "parameters")):
        result = runner.invoke(app, ["tools", "todo", "--format", fmt])
        assert result.exit_code == 0, result.output
        assert key in json.loads(result.stdout)[0]


def test_execute_runs_messages_and_prints_json() -> None:
    result = runner.invoke(app, ["execute", "todo", "[add_task(title='milk')]", "[complete_task(task_id=1)]",
                                 "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [r["tool"] for r in data["log"]] == ["add_task", "complete_task"]
    assert data["state"]["Todo"]["tasks"][0]["status"] == "done"


def test_errors_are_one_line_without_traceback() -> None:
    for args in (["tools", "nope"], ["tools", "todo", "--format", "yaml"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 2
        assert "Traceback" not in result.output
        assert result.output.strip().startswith("error:")


def test_error_text_is_printed_as_written_not_as_markup(monkeypatch: Any, tmp_path: Path) -> None:
    result = runner.invoke(app, ["run", "--tasks", "x[bold]y"])
    assert result.exit_code == 2 and "'x[bold]y'" in result.output
    from toolworlds import report_html

    def no_matplotlib() -> Any:
        raise RuntimeError('HTML reports need matplotlib: pip install -e ".[report]" in the toolworlds checkout')

    url = f"sqlite:///{tmp_path / 'runs.db'}"
    assert runner.invoke(app, ["run", "--db", url, "--limit", "1", "--lang", "en"]).exit_code == 0
    monkeypatch.setattr(report_html, "pyplot", no_matplotlib)
    failed = runner.invoke(app, ["report", "--db", url, "--html", str(tmp_path / "r.html")])
    assert failed.exit_code == 2 and 'pip install -e ".[report]" in the toolworlds checkout' in failed.output


def test_the_replay_table_prints_its_texts_as_written(monkeypatch: Any) -> None:
    """A replay report is data: brackets and colons in its title, headers, cells or summary (a task file's
    path, a model's message) are printed as they are, never read as rich markup or emoji codes."""
    import toolworlds.cli.worlds as cli
    from scenarios.family import ReplayReport

    report = ReplayReport(title="x[bold]y :smile: replay", columns=("task", "[red]why[/red]"),
                          rows=[("t:thumbs_up:1", "[i]z[/i]")], ok=[False], summary="reproduced 0/1 [b]:+1:")
    monkeypatch.setattr(cli, "_replay_report", lambda *args: report)
    result = runner.invoke(app, ["replay", "acebench"], terminal_width=200)
    assert result.exit_code == 0, result.output
    for text in ("x[bold]y :smile: replay", "[red]why[/red]", "t:thumbs_up:1", "[i]z[/i]", "reproduced 0/1 [b]:+1:"):
        assert text in result.output, text


def test_a_replay_pauses_the_cycle_collector_and_gives_it_back(monkeypatch: Any) -> None:
    """`replay` runs with the cycle collector off (bounded work, no cyclic garbage to free) and leaves it as it
    found it, on or off, whether the replay ends well or fails."""
    import gc

    import toolworlds.cli.worlds as cli
    from scenarios.family import ReplayReport

    seen: list[bool] = []

    def report(*args: Any) -> ReplayReport:
        seen.append(gc.isenabled())
        return ReplayReport(title="t", columns=("task",), rows=[("a",)], ok=[True], summary="reproduced 1/1")

    def failing(*args: Any) -> ReplayReport:
        seen.append(gc.isenabled())
        raise cli.fail("no such data")

    enabled = gc.isenabled()
    try:
        for replay, code in ((report, 0), (failing, 2)):
            for collector_on in (True, False):
                (gc.enable if collector_on else gc.disable)()
                monkeypatch.setattr(cli, "_replay_report", replay)
                assert runner.invoke(app, ["replay", "acebench"]).exit_code == code
                assert gc.isenabled() is collector_on
    finally:
        (gc.enable if enabled else gc.disable)()
    assert seen == [False] * 4


def test_a_database_url_is_never_printed_with_its_password() -> None:
    for command in ("run", "report"):
        result = runner.invoke(app, [command, "--db", "postgresql+psycopg://me:s3cret-pw@127.0.0.1:1/runs"])
        assert result.exit_code == 2 and "cannot open the run store" in result.output
        assert "s3cret-pw" not in result.output and "me:***@127.0.0.1" in result.output


def test_progress_is_a_line_per_episode_off_a_terminal_and_lang_takes_several_words(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'runs.db'}"
    result = runner.invoke(app, ["run", "--db", url, "--limit", "2", "--lang", "en", "zh", "--run-id", "p"])
    assert result.exit_code == 0, result.output
    assert "p [1/4] banking/en" in result.output and "p [4/4] banking/zh" in result.output
    same = runner.invoke(app, ["run", "--db", url, "--limit", "2", "--lang", "en,zh", "--run-id", "p", "--resume"])
    assert same.exit_code == 0, same.output  # the same languages, written the other way
    stray = runner.invoke(app, ["run", "--db", url, "--limit", "2", "stray-argument"])
    assert stray.exit_code == 2 and "unexpected argument" in stray.output


def test_a_run_that_stopped_before_its_summary_is_reported_with_the_command_that_continues_it(
        tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'runs.db'}"
    assert runner.invoke(app, ["run", "--db", url, "--limit", "2", "--lang", "en", "--agent", "noisy",
                               "--run-id", "cut"]).exit_code == 0
    with sqlite3.connect(tmp_path / "runs.db") as connection:  # as a run killed before it summarized leaves it
        connection.execute("delete from scores")
    shown = runner.invoke(app, ["report", "--db", url])
    assert shown.exit_code == 0, shown.output
    assert "run cut did not finish: 2 episodes stored" in shown.output
    assert "--run-id cut --resume --tasks banking --lang en --agent noisy" in shown.output
    assert "cut: noisy" in shown.output and "1.000" in shown.output  # scored from the episodes it stored


def test_a_resume_names_a_stored_run_and_may_list_its_languages_in_any_order(tmp_path: Path) -> None:
    """`--resume` with a mistyped id started a new run (and re-ran, and re-paid for, everything); the same
    languages in another order were refused as another configuration."""
    url = f"sqlite:///{tmp_path / 'runs.db'}"
    made = runner.invoke(app, ["run", "--db", url, "--limit", "1", "--lang", "en", "--lang", "zh", "--run-id", "real"])
    assert made.exit_code == 0, made.output
    typo = runner.invoke(app, ["run", "--db", url, "--limit", "1", "--run-id", "raal", "--resume"])
    assert typo.exit_code == 2 and "no run 'raal'" in typo.output and "runs there: real" in typo.output
    with sqlite3.connect(tmp_path / "runs.db") as connection:
        assert connection.execute("select run_id from runs").fetchall() == [("real",)]
    swapped = runner.invoke(app, ["run", "--db", url, "--limit", "1", "--lang", "zh", "--lang", "en", "--run-id",
                                  "real", "--resume"])
    assert swapped.exit_code == 0, swapped.output


def test_numeric_options_must_be_finite_numbers_in_range(tmp_path: Path) -> None:
    """NaN passes click's range checks and never equals itself, so a NaN noise made a run no resume could
    match; an infinite temperature or timeout failed every episode with a reason blaming the endpoint."""
    url = f"sqlite:///{tmp_path / 'runs.db'}"
    for option, value in (("--noise", "nan"), ("--noise", "2"), ("--noise", "-1"), ("--temperature", "inf"),
                          ("--temperature", "nan"), ("--timeout", "inf")):
        result = runner.invoke(app, ["run", "--db", url, "--limit", "1", "--agent", "noisy", option, value])
        assert result.exit_code == 2, (option, value, result.output)
    assert not (tmp_path / "runs.db").exists() or sqlite3.connect(tmp_path / "runs.db").execute(
        "select count(*) from runs").fetchone() == (0,)


def test_tables_are_printed_whole_when_the_output_is_not_a_terminal(tmp_path: Path) -> None:
    """`toolworlds run | cat`: without COLUMNS, the 9-column table keeps every header and row on one
    line (it wrapped at 80 columns, `categor y`); with COLUMNS set, that width is honoured."""
    url = f"sqlite:///{tmp_path / 'piped.db'}"
    piped = runner.invoke(app, ["run", "--db", url, "--limit", "1", "--lang", "en"], env={"COLUMNS": None})
    assert piped.exit_code == 0, piped.output
    header = next(line for line in piped.stdout.splitlines() if "task set" in line)
    for column in ("category", "end-to-end", "w/o defects", "process", "steps", "errors", "failed"):
        assert column in header, header
    narrow = runner.invoke(app, ["report", "--db", url], env={"COLUMNS": "60"})
    assert narrow.exit_code == 0 and max(map(len, narrow.stdout.splitlines())) <= 60


def test_newcomer_papercuts_are_answered_in_one_line(tmp_path: Path) -> None:
    """A path where a URL belongs, a read of a database that is not there (no file left behind), a
    misspelled family, --limit across two task sets, and no resume hint after a finished run."""
    path_db = runner.invoke(app, ["report", "--db", "scratch.db"])
    assert path_db.exit_code == 2 and "for a SQLite file write sqlite:///scratch.db" in path_db.output
    missing = tmp_path / "missing.db"
    for command in (["report"], ["show", "run-1", "1"], ["export", "run-1"]):
        read = runner.invoke(app, [*command, "--db", f"sqlite:///{missing}"])
        assert read.exit_code == 2 and f"no run store at {missing}" in read.output, read.output
    assert not missing.exists()
    typo = runner.invoke(app, ["run", "--tasks", "acebnch"])
    assert typo.exit_code == 2 and "did you mean 'acebench'?" in typo.output
    done = runner.invoke(app, ["run", "--db", f"sqlite:///{tmp_path / 'r.db'}", "--limit", "1"], env={"COLUMNS": "300"})
    assert done.exit_code == 0, done.output
    assert "--limit 1 applies to each of the 2 task sets (banking/en, banking/zh)" in done.output
    assert "continue this run" not in done.output and "--resume" not in done.output


def test_a_run_in_which_every_episode_failed_exits_1(tmp_path: Path) -> None:
    """An endpoint nobody serves fails every episode: the run is stored, the reasons printed, exit 1."""
    result = runner.invoke(app, ["run", "--db", f"sqlite:///{tmp_path / 'r.db'}", "--limit", "1", "--lang", "en",
                                 "--agent", "llm", "--model", "m", "--base-url", "http://127.0.0.1:9/v1",
                                 "--retries", "0", "--timeout", "2"], env={"COLUMNS": "300", "OPENAI_API_KEY": "x"})
    assert result.exit_code == 1, result.output
    assert "every episode failed" in result.output and "1 episodes stored, 1 failed" in result.output


def test_a_missing_openai_package_is_refused_before_any_run_is_stored(tmp_path: Path,
                                                                      monkeypatch: Any) -> None:
    monkeypatch.setitem(sys.modules, "openai", None)  # what find_spec reports for an absent package
    db = tmp_path / "r.db"
    result = runner.invoke(app, ["run", "--db", f"sqlite:///{db}", "--agent", "llm", "--model", "m",
                                 "--base-url", "http://127.0.0.1:9/v1"])
    assert result.exit_code == 2 and 'need the openai package: pip install -e ".[llm]"' in result.output
    assert not db.exists()


def test_report_formats_for_scripts_agree_with_the_stored_scores(tmp_path: Path) -> None:
    """`report --format json|csv|md`: one row per run, task set and category plus the overall row, with
    tasks and episodes counted apart, a 95% interval, and pass^1..k over the run's trials."""
    import csv
    import io

    url = f"sqlite:///{tmp_path / 'r.db'}"
    ran = runner.invoke(app, ["run", "--db", url, "--agent", "noisy", "--noise", "0.4", "--trials", "3",
                              "--limit", "4", "--lang", "en"])
    assert ran.exit_code == 0, ran.output
    as_json = runner.invoke(app, ["report", "--db", url, "--format", "json"])
    assert as_json.exit_code == 0, as_json.output
    rows = json.loads(as_json.stdout)
    overall = rows[-1]
    assert (overall["task_set"], overall["category"], overall["tasks"], overall["episodes"]) == ("all", "all", 4, 12)
    assert list(overall["pass_hat"]) == ["1", "2", "3"]
    assert overall["pass_hat"]["1"] == overall["end_to_end"]
    assert overall["pass_hat"]["3"] <= overall["pass_hat"]["2"] <= overall["pass_hat"]["1"]
    assert overall["ci_low"] <= overall["end_to_end"] <= overall["ci_high"]
    table = runner.invoke(app, ["report", "--db", url], env={"COLUMNS": "300"})
    assert f"{overall['end_to_end']:.3f}" in next(line for line in table.stdout.splitlines() if "│ all" in line)
    as_csv = list(csv.DictReader(io.StringIO(runner.invoke(app, ["report", "--db", url, "--format", "csv"]).stdout)))
    assert len(as_csv) == len(rows) and as_csv[-1]["pass^3"] == str(overall["pass_hat"]["3"])
    as_md = runner.invoke(app, ["report", "--db", url, "--format", "md"]).stdout.splitlines()
    assert len(as_md) == len(rows) + 2 and as_md[0].startswith("| run | agent |")
    assert runner.invoke(app, ["report", "--db", url, "--format", "xml"]).exit_code == 2
