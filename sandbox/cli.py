"""The `toolworlds` command line: look at worlds, export their tools, run calls."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from .schemas import FORMATS

app = typer.Typer(
    name="toolworlds",
    help="Executable, stateful mock environments for LLM tool use.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
console = Console()
errors = Console(stderr=True)


def fail(message: str) -> typer.Exit:
    """One clear line on stderr and a non-zero exit, never a traceback."""
    errors.print(f"[bold red]error:[/] {message}", highlight=False)
    return typer.Exit(code=2)


def _family(name: str):
    from scenarios.registry import family

    try:
        return family(name)
    except KeyError as exc:
        raise fail(str(exc.args[0])) from None


@app.command()
def worlds() -> None:
    """List the bundled world families with their apps and tool counts."""
    from scenarios.registry import FAMILIES

    table = Table(title="toolworlds worlds")
    for column in ("world", "apps", "tools", "description"):
        table.add_column(column)
    for entry in FAMILIES.values():
        world = entry.build()
        table.add_row(entry.name, ", ".join(world.apps), str(len(world.tools)), entry.description)
    console.print(table)


@app.command()
def tools(
    world: Annotated[str, typer.Argument(help="World family name (see `toolworlds worlds`).")],
    format: Annotated[str, typer.Option("--format", "-f", help=f"One of: {', '.join(FORMATS)}.")] = "openai",
) -> None:
    """Print a world's tool schemas as JSON."""
    if format not in FORMATS:
        raise fail(f"unknown format {format!r}; choose one of {', '.join(FORMATS)}")
    built = _family(world).build()
    typer.echo(json.dumps(built.schemas(format), indent=2, ensure_ascii=False))


@app.command()
def execute(
    world: Annotated[str, typer.Argument(help="World family name.")],
    messages: Annotated[list[str], typer.Argument(help="Model messages holding tool calls, run in order.")],
    json_out: Annotated[
        bool, typer.Option("--json", help="Print the call log and end state as JSON.")
    ] = False,
) -> None:
    """Run tool calls written as a model would write them, and show what happened."""
    built = _family(world).build()
    for message in messages:
        built.execute(message)
    if json_out:
        typer.echo(json.dumps({"log": built.log.to_list(), "state": built.state()}, indent=2,
                              ensure_ascii=False))
        return
    table = Table(title=f"{world}: call log")
    for column in ("#", "tool", "arguments", "outcome"):
        table.add_column(column, overflow="fold")
    for record in built.log:
        outcome = (json.dumps(record.result, ensure_ascii=False) if record.ok
                   else f"[red]{record.error.type}[/]: {record.error.message}")  # type: ignore[union-attr]
        table.add_row(str(record.seq), record.tool or "-", json.dumps(record.arguments, ensure_ascii=False),
                      outcome)
    console.print(table)
    console.print_json(json.dumps(built.state(), ensure_ascii=False))


REPLAY_FAMILIES = ("acebench", "banking")


def _default_data(family: str) -> Path | None:
    if family == "banking":
        from scenarios.banking.authoring import DATA_DIR

        return DATA_DIR
    from scenarios.datasets import dataset_dir

    return dataset_dir("acebench")


def _diagnoses(family: str, data: Path | None, lang: str) -> tuple[list, list[str]]:
    from scenarios.acebench.replay import FailureReader, diagnose
    from scenarios.acebench.tasks import read_tasks
    from scenarios.acebench.texts import texts_for

    source = data or _default_data(family)
    if source is None:
        raise fail("no ACEBench data found: pass --data DIR or set TOOLWORLDS_DATA")
    if not source.exists():
        raise fail(f"{source} does not exist")
    try:
        reader = FailureReader(texts_for(lang))
    except ValueError as exc:
        raise fail(str(exc)) from None
    loaded = read_tasks(source, lang=lang, family=family)
    if not loaded.tasks and loaded.problems:
        raise fail("; ".join(loaded.problems[:3]))
    from rich.progress import track

    diagnoses = [diagnose(task, reader) for task in track(loaded.tasks, description="replaying", console=errors,
                                                          transient=True)]
    return diagnoses, loaded.problems


def _family_arg(family: str) -> None:
    if family not in REPLAY_FAMILIES:
        raise fail(f"unknown task family {family!r}; available: {', '.join(REPLAY_FAMILIES)}")


@app.command()
def replay(
    family: Annotated[str, typer.Argument(help="acebench, banking or apibank.")],
    data: Annotated[Path | None, typer.Option(help="Benchmark folder or task file (default: the data folder).")] = None,
    lang: Annotated[str, typer.Option(help="en or zh.")] = "en",
    json_path: Annotated[Path | None, typer.Option("--json", help="Write one result object per task here.")] = None,
    recordings: Annotated[bool, typer.Option(help="apibank: feed back what the recordings reveal (network and "
                                                  "model answers, drifted initial data).")] = True,
) -> None:
    """Run every task's gold path in a fresh world and compare the end state with the ground truth.

    For apibank: replay every recorded call of every dialogue in a fresh world.
    """
    if family == "apibank":
        _replay_apibank(data, json_path, recordings)
        return
    _family_arg(family)
    diagnoses, problems = _diagnoses(family, data, lang)
    table = Table(title=f"{family} replay ({lang})")
    for column in ("task", "reproduced", "path", "reason"):
        table.add_column(column, overflow="fold")
    for item in diagnoses:
        mark = "[green]yes[/]" if item.reproduced else "[red]no[/]"
        table.add_row(item.task_id, mark, "-" if item.path is None else str(item.path), item.reason)
    console.print(table)
    reproduced = sum(d.reproduced for d in diagnoses)
    console.print(f"reproduced {reproduced}/{len(diagnoses)} tasks")
    for problem in problems:
        console.print(f"[yellow]skipped:[/] {problem}", highlight=False)
    if json_path is not None:
        json_path.write_text(json.dumps([d.to_json() for d in diagnoses], indent=2, ensure_ascii=False))


def _apibank_source(data: Path | None) -> Path:
    """The API-Bank folder to read: `--data`, else the datasets folder."""
    from scenarios.datasets import dataset_dir

    source = data or dataset_dir("api-bank")
    if source is None:
        raise fail("no API-Bank data found: pass --data DIR or set TOOLWORLDS_DATA")
    if not (source / "init_database").is_dir():
        raise fail(f"{source} is not an API-Bank folder (no init_database/)")
    return source


def _replay_apibank(data: Path | None, json_path: Path | None, recordings: bool = True) -> None:
    from collections import Counter

    from scenarios.apibank.replay import replay as replay_calls

    source = _apibank_source(data)
    rows = replay_calls(source, cassette=recordings, recorded_data=recordings)
    totals: Counter[str] = Counter()
    exact: Counter[str] = Counter()
    checked: Counter[str] = Counter()
    for row in rows:
        totals[row.api_name] += 1
        exact[row.api_name] += row.exact
        checked[row.api_name] += row.check
    table = Table(title="apibank replay")
    for column in ("API", "calls", "exact", "check"):
        table.add_column(column, justify="left" if column == "API" else "right")
    for name in sorted(totals, key=lambda n: (-totals[n], n)):
        style = None if exact[name] == totals[name] else "yellow"
        table.add_row(name, str(totals[name]), str(exact[name]), str(checked[name]), style=style)
    console.print(table)
    console.print(f"{len(rows)} calls: {sum(exact.values())} reproduce exactly, {sum(checked.values())} pass the check")
    if json_path is not None:
        json_path.write_text(json.dumps([r.to_json() for r in rows], indent=2, ensure_ascii=False))


@app.command()
def doctor(
    family: Annotated[str, typer.Argument(help="Task family: acebench or banking.")],
    data: Annotated[Path | None, typer.Option(help="Benchmark folder or task file to lint.")] = None,
    lang: Annotated[str, typer.Option(help="en or zh.")] = "en",
) -> None:
    """Name every task whose gold path does not reproduce its ground truth, and why."""
    _family_arg(family)
    diagnoses, problems = _diagnoses(family, data, lang)
    findings = 0
    for problem in problems:
        findings += 1
        console.print(f"[red]{problem}[/]", highlight=False, soft_wrap=True)
    for item in diagnoses:
        chosen = item.chosen
        if not item.reproduced:
            findings += 1
            console.print(f"[red]{item.task_id}[/]: {item.reason}", highlight=False, soft_wrap=True)
        if chosen is not None and chosen.repairs:
            console.print(f"[yellow]{item.task_id}[/] needed: {'; '.join(chosen.repairs)}", highlight=False,
                          soft_wrap=True)
    clean = len(diagnoses) - sum(not d.reproduced for d in diagnoses)
    console.print(f"{len(diagnoses)} tasks: {clean} reproduce, {findings} finding(s)")
    if findings:
        raise typer.Exit(code=1)


def _task_sets(names: list[str], langs: list[str], data: Path | None, limit: int | None) -> list:
    from scenarios.acebench.tasks import load_tasks

    from .runner import TaskSet

    sets = []
    for name in names:
        if name not in REPLAY_FAMILIES:
            raise fail(f"unknown task set {name!r}; available: {', '.join(REPLAY_FAMILIES)}")
        source = data if data is not None and name == "acebench" else _default_data(name)
        if source is None:
            raise fail(f"no {name} data found: pass --data DIR or set TOOLWORLDS_DATA")
        for lang in langs:
            try:
                tasks = load_tasks(source, lang=lang, family=name)
            except ValueError as exc:
                raise fail(f"{name}/{lang}: {exc}") from None
            sets.append(TaskSet(f"{name}/{lang}", tasks[:limit] if limit else tasks))
    return sets


@app.command()
def run(
    tasks: Annotated[list[str] | None, typer.Option("--tasks", help="Task sets: banking (bundled), acebench.")] = None,
    lang: Annotated[list[str] | None, typer.Option("--lang", help="Languages (default: en and zh).")] = None,
    data: Annotated[Path | None, typer.Option(help="ACEBench data folder (for --tasks acebench).")] = None,
    agent: Annotated[str, typer.Option(help="oracle, noisy, or llm.")] = "oracle",
    noise: Annotated[float, typer.Option(help="Mistake rate of the noisy agent.")] = 0.2,
    seed: Annotated[int, typer.Option(help="Seed of the noisy agent.")] = 0,
    model: Annotated[str, typer.Option(help="Model name, for --agent llm.")] = "",
    base_url: Annotated[str, typer.Option(help="OpenAI-compatible endpoint, for --agent llm.")] = "",
    user: Annotated[str, typer.Option(help="Multi-turn user simulator: scripted or llm.")] = "scripted",
    db: Annotated[str, typer.Option(help="SQLAlchemy URL of the run store.")] = "sqlite:///toolworlds.db",
    run_id: Annotated[str | None, typer.Option("--run-id", help="Name of the run (default: run-N).")] = None,
    resume: Annotated[bool, typer.Option(help="Continue --run-id, skipping finished episodes.")] = False,
    workers: Annotated[int, typer.Option(min=1, help="Episodes run in parallel processes.")] = 1,
    limit: Annotated[int | None, typer.Option(min=1, help="At most this many tasks per task set.")] = None,
    pause: Annotated[float, typer.Option(hidden=True, help="Seconds to wait per episode.")] = 0.0,
) -> None:
    """Run an agent over task sets, store every episode, and print the scores."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from .report import score_table
    from .runner import AgentSpec, execute_run
    from .store import RunStore

    if agent not in ("oracle", "noisy", "llm"):
        raise fail(f"unknown agent {agent!r}; use oracle, noisy or llm")
    if (agent == "llm" or user == "llm") and not (model and base_url):
        raise fail("--agent llm and --user llm need --model and --base-url")
    if resume and not run_id:
        raise fail("--resume needs the --run-id of the run to continue")
    sets = _task_sets(tasks or ["banking"], lang or ["en", "zh"], data, limit)
    try:
        store = RunStore(db)
    except Exception as exc:  # a bad URL or an unreachable server: say so in one line
        raise fail(f"cannot open the run store {db!r}: {exc}") from None
    name = run_id or store.new_run_id()
    if run_id and not resume and store.run(run_id) is not None:
        raise fail(f"run {run_id!r} already exists in {db}; add --resume to continue it")
    spec = AgentSpec(kind=agent, noise=noise, seed=seed, model=model, base_url=base_url, pause=pause, user=user)
    todo = sum(len(s.tasks) for s in sets) - len(store.finished(name))
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=errors, transient=True) as progress:
        bar = progress.add_task(f"{name}: episodes", total=max(todo, 0))
        execute_run(store, name, sets, spec, workers=workers, on_done=lambda _: progress.advance(bar))
    console.print(score_table(name, store.scores(name), title=f"{name}: {spec.describe()} ({db})"))
    store.close()


@app.command()
def report(
    db: Annotated[str, typer.Option(help="SQLAlchemy URL of the run store.")] = "sqlite:///toolworlds.db",
    run_id: Annotated[str | None, typer.Option("--run-id", help="The run (default: every run).")] = None,
    html_path: Annotated[Path | None, typer.Option("--html", help="Write a self-contained HTML page here.")] = None,
) -> None:
    """Show stored runs as score tables, or write one as an HTML page with plots."""
    from .report import html_report, score_table
    from .store import RunStore

    store = RunStore(db)
    runs = [r.run_id for r in store.runs()] if run_id is None else [run_id]
    if not runs:
        raise fail(f"no runs in {db}")
    for name in runs:
        stored = store.run(name)
        if stored is None:
            raise fail(f"no run {name!r} in {db}")
        console.print(score_table(name, store.scores(name), title=f"{name}: {stored.agent}"))
    if html_path is not None:
        try:
            html_path.write_text(html_report(store, runs[-1]), encoding="utf-8")
        except RuntimeError as exc:
            raise fail(str(exc)) from None
        console.print(f"wrote {html_path}")
    store.close()


@app.command()
def score(
    family: Annotated[str, typer.Argument(help="Benchmark: acebench or apibank.")],
    results: Annotated[Path, typer.Option(help="acebench: folder of data_<category>_result.json files; "
                                               "apibank: a JSON-lines file of predictions.")],
    data: Annotated[Path | None, typer.Option(help="Benchmark data folder (default: the data folder).")] = None,
    lang: Annotated[str, typer.Option(help="en or zh.")] = "en",
    mode: Annotated[str, typer.Option(help="compat (the reference's verdicts) or strict (bugs fixed).")] = "compat",
    json_path: Annotated[Path | None, typer.Option("--json", help="Write per-category and per-item results.")] = None,
) -> None:
    """Score a model's results: ACEBench result files (compat or strict), or API-Bank predictions."""
    from .report import benchmark_table

    if family == "apibank":
        _score_apibank(data, results, json_path)
        return
    if family != "acebench":
        raise fail(f"unknown benchmark {family!r}; available: acebench, apibank")
    if mode not in ("compat", "strict"):
        raise fail("--mode must be compat or strict")
    from evaluators.acebench import score_directory, summarize

    root = data or _default_data("acebench")
    if root is None:
        raise fail("no ACEBench data found: pass --data DIR or set TOOLWORLDS_DATA")
    folder = root / f"data_{lang}" if (root / f"data_{lang}").is_dir() else root
    if not results.is_dir():
        raise fail(f"{results} is not a folder")
    scores = score_directory(folder, results, mode)  # type: ignore[arg-type]
    if not scores:
        raise fail(f"no result files (data_<category>_result.json) in {results} match the data in {folder}")
    summary = summarize({name: s.accuracy for name, s in scores.items()})
    console.print(benchmark_table(scores, summary, title=f"ACEBench ({lang}, {mode})"))
    if json_path is not None:
        payload = {"mode": mode, "summary": summary,
                   "categories": {name: {"accuracy": s.accuracy, "total": s.total, "process": s.process,
                                         "items": s.items} for name, s in scores.items()}}
        json_path.write_text(json.dumps(payload, indent=2, ensure_ascii=False))


def _score_apibank(data: Path | None, results: Path, json_path: Path | None) -> None:
    from evaluators.apibank import Scorer

    source = _apibank_source(data)
    if not results.is_file():
        raise fail(f"{results} is not a file of predictions (JSON lines)")
    rows = []
    for number, line in enumerate(results.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                raise fail(f"{results.name}:{number}: not valid JSON") from None
            rows.append(row if isinstance(row, dict) else {})
    scorer = Scorer(source)
    scores = scorer.score(rows)
    levels = scorer.levels()
    table = Table(title="API-Bank")
    for column in ("metric", "value", "samples"):
        table.add_column(column)
    api = [s for s in scores.samples if s.kind == "api"]
    for level in (1, 2):
        count = sum(1 for s in api if levels.get(s.file) == level)
        table.add_row(f"API call accuracy, level {level}", f"{scores.accuracy(level, levels):.4f}", str(count))
    table.add_row("API call accuracy", f"{scores.accuracy():.4f}", str(len(api)))
    responses = sum(1 for s in scores.samples if s.kind == "response")
    table.add_row("response ROUGE-L", f"{scores.rouge():.4f}", str(responses))
    console.print(table)
    if json_path is not None:
        json_path.write_text(json.dumps({"accuracy": scores.accuracy(), "rouge_l": scores.rouge(),
                                         "samples": [s.to_dict() for s in scores.samples]}, indent=2))


def main() -> None:
    app()


if __name__ == "__main__":
    main()
