"""Run a `RunOptions`: choose its task sets, check it against the run store, and run every episode.

`run(options)` is the whole run for a Python caller; `toolworlds run` takes the same steps
(`select_task_sets`, `plan_run`, `PlannedRun.execute`) with its own store, progress line and tables
around them. What the options say is checked by `RunOptions`; what they say about the store (a run id
already taken, a resume of a run that is not there) is checked here, once, before anything runs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from .db_urls import shown_url
from .options import OptionError, RunOptions
from .runner import Outcome, TaskSet, execute_run
from .store import EpisodeRow, RunStore, ScoreRow
from .task_selection import Selection, select_task_sets


@dataclass
class PlannedRun:
    """A run whose options, task sets and store agree; `execute` runs its pending episodes."""

    options: RunOptions
    store: RunStore
    run_id: str
    task_sets: list[TaskSet]
    notes: list[str] = field(default_factory=list)

    def execute(self, *, on_start: Callable[[int], None] | None = None,
                on_done: Callable[[Outcome], None] | None = None) -> list[EpisodeRow]:
        """Run every episode not yet stored (see `toolworlds.runner.execute_run`); all of the run's episodes."""
        options = self.options
        return execute_run(self.store, self.run_id, self.task_sets, options.agent_spec(),
                           backend=options.make_backend(), retry_failed=options.retry_failed, on_start=on_start,
                           on_done=on_done, trials=options.trials, query=options.stored_query(), force=options.force)


def plan_run(options: RunOptions, store: RunStore, selection: Selection | None = None) -> PlannedRun:
    """The run `options` ask for in `store`; `OptionError` if its id is taken or a resume finds no run."""
    chosen = selection if selection is not None else select_task_sets(options)
    notes = list(chosen.notes)
    if options.limit is not None and len(chosen.task_sets) > 1:
        notes.append(f"--limit {options.limit} applies to each of the {len(chosen.task_sets)} task sets "
                     f"({', '.join(s.name for s in chosen.task_sets)})")
    if options.run_id and not options.resume and store.run(options.run_id) is not None:
        raise OptionError(f"run {options.run_id!r} already exists in {shown_url(options.db)}; add --resume to "
                          "continue it")
    name = options.run_id or store.new_run_id()
    if options.resume and store.run(name) is None:  # a mistyped id would silently run (and pay for) everything again
        known = [row.run_id for row in store.runs()]
        raise OptionError(f"no run {name!r} in {shown_url(options.db)} to resume (runs there: "
                          f"{', '.join(known[-10:]) or 'none'}); leave out --resume to start it")
    return PlannedRun(options, store, name, chosen.task_sets, notes)


@dataclass
class RunResult:
    """What a finished run stored: its id, every episode, and its score rows."""

    run_id: str
    task_sets: list[TaskSet]
    episodes: list[EpisodeRow]
    scores: list[ScoreRow]
    notes: list[str] = field(default_factory=list)


def run(options: RunOptions, *, on_done: Callable[[Outcome], None] | None = None) -> RunResult:
    """Run `options` to the end, in the store at `options.db`: what `toolworlds run` does, without the printing.

    Raises `OptionError` for a task selection or run id the store refuses, `ConfigMismatch` for a resume
    with another configuration (unless `options.force`), and `ValueError` for a store that cannot hold
    what is asked (repeated trials in a store made before them)."""
    store = RunStore(options.db)
    try:
        planned = plan_run(options, store)
        episodes = planned.execute(on_done=on_done)
        return RunResult(planned.run_id, planned.task_sets, episodes, store.scores(planned.run_id), planned.notes)
    finally:
        store.close()
