"""The `toolworlds` command line: look at worlds, export their tools, replay, run and score.

Every family-specific answer (which worlds, tasks, languages, replays and scorers exist)
comes from `scenarios.registry` and `evaluators.results`; this module knows no family.

Unlike the rest of the package, this module keeps its annotations evaluated (no
`from __future__ import annotations`): typer reads every command's signature on every
invocation, and annotations kept as strings it compiles and evaluates anew each time,
which cost a cold `toolworlds replay` some 30 ms. Names imported only for type checking
are quoted.
"""

import contextlib
import dataclasses
import gc
import importlib.util
import json
import math
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape as markup_escape
from rich.table import Table
from rich.text import Text

from sandbox.schemas import FORMATS
from scenarios.family import ReplayReport, TaskQuery, WorldFamily
from scenarios.registry import families, family

from .endpoints import DEFAULT_RETRIES, DEFAULT_TIMEOUT
from .terminal import OutputConsole
from .visible import visible_text

if TYPE_CHECKING:
    from .runconfig import RunConfig
    from .runner import Backend, TaskSet

app = typer.Typer(
    name="toolworlds",
    help="Executable, stateful mock environments for LLM tool use.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
console = OutputConsole()
errors = OutputConsole(stderr=True)


def escape(text: str) -> str:
    """`text` printed as it is: rich markup escaped, and control characters (a model's escape sequences)
    shown as escapes instead of acting on the terminal."""
    return markup_escape(visible_text(text))


def fail(message: str) -> typer.Exit:
    """One clear line on stderr and a non-zero exit, never a traceback."""
    errors.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    return typer.Exit(code=2)


def _said(exc: Exception) -> str:
    """What an error says: a `KeyError`'s own words without the quotes `str` adds, else `str(exc)` (a
    `UnicodeDecodeError`'s first argument is only its codec's name)."""
    return str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)


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
        # A spinner only where someone watches: in a log it is noise, and rich's live display costs a
        # cold process tens of milliseconds to set up.
        waiting = errors.status(f"replaying {name} ({lang})") if errors.is_terminal else contextlib.nullcontext()
        with waiting:
            report = entry.replay(source, lang, options)
    except (LookupError, ValueError) as exc:
        raise fail(_said(exc)) from None
    if not report.rows and not report.problems:  # "0/0" read as a clean replay of nothing
        raise fail(f"no {name} tasks found in {source}")
    return report


@app.command()
def replay(
    family_name: Annotated[str, typer.Argument(metavar="FAMILY", help="acebench, banking, apibank or toolbench.")],
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
    if not report.rows:  # nothing replayed: the problems are the whole answer, not a table of "0/0"
        _refuse_unreadable(report.problems, "nothing could be read")
    # Title, headers, cells and summary are data, not markup: as Text they skip the markup parser (and
    # the escaping it needs), and rich's emoji-code table (some 7 ms for a cold process to import) is
    # never loaded. The title keeps the style rich gives a title it reads from a string.
    table = Table(title=Text(report.title, style="table.title"))
    for column in report.columns:
        table.add_column(Text(column), overflow="fold")
    for row, ok in zip(report.rows, report.ok, strict=True):
        table.add_row(*(Text(cell) for cell in row), style=None if ok else "yellow")
    console.print(table)
    console.print(Text(report.summary))
    if json_path is not None:
        json_path.write_text(json.dumps(report.records, indent=2, ensure_ascii=False))
    if report.problems:
        _refuse_unreadable(report.problems, "the replay covers only what could be read")


def _refuse_unreadable(problems: list[str], consequence: str) -> None:
    """Name each line or file of the data that could not be read, then exit 1."""
    for problem in problems:
        errors.print(Text(f"unreadable: {problem}", style="red"), soft_wrap=True)
    errors.print(f"error: {len(problems)} problem(s) reading the data (above): {consequence}", highlight=False)
    raise typer.Exit(code=1)


@app.command()
def doctor(
    family_name: Annotated[str, typer.Argument(metavar="FAMILY",
                                               help="Task family: acebench, banking, apibank or toolbench; "
                                                    "or generated:FILE.")],
    data: Annotated[Path | None, typer.Option(help="Benchmark folder or task file to lint.")] = None,
    lang: Annotated[str, typer.Option(help="en or zh.")] = "en",
) -> None:
    """Name every task whose gold path does not reproduce its ground truth, and why.

    `doctor generated:FILE` checks a generated task set: every line readable, every task solved by
    the oracle as a run scores it, no repeated (instruction, ground truth)."""
    if family_name.startswith("generated:"):
        _doctor_generated(Path(family_name.partition(":")[2]))
        return
    report = _replay_report(family_name, data, lang, {})
    for finding in report.findings:
        console.print(f"[red]{escape(finding)}[/]", highlight=False, soft_wrap=True)
    for note in report.notes:
        console.print(f"[yellow]{escape(note)}[/]", highlight=False, soft_wrap=True)
    from scenarios.errata import errata_lines

    try:
        for line in errata_lines(_family(family_name).errata, lang, report.findings):
            console.print(escape(line), highlight=False, soft_wrap=True)
    except ValueError as exc:  # a malformed errata file: named, line by line
        raise fail(str(exc)) from None
    console.print(f"{len(report.rows)} rows: {sum(report.ok)} reproduce, {len(report.findings)} finding(s)")
    if report.findings:
        raise typer.Exit(code=1)


def _doctor_generated(path: Path) -> None:
    from .generation import check_generated

    checkup = check_generated(path)
    for finding in checkup.findings[:50]:
        console.print(f"[red]{escape(finding)}[/]", highlight=False, soft_wrap=True)
    more = len(checkup.findings) - 50
    if more > 0:
        console.print(f"[red]... and {more} more finding(s)[/]")
    console.print(f"{checkup.tasks} tasks: {checkup.solved} solved by the oracle, {len(checkup.findings)} finding(s)")
    if checkup.findings:
        raise typer.Exit(code=1)


@app.command()
def generate(
    family_name: Annotated[str, typer.Argument(metavar="FAMILY", help="A family with a task generator (banking, "
                                               "acebench, apibank, todo) or world:package.module:factory.")],
    n: Annotated[int, typer.Option("-n", min=1, help="How many verified tasks.")] = 100,
    seed: Annotated[int, typer.Option(help="Seed: the same arguments give the same file, byte for byte.")] = 0,
    difficulty: Annotated[int, typer.Option(min=1, max=5, help="1 to 5 (docs/generation.md).")] = 1,
    lang: Annotated[str, typer.Option(help="en or zh.")] = "en",
    out: Annotated[Path, typer.Option(help="The JSON-lines file to write.")] = Path("tasks.jsonl"),
) -> None:
    """Generate verified tasks: each replayed by the oracle in a fresh world before it is kept.

    Run them with `toolworlds run --tasks generated:FILE`; check a file with `toolworlds doctor generated:FILE`."""
    from scenarios.generation import GenerationError

    from .generation import generate_file

    try:
        made = generate_file(family_name, n, seed, difficulty, lang, out)
    except (LookupError, GenerationError) as exc:
        raise fail(_said(exc)) from None
    console.print(Text(made.summary()))


def _task_sets(names: list[str], langs: list[str] | None, query: TaskQuery) -> list["TaskSet"]:
    """The task sets to run. Without --lang, each family's languages are the ones its data holds
    (a folder of English tasks is never also run as Chinese); a language asked for by name must
    have tasks."""
    from .runner import TaskSet  # the runner brings the run store (sqlmodel, sqlalchemy): only for runs

    if query.data is not None and len(names) > 1:
        raise fail("--data names one family's tasks: give exactly one --tasks with it")
    loads = []
    generated: dict[str, TaskSet] = {}
    for name in names:
        if name.startswith("generated:") or (name.startswith("world:") and query.data is not None):
            # a user's world (`world:package.module:factory`) runs only from a generated file
            generated[name] = _generated_set(name if name.startswith("generated:") else f"generated:{query.data}",
                                             langs, query)
            continue
        entry = _family(name)
        if entry.load_tasks is None:
            runnable = [f.name for f in families() if f.load_tasks is not None]
            raise fail(f"{name} has no runnable tasks; available: {', '.join(runnable)}")
        for lang in langs or entry.languages:
            if lang not in entry.languages:
                raise fail(f"{name} has no {lang!r} tasks; languages: {', '.join(entry.languages)}")
            try:
                loads.append((entry, lang, entry.tasks(dataclasses.replace(query, lang=lang))))
            except (LookupError, ValueError, OSError) as exc:  # a loader's own refusal of the data it was given
                raise fail(f"{name}/{lang}: {_said(exc)}") from None
    if query.task_ids:
        _check_task_ids(query, loads, {str(task.id) for made in generated.values() for task in made.tasks})
    sets = []
    for name in names:
        if name in generated:
            sets.append(generated[name])
            continue
        absent: list[str] = []
        for entry, lang, loaded in (load for load in loads if load[0].name == name):
            if not loaded.tasks and not langs:
                absent.append(f"{lang} ({'; '.join(loaded.problems[:2]) or 'no tasks'})")
                continue
            if loaded.problems:
                raise fail(f"{name}/{lang}: " + "; ".join(loaded.problems[:5]))
            if not loaded.tasks:
                raise fail(f"{name}/{lang}: no tasks match")
            sets.append(TaskSet(name, lang, loaded.tasks, entry.end_state_mode))
        if absent and not any(s.family == name for s in sets):
            raise fail(f"{name}: no tasks in any language: " + "; ".join(absent))
        if absent:
            errors.print(f"[yellow]note:[/] {escape(name)}: no data for " + escape(", ".join(absent)),
                         highlight=False, soft_wrap=True)
    return sets


def _check_task_ids(query: TaskQuery, loads: list[tuple[WorldFamily, str, Any]], generated: set[str]) -> None:
    """Refuse a `--task-ids` naming a task that will not run, rather than run the others without it: an id
    no task set has (with the closest ones it does have), or one the other filters or `--limit` leave out.
    Every task set asked for counts: an id found in one language is not missing from the other."""
    chosen = generated | {str(task.id) for _, _, loaded in loads for task in loaded.tasks}
    missing = [task_id for task_id in dict.fromkeys(query.task_ids) if task_id not in chosen]
    # An id may name a task by another of its ids (ToolBench: the dataset's id, or mcpbr's `toolbench_N`
    # counted after the filters): it is there when the same query asking for it alone finds a task.
    for entry, lang, _ in loads:
        missing = [task_id for task_id in missing
                   if not _found_alone(entry, dataclasses.replace(query, lang=lang, task_ids=(task_id,)))]
    if not missing:
        return
    everything = dataclasses.replace(query, task_ids=(), limit=None, categories=(), difficulties=(), tags=())
    known: set[str] = set()
    for entry, lang, _ in loads:
        try:
            known.update(str(task.id) for task in entry.tasks(dataclasses.replace(everything, lang=lang)).tasks)
        except (LookupError, ValueError, OSError):  # the filtered load read this data: the full one will too
            continue
    unknown = [task_id for task_id in missing if task_id not in known]
    if unknown:
        import difflib

        hints = {task_id: difflib.get_close_matches(task_id, known, n=3, cutoff=0.6) for task_id in unknown}
        named = "; ".join(f"{task_id!r}" + (f" (closest: {', '.join(hints[task_id])})" if hints[task_id] else "")
                          for task_id in unknown[:10])
        more = f" and {len(unknown) - 10} more" if len(unknown) > 10 else ""
        raise fail(f"--task-ids: no task has the id(s) {named}{more}")
    shown = ", ".join(repr(task_id) for task_id in missing[:10]) + (" ..." if len(missing) > 10 else "")
    raise fail(f"--task-ids: {shown} left out by the other filters or --limit; drop those or these ids")


def _found_alone(entry: WorldFamily, query: TaskQuery) -> bool:
    try:
        return bool(entry.tasks(query).tasks)
    except (LookupError, ValueError, OSError):  # the filtered load read this data: this one reads it too
        return False


def _generated_set(name: str, langs: list[str] | None, query: TaskQuery) -> "TaskSet":
    """The task set of a `generated:FILE`: its family and language come from the file's header."""
    from .generation import generated_path, generated_source
    from .runner import TaskSet

    path = generated_path(name)
    try:
        entry, lang = generated_source(path) if path is not None else (None, "")
        if entry is None:
            raise LookupError(f"{name}: name a file after generated:")
        if langs and lang not in langs:
            raise LookupError(f"{path} holds {lang} tasks, not {', '.join(langs)}")
        loaded = entry.tasks(dataclasses.replace(query, lang=lang, data=path))
    except (LookupError, ValueError, OSError) as exc:
        raise fail(_said(exc)) from None
    if loaded.problems:
        raise fail(f"{path}: " + "; ".join(loaded.problems[:5]))
    if not loaded.tasks:
        raise fail(f"{path}: no tasks match")
    return TaskSet(entry.name, lang, loaded.tasks, entry.end_state_mode)


def _languages(given: list[str] | None, extra: list[str]) -> list[str] | None:
    """--lang values: repeated, comma-separated, or space-separated (`--lang en zh`: the words after
    the first value reach the command as extra arguments)."""
    if extra and not given:
        raise fail(f"unexpected argument(s): {' '.join(extra)}")
    words = [part for value in [*(given or []), *extra] for part in value.replace(",", " ").split()]
    unknown = [w for w in extra if not (len(w) <= 5 and w.replace("-", "").isalpha())]
    if unknown:
        raise fail(f"unexpected argument(s): {' '.join(unknown)}")
    return list(dict.fromkeys(words)) or None


def _open_store(db: str, *, existing: bool = False) -> Any:
    """The run store at `db`, or one line saying why not (the URL shown without its password).

    `existing`: the command only reads runs, so a SQLite file that is not there is an error rather
    than a new empty database left behind (`report --db sqlite:///typo.db` made one)."""
    from sqlalchemy.engine import make_url

    from sandbox.input_limits import exception_line

    from .store import RunStore

    try:
        url = make_url(db)
    except Exception:
        hint = f"; for a SQLite file write sqlite:///{db}" if "://" not in db else ""
        raise fail(f"cannot open the run store: {db!r} is not a database URL{hint}") from None
    if existing and url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:") \
            and not Path(url.database).exists():
        raise fail(f"no run store at {url.database}: nothing has been stored there (check --db)")
    try:
        return RunStore(db)
    except Exception as exc:  # a bad URL or an unreachable server: say so in one line
        raise fail(f"cannot open the run store {shown_url(db)}: {hide_secret(db, exception_line(exc))}") from None


def shown_url(url: str) -> str:
    """A database URL fit to print: its password masked."""
    from sqlalchemy.engine import make_url

    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        return "<unreadable URL>"


def hide_secret(url: str, text: str) -> str:
    """`text` with the URL's password (and the URL as given) masked, wherever they appear."""
    from sqlalchemy.engine import make_url

    text = text.replace(url, shown_url(url))
    try:
        password = make_url(url).password
    except Exception:
        return text
    return text.replace(str(password), "***") if password else text


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": False})
def run(
    ctx: typer.Context,
    tasks: Annotated[list[str] | None, typer.Option(
        "--tasks", help="Task families: banking (bundled), acebench, apibank, toolbench; or generated:FILE (a "
                        "file from `toolworlds generate`).")] = None,
    lang: Annotated[list[str] | None, typer.Option("--lang", help="Languages, e.g. --lang en zh (default: every "
                                                   "one the family's data holds).")] = None,
    data: Annotated[Path | None, typer.Option(help="Task data folder or file (default: the family's own).")] = None,
    agent: Annotated[str, typer.Option(help="oracle, noisy, llm, or package.module:Factory (your own agent: called "
                                            "with the task, returns an object with act(conversation, tools)).")
                     ] = "oracle",
    noise: Annotated[float, typer.Option(min=0.0, max=1.0, help="Mistake rate of the noisy agent.")] = 0.2,
    seed: Annotated[int, typer.Option(help="Seed of the noisy agent.")] = 0,
    model: Annotated[str, typer.Option(help="Model name, for --agent llm.")] = "",
    base_url: Annotated[str, typer.Option(help="OpenAI-compatible endpoint, for --agent llm.")] = "",
    user: Annotated[str, typer.Option(help="Multi-turn user simulator: auto (the llm user for an llm agent's "
                                           "multi-turn tasks, else scripted), scripted or llm.")] = "auto",
    user_model: Annotated[str, typer.Option(help="Model of the llm user simulator (default: --model).")] = "",
    user_base_url: Annotated[str, typer.Option(help="Endpoint of the llm user simulator (default: --base-url).")
                             ] = "",
    temperature: Annotated[float | None, typer.Option(min=0.0, help="Sampling temperature sent to the models "
                                                      "(default: the endpoint's).")] = None,
    max_tokens: Annotated[int | None, typer.Option(min=1, help="Most tokens per model reply (default: the "
                                                   "endpoint's).")] = None,
    max_steps: Annotated[int, typer.Option(min=1, help="Agent messages per episode before it is cut off.")] = 30,
    protocol: Annotated[str, typer.Option(help="Tool protocol: native (tool_calls) or bracket (calls written as "
                                          "text); default: each task's own for --agent llm (native unless it says "
                                          "bracket), text for oracle and noisy (native: they send tool_calls).")
                        ] = "",
    trials: Annotated[int, typer.Option(min=1, help="Runs of each task (pass^k is reported over them).")] = 1,
    db: Annotated[str, typer.Option(help="SQLAlchemy URL of the run store.")] = "sqlite:///toolworlds.db",
    run_id: Annotated[str | None, typer.Option("--run-id", help="Name of the run (default: run-N).")] = None,
    resume: Annotated[bool, typer.Option(help="Continue --run-id, skipping stored episodes (failed ones too).")
                      ] = False,
    retry_failed: Annotated[bool, typer.Option("--retry-failed", help="With --resume: run the episodes stored as "
                                               "failed again, replacing them.")] = False,
    force: Annotated[bool, typer.Option(help="With --resume: continue even if the configuration differs from the "
                                        "stored run's (the difference is recorded with the run).")] = False,
    timeout: Annotated[float, typer.Option(min=0.001, max=86_400, help="Seconds to wait for each endpoint request.")
                       ] = DEFAULT_TIMEOUT,
    retries: Annotated[int, typer.Option(min=0, help="Further tries of an endpoint request that failed "
                                         "transiently (429, 5xx, connection, timeout), with backoff.")
                       ] = DEFAULT_RETRIES,
    workers: Annotated[int | None, typer.Option(min=0, help="Episodes run in parallel: worker processes here "
                                                "(default 1; 0: in this process, where a debugger can follow "
                                                "them), or Ray actors (default: one per CPU of the cluster).")
                       ] = None,
    episode_timeout: Annotated[float | None, typer.Option(min=0.001, help="Seconds an episode may run in its worker "
                                                          "process: past it the process is ended and the episode "
                                                          "stored as failed (default: no limit; the process backend "
                                                          "with --workers 1 or more).")] = None,
    backend: Annotated[str, typer.Option(help="Where episodes run: process (this machine) or ray (a Ray cluster; "
                                         'the ray extra: pip install -e ".\\[ray]"). See docs/distributed.md.')
                       ] = "process",
    address: Annotated[str | None, typer.Option(help="--backend ray: auto (the cluster this machine joined with "
                                                "`ray start`) or ray://host:port; default: a local Ray for this "
                                                "run.")] = None,
    concurrency: Annotated[int, typer.Option(min=0, help="LLM agents: at most this many endpoint requests in "
                                             "flight at once, across all workers (0: one per worker).")] = 0,
    limit: Annotated[int | None, typer.Option("--limit", "-n", min=1, help="At most this many tasks per task set, "
                                              "taken evenly across categories (toolbench: the first N that pass "
                                              "the filters).")] = None,
    task_ids: Annotated[list[str] | None, typer.Option("--task-ids", help="Only these task ids (repeat, or "
                                                       "comma-separated).")] = None,
    categories: Annotated[list[str] | None, typer.Option("--categories", help="Only these categories (repeat, or "
                                                         "comma-separated); the same as --filter-category.")
                          ] = None,
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
        help="Where benchmarks with their own result files (acebench, apibank) write them, one folder per task set "
             "(default: results/<run-id>).")] = None,
    errata: Annotated[bool, typer.Option(help="Apply each family's errata (corrected or left-out tasks, listed by "
                                         "`toolworlds doctor`); --no-errata reads the data as published.")] = True,
) -> None:
    """Run an agent over task sets, store every episode, and print the scores.

    An episode that fails (the endpoint stays down, the agent breaks) is stored with its
    reason and the run goes on; the summary counts them. `--resume` skips them;
    `--resume --retry-failed` runs them again. A resume with another configuration (agent,
    model, endpoint, user simulator, seeds, task filter, trials) is refused unless `--force`.
    """
    from sandbox.input_limits import exception_line

    from .report import score_table
    from .runner import AgentSpec, BackendError, ConfigMismatch, execute_run, load_factory, pending_tasks

    langs = _languages(lang, list(ctx.args))
    if agent not in ("oracle", "noisy", "llm") and ":" not in agent:
        raise fail(f"unknown agent {agent!r}; use oracle, noisy, llm or package.module:Factory")
    if ":" in agent:
        try:
            load_factory(agent)
        except ValueError as exc:
            raise fail(str(exc)) from None
    if agent == "llm" and not (model and base_url):
        raise fail("--agent llm needs --model and --base-url")
    if user == "llm" and not ((user_model or model) and (user_base_url or base_url)):
        raise fail("--user llm needs --user-model and --user-base-url (or --model and --base-url)")
    if user not in ("auto", "scripted", "llm"):
        raise fail(f"unknown user simulator {user!r}; use auto, scripted or llm")
    if "llm" in (agent, user) and importlib.util.find_spec("openai") is None:
        # Found here, before a run is made: each episode would otherwise fail on it and store a useless run.
        raise fail('--agent llm and --user llm need the openai package: pip install -e ".[llm]" in the '
                   "toolworlds checkout")
    if protocol not in ("", "native", "bracket"):
        raise fail(f"unknown protocol {protocol!r}; use native or bracket")
    if resume and not run_id:
        raise fail("--resume needs the --run-id of the run to continue")
    if retry_failed and not resume:
        raise fail("--retry-failed continues a run: give it with --resume --run-id")
    if force and not resume:
        raise fail("--force overrides a resume's configuration check: give it with --resume --run-id")
    for option, value in (("--noise", noise), ("--temperature", temperature), ("--timeout", timeout),
                          ("--episode-timeout", episode_timeout)):
        if value is not None and not math.isfinite(value):  # click's ranges let NaN through, and inf means nothing
            raise fail(f"{option} must be a finite number, not {value}")
    runs_on = _backend(backend, address, workers, episode_timeout)
    chosen = _run_config(config)
    if data is None and tasks and len(tasks) == 1 and tasks[0].startswith("generated:"):
        data = Path(tasks[0].partition(":")[2])  # stored with the run, so its resume reads the same file
    query = TaskQuery(
        data=data if data is not None else (Path(chosen.data) if chosen.data else None),
        limit=limit if limit is not None else chosen.sample_size,
        difficulties=tuple(filter_difficulty or chosen.filter_difficulty),
        categories=tuple(_split([*(categories or []), *(filter_category or [])]) or chosen.filter_category)
        + tuple(f"level-{n}" for n in level or ()),
        tags=tuple(filter_tags or chosen.filter_tags), task_ids=tuple(_split(task_ids or []) or chosen.task_ids))
    query = dataclasses.replace(query, errata=errata)
    sets = _task_sets(tasks or list(chosen.benchmark) or ["banking"], langs, query)
    if query.limit is not None and len(sets) > 1:
        errors.print(f"note: --limit {query.limit} applies to each of the {len(sets)} task sets "
                     f"({', '.join(s.name for s in sets)})", highlight=False, soft_wrap=True)
    store = _open_store(db)
    if trials > 1 and store.one_trial_per_task:
        raise fail("this run store was made before repeated trials (one trial per task): use a new --db for "
                   "--trials above 1")
    name = run_id or store.new_run_id()
    if run_id and not resume and store.run(run_id) is not None:
        raise fail(f"run {run_id!r} already exists in {shown_url(db)}; add --resume to continue it")
    if resume and store.run(name) is None:  # a mistyped id would silently run (and pay for) everything again
        known = [row.run_id for row in store.runs()]
        store.close()
        raise fail(f"no run {name!r} in {shown_url(db)} to resume (runs there: {', '.join(known[-10:]) or 'none'}); "
                   "leave out --resume to start it")
    spec = AgentSpec(kind=agent, noise=noise, seed=seed, model=model, base_url=base_url, pause=pause, user=user,
                     timeout=timeout, retries=retries, temperature=temperature, max_tokens=max_tokens,
                     user_model=user_model, user_base_url=user_base_url, max_steps=max_steps, protocol=protocol,
                     concurrency=concurrency)
    filters = {key: (str(value) if isinstance(value, Path) else value)
               for key, value in dataclasses.asdict(query).items() if key != "lang"}
    todo = len(pending_tasks(store, name, sets, retry_failed=retry_failed, trials=trials))
    try:
        with _Progress(name, todo) as progress:
            episodes = execute_run(store, name, sets, spec, backend=runs_on, retry_failed=retry_failed,
                                   on_done=progress.done, trials=trials, query=filters, force=force)
    except ConfigMismatch as exc:
        store.close()
        raise fail(f"{exc}. Resume with the same options, or add --force to continue anyway (recorded in the "
                   f"run).") from None
    except BackendError as exc:
        store.close()
        raise fail(str(exc)) from None
    except KeyboardInterrupt:
        errors.print(f"interrupted: every finished episode is stored. Continue with: "
                     f"{escape(_resume_command(name, db, config=_stored_config(store, name)))}", highlight=False,
                     soft_wrap=True)
        store.close()
        raise typer.Exit(code=130) from None
    except Exception as exc:  # the store itself failed mid-run: say which run to continue
        store.close()
        raise fail(f"run {name} stopped: {hide_secret(db, exception_line(exc))}. Every finished episode is "
                   f"stored; continue with: {_resume_command(name, db, config=_stored_config(store, name))}"
                   ) from None
    console.print(score_table(name, store.scores(name), title=f"{escape(name)}: {escape(spec.describe())} "
                                                              f"({escape(shown_url(db))})"))
    _print_benchmark_tables(sets, episodes, results or Path("results") / name, query.data)
    stored = store.run(name)
    _print_summary(name, db, episodes, json.loads(stored.config) if stored is not None else {})
    store.close()
    if episodes and all(episode.error is not None for episode in episodes):
        # A run that produced no score at all (a wrong endpoint, a missing key) must not look like a result.
        errors.print("[bold red]error:[/] every episode failed (reasons above)", highlight=False)
        raise typer.Exit(code=1)


def _stored_config(store: Any, run_id: str) -> dict[str, Any]:
    try:
        stored = store.run(run_id)
        return json.loads(stored.config) if stored is not None else {}
    except Exception:  # the store is what failed: the command still names the run
        return {}


def _backend(name: str, address: str | None, workers: int | None, episode_timeout: float | None
             ) -> "Backend":
    """The runner backend the options name (`toolworlds.runner.Backend`)."""
    if episode_timeout is not None and (name != "process" or workers == 0):
        raise fail("--episode-timeout is kept by the process backend's pool, which ends the process of an episode "
                   "past it: give it with --backend process and --workers 1 or more")
    if name == "process":
        if address is not None:
            raise fail("--address names a Ray cluster: give it with --backend ray")
        from .process_backend import ProcessBackend

        return ProcessBackend(1 if workers is None else workers, time_limit=episode_timeout)
    if name == "ray":
        if workers == 0:
            raise fail("--workers 0 runs episodes in this process: give it with --backend process")
        from .ray_backend import RayBackend

        return RayBackend(address=address, workers=workers)
    raise fail(f"unknown backend {name!r}; use process or ray")


def _print_benchmark_tables(sets: list["TaskSet"], episodes: list[Any], folder: Path, data: Path | None) -> None:
    """Task sets whose family writes its own result files (`evaluators.<family>.score_run`):
    write them from the episodes' result records, and print the benchmark's own tables."""
    from evaluators.conventions import family_function
    from evaluators.results import RunRecords

    from .report import results_table

    if data is not None and data.is_file():
        from scenarios.generation import is_generated

        if is_generated(data):
            return  # generated tasks are not the benchmark's: its tables would score them against its answers
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



def _split(values: list[str]) -> list[str]:
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


class _Progress:
    """Progress on stderr: the live line (`toolworlds.progress.RunProgress`) on a terminal, one plain
    line per episode anywhere else (a log file, CI), so a long run never looks stalled."""

    def __init__(self, run_id: str, total: int) -> None:
        from .progress import RunProgress

        self.run_id, self.total, self.count = run_id, total, 0
        self._live = RunProgress(errors, escape(run_id), total) if errors.is_terminal else None

    def __enter__(self) -> "_Progress":
        if self._live is not None:
            self._live.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._live is not None:
            self._live.__exit__(*exc)

    def done(self, outcome: Any) -> None:
        self.count += 1
        if self._live is not None:
            self._live.done(outcome)
            return
        episode = outcome.episode
        verdict = "failed" if episode.get("error") else ("solved" if episode.get("success") else "missed")
        errors.print(f"{escape(self.run_id)} [{self.count}/{self.total}] {escape(str(episode.get('task_set')))} "
                     f"{escape(str(episode.get('task_id')))}: {verdict}", highlight=False, soft_wrap=True)


def _resume_command(run_id: str, db: str, *extra: str, config: dict[str, Any] | None = None) -> str:
    """The command that continues a run with its stored configuration (the password left out of the URL)."""
    options = _config_options(config or {})
    return shlex.join(["toolworlds", "run", "--db", shown_url(db), "--run-id", run_id, "--resume", *options, *extra])


# Run options written back from a stored configuration: (config key, flag, default).
_OPTIONS = (("kind", "--agent", "oracle"), ("noise", "--noise", 0.2), ("seed", "--seed", 0), ("model", "--model", ""),
            ("base_url", "--base-url", ""), ("user", "--user", "auto"), ("user_model", "--user-model", ""),
            ("user_base_url", "--user-base-url", ""), ("temperature", "--temperature", None),
            ("max_tokens", "--max-tokens", None), ("max_steps", "--max-steps", 30), ("protocol", "--protocol", ""),
            ("trials", "--trials", 1))
_QUERY_OPTIONS = (("data", "--data"), ("limit", "--limit"), ("categories", "--categories"),
                  ("task_ids", "--task-ids"), ("difficulties", "--filter-difficulty"), ("tags", "--filter-tags"))


def _config_options(config: dict[str, Any]) -> list[str]:
    if not config:
        return []
    options: list[str] = []
    families = list(dict.fromkeys(name.split("/", 1)[0] for name in config.get("task_sets", [])))
    langs = list(dict.fromkeys(name.split("/", 1)[1] for name in config.get("task_sets", []) if "/" in name))
    for name in families:
        options += ["--tasks", name]
    for code in langs:
        options += ["--lang", code]
    for key, flag, default in _OPTIONS:
        value = config.get(key, default)
        if value != default and value is not None:
            options += [flag, str(value)]
    if (config.get("query") or {}).get("errata") is False:
        options.append("--no-errata")
    for key, flag in _QUERY_OPTIONS:
        value = (config.get("query") or {}).get(key)
        if value in (None, [], ()):
            continue
        options += [flag, ",".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)]
    return options


def _print_summary(run_id: str, db: str, episodes: list[Any], config: dict[str, Any]) -> None:
    """How many episodes the run holds, which failed and why, and how to continue it."""
    failed = [e for e in episodes if e.error is not None]
    console.print(f"run {escape(run_id)}: {len(episodes)} episodes stored, {len(failed)} failed", highlight=False)
    reasons: dict[str, list[str]] = {}
    for episode in failed:
        reasons.setdefault(episode.error[:160], []).append(f"{episode.task_set}:{episode.task_id}")
    for reason, tasks in sorted(reasons.items(), key=lambda kv: -len(kv[1]))[:10]:
        shown = ", ".join(tasks[:3]) + (f" and {len(tasks) - 3} more" if len(tasks) > 3 else "")
        console.print(f"  {len(tasks)} x {escape(reason)}  ({escape(shown)})", highlight=False, soft_wrap=True)
    if failed:
        again = _resume_command(run_id, db, "--retry-failed", config=config)
        console.print(f"run the failed episodes again: {escape(again)}", highlight=False, soft_wrap=True)


def _run_config(path: Path | None) -> "RunConfig":
    from .runconfig import RunConfig, read_run_config  # only `run` reads a config file

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
    run_id: Annotated[list[str] | None, typer.Option("--run-id", help="A run to show; repeat to compare several "
                                                     "(default: every run).")] = None,
    html_path: Annotated[Path | None, typer.Option("--html", help="Write a self-contained HTML page comparing the "
                                                   "runs, with every episode's transcript, calls and diff.")] = None,
    output_format: Annotated[str, typer.Option("--format", help="table (for people), or json, csv or md: one row "
                                               "per run, task set and category, with 95% intervals and pass^1..k, "
                                               "on stdout for scripts.")] = "table",
) -> None:
    """Show stored runs as score tables, or write them as one HTML page, side by side."""
    from .report import score_table
    from .runner import summarize_run

    if output_format not in ("table", "json", "csv", "md"):
        raise fail(f"unknown format {output_format!r}; use table, json, csv or md")
    store = _open_store(db, existing=True)
    runs = [r.run_id for r in store.runs()] if not run_id else list(dict.fromkeys(run_id))
    if not runs:
        raise fail(f"no runs in {shown_url(db)}")
    if output_format != "table":
        from .score_rows import render, score_rows

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
                          f"it with: {escape(_resume_command(name, db, config=config))}", highlight=False,
                          soft_wrap=True)
        if scores:
            console.print(score_table(name, scores, title=f"{escape(name)}: {escape(stored.agent)}"))
    if len(runs) > 1:  # which episodes flipped, from the first run to each other one
        from .flips import compare_runs, flips_summary, flips_table

        first = store.episodes(runs[0])
        for other in runs[1:]:
            compared = compare_runs(runs[0], first, other, store.episodes(other))
            console.print(escape(flips_summary(compared)), highlight=False, soft_wrap=True)
            if compared.flips:
                console.print(flips_table(compared))
    if html_path is not None:
        from .report_html import html_report

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
    from .rescore import RescoreError, rescore_run

    store = _open_store(db)
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
    from .transcript import transcript_text

    store = _open_store(db, existing=True)
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
    from .export import CALL_FORMS, FORMATS, write_export

    if format not in FORMATS:
        raise fail(f"unknown format {format!r}; use one of {', '.join(FORMATS)}")
    if calls not in CALL_FORMS:
        raise fail(f"unknown --calls {calls!r}; use one of {', '.join(CALL_FORMS)}")
    store = _open_store(db, existing=True)
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

    from .report import results_table

    try:
        scored = results_scorer(benchmark)(ResultsRequest(results, data, lang, mode))
    except (LookupError, ValueError) as exc:
        raise fail(_said(exc)) from None
    console.print(results_table(scored))
    if json_path is not None:
        from sandbox.input_limits import printable_json  # a verdict's detail may quote a model's lone surrogate

        json_path.write_text(printable_json(json.dumps(scored.payload, indent=2, ensure_ascii=False)), encoding="utf-8")


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
    max_sessions: Annotated[int, typer.Option(help="http: sessions open at once at most (one more is refused "
                                                   "with HTTP 503); worlds kept, open and ended.")] = 1024,
    idle_timeout: Annotated[float, typer.Option(help="http: seconds without a request after which a session "
                                                     "ends (its calls are then refused; 0: never).")] = 1800.0,
    filter_difficulty: Annotated[list[str] | None, typer.Option(
        help="With --task: the filters it is read under, as `run` reads --task-ids (toolbench: mcpbr's "
             "toolbench_N counts the tasks that pass them). Repeat for several.")] = None,
    filter_category: Annotated[list[str] | None, typer.Option(help="With --task: as --filter-difficulty.")] = None,
    filter_tags: Annotated[list[str] | None, typer.Option(help="With --task: as --filter-difficulty.")] = None,
    coercion: Annotated[str | None, typer.Option(help="The served world's coercion: lax (\"5\" passes for an "
                                                      "integer) or strict (exact types: \"5\" and true are refused "
                                                      "for an integer); default: the family's own.")] = None,
) -> None:
    """Serve a world over MCP, one world per session; reset, state, diff and score stay off the tool list."""
    if transport not in ("stdio", "http"):
        raise fail(f"unknown transport {transport!r}; use stdio or http")
    if coercion not in (None, "lax", "strict"):
        raise fail(f"unknown coercion {coercion!r}; use lax or strict")
    narrow = TaskQuery(categories=tuple(_split(filter_category or [])), difficulties=tuple(filter_difficulty or ()),
                       tags=tuple(filter_tags or ()))
    if (data is not None or narrow != TaskQuery()) and task is None:
        raise fail("--data and the filters say where and how --task is read: give --task with them")
    if save is not None and transport != "stdio":
        raise fail("--save is for stdio; over http the /control routes give each session's log, state and score")
    try:
        from . import mcp_server
    except ImportError:
        raise fail('serving MCP needs the mcp package: pip install -e ".[mcp]" in the toolworlds checkout') from None
    try:  # over stdio the process is the session: it does not idle out
        hosted = mcp_server.WorldHost(family_name, task=task, lang=lang, seed=seed, data=data, narrow=narrow,
                                      max_sessions=max_sessions,
                                      idle_timeout=(idle_timeout or None) if transport == "http" else None,
                                      coercion="strict" if coercion == "strict" else "lax" if coercion else None)
        if transport == "http":
            mcp_server.check_loopback(host)
    except (LookupError, ValueError) as exc:
        raise fail(_said(exc)) from None
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
    try:
        app()
    finally:
        # The command is done (its files closed, its store closed) and the process is about to end.
        # Interpreter shutdown would now run the cycle collector over every object still alive: tens
        # of thousands after a replay (the worlds' models, pydantic's schemas and validators), about
        # 40 ms, more than printing the table, to free memory the operating system takes back anyway.
        # Frozen objects are left out of those collections; reference counting still releases what it
        # releases, atexit handlers still run, and the exit code is unchanged.
        gc.freeze()


if __name__ == "__main__":
    main()
