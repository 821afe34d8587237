"""Agents: what sits on the other side of a world's tools.

An agent gets the conversation so far and the tool schemas (in the format its
`tool_format` attribute names, OpenAI's by default), and answers with tool calls, text, or
both (`Turn`). Sync and async agents are both accepted by the episode runner.
Built in: `OracleAgent` follows a task's gold path; `NoisyAgent` wraps it and, seeded,
drops, repeats or corrupts calls, for tests and demos.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from sandbox.errors import ParseError
from sandbox.parsing import Call, parse_message
from sandbox.schemas import openai_tools

# The words that end a conversation, from either side (ACEBench's convention).
END = "finish conversation"


@dataclass(frozen=True)
class ToolCall:
    """A native tool call as the model sent it: the id the API gave it, the tool's name, and its
    arguments as the JSON text the model wrote (kept verbatim, so the model sees its own call
    again and a transcript replays exactly, even when the text is not valid JSON)."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class ChatMessage:
    """One entry of a conversation: `role` is user, assistant or tool.

    An assistant message of the native protocol holds its `tool_calls`, and each of their
    results is a tool message naming the call it answers (`tool_call_id`); in the bracket
    protocol the calls are written in `content` and all their results are one tool message.
    `source` says who wrote it (task, user, agent or world), `call_text` is the text the
    world read calls from when it read text, `usage` the model call that wrote it (tokens,
    latency), when a model did.
    """

    role: str
    content: str
    calls: tuple[Call, ...] = ()
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    source: str = ""
    call_text: str | None = None
    usage: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Turn:
    """What an agent says: calls to run, and/or text for the user.

    `call_text` is a message of tool calls the agent could not read itself (past an input
    limit, or malformed): the world reads it, and records why it cannot as a `parse_error`
    the agent then sees, so a bad reply costs the model a step, never the episode.
    """

    calls: tuple[Call, ...] = ()
    text: str = ""
    raw: str | None = None  # the agent's message as it wrote it, when it wrote one
    call_text: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()  # native tool calls, as sent (the world reads their arguments)
    usage: Mapping[str, Any] | None = None  # the model call behind this turn: tokens, latency

    @classmethod
    def from_text(cls, text: str) -> Turn:
        """Read calls out of model text; text with no calls is an answer to the user.

        Text refused for breaking an input limit was meant as calls (it parsed far enough to
        break one), so it goes to the world as `call_text` rather than ending the episode.
        Text with no parenthesis, brace or square bracket holds no calls, not even an empty list
        of them (a call needs its parentheses or, in JSON, its braces; `[]` is a list of none), so
        it is the answer, however long, read without the parser: an episode's closing answer
        used to cost the parser's refusal, `ast` included.
        """
        if type(text) is str and "(" not in text and "{" not in text and "[" not in text:
            return cls(text=text, raw=text)
        try:
            return cls(calls=tuple(parse_message(text).calls), raw=text)
        except ParseError as exc:
            if exc.limit is not None:
                return cls(raw=text, call_text=text)
            return cls(text=text, raw=text)


TOOL_FORMATS = ("openai", "anthropic", "acebench")


def tools_for(agent: Agent | AsyncAgent, functions: Sequence[Mapping[str, Any]],
              openai: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """A task's tools in the format the agent asks for with its `tool_format` attribute: "openai"
    (the default: `{"type": "function", "function": ...}` with JSON Schema parameters),
    "anthropic" (`name`, `description`, `input_schema`) or "acebench" (the task file's own
    dialect, as the benchmark's prompts show it). `openai` is `openai_tools(functions)` when the
    caller has made it already (the runner, which also stores it)."""
    wanted = getattr(agent, "tool_format", "openai")
    if wanted == "acebench":
        return [dict(function) for function in functions]
    tools = openai if openai is not None else openai_tools(functions)
    if wanted == "openai":
        return tools
    if wanted == "anthropic":
        return [{"name": t["function"]["name"], "description": t["function"].get("description", ""),
                 "input_schema": t["function"].get("parameters", {"type": "object", "properties": {}})}
                for t in tools]
    raise ValueError(f"unknown tool_format {wanted!r}; use one of {', '.join(TOOL_FORMATS)}")


@runtime_checkable
class Agent(Protocol):
    def act(self, conversation: Sequence[ChatMessage], tools: Sequence[dict[str, Any]]) -> Turn: ...


@runtime_checkable
class AsyncAgent(Protocol):
    async def act(self, conversation: Sequence[ChatMessage], tools: Sequence[dict[str, Any]]) -> Turn: ...


class GoldPath(Protocol):
    id: str
    paths: list[list[str]]


@dataclass
class OracleAgent:
    """Replays a task's first gold path, one milestone message per turn, then says it is done."""

    task: GoldPath
    path: int = 0
    _step: int = 0

    def act(self, conversation: Sequence[ChatMessage], tools: Sequence[dict[str, Any]]) -> Turn:
        milestones = self.task.paths[self.path] if self.task.paths else []
        if self._step >= len(milestones):
            return Turn(text=END)
        message = milestones[self._step]
        self._step += 1
        return Turn.from_text(message)


@dataclass
class NoisyAgent:
    """An oracle that makes mistakes: each call is dropped, repeated or corrupted with probability `noise`.

    Seeded by (seed, task id, trial), so the same run makes the same mistakes, and each
    repeated trial of a task its own.
    """

    task: GoldPath
    noise: float = 0.2
    seed: int = 0
    trial: int = 0
    _oracle: OracleAgent = field(init=False)
    _rng: random.Random = field(init=False)

    def __post_init__(self) -> None:
        self._oracle = OracleAgent(self.task)
        key = f"{self.seed}:{self.task.id}" + (f":{self.trial}" if self.trial else "")
        digest = hashlib.sha256(key.encode()).hexdigest()
        self._rng = random.Random(int(digest[:16], 16))

    def act(self, conversation: Sequence[ChatMessage], tools: Sequence[dict[str, Any]]) -> Turn:
        turn = self._oracle.act(conversation, tools)
        if not turn.calls:
            return turn
        calls: list[Call] = []
        for call in turn.calls:
            roll = self._rng.random()
            if roll >= self.noise:
                calls.append(call)
                continue
            kind = self._rng.choice(("drop", "repeat", "corrupt"))
            if kind == "repeat":
                calls.extend([call, call])
            elif kind == "corrupt":
                calls.append(_corrupt(call, self._rng))
        return Turn(calls=tuple(calls), text="" if calls else END)


def _corrupt(call: Call, rng: random.Random) -> Call:
    if not call.arguments:
        return Call(call.name + "_", {})
    arguments = dict(call.arguments)
    key = rng.choice(sorted(arguments))
    value = arguments[key]
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        del arguments[key]
    elif isinstance(value, (int, float)):
        arguments[key] = value + 1
    else:
        arguments[key] = value + "x"
    return Call(call.name, arguments)
