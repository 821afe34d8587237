"""Episodes: one agent working on one task in a fresh world until it is done or out of steps.

The conversation logic is written once, as a generator that asks for the agent's turns
and the user's replies; `run_episode` drives it with a sync agent, `arun_episode` with an
async one. Multi-step tasks give the agent the instruction and let it work; multi-turn
tasks put a user simulator in between.

An episode never raises on account of its agent or user: an exception from either (an
endpoint that stayed down, a bug in an agent) ends the episode with `error` set to the
reason, keeping everything that happened before it.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any, Protocol

from sandbox.calllog import CallRecord
from sandbox.limits import printable_text, type_name
from sandbox.parsing import Call, render_calls
from sandbox.world import World

from .agents import ChatMessage, Turn
from .users import END, ScriptedUser, UserSimulator


class EpisodeTask(Protocol):
    id: str
    category: str
    question: str
    functions: list[dict[str, Any]]

    def world(self, seed: int = 0) -> World: ...


@dataclass
class Episode:
    """What happened: the conversation, the calls, and how it ended."""

    task_id: str
    messages: list[ChatMessage] = field(default_factory=list)
    process: list[str] = field(default_factory=list)  # every agent message sent to the world
    records: list[CallRecord] = field(default_factory=list)
    steps: int = 0
    turns: int = 0
    finished: bool = False
    stop_reason: str = ""
    error: str | None = None  # why the episode failed (its agent or user raised), if it did


_Request = tuple[str, list[ChatMessage]]


def _conversation(task: EpisodeTask, world: World, episode: Episode, multi_turn: bool, max_steps: int,
                  max_turns: int) -> Generator[_Request, Any, None]:
    conversation = episode.messages
    opening = getattr(task, "opening_messages", None)  # task hook: the conversation so far
    if multi_turn:
        conversation.append(ChatMessage("user", (yield ("user", conversation))))
    elif opening:
        conversation.extend(ChatMessage(role, content) for role, content in opening)
    else:
        conversation.append(ChatMessage("user", task.question))
    while True:
        if episode.steps >= max_steps:
            episode.stop_reason = "step limit"
            return
        turn: Turn = yield ("agent", conversation)
        episode.steps += 1
        if getattr(task, "single_reply", False):  # task hook: scored on this reply alone
            _end_on_reply(episode, turn)
            return
        if turn.calls or turn.call_text is not None:
            if turn.call_text is not None:  # the world reads it, and says why it cannot
                text = turn.call_text
                records = world.execute(text)
                calls = tuple(Call(r.tool, r.arguments) for r in records
                              if type(r.tool) is str and isinstance(r.arguments, dict))
            else:
                text = turn.raw if turn.raw is not None else render_calls(turn.calls)
                records = world.execute(list(turn.calls))
                calls = turn.calls
            conversation.append(ChatMessage("assistant", text, calls))
            episode.process.append(text)
            episode.records.extend(records)
            observation = json.dumps([r.observation() for r in records], ensure_ascii=False, default=str)
            conversation.append(ChatMessage("tool", observation))
            continue
        conversation.append(ChatMessage("assistant", turn.text))
        if not multi_turn:
            episode.finished, episode.stop_reason = True, "agent answered"
            return
        if episode.turns >= max_turns:
            episode.stop_reason = "turn limit"
            return
        reply = yield ("user", conversation)
        episode.turns += 1
        if END in reply:
            episode.finished, episode.stop_reason = True, "user ended"
            return
        conversation.append(ChatMessage("user", reply))


def _end_on_reply(episode: Episode, turn: Turn) -> None:
    """A single-reply task: the agent's first reply, verbatim, is all there is; nothing runs."""
    if turn.raw is not None:
        text = turn.raw
    elif turn.call_text is not None:
        text = turn.call_text
    else:
        text = render_calls(turn.calls) if turn.calls else turn.text
    episode.messages.append(ChatMessage("assistant", text, turn.calls))
    episode.process.append(text)
    episode.finished, episode.stop_reason = True, "single reply"


def _start(task: EpisodeTask, world: World | None, user: Any, max_steps: int, max_turns: int
           ) -> tuple[World, Episode, Any, Generator[_Request, Any, None], _Request | None]:
    """Everything both drivers set up: the world, the record, the user, the first request."""
    world = world or task.world()
    episode = Episode(task.id)
    user = user or ScriptedUser(task.question)
    steps = _conversation(task, world, episode, _multi_turn(task), max_steps, max_turns)
    try:
        first: _Request | None = next(steps)
    except StopIteration:
        first = None
    return world, episode, user, steps, first


def _multi_turn(task: EpisodeTask) -> bool:
    """Whether a user simulator takes part: multi-turn tasks, and tasks that say so (task hook `multi_turn`)."""
    return task.category == "multi_turn" or getattr(task, "multi_turn", False) is True


def failure_reason(exc: BaseException) -> str:
    """One printable line saying what went wrong, whatever the exception (its message may not format)."""
    try:
        message = str(exc)
    except Exception:
        message = ""
    message = " ".join(message.split()) if isinstance(message, str) else ""
    reason = f"{type_name(exc)}: {message[:500]}" if message else type_name(exc)
    return printable_text(reason)


def _fail(episode: Episode, who: str, exc: Exception) -> None:
    episode.finished = False
    episode.stop_reason = f"{who} failed"
    episode.error = f"{who}: {failure_reason(exc)}"


def start_episode(task: EpisodeTask, *, world: World | None = None, user: Any = None, max_steps: int = 30,
                  max_turns: int = 10) -> tuple[World, Episode, Any, Generator[_Request, Any, None], _Request | None]:
    """The conversation `run_episode` drives, for a caller that supplies the agent's turns itself
    (`toolworlds.env.ToolEnv`): the world, the record, the user, the conversation generator and
    its first request, `("agent" | "user", conversation)` or None once the episode is over."""
    return _start(task, world, user, max_steps, max_turns)

def run_episode(task: EpisodeTask, agent: Any, *, user: UserSimulator | None = None, world: World | None = None,
                max_steps: int = 30, max_turns: int = 10) -> tuple[World, Episode]:
    """Run a task with a sync agent; multi-turn tasks use `user` (default: a scripted user)."""
    world, episode, user, steps, request = _start(task, world, user, max_steps, max_turns)
    while request is not None:
        who, conversation = request
        try:
            answer = agent.act(conversation, task.functions) if who == "agent" else user.respond(conversation)
        except Exception as exc:
            _fail(episode, who, exc)
            break
        request = _advance(steps, answer, episode)
    steps.close()
    return world, episode


def _advance(steps: Generator[_Request, Any, None], answer: Any, episode: Episode) -> _Request | None:
    """The conversation's next request, or None when it is over (or broke on an answer it could not use)."""
    try:
        return steps.send(answer)
    except StopIteration:
        return None
    except Exception as exc:  # e.g. an agent that answered with something that is not a Turn
        _fail(episode, "episode", exc)
        return None


async def arun_episode(task: EpisodeTask, agent: Any, *, user: Any | None = None, world: World | None = None,
                       max_steps: int = 30, max_turns: int = 10) -> tuple[World, Episode]:
    """Like `run_episode`, for agents (and users) whose methods are coroutines."""
    world, episode, user, steps, request = _start(task, world, user, max_steps, max_turns)
    while request is not None:
        who, conversation = request
        try:
            answer = agent.act(conversation, task.functions) if who == "agent" else user.respond(conversation)
            if inspect.isawaitable(answer):
                answer = await answer
        except Exception as exc:
            _fail(episode, who, exc)
            break
        request = _advance(steps, answer, episode)
    steps.close()
    return world, episode
