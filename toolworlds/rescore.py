"""Scoring a stored run again, without asking any model: after a scorer fix or a data erratum.

Every episode's transcript is replayed into a fresh world of its task, as loaded now (errata
applied, `scenarios.errata`), and the family's episode scorer (`evaluators.task_score`) judges
the world and the agent's messages again, in `compat` or `strict` mode. The result is a new run,
beside the old one: what happened (steps, calls, transcript, errors) is copied, and the columns a
score fills are written by the runner's own writer (`episode_score.score_columns`), so rescoring with
nothing changed stores the very same values. `toolworlds report --run-id OLD --run-id NEW` then
shows which episodes flipped (`toolworlds.flips`).

An episode that never reached its scorer (the run failed it whole: "run failed") is copied as it
is; so is one stored before transcripts were (nothing to replay). An episode whose task is no
longer in the data (an erratum took it out) is left out of the new run, and named.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from evaluators.task_score import episode_scorer
from evaluators.versions import CHECKERS, Checker
from sandbox.comparison import Mode
from sandbox.input_limits import exception_line
from scenarios.family import Task, TaskQuery, task_hook
from scenarios.registry import family
from scenarios.taskhash import TaskHasher

from .defects import run_defects
from .episode_record import stored_text
from .episode_score import score_columns
from .runner import summarize_run
from .store import CallRow, EpisodeRow, MessageRow, RunStore
from .transcript import agent_process, replay

# What a score fills: compared with the stored episode to count what changed.
SCORE_COLUMNS = ("success", "state_fraction", "process", "diff", "result_record")


class RescoreError(ValueError):
    """The run cannot be scored again (no such run, a name taken, task data that cannot be read)."""


@dataclass
class Rescored:
    """What a rescore did, episode by episode (task set:task id#trial)."""

    run_id: str
    source: str
    checker: Checker
    episodes: int = 0  # stored in the new run
    scored: int = 0  # replayed and scored again
    unchanged: int = 0  # of those, every score column equal to the stored one
    changed: list[str] = field(default_factory=list)  # score columns differ
    copied: list[str] = field(default_factory=list)  # nothing to score again: kept as stored
    left_out: list[str] = field(default_factory=list)  # task no longer in the data
    diverged: list[str] = field(default_factory=list)  # the replay's calls differ from the stored call log
    failed: list[str] = field(default_factory=list)  # the replay or the scorer raised: stored as missed, with why

    def lines(self) -> list[str]:
        """What the rescore did, for a person: the counts, then up to ten episodes of each list."""
        lines = [f"{self.source} -> {self.run_id} ({self.checker}): {self.episodes} episodes stored, {self.scored} "
                 f"scored again, {self.unchanged} with the same scores, {len(self.changed)} changed, "
                 f"{len(self.copied)} copied unscored, {len(self.left_out)} left out (no longer in the data)"]
        for label, names in (("changed", self.changed), ("failed to score", self.failed),
                             ("copied unscored", self.copied),
                             ("left out", self.left_out), ("replay differs from the stored call log", self.diverged)):
            if names:
                more = f" and {len(names) - 10} more" if len(names) > 10 else ""
                lines.append(f"  {label}: {', '.join(names[:10])}{more}")
        return lines


def rescore_run(store: RunStore, run_id: str, new_run_id: str, *, checker: Checker = "compat",
                data: Path | None = None) -> Rescored:
    """Score every episode of `run_id` again into the new run `new_run_id` (see the module's doc).

    `data` is where the tasks are read from (default: the folder the run was made with, else the
    family's own). Raises `RescoreError` before writing anything when the run is unknown, the new
    name taken, or the task data unreadable."""
    if checker not in CHECKERS:
        raise RescoreError(f"unknown mode {checker!r}; use {' or '.join(CHECKERS)}")
    stored = store.run(run_id)
    if stored is None:
        raise RescoreError(f"no run {run_id!r}")
    if store.run(new_run_id) is not None:
        raise RescoreError(f"run {new_run_id!r} already exists")
    config: dict[str, Any] = json.loads(stored.config or "{}")
    episodes = store.episodes(run_id)
    query = config.get("query") or {}
    if data is None and query.get("data"):
        data = Path(query["data"])
    tasks = _tasks(episodes, data, errata=query.get("errata", True) is not False)
    # Known defects are found again for the new run (once, then kept with it): errata may have corrected some.
    kept = {key: value for key, value in config.items() if key != "defects"}
    store.start_run(new_run_id, stored.agent, {**kept, "rescored": {
        "from": run_id, "mode": checker, "at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds")}})
    done = Rescored(new_run_id, run_id, checker)
    hasher = TaskHasher()  # the run's tasks share their function lists' JSON
    for episode in episodes:
        name = f"{episode.task_set}:{episode.task_id}#{episode.trial or 0}"
        task = tasks.get((episode.task_set, episode.task_id))
        if task is None and not _unscored(episode):
            done.left_out.append(name)
            continue
        calls, messages = store.calls(episode.id), store.messages(episode.id)  # type: ignore[arg-type]
        columns: dict[str, Any] = {}
        if _unscored(episode) or not messages:
            done.copied.append(name)
        else:
            assert task is not None  # a missing task was left out above unless unscored, and those are copied
            try:
                columns, replayed = _score_again(episode, task, messages, checker, hasher)
            except Exception as exc:  # one episode's replay or scorer failing never stops the rescore
                columns, replayed = _failed(exc), [(c.tool, c.error_type) for c in calls]
                done.failed.append(name)
            done.scored += 1
            if replayed != [(c.tool, c.error_type) for c in calls]:
                done.diverged.append(name)
            if all(columns.get(key, getattr(episode, key)) == getattr(episode, key) for key in SCORE_COLUMNS):
                done.unchanged += 1
            else:
                done.changed.append(name)
        row = EpisodeRow(**{**episode.model_dump(exclude={"id", "run_id"}), **columns, "run_id": new_run_id})
        store.save_episode(row, [CallRow(**c.model_dump(exclude={"id"})) for c in calls],
                           [MessageRow(**m.model_dump(exclude={"id"})) for m in messages])
        done.episodes += 1
    store.save_scores(new_run_id, summarize_run(new_run_id, store.episodes(new_run_id), run_defects(store, new_run_id)))
    return done


def _failed(exc: Exception) -> dict[str, Any]:
    """The score columns of an episode its replay or scorer failed on: missed, with the reason as its error."""
    return {"success": False, "state_fraction": 0.0, "process": 0.0, "diff": "[]", "result_record": None,
            "scorer_version": None, "error": f"rescore: {exception_line(exc)}"}


def _unscored(episode: EpisodeRow) -> bool:
    """An episode the run failed whole (`EpisodeRecord.failed`): it never reached a scorer."""
    return episode.stop_reason == "run failed"


def _score_again(episode: EpisodeRow, task: Task, messages: Sequence[MessageRow], checker: Checker,
                 hasher: TaskHasher) -> tuple[dict[str, Any], list[tuple[str | None, str | None]]]:
    """The score columns of the episode replayed from its transcript, and the replay's (tool, error type)s."""
    single_reply = bool(task_hook(task, "single_reply", False))
    world, records = replay(task, messages, single_reply=single_reply)
    process = agent_process(messages, single_reply=single_reply)
    name = episode.task_set.split("/", 1)[0]
    mode = cast(Mode, family(name).end_state_mode)
    score = episode_scorer(name, checker)(task, world, process, mode)
    replayed = [(r.tool, None if r.error is None else r.error.type) for r in records]
    columns = {**score_columns(episode.task_set, task, world, process, score, checker), "task_hash": hasher.hash(task)}
    return columns, replayed


def _tasks(episodes: Sequence[EpisodeRow], data: Path | None, errata: bool) -> Mapping[tuple[str, str], Any]:
    """The tasks of the run's episodes, loaded as a run loads them now (with the family's errata, unless
    the run was made without them): {(task set, task id): task}."""
    wanted: dict[str, set[str]] = {}
    for episode in episodes:
        wanted.setdefault(episode.task_set, set()).add(episode.task_id)
    found: dict[tuple[str, str], Any] = {}
    for task_set, ids in wanted.items():
        name, _, lang = task_set.partition("/")
        try:
            entry = family(name)
            loaded = entry.tasks(TaskQuery(lang=lang, data=data, task_ids=tuple(sorted(ids)), errata=errata))
        except (LookupError, ValueError, OSError) as exc:
            raise RescoreError(f"{task_set}: {exc.args[0] if isinstance(exc, KeyError) and exc.args else exc}"
                               ) from None
        if loaded.problems:
            raise RescoreError(f"{task_set}: " + "; ".join(loaded.problems[:5]))
        found.update(((task_set, stored_text(str(task.id))), task) for task in loaded.tasks)  # as stored
    return found
