"""Agents: what sits on the other side of a world's tools.

An agent gets the conversation so far and the tool schemas, and answers with tool calls,
text, or both (`Turn`). Sync and async agents are both accepted by the episode runner.
Built in: `OracleAgent` follows a task's gold path; `NoisyAgent` wraps it and, seeded,
drops, repeats or corrupts calls, for tests and demos.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from sandbox.errors import ParseError
from sandbox.parsing import Call, parse_message

# The words that end a conversation, from either side (ACEBench's convention).
END = "finish conversation"


@dataclass(frozen=True)
class ChatMessage:
    """One entry of a conversation: `role` is user, assistant or tool."""

    role: str
    content: str
    calls: tuple[Call, ...] = ()


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

    @classmethod
    def from_text(cls, text: str) -> Turn:
        """Read calls out of model text; text with no calls is an answer to the user.

        Text refused for breaking an input limit was meant as calls (it parsed far enough to
        break one), so it goes to the world as `call_text` rather than ending the episode.
        """
        try:
            return cls(calls=tuple(parse_message(text).calls), raw=text)
        except ParseError as exc:
            if exc.limit is not None:
                return cls(raw=text, call_text=text)
            return cls(text=text, raw=text)


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

    Seeded by (seed, task id), so the same run makes the same mistakes.
    """

    task: GoldPath
    noise: float = 0.2
    seed: int = 0
    _oracle: OracleAgent = field(init=False)
    _rng: random.Random = field(init=False)

    def __post_init__(self) -> None:
        self._oracle = OracleAgent(self.task)
        digest = hashlib.sha256(f"{self.seed}:{self.task.id}".encode()).hexdigest()
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
