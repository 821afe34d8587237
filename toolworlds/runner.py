"""Running an agent over task sets: episodes in fresh worlds, scored, stored one by one.

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

import copy
import datetime as dt
import functools
import hashlib
import json
import time
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import asdict, dataclass, field
from types import MappingProxyType
from typing import Any, Protocol

from sqlalchemy.exc import DataError

from evaluators.task_score import TaskScore, episode_scorer
from evaluators.versions import Checker, scorer_version
from sandbox.input_limits import exception_line, printable_json, printable_text
from sandbox.limit_walk import redacted_copy
from sandbox.schemas import openai_tools
from sandbox.world import World
from scenarios.family import task_hook
from scenarios.named import named_callable
from scenarios.taskhash import task_hash

from .agents import ChatMessage, NoisyAgent, OracleAgent
from .defects import run_defects
from .endpoints import DEFAULT_RETRIES, DEFAULT_TIMEOUT
from .episodes import run_episode
from .llm import SdkClients, task_protocol
from .store import EpisodeRow, RunStore, ScoreRow

# Held around each endpoint request (`with gate:`), shared by every worker of a run.
Gate = AbstractContextManager[Any]


@dataclass(frozen=True)
class AgentSpec:
    """How to build the agent for each episode (built inside the worker that runs it).

    `kind` is oracle, noisy, llm, or `package.module:Factory` for an agent of the user's own:
    the factory is called with the task and returns an object with `act(conversation, tools)`.
    `protocol` forces the protocol ("native" or "bracket"); empty means each task's own (native
    unless the task says otherwise) for an LLM agent, text for the oracle and noisy agents, which
    send native `tool_calls` when it is "native". A task with a form of its own per protocol (task
    hook `for_protocol`) runs in the forced protocol's form. The user simulator's model and endpoint
    default to the agent's.
    """

    kind: str = "oracle"
    noise: float = 0.2
    seed: int = 0
    model: str = ""
    base_url: str = ""
    pause: float = 0.0  # seconds to wait per episode (for demos and crash tests)
    user: str = "auto"  # auto | scripted | llm (multi-turn user simulator; see `build_user`)
    timeout: float = DEFAULT_TIMEOUT  # seconds per endpoint request
    retries: int = DEFAULT_RETRIES  # further tries of a request that failed transiently
    temperature: float | None = None
    max_tokens: int | None = None
    user_model: str = ""
    user_base_url: str = ""
    max_steps: int = 30
    protocol: str = ""
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

    def build(self, task: Any, gate: Gate | None = None, trial: int = 0, clients: SdkClients | None = None) -> Any:
        """The agent for `task`; an LLM agent holds `gate` around each request and takes its SDK client
        from the worker's `clients` when given."""
        if self.kind == "oracle":
            return OracleAgent(task, protocol=self.protocol or "bracket")
        if self.kind == "noisy":
            return NoisyAgent(task, noise=self.noise, seed=self.seed, trial=trial, protocol=self.protocol or "bracket")
        if self.kind == "llm":
            from .llm import ChatClient, LLMAgent

            client = ChatClient(self.base_url, self.model, timeout=self.timeout, retries=self.retries,
                                temperature=self.temperature, max_tokens=self.max_tokens, gate=gate, clients=clients)
            return LLMAgent.for_task(client, task, self.protocol or None)
        if ":" in self.kind:
            return load_factory(self.kind)(task)
        raise ValueError(f"unknown agent {self.kind!r}; use oracle, noisy, llm or package.module:Factory")

    def simulates_user(self, task: Any) -> bool:
        """Whether `task` gets the model-played user. "auto" gives it to an LLM agent's multi-turn
        tasks, whose instructions are written for a simulator to role-play ("You are Eve... You
        want to..."), as their benchmarks run them; pasting such an instruction as the user's
        own words would not be the benchmark's protocol. Deterministic agents keep the scripted user."""
        if self.user == "auto":
            return self.kind == "llm" and getattr(task, "category", None) == "multi_turn"
        return self.user == "llm"

    def build_user(self, task: Any, gate: Gate | None = None, clients: SdkClients | None = None) -> Any:
        """`gate` is held around every request: the run's limit on requests in flight to the endpoint;
        `clients`, the worker's SDK clients."""
        if self.simulates_user(task):
            from .llm import ChatClient, LLMUser

            client = ChatClient(self.user_base_url or self.base_url, self.user_model or self.model,
                                timeout=self.timeout, retries=self.retries, temperature=self.temperature,
                                max_tokens=self.max_tokens, gate=gate, clients=clients)
            return LLMUser(client, task.question, task_hook(task, "user_prompt"),
                           task_hook(task, "user_opener"))
        return None  # the episode's default: a scripted user


def load_factory(path: str) -> Callable[[Any], Any]:
    """The agent factory named `package.module:Name` (a class or function taking the task);
    `ValueError` saying what is wrong with the name."""
    try:
        factory: Callable[[Any], Any] = named_callable(path, kind="an agent factory", form="package.module:Factory",
                                                       asked_as=f"--agent {path}")
    except LookupError as exc:
        raise ValueError(str(exc)) from None
    return factory


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
    stored = store.run(run_id)
    if stored is None:
        store.start_run(run_id, agent, config)
        return
    previous = json.loads(stored.config or "{}")
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


@dataclass(frozen=True)
class Outcome:
    """One finished episode, as plain data (it crosses process boundaries)."""

    episode: dict[str, Any]
    calls: list[dict[str, Any]]
    messages: list[dict[str, Any]] = field(default_factory=list)


def run_one(task_set: str, task: Any, spec: AgentSpec, mode: str = "exact", *,
            start: Callable[[], World] | None = None, gate: Gate | None = None, trial: int = 0,
            clients: SdkClients | None = None) -> Outcome:
    """Run and score one task (top level, so process pools can call it). Never raises: a
    failure anywhere is the outcome's `error`.

    `start` gives the episode's world (a fork of one built earlier), else the task builds a
    fresh one; `gate` limits the requests in flight to the agent's endpoint; `trial` is which
    of the task's repeated runs this is; `clients`, the worker's SDK clients, which its episodes
    share (without them, each episode makes its own).
    """
    try:
        return _run_and_score(task_set, task, spec, mode, start, gate, trial, clients)
    except Exception as exc:
        return failed_outcome(task_set, task, f"run: {exception_line(exc)}", trial)


def _run_and_score(task_set: str, task: Any, spec: AgentSpec, mode: str, start: Callable[[], World] | None,
                   gate: Gate | None, trial: int, clients: SdkClients | None) -> Outcome:
    task = task_for_protocol(task, spec.protocol)
    offered, tools = offered_tools(task.functions)  # tools stored as given: written before the agent holds them
    agent = spec.build(task, gate, trial, clients)
    world, episode = run_episode(task, agent, user=spec.build_user(task, gate, clients),
                                 world=start() if start else None, max_steps=spec.max_steps, openai=offered)
    if spec.pause:
        time.sleep(spec.pause)
    family = task_set.split("/", 1)[0]  # a task set is named "<family>/<lang>"
    score = episode_scorer(family)(task, world, episode.process, mode)  # type: ignore[arg-type]
    errors = Counter(r.error.type for r in episode.records if r.error is not None)
    row = {
        "task_set": task_set, "task_id": _stored_text(str(task.id)), "category": _stored_text(str(task.category)),
        **score_columns(task_set, task, world, episode.process, score),
        "steps": episode.steps, "calls": len(episode.records), "errors": sum(errors.values()),
        "error_types": json.dumps(dict(sorted(errors.items()))), "finished": episode.finished,
        "stop_reason": episode.stop_reason,
        "error": None if episode.error is None else _stored_text(episode.error), "trial": trial,
        "tools": tools,
    }
    calls = [
        {"seq": r.seq, "tool": None if r.tool is None else _stored_text(r.tool),
         "arguments": _stored_json(r.arguments), "result": _stored_json(r.result),
         "error_type": None if r.error is None else r.error.type,
         "error_message": None if r.error is None else _stored_text(r.error.message)}
        for r in episode.records
    ]
    return Outcome(row, calls, transcript_rows(episode.transcript))


def offered_tools(functions: Any) -> tuple[list[dict[str, Any]], str]:
    """A task's functions as the OpenAI tools an agent is offered (its own copy) and as the text stored with
    the episode. Converted once per distinct function list in a process: a run's tasks share a few, and
    converting them was a third of an oracle banking episode. A list is found by its tools' names and then
    compared whole (`==`, in C: writing it out as JSON to look it up cost a run a tenth of its CPU)."""
    names = _names(functions)
    if names is None:  # not a list of tool objects: converted as it is, every time
        converted = openai_tools(functions)
        return converted, _stored_json(converted)
    seen = _conversions(names)
    tools = next((text for known, text in seen if known == functions), None)
    if tools is None:
        tools = _stored_json(openai_tools(functions))
        seen[:] = [*seen[-7:], (copy.deepcopy(functions), tools)]  # a snapshot: the task's own list may change
    offered: list[dict[str, Any]] = json.loads(tools)
    return offered, tools


def _names(functions: Any) -> tuple[str, ...] | None:
    if not isinstance(functions, list) or not all(isinstance(item, dict) for item in functions):
        return None
    return tuple(str(item.get("name")) for item in functions)


@functools.lru_cache(maxsize=64)
def _conversions(names: tuple[str, ...]) -> list[tuple[Any, str]]:
    """The function lists with these tool names converted so far in this process, with their stored text
    (the last eight)."""
    return []


def score_columns(task_set: str, task: Any, world: World, process: Sequence[str], score: TaskScore,
                  checker: Checker = "compat") -> dict[str, Any]:
    """The stored columns a score fills: its verdicts, diff and reason, the task's result record, and which
    scorer judged them (`evaluators.versions`). One writer for a run's episodes and `toolworlds rescore`'s,
    so a rescore that changes nothing stores the same values. The task data's hash (`scenarios.taskhash`)
    is added where the episode is stored: once per task, not per trial, and off the workers' episode time
    (it was a sixth of an oracle ACEBench episode)."""
    return {"success": score.success, "state_fraction": score.state_fraction, "process": score.process,
            "diff": _stored_json(score.diff.to_dict()), "reason": _stored_text(score.reason) if score.reason else None,
            "result_record": _result_record(task, world, list(process)),
            "scorer_version": scorer_version(task_set.split("/", 1)[0], checker)}


def task_for_protocol(task: Any, protocol: str) -> Any:
    """The task in the form `protocol` asks for, when it has forms of its own (task hook `for_protocol`:
    API-Bank's samples carry their history as tool calls in the native protocol); else the task itself."""
    adapt = task_hook(task, "for_protocol")
    return adapt(protocol) if protocol and adapt is not None else task


def _result_record(task: Any, world: Any, process: list[str]) -> str | None:
    """The task's line of its benchmark's own result file (task hook `result_record`), as JSON."""
    record = task_hook(task, "result_record")
    return None if record is None else _stored_json(record(world, list(process)))


def transcript_rows(messages: Sequence[ChatMessage]) -> list[dict[str, Any]]:
    """An episode's messages as the store's rows (plain data, text any database can hold)."""
    rows = []
    for seq, message in enumerate(messages):
        usage = message.usage or {}
        if message.tool_calls:
            tool_calls: str | None = _stored_json([{"id": c.id, "name": c.name, "arguments": c.arguments}
                                                   for c in message.tool_calls])
        elif message.calls:
            tool_calls = _stored_json([{"id": None, "name": c.name, "arguments": c.arguments} for c in message.calls])
        else:
            tool_calls = None
        rows.append({
            "seq": seq, "role": message.role, "source": message.source or message.role,
            "content": _stored_text(message.content if isinstance(message.content, str) else str(message.content)),
            "tool_calls": tool_calls,
            "call_text": None if message.call_text is None else _stored_text(message.call_text),
            "tool_call_id": None if message.tool_call_id is None else _stored_text(message.tool_call_id),
            "prompt_tokens": usage.get("prompt_tokens"),
            "completion_tokens": usage.get("completion_tokens"), "latency_ms": usage.get("latency_ms"),
        })
    return rows


def failed_outcome(task_set: str, task: Any, reason: str, trial: int = 0) -> Outcome:
    """The stored form of an episode that could not be run or scored at all."""
    return Outcome(failed_row(task_set, str(getattr(task, "id", "?")), str(getattr(task, "category", "?")),
                              reason, trial), [])


def failed_row(task_set: str, task_id: str, category: str, reason: str, trial: int = 0) -> dict[str, Any]:
    """The episode row of `failed_outcome`, from the task's id and category alone."""
    return {
        "task_set": task_set, "task_id": _stored_text(task_id), "category": _stored_text(category),
        "success": False, "state_fraction": 0.0, "process": 0.0, "steps": 0, "calls": 0, "errors": 0,
        "error_types": "{}", "finished": False, "stop_reason": "run failed", "diff": "[]",
        "error": _stored_text(reason), "trial": trial,
    }


def _stored_text(text: str) -> str:
    """`text` as any database holds it: lone surrogates (no UTF-8) and NUL (PostgreSQL's text refuses it)
    written as visible escapes, `\\udxxx` and `\\x00`, the same on every database."""
    text = printable_text(text)
    return text.replace("\x00", "\\x00") if "\x00" in text else text


def _stored_json(value: Any) -> str:
    """JSON text any database can hold, whatever the value (typed values via `str`); a lone surrogate in a
    string reads back as the escape `_stored_text` stores (`printable_json`)."""
    try:
        text = json.dumps(value, ensure_ascii=False, default=str)
    except Exception:  # a value json cannot write (too deep, too large a number): store what can be
        text = json.dumps(redacted_copy(value), ensure_ascii=False, default=str)
    return printable_json(text)


Pending = tuple[str, Any, str, int]  # (task set name, task, end-state mode, trial) of one episode to run


def pending_tasks(store: RunStore, run_id: str, task_sets: Sequence[TaskSet], *, retry_failed: bool = False,
                  trials: int = 1) -> list[Pending]:
    """(task set, task, end-state mode, trial) of every episode the run still has to do: not stored
    yet, or stored as failed when `retry_failed`."""
    done = store.finished(run_id)
    if retry_failed:
        done -= store.failed(run_id)
    return [(s.name, task, s.end_state_mode, trial) for s in task_sets for task in s.tasks
            for trial in range(trials) if (s.name, _stored_text(str(task.id)), trial) not in done]


class BackendError(RuntimeError):
    """A backend could not start at all (its library missing, its cluster unreachable); nothing ran."""


class Backend(Protocol):
    """Where a run's episodes run. It yields each pending episode's outcome once, in any order,
    as each finishes, and never raises for one episode: what went wrong is that outcome's error.
    A run that stops early closes the iterator (`close()`, where it has one): a backend ends its
    workers then."""

    def outcomes(self, pending: Sequence[Pending], spec: AgentSpec) -> Iterator[Outcome]: ...


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
    if backend is None:
        from .process_backend import ProcessBackend

        backend = ProcessBackend(workers)
    hashes: dict[tuple[str, str], str] = {}
    for name, task, _, _ in pending:  # once per task, not per trial
        key = (name, _stored_text(str(task.id)))
        if key not in hashes:
            hashes[key] = task_hash(task)
    stored = store.failed(run_id) if retry_failed else set()  # what an outcome may replace
    outcomes = backend.outcomes(pending, spec)
    try:
        _store_outcomes(store, run_id, outcomes, on_done, hashes, stored)
    finally:  # also when interrupted mid-commit: a generator backend ends its workers now, not when collected
        close = getattr(outcomes, "close", None)
        if close is not None:
            close()
    episodes = store.episodes(run_id)
    store.save_scores(run_id, summarize_run(run_id, episodes, run_defects(store, run_id)))
    return episodes


def _store_outcomes(store: RunStore, run_id: str, outcomes: Iterable[Outcome],
                    on_done: Callable[[Outcome], None] | None, hashes: Mapping[tuple[str, str], str],
                    stored: Collection[tuple[str, str, int]] = ()) -> None:
    """Commit each outcome as it arrives, one transaction per episode, with its task's data hash;
    `stored` holds (task set, task id, trial) of the episodes already stored that an outcome replaces
    (failed ones retried): no other is looked for."""
    with store.writer() as connection:
        for outcome in outcomes:
            kept = outcome.episode
            finished_at = dt.datetime.now(dt.UTC)
            row = {**kept, "run_id": run_id, "finished_at": finished_at,
                   "task_hash": hashes.get((kept["task_set"], kept["task_id"]))}
            try:
                new = (kept["task_set"], kept["task_id"], kept.get("trial") or 0) not in stored
                store.store_episode(row, outcome.calls, outcome.messages, new=new, connection=connection)
            except (OverflowError, DataError) as exc:  # a value this episode brought, not the store: only it fails
                refused = failed_row(kept["task_set"], kept["task_id"], kept["category"],
                                     f"store: its record holds a value the database refuses ({exception_line(exc)})",
                                     kept.get("trial") or 0)
                store.store_episode({**refused, "run_id": run_id, "finished_at": finished_at}, connection=connection)
            if on_done is not None:
                on_done(outcome)


def summarize_run(run_id: str, episodes: Iterable[EpisodeRow],
                  defects: Mapping[str, Sequence[str] | None] | None = None) -> list[ScoreRow]:
    """Per task set and category, and overall: end-to-end accuracy, process accuracy, steps, errors.

    With the task sets' known-defective tasks (`toolworlds.defects`), also the end-to-end
    accuracy over the other tasks ("end_to_end_clean") and how many episodes were left out.
    """
    flawed = {(name, task_id) for name, ids in (defects or {}).items() for task_id in ids or ()}
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
        if defects:
            clean = [e for e in members if (e.task_set, e.task_id) not in flawed]
            metrics["defective"] = n - len(clean)
            metrics["end_to_end_clean"] = round(sum(e.success for e in clean) / len(clean), 3) if clean else 0.0
        versions = ", ".join(sorted({e.scorer_version for e in members if e.scorer_version})) or None
        data = group_data_hash(members)
        rows.extend(ScoreRow(run_id=run_id, task_set=task_set, category=category, metric=metric, value=value,
                             scorer_version=versions, data_hash=data) for metric, value in metrics.items())
    return rows


def group_data_hash(episodes: Iterable[EpisodeRow]) -> str | None:
    """One hash over the task hashes of a group's episodes (None when none has one: an older database)."""
    hashes = sorted({(e.task_set, e.task_id, e.task_hash) for e in episodes if e.task_hash})
    if not hashes:
        return None
    return hashlib.sha256(json.dumps(hashes).encode()).hexdigest()[:16]
