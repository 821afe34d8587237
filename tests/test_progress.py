"""The live line of a run: episodes done of all, failed so far, episodes per second."""

from __future__ import annotations

import io

from rich.console import Console

from toolworlds.progress import RunProgress
from toolworlds.runner import EpisodeRecord, Outcome


def outcome(error: str | None) -> Outcome:
    if error is not None:
        return Outcome(EpisodeRecord.failed("banking/en", "t", "c", error))
    return Outcome(EpisodeRecord(task_set="banking/en", task_id="t", category="c", success=True, state_fraction=1.0,
                                 process=1.0, steps=1, calls=1, errors=0, finished=True))


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
