"""The `toolworlds` typer app, its two consoles, and the helpers every command group shares.

Every family-specific answer (which worlds, tasks, languages, replays and scorers exist)
comes from `scenarios.registry` and `evaluators.results`; the command line knows no family.

Unlike the rest of the package, the command modules keep their annotations evaluated (no
`from __future__ import annotations`): typer reads every command's signature on every
invocation, and annotations kept as strings it compiles and evaluates anew each time,
which cost a cold `toolworlds replay` some 30 ms. Names imported only for type checking
are quoted.
"""

import contextlib
import gc
from collections.abc import Iterator

import typer
from rich.markup import escape as markup_escape

from scenarios.family import WorldFamily
from scenarios.registry import family

from ..terminal import OutputConsole
from ..visible import visible_text

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


def said(exc: Exception) -> str:
    """What an error says: a `KeyError`'s own words without the quotes `str` adds, else `str(exc)` (a
    `UnicodeDecodeError`'s first argument is only its codec's name)."""
    return str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)


def family_named(name: str) -> WorldFamily:
    """The registered family `name`, or one line naming the ones there are."""
    try:
        return family(name)
    except KeyError as exc:
        raise fail(str(exc.args[0])) from None


def split_commas(values: list[str]) -> list[str]:
    """Option values given repeated or comma-separated (`--task-ids a,b --task-ids c`), as one list."""
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """The cycle collector off for a bounded command (a replay), back as it was afterwards.

    A replay allocates tens of thousands of objects that live until it ends (the family's
    modules, models and validators, each task's worlds) and leaves almost no cyclic garbage: the
    collector's passes over them cost a cold `toolworlds replay acebench` some 6 ms (half of it
    paid back in one pass when the collector is given back) and free nothing (peak memory with it
    off: acebench 40.5 MB against 40.3, apibank 66.2 against 65.8). Reference counting frees
    everything else as usual. Long-lived commands (`run`, `serve`) keep the collector.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


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
