"""Running an agent over task sets: episodes in fresh worlds, scored, stored one by one.

Workers are processes (`--workers N`); each episode is independent and deterministic, so
any number of workers gives the same scores as one. The main process alone writes to the
store, committing each episode as it finishes.

A run never dies of one episode: whatever goes wrong in it (the endpoint, the agent, the
world, the scoring, the worker process itself) becomes that episode's stored `error`, as
plain text, and the run goes on. A failed episode counts as stored: `--resume` skips it,
`--resume --retry-failed` runs it again and replaces it.
"""

from __future__ import annotations

import datetime as dt
import json
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from typing import Any

from evaluators.task_score import episode_scorer
from sandbox.limits import printable_text, redacted_copy

from .agents import NoisyAgent, OracleAgent
from .episodes import failure_reason, run_episode
from .llm import DEFAULT_RETRIES, DEFAULT_TIMEOUT
from .store import CallRow, EpisodeRow, RunStore, ScoreRow


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

    def describe(self) -> str:
        if self.kind == "noisy":
            return f"noisy(noise={self.noise}, seed={self.seed})"
        if self.kind == "llm":
            return f"llm({self.model})"
        return self.kind

    def build(self, task: Any) -> Any:
        if self.kind == "oracle":
            return OracleAgent(task)
        if self.kind == "noisy":
            return NoisyAgent(task, noise=self.noise, seed=self.seed)
        if self.kind == "llm":
            from .llm import LLMAgent

            return LLMAgent.for_task(self.client(), task)
        raise ValueError(f"unknown agent {self.kind!r}; use oracle, noisy or llm")

    def build_user(self, task: Any) -> Any:
        if self.user == "llm":
            from .llm import LLMUser

            return LLMUser(self.client(), task.question, getattr(task, "user_prompt", None),
                           getattr(task, "user_opener", None))
        return None  # the episode's default: a scripted user

    def client(self) -> Any:
        from .llm import ChatClient

        return ChatClient(self.base_url, self.model, timeout=self.timeout, retries=self.retries)


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


def run_one(task_set: str, task: Any, spec: AgentSpec, mode: str = "exact") -> Outcome:
    """Run and score one task (top level, so process pools can call it). Never raises: a
    failure anywhere is the outcome's `error`."""
    try:
        return _run_and_score(task_set, task, spec, mode)
    except Exception as exc:
        return failed_outcome(task_set, task, f"run: {failure_reason(exc)}")


def _run_and_score(task_set: str, task: Any, spec: AgentSpec, mode: str) -> Outcome:
    agent = spec.build(task)
    world, episode = run_episode(task, agent, user=spec.build_user(task))
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


def execute_run(
    store: RunStore,
    run_id: str,
    task_sets: Sequence[TaskSet],
    spec: AgentSpec,
    *,
    workers: int = 1,
    retry_failed: bool = False,
    on_done: Callable[[Outcome], None] | None = None,
) -> list[EpisodeRow]:
    """Run every task not yet stored for `run_id` (and, with `retry_failed`, every one stored
    as failed); returns all of the run's episodes."""
    store.start_run(run_id, spec.describe(), {"task_sets": [s.name for s in task_sets], **asdict(spec)})
    pending = pending_tasks(store, run_id, task_sets, retry_failed=retry_failed)

    def save(outcome: Outcome) -> None:
        episode = EpisodeRow(run_id=run_id, finished_at=dt.datetime.now(dt.timezone.utc), **outcome.episode)
        store.save_episode(episode, [CallRow(episode_id=0, **call) for call in outcome.calls])
        if on_done is not None:
            on_done(outcome)

    if workers <= 1:
        for name, task, mode in pending:
            save(run_one(name, task, spec, mode))
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            futures: dict[Future[Outcome], tuple[str, Any]] = {
                pool.submit(run_one, name, task, spec, mode): (name, task) for name, task, mode in pending}
            for future in as_completed(futures):
                try:
                    outcome = future.result()
                except Exception as exc:  # the worker died, or the task could not be sent to it
                    name, task = futures[future]
                    outcome = failed_outcome(name, task, f"worker: {failure_reason(exc)}")
                save(outcome)
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
