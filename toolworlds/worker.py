"""The worker half of a run: what runs one episode wherever a backend puts it, and what comes back.

`AgentSpec` says how to build the agent (inside the worker that runs the episode); `run_one` runs
and scores one task and never raises; its `Outcome` carries the episode's `EpisodeRecord` (the one
row schema of a stored episode, failed ones included), its calls and its transcript as plain data,
since it crosses process boundaries. Every backend (`toolworlds.process_backend`,
`toolworlds.ray_backend`) imports this module and nothing of the driver (`toolworlds.runner`), which
imports the backends.
"""

from __future__ import annotations

import json
import marshal
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Protocol

from sandbox.input_limits import exception_line
from sandbox.lanes import LANES_ON
from sandbox.schemas import openai_tools
from sandbox.world import World
from scenarios.family import Task, task_hook
from scenarios.named import named_callable

from .agents import Agent, ChatMessage, NoisyAgent, OracleAgent
from .endpoints import DEFAULT_RETRIES, DEFAULT_TIMEOUT
from .episode_record import EpisodeRecord, stored_json, stored_text
from .episode_score import score_episode
from .episodes import run_episode
from .llm import SdkClients
from .users import UserSimulator

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

    @property
    def reads_tools(self) -> bool:
        """Whether the agent reads the tools it is given: the oracle and noisy agents replay a gold path and never
        do (`offered_tools(shared=)`); any other may, and may change them."""
        return self.kind not in ("oracle", "noisy")

    def build(self, task: Task, gate: Gate | None = None, trial: int = 0, clients: SdkClients | None = None) -> Agent:
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

    def simulates_user(self, task: Task) -> bool:
        """Whether `task` gets the model-played user. "auto" gives it to an LLM agent's multi-turn
        tasks, whose instructions are written for a simulator to role-play ("You are Eve... You
        want to..."), as their benchmarks run them; pasting such an instruction as the user's
        own words would not be the benchmark's protocol. Deterministic agents keep the scripted user."""
        if self.user == "auto":
            return self.kind == "llm" and getattr(task, "category", None) == "multi_turn"
        return self.user == "llm"

    def build_user(self, task: Task, gate: Gate | None = None, clients: SdkClients | None = None
                   ) -> UserSimulator | None:
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


@dataclass(frozen=True)
class Outcome:
    """One finished episode, as plain data (it crosses process boundaries): its record, its calls and its
    transcript as the store's rows."""

    record: EpisodeRecord
    calls: list[dict[str, Any]] = field(default_factory=list)
    messages: list[dict[str, Any]] = field(default_factory=list)

    @property
    def episode(self) -> dict[str, Any]:
        """The record as a plain row (a fresh dict), for readers of an episode's columns by name."""
        return self.record.model_dump()


def run_one(task_set: str, task: Task, spec: AgentSpec, mode: str = "exact", *,
            start: Callable[[], World] | None = None, gate: Gate | None = None, trial: int = 0,
            clients: SdkClients | None = None, offers: ToolOffers | None = None) -> Outcome:
    """Run and score one task (top level, so process pools can call it). Never raises: a
    failure anywhere is the outcome's `error`.

    `start` gives the episode's world (a fork of one built earlier), else the task builds a
    fresh one; `gate` limits the requests in flight to the agent's endpoint; `trial` is which
    of the task's repeated runs this is; `clients`, the worker's SDK clients, and `offers`, the
    tool lists it has converted, which its episodes share (without them, each episode makes its own).
    """
    try:
        return _run_and_score(task_set, task, spec, mode, start, gate, trial, clients, offers)
    except Exception as exc:
        return failed_outcome(task_set, task, f"run: {exception_line(exc)}", trial)


def _run_and_score(task_set: str, task: Task, spec: AgentSpec, mode: str, start: Callable[[], World] | None,
                   gate: Gate | None, trial: int, clients: SdkClients | None, offers: ToolOffers | None) -> Outcome:
    task = task_for_protocol(task, spec.protocol)
    # Tools stored as given: written before the agent holds them.
    offered, tools = offered_tools(task.functions, shared=not spec.reads_tools, offers=offers)
    agent = spec.build(task, gate, trial, clients)
    world, episode = run_episode(task, agent, user=spec.build_user(task, gate, clients),
                                 world=start() if start else None, max_steps=spec.max_steps, openai=offered)
    if spec.pause:
        time.sleep(spec.pause)
    family = task_set.split("/", 1)[0]  # a task set is named "<family>/<lang>"
    scored = score_episode(family, task, world, episode.process, episode.records, mode)
    record = EpisodeRecord.of(
        task_set=task_set, task_id=stored_text(str(task.id)), category=stored_text(str(task.category)),
        **scored.columns(task_set), steps=episode.steps, finished=episode.finished,
        stop_reason=episode.stop_reason, error=None if episode.error is None else stored_text(episode.error),
        trial=trial, tools=tools)
    calls = [
        {"seq": r.seq, "tool": None if r.tool is None else stored_text(r.tool),
         "arguments": stored_json(r.arguments), "result": stored_json(r.result),
         "error_type": None if r.error is None else r.error.type,
         "error_message": None if r.error is None else stored_text(r.error.message)}
        for r in episode.records
    ]
    return Outcome(record, calls, transcript_rows(episode.transcript))


class ToolOffers:
    """The function lists one worker has converted to the OpenAI tools agents are offered, with their stored text.

    A worker's episodes share a few lists (a run's tasks, a family's), and converting them was a third of an
    oracle banking episode, so each is converted once per worker: a backend keeps one of these per worker (its
    episodes run one after another: in this process, one per run; in a pool, one per process; in Ray, one per
    actor) and hands it to `run_one`. A list is found by its tools' names and then by its marshal bytes (`_exact`:
    equal bytes are equal values, `True`, `1` and `1.0` apart, which `==` does not tell; writing it out as JSON to
    look it up cost a run a tenth of its CPU); the last eight lists of each set of names are kept.

    Taking a list's format 2 bytes (`_exact`, every string encoded as UTF-8 on its own) was two thirds of finding
    it, so a list whose names were seen is first looked for by its bytes in marshal's own format (`_quick`, in
    half the time): equal bytes in any format are equal values, but format 4's also say which objects have other
    references, so a list equal to a converted one need not give the same, and each entry keeps the last four
    it was found by; a list not found so is looked for by its format 2 bytes as before, and kept under both."""

    __slots__ = ("_seen",)

    def __init__(self) -> None:
        self._seen: dict[tuple[str, ...], list[_Offer]] = {}

    def known(self, names: tuple[str, ...], functions: list[Any]) -> _Offer | None:
        """The list's conversion (None when marshal refuses its values: it is converted every time)."""
        seen = self._seen.get(names)
        quick = _quick(functions) if seen else None
        if seen and quick is not None:
            for entry in seen:
                if quick in entry.quick:
                    return entry
        exact = _exact(functions)
        if exact is None:
            return None
        seen = self._seen.setdefault(names, [])
        for entry in seen:
            if entry.exact == exact:
                break
        else:
            entry = _Offer(exact, stored_json(openai_tools(functions)))
            seen[:] = [*seen[-7:], entry]
        if quick is not None:
            entry.quick[:] = [*entry.quick[-3:], quick]
        return entry


class _Offer:
    """One converted list: its format 2 marshal bytes (`exact`), its stored text (`tools`), that text read back and
    kept as marshal bytes (`kept`: a snapshot, the list may change later), one copy read from those bytes
    (`shareable`, handed only to agents that never read their tools), and the format 4 bytes it was last found by
    (`quick`)."""

    __slots__ = ("exact", "kept", "quick", "shareable", "tools")

    def __init__(self, exact: bytes, tools: str) -> None:
        self.exact = exact
        self.tools = tools
        self.kept = marshal.dumps(json.loads(tools))
        self.shareable: list[dict[str, Any]] = marshal.loads(self.kept)
        self.quick: list[bytes] = []


def offered_tools(functions: Any, *, shared: bool = False, offers: ToolOffers | None = None
                  ) -> tuple[list[dict[str, Any]], str]:
    """A task's functions as the OpenAI tools an agent is offered (its own copy) and as the text stored with
    the episode; converted once per distinct list by the worker's `offers` (without them, every time).

    The agent's copy is the stored text read back (`json.loads`), or, in the speed lane (`LANES_ON`), that same
    value kept `marshal`-led and loaded again: the same lists, dicts and texts, in half the time (reading 10 KB
    of banking tools back as JSON was a sixth of an oracle episode). `shared` says the agent never reads its tools
    (`AgentSpec.reads_tools`): in the speed lane it is handed the copy the worker keeps, not one of its own
    (copying 10 KB of tools for an oracle that never looks at them was a thirtieth of its episode)."""
    names = _names(functions)
    entry = None if names is None else (offers or ToolOffers()).known(names, functions)
    if entry is None:  # not a list of tool objects of plain data: converted every time
        converted = openai_tools(functions)
        return converted, stored_json(converted)
    if shared and LANES_ON:
        return entry.shareable, entry.tools
    offered: list[dict[str, Any]] = marshal.loads(entry.kept) if LANES_ON else json.loads(entry.tools)
    return offered, entry.tools


def _exact(functions: list[Any]) -> bytes | None:
    """The list's marshal bytes, which differ wherever its values' types do; None for values marshal refuses.
    Format 2, which writes no back-references: from format 3 on, an object's bytes depend on how many
    references it has, so two equal lists rarely gave the same bytes and every episode converted its tools
    again (a run's episodes per CPU-second fell from 841 to 507)."""
    try:
        return marshal.dumps(functions, 2)
    except ValueError:
        return None


def _quick(functions: list[Any]) -> bytes | None:
    """The list's marshal bytes in marshal's own format (4): equal bytes are equal values, as with `_exact`, but
    equal values may give other bytes (see `ToolOffers`); None for values marshal refuses."""
    try:
        return marshal.dumps(functions)
    except ValueError:
        return None


def _names(functions: Any) -> tuple[str, ...] | None:
    if not isinstance(functions, list) or not all(isinstance(item, dict) for item in functions):
        return None
    return tuple(str(item.get("name")) for item in functions)


def task_for_protocol(task: Task, protocol: str) -> Any:
    """The task in the form `protocol` asks for, when it has forms of its own (task hook `for_protocol`:
    API-Bank's samples carry their history as tool calls in the native protocol); else the task itself."""
    adapt = task_hook(task, "for_protocol")
    return adapt(protocol) if protocol and adapt is not None else task


def transcript_rows(messages: Sequence[ChatMessage]) -> list[dict[str, Any]]:
    """An episode's messages as the store's rows (plain data, text any database can hold)."""
    rows = []
    for seq, message in enumerate(messages):
        if message.tool_calls:
            tool_calls: str | None = stored_json([{"id": c.id, "name": c.name, "arguments": c.arguments}
                                                   for c in message.tool_calls])
        elif message.calls:
            tool_calls = stored_json([{"id": None, "name": c.name, "arguments": c.arguments} for c in message.calls])
        else:
            tool_calls = None
        content = message.content
        usage = message.usage
        rows.append({
            "seq": seq, "role": message.role, "source": message.source or message.role,
            "content": stored_text(content if isinstance(content, str) else str(content)),
            "tool_calls": tool_calls,
            "call_text": None if message.call_text is None else stored_text(message.call_text),
            "tool_call_id": None if message.tool_call_id is None else stored_text(message.tool_call_id),
            # Most messages have no model usage: its three columns are None then, as `{}.get` gives.
            "prompt_tokens": None if usage is None else usage.get("prompt_tokens"),
            "completion_tokens": None if usage is None else usage.get("completion_tokens"),
            "latency_ms": None if usage is None else usage.get("latency_ms"),
        })
    return rows


def failed_outcome(task_set: str, task: Task, reason: str, trial: int = 0) -> Outcome:
    """The outcome of an episode that could not be run or scored at all (`EpisodeRecord.failed`)."""
    return Outcome(EpisodeRecord.failed(task_set, str(getattr(task, "id", "?")), str(getattr(task, "category", "?")),
                                        reason, trial))


Pending = tuple[str, Any, str, int]  # (task set name, task, end-state mode, trial) of one episode to run


class BackendError(RuntimeError):
    """A backend could not start at all (its library missing, its cluster unreachable); nothing ran."""


class Backend(Protocol):
    """Where a run's episodes run. It yields each pending episode's outcome once, in any order,
    as each finishes, and never raises for one episode: what went wrong is that outcome's error.
    A run that stops early closes the iterator (`close()`, where it has one): a backend ends its
    workers then."""

    def outcomes(self, pending: Sequence[Pending], spec: AgentSpec) -> Iterator[Outcome]: ...
