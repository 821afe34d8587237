"""Running an agent over task sets: episodes in fresh worlds, scored, stored one by one.

Where episodes run is a backend (`Backend`): here, this process or a pool of worker
processes (`--workers N`); `toolworlds.ray_backend` runs them on a Ray cluster. Each episode
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
import json
import multiprocessing
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from contextlib import AbstractContextManager, contextmanager
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from evaluators.task_score import episode_scorer
from sandbox.limits import printable_text, redacted_copy
from sandbox.world import World

from .agents import NoisyAgent, OracleAgent
from .episodes import failure_reason, run_episode
from .llm import DEFAULT_RETRIES, DEFAULT_TIMEOUT
from .store import CallRow, EpisodeRow, RunStore, ScoreRow

# Held around each endpoint request (`with gate:`), shared by every worker of a run.
Gate = AbstractContextManager[Any]


@dataclass(frozen=True)
class AgentSpec:
    """How to build the agent for each episode (built inside the worker that runs it)."""

    kind: str = "oracle"  # oracle | noisy | llm
    noise: float = 0.2
    seed: int = 0
    model: str = ""
    base_url: str = ""
    pause: float = 0.0  # seconds to wait per episode (for demos and crash tests)
    user: str = "scripted"  # scripted | llm (multi-turn user simulator)
    timeout: float = DEFAULT_TIMEOUT  # seconds per endpoint request
    retries: int = DEFAULT_RETRIES  # further tries of a request that failed transiently
    concurrency: int = 0  # endpoint requests in flight at once across all workers (0: one per worker)

    def describe(self) -> str:
        if self.kind == "noisy":
            return f"noisy(noise={self.noise}, seed={self.seed})"
        if self.kind == "llm":
            return f"llm({self.model})"
        return self.kind

    @property
    def uses_endpoint(self) -> bool:
        return self.kind == "llm" or self.user == "llm"

    def build(self, task: Any, gate: Gate | None = None) -> Any:
        if self.kind == "oracle":
            return OracleAgent(task)
        if self.kind == "noisy":
            return NoisyAgent(task, noise=self.noise, seed=self.seed)
        if self.kind == "llm":
            from .llm import LLMAgent

            return LLMAgent.for_task(self.client(gate), task)
        raise ValueError(f"unknown agent {self.kind!r}; use oracle, noisy or llm")

    def build_user(self, task: Any, gate: Gate | None = None) -> Any:
        if self.user == "llm":
            from .llm import LLMUser

            return LLMUser(self.client(gate), task.question, getattr(task, "user_prompt", None),
                           getattr(task, "user_opener", None))
        return None  # the episode's default: a scripted user

    def client(self, gate: Gate | None = None) -> Any:
        """`gate` is held around every request: the run's limit on requests in flight to the endpoint."""
        from .llm import ChatClient

        return ChatClient(self.base_url, self.model, timeout=self.timeout, retries=self.retries, gate=gate)


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


@dataclass(frozen=True)
class Outcome:
    """One finished episode, as plain data (it crosses process boundaries)."""

    episode: dict[str, Any]
    calls: list[dict[str, Any]]


def run_one(task_set: str, task: Any, spec: AgentSpec, mode: str = "exact", *,
            start: Callable[[], World] | None = None, gate: Gate | None = None) -> Outcome:
    """Run and score one task (top level, so process pools can call it). Never raises: a
    failure anywhere is the outcome's `error`.

    `start` gives the episode's world (a fork of one built earlier), else the task builds a
    fresh one; `gate` limits the requests in flight to the agent's endpoint.
    """
    try:
        return _run_and_score(task_set, task, spec, mode, start, gate)
    except Exception as exc:
        return failed_outcome(task_set, task, f"run: {failure_reason(exc)}")


def _run_and_score(task_set: str, task: Any, spec: AgentSpec, mode: str, start: Callable[[], World] | None,
                   gate: Gate | None) -> Outcome:
    agent = spec.build(task, gate)
    world, episode = run_episode(task, agent, user=spec.build_user(task, gate), world=start() if start else None)
    if spec.pause:
        time.sleep(spec.pause)
    family = task_set.split("/", 1)[0]  # a task set is named "<family>/<lang>"
    score = episode_scorer(family)(task, world, episode.process, mode)  # type: ignore[arg-type]
    errors = Counter(r.error.type for r in episode.records if r.error is not None)
    row = {
        "task_set": task_set, "task_id": task.id, "category": task.category, "success": score.success,
        "state_fraction": score.state_fraction, "process": score.process,
        "steps": episode.steps, "calls": len(episode.records), "errors": sum(errors.values()),
        "error_types": json.dumps(dict(sorted(errors.items()))), "finished": episode.finished,
        "stop_reason": episode.stop_reason, "diff": score.diff.to_json(), "error": episode.error,
        "result_record": _result_record(task, world, episode.process),
    }
    calls = [
        {"seq": r.seq, "tool": None if r.tool is None else printable_text(r.tool),
         "arguments": _stored_json(r.arguments), "result": _stored_json(r.result),
         "error_type": None if r.error is None else r.error.type,
         "error_message": None if r.error is None else printable_text(r.error.message)}
        for r in episode.records
    ]
    return Outcome(row, calls)


def _result_record(task: Any, world: Any, process: list[str]) -> str | None:
    """The task's line of its benchmark's own result file (task hook `result_record`), as JSON."""
    record = getattr(task, "result_record", None)
    return None if record is None else _stored_json(record(world, list(process)))


def failed_outcome(task_set: str, task: Any, reason: str) -> Outcome:
    """The stored form of an episode that could not be run or scored at all."""
    row = {
        "task_set": task_set, "task_id": str(getattr(task, "id", "?")), "category": str(getattr(task, "category", "?")),
        "success": False, "state_fraction": 0.0, "process": 0.0, "steps": 0, "calls": 0, "errors": 0,
        "error_types": "{}", "finished": False, "stop_reason": "run failed", "diff": "[]",
        "error": printable_text(reason),
    }
    return Outcome(row, [])


def _stored_json(value: Any) -> str:
    """JSON text any database can hold: valid UTF-8, whatever the value (typed values via `str`)."""
    try:
        text = json.dumps(value, ensure_ascii=False, default=str)
    except Exception:  # a value json cannot write (too deep, too large a number): store what can be
        text = json.dumps(redacted_copy(value), ensure_ascii=False, default=str)
    return printable_text(text)


def pending_tasks(store: RunStore, run_id: str, task_sets: Sequence[TaskSet], *, retry_failed: bool = False
                  ) -> list[tuple[str, Any, str]]:
    """(task set, task, end-state mode) of every task the run still has to do: not stored yet,
    or stored as failed when `retry_failed`."""
    done = store.finished(run_id)
    if retry_failed:
        done -= store.failed(run_id)
    return [(s.name, task, s.end_state_mode) for s in task_sets for task in s.tasks if (s.name, task.id) not in done]


Pending = tuple[str, Any, str]  # (task set name, task, end-state mode) of one episode to run


class BackendError(RuntimeError):
    """A backend could not start at all (its library missing, its cluster unreachable); nothing ran."""


class Backend(Protocol):
    """Where a run's episodes run. It yields each pending episode's outcome once, in any order,
    as each finishes, and never raises for one episode: what went wrong is that outcome's error."""

    def outcomes(self, pending: Sequence[Pending], spec: AgentSpec) -> Iterator[Outcome]: ...


@dataclass(frozen=True)
class ProcessBackend:
    """Episodes in this process (one worker) or in a pool of `workers` processes on this machine."""

    workers: int = 1

    def outcomes(self, pending: Sequence[Pending], spec: AgentSpec) -> Iterator[Outcome]:
        if self.workers <= 1:
            for name, task, mode in pending:
                yield run_one(name, task, spec, mode)
            return
        with ProcessPoolExecutor(max_workers=self.workers) as pool, _process_gate(spec, self.workers) as gate:
            futures: dict[Future[Outcome], tuple[str, Any]] = {
                pool.submit(run_one, name, task, spec, mode, gate=gate): (name, task) for name, task, mode in pending}
            for future in as_completed(futures):
                try:
                    yield future.result()
                except Exception as exc:  # the worker died, or the task could not be sent to it
                    name, task = futures[future]
                    yield failed_outcome(name, task, f"worker: {failure_reason(exc)}")


@contextmanager
def _process_gate(spec: AgentSpec, workers: int) -> Iterator[Gate | None]:
    """A semaphore the pool's processes share, when the run limits its endpoint below one request per worker."""
    if not spec.uses_endpoint or not 0 < spec.concurrency < workers:
        yield None
        return
    with multiprocessing.Manager() as manager:
        yield manager.BoundedSemaphore(spec.concurrency)


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
) -> list[EpisodeRow]:
    """Run every task not yet stored for `run_id` (and, with `retry_failed`, every one stored
    as failed) on `backend` (default: `workers` processes here); returns all of the run's episodes."""
    store.start_run(run_id, spec.describe(), {"task_sets": [s.name for s in task_sets], **asdict(spec)})
    pending = pending_tasks(store, run_id, task_sets, retry_failed=retry_failed)
    for outcome in (backend or ProcessBackend(workers)).outcomes(pending, spec):
        episode = EpisodeRow(run_id=run_id, finished_at=dt.datetime.now(dt.timezone.utc), **outcome.episode)
        store.save_episode(episode, [CallRow(episode_id=0, **call) for call in outcome.calls])
        if on_done is not None:
            on_done(outcome)
    episodes = store.episodes(run_id)
    store.save_scores(run_id, summarize_run(run_id, episodes))
    return episodes


def summarize_run(run_id: str, episodes: Iterable[EpisodeRow]) -> list[ScoreRow]:
    """Per task set and category, and overall: end-to-end accuracy, process accuracy, steps, errors."""
    groups: dict[tuple[str, str], list[EpisodeRow]] = {}
    for episode in episodes:
        groups.setdefault((episode.task_set, episode.category), []).append(episode)
        groups.setdefault(("all", "all"), []).append(episode)
    rows: list[ScoreRow] = []
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
        rows.extend(ScoreRow(run_id=run_id, task_set=task_set, category=category, metric=metric, value=value)
                    for metric, value in metrics.items())
    return rows
