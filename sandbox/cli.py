"""The `toolworlds` command line: look at worlds, export their tools, run calls."""

from __future__ import annotations

import json
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


def main() -> None:
    app()


if __name__ == "__main__":
    main()
