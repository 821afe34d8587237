"""Agents: what sits on the other side of a world's tools.

An agent gets the conversation so far and the tool schemas (in the format its
`tool_format` attribute names, OpenAI's by default), and answers with tool calls, text, or
both (`Turn`). Sync and async agents are both accepted by the episode runner.
Built in: `OracleAgent` follows a task's gold path; `NoisyAgent` wraps it and, seeded,
drops, repeats or corrupts calls, for tests and demos. Both write their calls as text, or, in the
native protocol (`protocol="native"`), as `tool_calls` with ids, as a model behind a chat API sends
them: gold tool-calling data without an endpoint.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from sandbox.errors import ParseError
from sandbox.parsing import Call, parse_items, parse_message
from sandbox.replies import read_reply
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


@dataclass(frozen=True, init=False)
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

    def __init__(self, role: str, content: str, calls: tuple[Call, ...] = (), tool_calls: tuple[ToolCall, ...] = (),
                 tool_call_id: str | None = None, source: str = "", call_text: str | None = None,
                 usage: Mapping[str, Any] | None = None) -> None:
        """The dataclass's own `__init__` but for how it sets the fields: all at once, rather than each through
        `object.__setattr__` (a frozen dataclass's way, three times the cost; an episode makes two or three
        messages a step). The parameters are the fields, in order, with their defaults (a test holds them so)."""
        self.__dict__.update(role=role, content=content, calls=calls, tool_calls=tool_calls, tool_call_id=tool_call_id,
                             source=source, call_text=call_text, usage=usage)


@dataclass(frozen=True)
class Turn:
    """What an agent says: calls to run, and/or text for the user.

    `call_text` is a message of tool calls the agent could not read itself (past an input
    limit, or malformed): the world reads it, and records why it cannot as a `parse_error`
    the agent then sees, so a bad reply costs the model a step, never the episode.
    `truncated` says the reply was cut off (a chat API's `finish_reason: "length"`): the
    episode stops there, with stop reason `length`, and runs nothing of it.

    Text given alone (`Turn(text=...)`) is read as a model's reply is (`Turn.from_text`): calls
    written in it run, and call-shaped text that does not read goes to the world, so a turn
    written by hand never ends an episode by accident; `Turn(text=..., raw=...)` is an answer as given.
    """

    calls: tuple[Call, ...] = ()
    text: str = ""
    raw: str | None = None  # the agent's message as it wrote it, when it wrote one
    call_text: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()  # native tool calls, as sent (the world reads their arguments)
    usage: Mapping[str, Any] | None = None  # the model call behind this turn: tokens, latency
    truncated: bool = False

    def __post_init__(self) -> None:
        if (self.text and self.raw is None and self.call_text is None and not self.calls and not self.tool_calls
                and type(self.text) is str):
            read = Turn.from_text(self.text)
            if read.calls or read.call_text is not None:
                for name in ("calls", "raw", "call_text"):
                    object.__setattr__(self, name, getattr(read, name))

    @classmethod
    def from_text(cls, text: str) -> Turn:
        """Read calls out of model text (`sandbox.replies.read_reply`, every format models write calls
        in); text with no calls, once thinking is set aside, is an answer to the user.

        Call-shaped text that does not read (or breaks an input limit) goes to the world as
        `call_text`, which answers it with a `parse_error` the model sees, rather than ending the
        episode; when some of a reply's calls read and others do not, the world runs the ones
        that read and refuses the others in place. Text with no parenthesis, brace, square
        bracket, `<tool_call>` or `<function=` tag holds no calls, not even an empty list of
        them (a call needs its parentheses, its braces in JSON, or its tag), so it is the
        answer, however long, read without the reader.
        """
        if type(text) is str:
            if ("(" not in text and "{" not in text and "[" not in text and "<function=" not in text
                    and "<tool_call>" not in text):
                return cls(text=text, raw=text)
            # `read_reply`'s own first reading, without its `Reply`: a message in the engine's syntaxes
            # (what an environment step and an oracle send), whose calls all read, most often; else each
            # call read alone (`_from_items`). Anything else is read by `read_reply`, whole.
            try:
                calls = parse_message(text).calls
            except ParseError as whole:
                if whole.limit is not None:  # `read_reply` refuses it whole for the bound it broke
                    return _made(cls, raw=text, call_text=text)
                return _from_items(cls, text)
            return _made(cls, calls=tuple(calls), raw=text)
        return cls.from_reply(text)

    @classmethod
    def from_reply(cls, text: str) -> Turn:
        """`from_text` by `read_reply` alone, whatever the text: the path its shortcuts are held to."""
        reply = read_reply(text)
        if not reply.readable:
            return cls(raw=text, call_text=text)
        if reply.found:
            return cls(calls=tuple(reply.calls), raw=text)
        return cls(text=text, raw=text)


def _from_items(cls: type[Turn], text: str) -> Turn:
    """`from_text` of a text whose calls do not all read as one message: its calls read one by one
    (`parse_items`), the world to refuse those that do not; or, when not even that reads, `read_reply`."""
    try:
        items = parse_items(text)
    except ParseError as whole:
        if whole.limit is not None:  # `read_reply` refuses it whole for the bound it broke
            return _made(cls, raw=text, call_text=text)
    except Exception:  # as `read_reply` takes it (nested too deeply, say): unreadable, whole
        return _made(cls, raw=text, call_text=text)
    else:
        calls = tuple([item for item in items if type(item) is Call])
        if len(calls) == len(items):
            return _made(cls, calls=calls, raw=text)
        return _made(cls, raw=text, call_text=text)  # some of its calls do not read
    return cls.from_reply(text)


def _made(cls: type[Turn], *, calls: tuple[Call, ...] = (), raw: str | None = None,
          call_text: str | None = None) -> Turn:
    """A turn of calls read from text (or of text the world is to read), made without the frozen dataclass's
    `__init__` and `__post_init__` (each field set through `object.__setattr__`, then a test that finds the text
    empty): a fifth of reading a one-call message. The fields are those `Turn(calls=..., raw=..., call_text=...)`
    sets."""
    turn = _new_instance(cls)
    turn.__dict__.update(calls=calls, text="", raw=raw, call_text=call_text, tool_calls=(), usage=None,
                         truncated=False)
    return turn


_new_instance = object.__new__


def opening_message(entry: Any) -> ChatMessage:
    """One message of a task's opening conversation (task hook `opening_messages`): a (role, content) pair,
    or a chat message in OpenAI's form, `{"role", "content"}` with the assistant's `tool_calls` or the
    `tool_call_id` a tool message answers (a conversation of the native protocol)."""
    if not isinstance(entry, Mapping):
        role, content = entry
        return ChatMessage(role, content, source="task")
    uses = tuple(ToolCall(use["id"], use["function"]["name"], use["function"]["arguments"])
                 for use in entry.get("tool_calls") or ())
    calls = tuple(Call(use.name, arguments) for use in uses if isinstance(arguments := _object(use.arguments), dict))
    return ChatMessage(entry["role"], entry.get("content") or "", calls, uses, entry.get("tool_call_id"),
                       source="task")


def _object(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


def native_turn(turn: Turn, step: int) -> Turn:
    """A turn whose calls are sent as native `tool_calls` (ids `call_<step>_<n>`, arguments as JSON text)
    instead of text; a turn without calls, or whose arguments JSON cannot hold, stays as it is."""
    if not turn.calls:
        return turn
    try:
        uses = tuple(ToolCall(f"call_{step}_{index}", call.name, json.dumps(call.arguments, ensure_ascii=False))
                     for index, call in enumerate(turn.calls))
    except (TypeError, ValueError):
        return turn
    return Turn(text=turn.text, tool_calls=uses, usage=turn.usage)


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
    """Replays a task's first gold path, one milestone message per turn, then says it is done; in the
    native protocol each message's calls go as `tool_calls`."""

    task: GoldPath
    path: int = 0
    _step: int = 0
    protocol: str = "bracket"

    def act(self, conversation: Sequence[ChatMessage], tools: Sequence[dict[str, Any]]) -> Turn:
        milestones = self.task.paths[self.path] if self.task.paths else []
        if self._step >= len(milestones):
            return Turn(text=END)
        message = milestones[self._step]
        self._step += 1
        turn = Turn.from_text(message)
        return native_turn(turn, self._step - 1) if self.protocol == "native" else turn


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
    protocol: str = "bracket"
    _oracle: OracleAgent = field(init=False)
    _steps: int = field(init=False, default=0)
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
        self._steps += 1
        noisy = Turn(calls=tuple(calls), text="" if calls else END)
        return native_turn(noisy, self._steps - 1) if self.protocol == "native" else noisy


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
