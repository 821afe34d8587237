"""The live line a run shows while it works: episodes done of all, failed so far, episodes per second.

The same for every backend, since it is fed by the driver as each outcome is stored.
"""

from __future__ import annotations

from types import TracebackType

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, Task, TextColumn, TimeElapsedColumn
from rich.text import Text

from .worker import Outcome


class RateColumn(ProgressColumn):
    """Episodes per second over the last half minute (rich's own speed estimate)."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text("-- episodes/s" if speed is None else f"{speed:.1f} episodes/s", style="cyan")


class RunProgress:
    """`with RunProgress(console, name, total) as progress:` then `progress.done(outcome)` per stored episode."""

    def __init__(self, console: Console, run_id: str, total: int) -> None:
        self.failed = 0
        self._progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                  TextColumn("[red]{task.fields[failed]} failed"), RateColumn(), TimeElapsedColumn(),
                                  console=console, transient=True)
        self._bar = self._progress.add_task(f"{run_id}: episodes", total=total, failed=0)

    def __enter__(self) -> RunProgress:
        self._progress.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self._progress.stop()

    def done(self, outcome: Outcome) -> None:
        if outcome.record.error is not None:
            self.failed += 1
        self._progress.update(self._bar, advance=1, failed=self.failed)
