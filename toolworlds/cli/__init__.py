"""The `toolworlds` command line: look at worlds, export their tools, replay, run and score.

One module per command group, each registering its commands on the one typer app (`app.py`):
`worlds.py` (worlds, tools, execute, replay, doctor, generate), `run.py` (run), `results.py`
(report, rescore, show, export, score) and `serve.py` (serve). `toolworlds.cli:main` is the
console entry point; `python -m toolworlds.cli` runs it too.
"""

from . import results, run, serve, worlds  # noqa: F401  (importing a command group registers its commands)
from .app import app, main

__all__ = ["app", "main"]
