"""The `toolworlds` command line: look at worlds, export their tools, replay, run and score.

Every family-specific answer (which worlds, tasks, languages, replays and scorers exist)
comes from `scenarios.registry` and `evaluators.results`; this module knows no family.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from sandbox.schemas import FORMATS
from scenarios.family import ReplayReport, TaskQuery, WorldFamily
from scenarios.registry import families, family

from .llm import DEFAULT_RETRIES, DEFAULT_TIMEOUT
from .runconfig import RunConfig, read_run_config

if TYPE_CHECKING:
    from .runner import Backend, TaskSet

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
    errors.print(f"[bold red]error:[/] {escape(message)}", highlight=False)
    return typer.Exit(code=2)


def _family(name: str) -> WorldFamily:
    try:
        return family(name)
    except KeyError as exc:
        raise fail(str(exc.args[0])) from None


@app.command()
def worlds() -> None:
    """List the bundled world families with their languages, apps and tool counts."""
    table = Table(title="toolworlds worlds")
    for column in ("world", "languages", "apps", "tools", "description"):
        table.add_column(column)
    for entry in families():
        world = entry.build_world()
        table.add_row(entry.name, ", ".join(entry.languages), ", ".join(world.apps), str(len(world.tools)),
                      entry.description)
    console.print(table)


@app.command()
def tools(
    world: Annotated[str, typer.Argument(help="World family name (see `toolworlds worlds`).")],
    format: Annotated[str, typer.Option("--format", "-f", help=f"One of: {', '.join(FORMATS)}.")] = "openai",
) -> None:
    """Print a world's tool schemas as JSON."""
    if format not in FORMATS:
        raise fail(f"unknown format {format!r}; choose one of {', '.join(FORMATS)}")
    built = _family(world).build_world()
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
    built = _family(world).build_world()
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
        outcome = (escape(json.dumps(record.result, ensure_ascii=False)) if record.error is None
                   else f"[red]{record.error.type}[/]: {escape(record.error.message)}")
        table.add_row(str(record.seq), escape(record.tool or "-"),
                      escape(json.dumps(record.arguments, ensure_ascii=False)), outcome)
    console.print(table)
    console.print_json(json.dumps(built.state(), ensure_ascii=False))


def _replay_report(name: str, data: Path | None, lang: str, options: dict[str, Any]) -> ReplayReport:
    entry = _family(name)
    if entry.replay is None:
        with_replay = [f.name for f in families() if f.replay is not None]
        raise fail(f"{name} has no gold replay; available: {', '.join(with_replay)}")
    if lang not in entry.languages:
        raise fail(f"{name} has no {lang!r} data; languages: {', '.join(entry.languages)}")
    try:
        source = entry.data_source(data)
        with errors.status(f"replaying {name} ({lang})"):
            return entry.replay(source, lang, options)
    except (LookupError, ValueError) as exc:
        raise fail(str(exc.args[0] if exc.args else exc)) from None


@app.command()
def replay(
    family_name: Annotated[str, typer.Argument(metavar="FAMILY", help="acebench, banking or apibank.")],
    data: Annotated[Path | None, typer.Option(help="Benchmark folder or task file (default: the data folder).")] = None,
    lang: Annotated[str, typer.Option(help="en or zh.")] = "en",
    json_path: Annotated[Path | None, typer.Option("--json", help="Write one result object per row here.")] = None,
    recordings: Annotated[bool, typer.Option(help="apibank: feed back what the recordings reveal (network and "
                                                  "model answers, drifted initial data).")] = True,
) -> None:
    """Run every task's gold path in a fresh world and compare the end state with the ground truth.

    For apibank: replay every recorded call of every dialogue in a fresh world.
    """
    report = _replay_report(family_name, data, lang, {"recordings": recordings})
    table = Table(title=report.title)
    for column in report.columns:
        table.add_column(column, overflow="fold")
    for row, ok in zip(report.rows, report.ok, strict=True):
        table.add_row(*(escape(cell) for cell in row), style=None if ok else "yellow")
    console.print(table)
    console.print(report.summary, highlight=False)
    if json_path is not None:
        json_path.write_text(json.dumps(report.records, indent=2, ensure_ascii=False))


@app.command()
def doctor(
    family_name: Annotated[str, typer.Argument(metavar="FAMILY", help="Task family: acebench or banking.")],
    data: Annotated[Path | None, typer.Option(help="Benchmark folder or task file to lint.")] = None,
    lang: Annotated[str, typer.Option(help="en or zh.")] = "en",
) -> None:
    """Name every task whose gold path does not reproduce its ground truth, and why."""
    report = _replay_report(family_name, data, lang, {})
    for finding in report.findings:
        console.print(f"[red]{escape(finding)}[/]", highlight=False, soft_wrap=True)
    for note in report.notes:
        console.print(f"[yellow]{escape(note)}[/]", highlight=False, soft_wrap=True)
    console.print(f"{len(report.rows)} rows: {sum(report.ok)} reproduce, {len(report.findings)} finding(s)")
    if report.findings:
        raise typer.Exit(code=1)


def _task_sets(names: list[str], langs: list[str] | None, query: TaskQuery) -> list[TaskSet]:
    from .runner import TaskSet  # the runner brings the run store (sqlmodel, sqlalchemy): only for runs

    if query.data is not None and len(names) > 1:
        raise fail("--data names one family's tasks: give exactly one --tasks with it")
    sets = []
    for name in names:
        entry = _family(name)
        if entry.load_tasks is None:
            runnable = [f.name for f in families() if f.load_tasks is not None]
            raise fail(f"{name} has no runnable tasks; available: {', '.join(runnable)}")
        for lang in langs or entry.languages:
            try:
                loaded = entry.tasks(dataclasses.replace(query, lang=lang))
            except LookupError as exc:
                raise fail(f"{name}/{lang}: {exc.args[0]}") from None
            if loaded.problems:
                raise fail(f"{name}/{lang}: " + "; ".join(loaded.problems[:5]))
            sets.append(TaskSet(name, lang, loaded.tasks, entry.end_state_mode))
    return sets


@app.command()
def run(
    tasks: Annotated[list[str] | None, typer.Option(
        "--tasks", help="Task families: banking (bundled), acebench, toolbench.")] = None,
    lang: Annotated[list[str] | None, typer.Option("--lang", help="Languages (default: every one of the family).")
                    ] = None,
    data: Annotated[Path | None, typer.Option(help="Task data folder or file (default: the family's own).")] = None,
    agent: Annotated[str, typer.Option(help="oracle, noisy, or llm.")] = "oracle",
    noise: Annotated[float, typer.Option(help="Mistake rate of the noisy agent.")] = 0.2,
    seed: Annotated[int, typer.Option(help="Seed of the noisy agent.")] = 0,
    model: Annotated[str, typer.Option(help="Model name, for --agent llm.")] = "",
    base_url: Annotated[str, typer.Option(help="OpenAI-compatible endpoint, for --agent llm.")] = "",
    user: Annotated[str, typer.Option(help="Multi-turn user simulator: scripted or llm.")] = "scripted",
    db: Annotated[str, typer.Option(help="SQLAlchemy URL of the run store.")] = "sqlite:///toolworlds.db",
    run_id: Annotated[str | None, typer.Option("--run-id", help="Name of the run (default: run-N).")] = None,
    resume: Annotated[bool, typer.Option(help="Continue --run-id, skipping stored episodes (failed ones too).")
                      ] = False,
    retry_failed: Annotated[bool, typer.Option("--retry-failed", help="With --resume: run the episodes stored as "
                                               "failed again, replacing them.")] = False,
    timeout: Annotated[float, typer.Option(min=0.001, help="Seconds to wait for each endpoint request.")
                       ] = DEFAULT_TIMEOUT,
    retries: Annotated[int, typer.Option(min=0, help="Further tries of an endpoint request that failed "
                                         "transiently (429, 5xx, connection, timeout), with backoff.")
                       ] = DEFAULT_RETRIES,
    workers: Annotated[int | None, typer.Option(min=1, help="Episodes run in parallel: processes here (default 1), "
                                                "or Ray actors (default: one per CPU of the cluster).")] = None,
    backend: Annotated[str, typer.Option(help="Where episodes run: process (this machine) or ray (a Ray cluster; "
                                         'pip install "toolworlds[ray]"). See docs/distributed.md.')] = "process",
    address: Annotated[str | None, typer.Option(help="--backend ray: auto (the cluster this machine joined with "
                                                "`ray start`) or ray://host:port; default: a local Ray for this "
                                                "run.")] = None,
    concurrency: Annotated[int, typer.Option(min=0, help="LLM agents: at most this many endpoint requests in "
                                             "flight at once, across all workers (0: one per worker).")] = 0,
    limit: Annotated[int | None, typer.Option("--limit", "-n", min=1, help="At most this many tasks per task set "
                                              "(toolbench: the first N that pass the filters).")] = None,
    filter_difficulty: Annotated[list[str] | None, typer.Option(
        help="Only tasks of this difficulty (exact, any case); repeat for several. Families whose tasks "
             "carry one: toolbench.")] = None,
    filter_category: Annotated[list[str] | None, typer.Option(
        help="Only tasks of this category; repeat for several (toolbench: any value found in the category, "
             "any case; others: exact).")] = None,
    level: Annotated[list[int] | None, typer.Option(
        min=1, help="Only tasks of this level (category level-N); repeat for several. Families whose tasks "
                    "have levels: apibank (1, 2, 3).")] = None,
    filter_tags: Annotated[list[str] | None, typer.Option(
        help="toolbench: only tasks whose tools mention every one of these tags (any case).")] = None,
    config: Annotated[Path | None, typer.Option(
        help="YAML or JSON file with mcpbr's keys: benchmark, dataset or data, sample_size, filter_difficulty, "
             "filter_category, filter_tags, task_ids. Flags win over the file.")] = None,
    pause: Annotated[float, typer.Option(hidden=True, help="Seconds to wait per episode.")] = 0.0,
    results: Annotated[Path | None, typer.Option(
        help="Where benchmarks with their own result files (acebench) write them, one folder per task set "
             "(default: results/<run-id>).")] = None,
) -> None:
    """Run an agent over task sets, store every episode, and print the scores.

    An episode that fails (the endpoint stays down, the agent breaks) is stored with its
    reason and the run goes on; the summary counts them. `--resume` skips them;
    `--resume --retry-failed` runs them again.
    """
    from .progress import RunProgress
    from .report import score_table
    from .runner import AgentSpec, BackendError, execute_run, pending_tasks
    from .store import RunStore

    if agent not in ("oracle", "noisy", "llm"):
        raise fail(f"unknown agent {agent!r}; use oracle, noisy or llm")
    if (agent == "llm" or user == "llm") and not (model and base_url):
        raise fail("--agent llm and --user llm need --model and --base-url")
    if resume and not run_id:
        raise fail("--resume needs the --run-id of the run to continue")
    if retry_failed and not resume:
        raise fail("--retry-failed continues a run: give it with --resume --run-id")
    runs_on = _backend(backend, address, workers)
    chosen = _run_config(config)
    query = TaskQuery(
        data=data if data is not None else (Path(chosen.data) if chosen.data else None),
        limit=limit if limit is not None else chosen.sample_size,
        difficulties=tuple(filter_difficulty or chosen.filter_difficulty),
        categories=tuple(filter_category or chosen.filter_category) + tuple(f"level-{n}" for n in level or ()),
        tags=tuple(filter_tags or chosen.filter_tags), task_ids=chosen.task_ids)
    sets = _task_sets(tasks or list(chosen.benchmark) or ["banking"], lang, query)
    try:
        store = RunStore(db)
    except Exception as exc:  # a bad URL or an unreachable server: say so in one line
        raise fail(f"cannot open the run store {db!r}: {exc}") from None
    name = run_id or store.new_run_id()
    if run_id and not resume and store.run(run_id) is not None:
        raise fail(f"run {run_id!r} already exists in {db}; add --resume to continue it")
    spec = AgentSpec(kind=agent, noise=noise, seed=seed, model=model, base_url=base_url, pause=pause, user=user,
                     timeout=timeout, retries=retries, concurrency=concurrency)
    todo = len(pending_tasks(store, name, sets, retry_failed=retry_failed))
    try:
        with RunProgress(errors, name, todo) as progress:
            episodes = execute_run(store, name, sets, spec, backend=runs_on, retry_failed=retry_failed,
                                   on_done=progress.done)
    except BackendError as exc:
        store.close()
        raise fail(str(exc)) from None
    except KeyboardInterrupt:
        errors.print(f"interrupted: every finished episode is stored. Continue with: "
                     f"{_resume_command(name, db)}", highlight=False, soft_wrap=True)
        store.close()
        raise typer.Exit(code=130) from None
    console.print(score_table(name, store.scores(name), title=f"{name}: {spec.describe()} ({db})"))
    _print_benchmark_tables(sets, episodes, results or Path("results") / name, query.data)
    _print_summary(name, db, episodes)
    store.close()


def _backend(name: str, address: str | None, workers: int | None) -> Backend:
    """The runner backend the options name (`toolworlds.runner.Backend`)."""
    if name == "process":
        if address is not None:
            raise fail("--address names a Ray cluster: give it with --backend ray")
        from .runner import ProcessBackend

        return ProcessBackend(workers or 1)
    if name == "ray":
        from .ray_backend import RayBackend

        return RayBackend(address=address, workers=workers)
    raise fail(f"unknown backend {name!r}; use process or ray")


def _print_benchmark_tables(sets: list[TaskSet], episodes: list[Any], folder: Path, data: Path | None) -> None:
    """Task sets whose family writes its own result files (`evaluators.<family>.score_run`):
    write them from the episodes' result records, and print the benchmark's own tables."""
    from evaluators.conventions import family_function
    from evaluators.results import RunRecords

    from .report import results_table

    for task_set in sets:
        scorer = family_function(task_set.family, "score_run")
        records = tuple((e.category, json.loads(e.result_record)) for e in episodes
                        if e.task_set == task_set.name and e.result_record)
        if scorer is None or not records:
            continue
        target = folder / f"{task_set.family}_{task_set.lang}"
        try:
            tables = scorer(RunRecords(task_set.lang, target, records, data))
        except (LookupError, ValueError, OSError) as exc:
            errors.print(f"[yellow]note:[/] {escape(task_set.name)}: no benchmark tables: {escape(str(exc))}",
                         highlight=False)
            continue
        for table in tables:
            console.print(results_table(table))
        console.print(f"{escape(task_set.name)}: result files in {escape(str(target))}", highlight=False)


def _resume_command(run_id: str, db: str, *extra: str) -> str:
    return " ".join(["toolworlds run", "--db", db, "--run-id", run_id, "--resume", *extra])


def _print_summary(run_id: str, db: str, episodes: list[Any]) -> None:
    """How many episodes the run holds, which failed and why, and how to continue it."""
    failed = [e for e in episodes if e.error is not None]
    console.print(f"run {escape(run_id)}: {len(episodes)} episodes stored, {len(failed)} failed", highlight=False)
    reasons: dict[str, list[str]] = {}
    for episode in failed:
        reasons.setdefault(episode.error[:160], []).append(f"{episode.task_set}:{episode.task_id}")
    for reason, tasks in sorted(reasons.items(), key=lambda kv: -len(kv[1]))[:10]:
        shown = ", ".join(tasks[:3]) + (f" and {len(tasks) - 3} more" if len(tasks) > 3 else "")
        console.print(f"  {len(tasks)} x {escape(reason)}  ({escape(shown)})", highlight=False, soft_wrap=True)
    console.print(f"continue this run: {escape(_resume_command(run_id, db))}", highlight=False, soft_wrap=True)
    if failed:
        console.print(f"run the failed episodes again: {escape(_resume_command(run_id, db, '--retry-failed'))}",
                      highlight=False, soft_wrap=True)


def _run_config(path: Path | None) -> RunConfig:
    if path is None:
        return RunConfig()
    try:
        chosen = read_run_config(path)
    except ValueError as exc:
        raise fail(str(exc)) from None
    if chosen.ignored:
        unused = escape(", ".join(chosen.ignored))
        errors.print(f"[yellow]note:[/] {escape(path.name)}: not used by toolworlds: {unused}", highlight=False)
    return chosen


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

    from .report import results_table

    try:
        scored = results_scorer(benchmark)(ResultsRequest(results, data, lang, mode))
    except (LookupError, ValueError) as exc:
        raise fail(str(exc.args[0] if exc.args else exc)) from None
    console.print(results_table(scored))
    if json_path is not None:
        json_path.write_text(json.dumps(scored.payload, indent=2, ensure_ascii=False))


@app.command()
def serve(
    family_name: Annotated[str, typer.Argument(metavar="FAMILY", help="World family (see `toolworlds worlds`).")],
    task: Annotated[str | None, typer.Option(help="Serve this task's world and score sessions against it.")] = None,
    data: Annotated[Path | None, typer.Option(help="With --task: the task data folder or file "
                                                   "(default: the family's own).")] = None,
    lang: Annotated[str, typer.Option(help="en or zh.")] = "en",
    seed: Annotated[int, typer.Option(help="Seed of the world every session starts from.")] = 0,
    transport: Annotated[str, typer.Option(help="stdio, or http (streamable HTTP).")] = "stdio",
    host: Annotated[str, typer.Option(help="http: loopback address to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="http: port to bind.")] = 8000,
    save: Annotated[Path | None, typer.Option(help="stdio: write the session's log, end state and score "
                                                   "here when the client disconnects.")] = None,
) -> None:
    """Serve a world over MCP, one world per session; reset, state, diff and score stay off the tool list."""
    if transport not in ("stdio", "http"):
        raise fail(f"unknown transport {transport!r}; use stdio or http")
    if data is not None and task is None:
        raise fail("--data names where --task is read from: give --task with it")
    if save is not None and transport != "stdio":
        raise fail("--save is for stdio; over http the /control routes give each session's log, state and score")
    try:
        from . import mcp_server
    except ImportError:
        raise fail('serving MCP needs the mcp package: pip install "toolworlds[mcp]"') from None
    try:
        hosted = mcp_server.WorldHost(family_name, task=task, lang=lang, seed=seed, data=data)
        if transport == "http":
            mcp_server.check_loopback(host)
    except (LookupError, ValueError) as exc:
        raise fail(str(exc.args[0] if exc.args else exc)) from None
    if transport == "http":
        errors.print(f"serving {family_name} on http://{host}:{port}{mcp_server.MCP_PATH} "
                     f"(controller routes under /control)", highlight=False)
        mcp_server.serve_http(hosted, host, port)
        return
    import anyio

    anyio.run(mcp_server.serve_stdio, hosted)
    if save is not None:
        save.write_text(json.dumps(hosted.report(mcp_server.STDIO_SESSION), indent=2, ensure_ascii=False))


def main() -> None:
    app()


if __name__ == "__main__":
    main()
