"""The live line of a run: episodes done of all, failed so far, episodes per second."""

from __future__ import annotations

import io

from rich.console import Console

from toolworlds.progress import RunProgress
from toolworlds.runner import Outcome


def outcome(error: str | None) -> Outcome:
    return Outcome({"task_set": "banking/en", "task_id": "t", "error": error}, [])


def test_the_progress_line_counts_done_and_failed_episodes_and_shows_a_rate() -> None:
    screen = io.StringIO()
    console = Console(file=screen, force_terminal=True, width=120)
    with RunProgress(console, "run-1", total=3) as progress:
        for error in (None, "agent: EndpointError: HTTP 500", None):
            progress.done(outcome(error))
    shown = screen.getvalue()  # the last refresh, written before the transient line is erased
    assert progress.failed == 1
    assert "run-1: episodes" in shown and "3/3" in shown and "1 failed" in shown
    assert "episodes/s" in shown
