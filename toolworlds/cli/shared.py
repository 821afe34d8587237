"""The `toolworlds` typer app, its two consoles, and the helpers every command group shares.

Every family-specific answer (which worlds, tasks, languages, replays and scorers exist)
comes from `scenarios.registry` and `evaluators.results`; the command line knows no family.

Unlike the rest of the package, the command modules keep their annotations evaluated (no
`from __future__ import annotations`): typer reads every command's signature on every
invocation, and annotations kept as strings it compiles and evaluates anew each time,
which cost a cold `toolworlds replay` some 30 ms. Names imported only for type checking
are quoted.
"""

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
