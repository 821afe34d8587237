"""Commands that look at worlds and their data: worlds, tools, execute, replay, doctor, generate."""

import contextlib
import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table
from rich.text import Text

from sandbox.schemas import FORMATS
from scenarios.family import ReplayReport
from scenarios.registry import families

from .collector import collector_paused
from .shared import app, console, errors, escape, fail, family_named, said


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
    built = family_named(world).build_world()
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
    built = family_named(world).build_world()
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
    entry = family_named(name)
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
        raise fail(said(exc)) from None
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
    with collector_paused():
        _replay(family_name, data, lang, json_path, recordings)


def _replay(family_name: str, data: Path | None, lang: str, json_path: Path | None, recordings: bool) -> None:
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
        for line in errata_lines(family_named(family_name).errata, lang, report.findings):
            console.print(escape(line), highlight=False, soft_wrap=True)
    except ValueError as exc:  # a malformed errata file: named, line by line
        raise fail(str(exc)) from None
    console.print(f"{len(report.rows)} rows: {sum(report.ok)} reproduce, {len(report.findings)} finding(s)")
    if report.findings:
        raise typer.Exit(code=1)


def _doctor_generated(path: Path) -> None:
    from ..generation import check_generated

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

    from ..generation import generate_file

    try:
        made = generate_file(family_name, n, seed, difficulty, lang, out)
    except (LookupError, GenerationError) as exc:
        raise fail(said(exc)) from None
    console.print(Text(made.summary()))

