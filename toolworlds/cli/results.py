"""Commands over stored runs and result files: report, rescore, show, export, score."""

import json
import shlex
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from .resume import resume_command
from .shared import app, console, escape, fail, said
from .stores import open_store, shown_url


@app.command()
def report(
    db: Annotated[str, typer.Option(help="SQLAlchemy URL of the run store.")] = "sqlite:///toolworlds.db",
    run_id: Annotated[list[str] | None, typer.Option("--run-id", help="A run to show; repeat to compare several "
                                                     "(default: every run).")] = None,
    html_path: Annotated[Path | None, typer.Option("--html", help="Write a self-contained HTML page comparing the "
                                                   "runs, with every episode's transcript, calls and diff.")] = None,
    output_format: Annotated[str, typer.Option("--format", help="table (for people), or json, csv or md: one row "
                                               "per run, task set and category, with 95% intervals and pass^1..k, "
                                               "on stdout for scripts.")] = "table",
) -> None:
    """Show stored runs as score tables, or write them as one HTML page, side by side."""
    from ..report import score_table
    from ..runner import summarize_run

    if output_format not in ("table", "json", "csv", "md"):
        raise fail(f"unknown format {output_format!r}; use table, json, csv or md")
    store = open_store(db, existing=True)
    runs = [r.run_id for r in store.runs()] if not run_id else list(dict.fromkeys(run_id))
    if not runs:
        raise fail(f"no runs in {shown_url(db)}")
    if output_format != "table":
        from ..score_rows import render, score_rows

        missing = [name for name in runs if store.run(name) is None]
        if missing:
            raise fail(f"no run {missing[0]!r} in {shown_url(db)}")
        # Plain text on stdout: a script's input is never wrapped, styled or escaped by the console.
        sys.stdout.write(render(score_rows(store, runs), output_format))
        store.close()
        return
    for name in runs:
        stored = store.run(name)
        if stored is None:
            raise fail(f"no run {name!r} in {shown_url(db)}")
        scores = store.scores(name)
        config = json.loads(stored.config or "{}")
        if not scores:  # the run stopped before it could summarize: score what it stored
            episodes = store.episodes(name)
            scores = summarize_run(name, episodes, config.get("defects"))
            console.print(f"[yellow]run {escape(name)} did not finish: {len(episodes)} episodes stored.[/] Continue "
                          f"it with: {escape(resume_command(name, db, config=config))}", highlight=False,
                          soft_wrap=True)
        if scores:
            console.print(score_table(name, scores, title=f"{escape(name)}: {escape(stored.agent)}"))
    if len(runs) > 1:  # which episodes flipped, from the first run to each other one
        from ..flips import compare_runs, flips_summary, flips_table

        first = store.episodes(runs[0])
        for other in runs[1:]:
            compared = compare_runs(runs[0], first, other, store.episodes(other))
            console.print(escape(flips_summary(compared)), highlight=False, soft_wrap=True)
            if compared.flips:
                console.print(flips_table(compared))
    if html_path is not None:
        from ..report_html import html_report

        try:
            html_path.write_text(html_report(store, runs), encoding="utf-8")
        except RuntimeError as exc:
            raise fail(str(exc)) from None
        console.print(f"wrote {escape(str(html_path))}", highlight=False)
    store.close()


@app.command()
def rescore(
    run_id: Annotated[str, typer.Argument(metavar="RUN", help="The stored run to score again.")],
    mode: Annotated[str, typer.Option(help="compat (the verdicts runs store) or strict (bugs fixed).")] = "compat",
    new_run_id: Annotated[str | None, typer.Option("--new-run-id", help="Name of the new run (default: run-N).")
                          ] = None,
    data: Annotated[Path | None, typer.Option(help="Task data folder or file (default: the run's own).")] = None,
    db: Annotated[str, typer.Option(help="SQLAlchemy URL of the run store.")] = "sqlite:///toolworlds.db",
) -> None:
    """Score a stored run again into a new run, replaying its transcripts: no model is asked.

    For a scorer fix or a data erratum; `toolworlds report --run-id RUN --run-id NEW` shows what flipped."""
    from ..rescore import RescoreError, rescore_run

    store = open_store(db)
    name = new_run_id or store.new_run_id()
    try:
        done = rescore_run(store, run_id, name, checker=mode, data=data)  # type: ignore[arg-type]
    except RescoreError as exc:
        store.close()
        raise fail(str(exc)) from None
    for line in done.lines():
        console.print(escape(line), highlight=False, soft_wrap=True)
    compare = ["toolworlds", "report", "--db", shown_url(db), "--run-id", run_id, "--run-id", name]
    console.print(f"compare: {escape(shlex.join(compare))}", highlight=False, soft_wrap=True)
    store.close()


def _number(text: str) -> int | None:
    """`text` as a whole number of ASCII digits; None for anything else (`"²".isdigit()` is true)."""
    return int(text) if text.isascii() and text.isdigit() else None


def _find_episode(store: Any, run_id: str, which: str, db: str) -> Any:
    """One stored episode by its number (as `report` lists them), task id, or task set:task id;
    a task run in several trials takes `#trial` (task#2). A task id is matched whole first, so ids
    holding `#` themselves (API-Bank's `file.jsonl#api0`) are found as they are, and `#trial` is read
    only off the end of what matches no id."""
    if store.run(run_id) is None:
        raise fail(f"no run {run_id!r} in {shown_url(db)}")
    episodes = store.episodes(run_id)
    number = _number(which)
    found = [e for e in episodes if e.id == number] if number is not None else []
    if not found:
        found = [e for e in episodes if which in (e.task_id, f"{e.task_set}:{e.task_id}")]
    if not found:
        found = [e for e in episodes
                 if which in (f"{e.task_id}#{e.trial or 0}", f"{e.task_set}:{e.task_id}#{e.trial or 0}")]
    if not found:
        raise fail(f"run {run_id!r} has no episode {which!r}")
    if len(found) > 1:
        choices = ", ".join(f"{e.task_set}:{e.task_id}#{e.trial or 0} (id {e.id})" for e in found[:6])
        raise fail(f"{which!r} names {len(found)} episodes: {choices}; give one of these")
    return found[0]


@app.command()
def show(
    run_id: Annotated[str, typer.Argument(metavar="RUN", help="The run's id.")],
    episode: Annotated[str, typer.Argument(metavar="EPISODE", help="A task id (task set:task id, #trial when "
                                           "there are several), or the episode's number.")],
    db: Annotated[str, typer.Option(help="SQLAlchemy URL of the run store.")] = "sqlite:///toolworlds.db",
) -> None:
    """Print one episode as a readable transcript, with its call log and its end state's differences."""
    from ..transcript import transcript_text

    store = open_store(db, existing=True)
    chosen = _find_episode(store, run_id, episode, db)
    verdict = "[green]reached the expected end state[/]" if chosen.success else "[red]missed the expected end state[/]"
    console.print(f"[bold]{escape(chosen.task_set)}:{escape(chosen.task_id)}[/] trial {chosen.trial or 0} "
                  f"({escape(chosen.category)}, episode {chosen.id}): {verdict}; stopped: "
                  f"{escape(chosen.stop_reason)}; {chosen.steps} steps, {chosen.calls} calls, {chosen.errors} errors",
                  highlight=False, soft_wrap=True)
    if chosen.error:
        console.print(f"[red]failed:[/] {escape(chosen.error)}", highlight=False, soft_wrap=True)
    if chosen.reason:
        console.print(f"[yellow]checker:[/] {escape(chosen.reason)}", highlight=False, soft_wrap=True)
    elif not chosen.success and not chosen.error and json.loads(chosen.diff or "[]") == []:
        console.print("[yellow]checker:[/] gave no reason (or the episode was stored by an older release)",
                      highlight=False)
    messages = store.messages(chosen.id)
    if not messages:
        console.print("[yellow]no transcript stored (the episode was stored before transcripts were)[/]")
    for heading, body in transcript_text(messages):
        console.print(f"\n[bold cyan]{escape(heading)}[/]", highlight=False)
        console.print(escape(body), highlight=False, soft_wrap=True)
    calls = store.calls(chosen.id)
    if calls:
        table = Table(title="call log")
        for column in ("#", "tool", "arguments", "outcome"):
            table.add_column(column, overflow="fold")
        for call in calls:
            outcome = (escape(call.result) if call.error_type is None
                       else f"[red]{escape(call.error_type)}[/]: {escape(call.error_message or '')}")
            table.add_row(str(call.seq), escape(call.tool or "-"), escape(call.arguments), outcome)
        console.print(table)
    differences = json.loads(chosen.diff or "[]")
    if differences:
        table = Table(title=f"end state: {len(differences)} field(s) differ from the expected one")
        for column in ("field", "kind", "expected", "got"):
            table.add_column(column, overflow="fold")
        for item in differences:
            table.add_row(escape(str(item.get("path"))), escape(str(item.get("kind"))),
                          escape(json.dumps(item.get("expected"), ensure_ascii=False, default=str)),
                          escape(json.dumps(item.get("actual"), ensure_ascii=False, default=str)))
        console.print(table)
    else:
        console.print("end state: no field differs from the expected one", highlight=False)
    store.close()


@app.command()
def export(
    run_id: Annotated[str, typer.Argument(metavar="RUN", help="The run's id.")],
    format: Annotated[str, typer.Option("--format", "-f", help="openai-jsonl, sharegpt or parquet.")
                      ] = "openai-jsonl",
    out: Annotated[Path | None, typer.Option("--out", "-o", help="File to write (default: RUN.jsonl, or "
                                             "RUN.parquet).")] = None,
    db: Annotated[str, typer.Option(help="SQLAlchemy URL of the run store.")] = "sqlite:///toolworlds.db",
    calls: Annotated[str, typer.Option(help="sent: calls as the model sent them; native: calls sent as text "
                                            "written as tool_calls with ids, their results as tool messages.")
                     ] = "sent",
) -> None:
    """Write every episode of a run as training data: messages, tools, reward, metadata (failed ones marked)."""
    from ..export import CALL_FORMS, FORMATS, write_export

    if format not in FORMATS:
        raise fail(f"unknown format {format!r}; use one of {', '.join(FORMATS)}")
    if calls not in CALL_FORMS:
        raise fail(f"unknown --calls {calls!r}; use one of {', '.join(CALL_FORMS)}")
    store = open_store(db, existing=True)
    if store.run(run_id) is None:
        raise fail(f"no run {run_id!r} in {shown_url(db)}")
    target = out or Path(f"{run_id}.{'parquet' if format == 'parquet' else 'jsonl'}")
    try:
        written = write_export(store, run_id, format, target, calls)
    except (RuntimeError, OSError) as exc:
        raise fail(str(exc)) from None
    finally:
        store.close()
    console.print(f"wrote {written} episodes of {escape(run_id)} to {escape(str(target))} ({format})",
                  highlight=False)


@app.command()
def score(
    benchmark: Annotated[str, typer.Argument(help="Benchmark: acebench, apibank or toolbench.")],
    results: Annotated[Path, typer.Option(help="acebench: folder of data_<category>_result.json files; "
                                               "apibank: a JSON-lines file of predictions; toolbench: JSON "
                                               "(lines) of {instance_id, solution}.")],
    data: Annotated[Path | None, typer.Option(help="Benchmark data folder or task file (default: the data "
                                                    "folder; toolbench also hf:NAME).")] = None,
    lang: Annotated[str, typer.Option(help="en or zh.")] = "en",
    mode: Annotated[str, typer.Option(help="compat (the reference's verdicts) or strict (bugs fixed).")] = "compat",
    json_path: Annotated[Path | None, typer.Option("--json", help="Write per-category and per-item results.")] = None,
) -> None:
    """Score a model's results: ACEBench result files (compat or strict), API-Bank predictions, ToolBench answers."""
    from evaluators.results import ResultsRequest, results_scorer

    from ..report import results_table

    try:
        scored = results_scorer(benchmark)(ResultsRequest(results, data, lang, mode))
    except (LookupError, ValueError) as exc:
        raise fail(said(exc)) from None
    console.print(results_table(scored))
    if json_path is not None:
        from sandbox.input_limits import printable_json  # a verdict's detail may quote a model's lone surrogate

        json_path.write_text(printable_json(json.dumps(scored.payload, indent=2, ensure_ascii=False)), encoding="utf-8")

