"""The `toolworlds` command line: look at worlds, export their tools, replay, run and score.

One module per command group, each registering its commands on the one typer app (`shared.py`):
`worlds.py` (worlds, tools, execute, replay, doctor, generate), `run.py` (run), `results.py`
(report, rescore, show, export, score) and `serve.py` (serve). `toolworlds.cli:main` is the
console entry point; `python -m toolworlds.cli` runs it too.

`import toolworlds.cli` imports none of them: `app` (the typer app, every command registered)
is imported on first use, and `main` imports it with the cycle collector paused and freezes
what it made (typer, rich and the command modules live to the end of the process): the
collector's passes over them cost a cold `toolworlds replay acebench` some 8 ms.
"""

from __future__ import annotations

import gc
from typing import TYPE_CHECKING, Any

from .collector import collector_paused

if TYPE_CHECKING:
    import typer

__all__ = ["app", "main"]


def _commands() -> typer.Typer:
    """The typer app with every command group imported (importing a group registers its commands)."""
    from . import results, run, serve, worlds  # noqa: F401
    from .shared import app

    return app


def main() -> None:
    """The `toolworlds` command: the command line imported (see the module's docstring), then run."""
    with collector_paused(freeze=True):
        app = _commands()
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


def __getattr__(name: str) -> Any:
    if name == "app":
        return _commands()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
