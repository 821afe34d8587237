"""Running an agent over task sets: episodes in fresh worlds, scored, stored one by one.

This is the driver half of a run (open or resume it, work out what is pending, store each outcome, sum
the run up); the worker half, which runs one episode wherever a backend puts it and hands back its
`EpisodeRecord`, is `toolworlds.worker`, whose names are importable from here too.

Where episodes run is a backend (`Backend`): `toolworlds.process_backend` runs them in a pool
of worker processes here (`--workers N`) or in this process (`--workers 0`);
`toolworlds.ray_backend` runs them on a Ray cluster. Each episode
is independent and deterministic, so every backend and any number of workers store the
same episodes and scores. The main process alone writes to the store, committing each
episode as it arrives from the backend.

A run never dies of one episode: whatever goes wrong in it (the endpoint, the agent, the
world, the scoring, the worker process itself) becomes that episode's stored `error`, as
plain text, and the run goes on. A failed episode counts as stored: `--resume` skips it,
`--resume --retry-failed` runs it again and replaces it.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from types import MappingProxyType
from typing import Any

from sqlalchemy.exc import DataError

from sandbox.input_limits import exception_line
from scenarios.taskhash import TaskHasher

from .defects import run_defects
from .episode_record import EpisodeRecord, stored_text
from .episode_score import score_columns
from .llm import task_protocol
from .process_backend import ProcessBackend
from .store import EpisodeRow, RunStore, ScoreRow
from .worker import (
    AgentSpec,
    Backend,
    BackendError,
    Gate,
    Outcome,
    Pending,
    failed_outcome,
    load_factory,
    offered_tools,
    run_one,
    task_for_protocol,
    transcript_rows,
)

# The driver's names and the worker half's (`toolworlds.worker`), importable from here as before the split.
__all__ = ["AgentSpec", "Backend", "BackendError", "ConfigMismatch", "EpisodeRecord", "Gate", "Outcome", "Pending",
           "TaskSet", "config_differences", "execute_run", "failed_outcome", "group_data_hash",
           "load_factory", "offered_tools", "open_run", "pending_tasks", "run_config", "run_one", "score_columns",
           "summarize_run", "summary_rows", "task_for_protocol", "transcript_rows"]


# The settings that make a run what it is: resuming with any of them different would mix two
# configurations in one run. Timeouts, retries, workers and pauses only change how it runs.
CHECKED = ("kind", "model", "base_url", "user", "user_model", "user_base_url", "seed", "noise", "temperature",
           "max_tokens", "max_steps", "protocol", "task_sets", "query", "trials")
_DEFAULTS: Mapping[str, Any] = MappingProxyType({
    "user_model": "", "user_base_url": "", "temperature": None, "max_tokens": None, "max_steps": 30, "protocol": "",
    "query": None, "trials": 1})


class ConfigMismatch(ValueError):
    """A resume whose configuration differs from the stored run's; the message lists each difference."""

    def __init__(self, run_id: str, differences: list[str]) -> None:
        self.differences = differences
        super().__init__(f"run {run_id!r} was made with another configuration: " + "; ".join(differences))


def run_config(spec: AgentSpec, task_sets: Sequence[TaskSet], query: Mapping[str, Any] | None = None,
               trials: int = 1) -> dict[str, Any]:
    """The configuration stored with a run: the agent's settings, the task sets and the task filter,
    the trials, and each task set's protocols as its tasks ask for them (or as forced)."""
    protocols = {s.name: sorted({spec.protocol or task_protocol(t) for t in s.tasks}) for s in task_sets}
    return {**asdict(spec), "task_sets": [s.name for s in task_sets], "query": _plain(dict(query)) if query else None,
            "trials": trials, "protocols": protocols if spec.kind == "llm" else {}}


def config_differences(stored: Mapping[str, Any], given: Mapping[str, Any]) -> list[str]:
    """Each checked setting whose stored value differs from the given one, as "name: stored X, given Y".

    The task filter's `limit` is not checked: a larger (or smaller) sample of the same tasks, run
    the same way, grows a run without mixing configurations (`open_run` records the change).
    """
    differences = []
    for key in CHECKED:
        before = _plain(stored.get(key, _DEFAULTS.get(key)))
        after = _plain(given.get(key, _DEFAULTS.get(key)))
        if key == "query":
            before, after = _without_limit(before), _without_limit(after)
            if not before and not after:
                continue
        if key in _UNORDERED:  # `--lang zh --lang en` names the same run as `--lang en --lang zh`
            before, after = _unordered(before), _unordered(after)
        if before != after:
            differences.append(f"{key}: stored {json.dumps(before, sort_keys=True)}, "
                               f"given {json.dumps(after, sort_keys=True)}")
    return differences


# Settings that are sets written as lists: their order changes the order episodes run in, not what a run is.
_UNORDERED = frozenset({"task_sets", "query"})


def _unordered(value: Any) -> Any:
    """`value` with every list of texts in it sorted (a query's categories, task ids, tags)."""
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return sorted(value)
    if isinstance(value, dict):
        return {key: _unordered(item) for key, item in value.items()}
    return value


def _without_limit(query: Any) -> Any:
    if not isinstance(query, dict):
        return query
    # Errata applied is the default, and what runs made before errata existed read: not a difference.
    rest = {key: value for key, value in query.items() if key != "limit" and not (key == "errata" and value is True)}
    return rest if any(value not in (None, [], "") for value in rest.values()) else None


def _plain(value: Any) -> Any:
    """The value as stored JSON reads back (tuples as lists, paths as text), so both sides compare alike."""
    return json.loads(json.dumps(value, sort_keys=True, default=str))


def open_run(store: RunStore, run_id: str, config: dict[str, Any], *, agent: str, force: bool = False) -> None:
    """Start a run, or continue the stored one if its configuration is the same. A different one is
    refused (`ConfigMismatch`) unless `force`, in which case the difference is recorded in the run's
    configuration under "forced" (when, and what differed), so a report can say so."""
    stored = store.config_text(run_id)
    if stored is None:
        store.start_run(run_id, agent, config)
        return
    previous = json.loads(stored)
    differences = config_differences(previous, config)
    limits = [(previous.get("query") or {}).get("limit"), (config.get("query") or {}).get("limit")]
    if not differences and limits[0] != limits[1]:  # the same run over a new sample size: say so, go on
        resized = [*previous.get("limits", []), {"at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
                                                 "limit": limits}]
        store.set_config(run_id, {**previous, "query": config.get("query"), "limits": resized})
        return
    if not differences:
        return
    if not force:
        raise ConfigMismatch(run_id, differences)
    forced = [*previous.get("forced", []), {"at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
                                            "differences": differences}]
    store.set_config(run_id, {**previous, "forced": forced})


@dataclass
class TaskSet:
    """The tasks of one family in one language, scored the way that family compares end states."""

    family: str
    lang: str
    tasks: list[Any] = field(default_factory=list)
    end_state_mode: str = "exact"

    @property
    def name(self) -> str:
        return f"{self.family}/{self.lang}"  # e.g. "banking/en"


def pending_tasks(store: RunStore, run_id: str, task_sets: Sequence[TaskSet], *, retry_failed: bool = False,
                  trials: int = 1) -> list[Pending]:
    """(task set, task, end-state mode, trial) of every episode the run still has to do: not stored
    yet, or stored as failed when `retry_failed`."""
    done = store.finished(run_id)
    if retry_failed:
        done -= store.failed(run_id)
    return [(s.name, task, s.end_state_mode, trial) for s in task_sets for task in s.tasks
            for trial in range(trials) if (s.name, stored_text(str(task.id)), trial) not in done]


def execute_run(
    store: RunStore,
    run_id: str,
    task_sets: Sequence[TaskSet],
    spec: AgentSpec,
    *,
    workers: int = 1,
    backend: Backend | None = None,
    retry_failed: bool = False,
    on_done: Callable[[Outcome], None] | None = None,
    on_start: Callable[[int], None] | None = None,
    trials: int = 1,
    query: Mapping[str, Any] | None = None,
    force: bool = False,
) -> list[EpisodeRow]:
    """Run every episode not yet stored for `run_id` (`trials` per task; with `retry_failed`, also
    every one stored as failed) on `backend` (default: a pool of `workers` processes here; 0: this process);
    returns all of the run's episodes. Continuing a stored run with another configuration raises
    `ConfigMismatch` unless `force` (see `open_run`)."""
    if trials > 1 and store.one_trial_per_task:
        raise ValueError("this run store was made before repeated trials: its episodes table holds one trial per "
                         "task; use a new database for --trials above 1")
    open_run(store, run_id, run_config(spec, task_sets, query, trials), agent=spec.describe(), force=force)
    pending = pending_tasks(store, run_id, task_sets, retry_failed=retry_failed, trials=trials)
    if on_start is not None:  # how many episodes will run (a progress bar's total), before the first one does
        on_start(len(pending))
    if backend is None:
        backend = ProcessBackend(workers)
    hashes: dict[tuple[str, str], str] = {}
    hasher = TaskHasher()  # the run's tasks share their function lists' JSON
    for name, task, _, _ in pending:  # once per task, not per trial
        key = (name, stored_text(str(task.id)))
        if key not in hashes:
            hashes[key] = hasher.hash(task)
    stored = store.failed(run_id) if retry_failed else set()  # what an outcome may replace
    outcomes = backend.outcomes(pending, spec)
    try:
        _store_outcomes(store, run_id, outcomes, on_done, hashes, stored)
    finally:  # also when interrupted mid-commit: a generator backend ends its workers now, not when collected
        close = getattr(outcomes, "close", None)
        if close is not None:
            close()
    episodes = store.episodes(run_id)
    store.save_score_rows(run_id, summary_rows(run_id, episodes, run_defects(store, run_id)))
    return episodes


def _store_outcomes(store: RunStore, run_id: str, outcomes: Iterable[Outcome],
                    on_done: Callable[[Outcome], None] | None, hashes: Mapping[tuple[str, str], str],
                    stored: Collection[tuple[str, str, int]] = ()) -> None:
    """Commit each outcome as it arrives, one transaction per episode, with its task's data hash;
    `stored` holds (task set, task id, trial) of the episodes already stored that an outcome replaces
    (failed ones retried): no other is looked for."""
    with store.writer() as connection:
        for outcome in outcomes:
            record = outcome.record
            finished_at = dt.datetime.now(dt.UTC)
            try:
                store.store_record(run_id, record, outcome.calls, outcome.messages, finished_at=finished_at,
                                   task_hash=hashes.get((record.task_set, record.task_id)),
                                   new=record.key not in stored, connection=connection)
            except (OverflowError, DataError) as exc:  # a value this episode brought, not the store: only it fails
                refused = EpisodeRecord.failed(
                    record.task_set, record.task_id, record.category,
                    f"store: its record holds a value the database refuses ({exception_line(exc)})", record.trial or 0)
                store.store_record(run_id, refused, finished_at=finished_at, connection=connection)
            if on_done is not None:
                on_done(outcome)


def summarize_run(run_id: str, episodes: Iterable[EpisodeRow],
                  defects: Mapping[str, Sequence[str] | None] | None = None) -> list[ScoreRow]:
    """Per task set and category, and overall: end-to-end accuracy, process accuracy, steps, errors.

    With the task sets' known-defective tasks (`toolworlds.defects`), also the end-to-end
    accuracy over the other tasks ("end_to_end_clean") and how many episodes were left out.
    """
    return [ScoreRow(**row) for row in summary_rows(run_id, episodes, defects)]


def summary_rows(run_id: str, episodes: Iterable[EpisodeRow],
                 defects: Mapping[str, Sequence[str] | None] | None = None) -> list[dict[str, Any]]:
    """`summarize_run`'s rows as the store's columns (`RunStore.save_score_rows`), each value a float as
    `ScoreRow` makes it: a run's end stores them without an ORM object each (a run's 70 made a fixed 2 ms)."""
    flawed = {(name, task_id) for name, ids in (defects or {}).items() for task_id in ids or ()}
    groups: dict[tuple[str, str], list[EpisodeRow]] = {}
    for episode in episodes:
        groups.setdefault((episode.task_set, episode.category), []).append(episode)
        groups.setdefault(("all", "all"), []).append(episode)
    rows: list[dict[str, Any]] = []
    for (task_set, category), members in sorted(groups.items()):
        n = len(members)
        metrics = {
            "episodes": n,
            "end_to_end": round(sum(e.success for e in members) / n, 3),
            "process": round(sum(e.process for e in members) / n, 3),
            "mean_steps": round(sum(e.steps for e in members) / n, 2),
            "call_errors": sum(e.errors for e in members),
            "failed": sum(e.error is not None for e in members),
        }
        if defects:
            clean = [e for e in members if (e.task_set, e.task_id) not in flawed]
            metrics["defective"] = n - len(clean)
            metrics["end_to_end_clean"] = round(sum(e.success for e in clean) / len(clean), 3) if clean else 0.0
        versions = ", ".join(sorted({e.scorer_version for e in members if e.scorer_version})) or None
        data = group_data_hash(members)
        rows.extend({"run_id": run_id, "task_set": task_set, "category": category, "metric": metric,
                     "value": float(value), "scorer_version": versions, "data_hash": data}
                    for metric, value in metrics.items())
    return rows


def group_data_hash(episodes: Iterable[EpisodeRow]) -> str | None:
    """One hash over the task hashes of a group's episodes (None when none has one: an older database)."""
    hashes = sorted({(e.task_set, e.task_id, e.task_hash) for e in episodes if e.task_hash})
    if not hashes:
        return None
    return hashlib.sha256(json.dumps(hashes).encode()).hexdigest()[:16]
