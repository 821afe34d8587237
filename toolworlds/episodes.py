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

import dataclasses
import inspect
from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any, Protocol

from sandbox.calllog import CallRecord
from sandbox.chat import answering, result_text, uses_json, uses_message
from sandbox.input_limits import exception_line
from sandbox.parsing import Call, render_calls
from sandbox.world import World
from scenarios.family import task_hook

from .agents import Agent, AsyncAgent, ChatMessage, Turn, opening_message, tools_for
from .json_text import json_text
from .users import END, ScriptedUser, UserSimulator


class EpisodeTask(Protocol):
    id: str
    category: str
    question: str
    functions: list[dict[str, Any]]

    def world(self, seed: int = 0) -> World: ...


@dataclass(slots=True)
class Episode:
    """What happened: the conversation, the calls, and how it ended.

    `prompts` are the system messages of the agent and of the user simulator (what they were
    told before the conversation began); with `messages` they make the full transcript.
    """

    task_id: str
    messages: list[ChatMessage] = field(default_factory=list)
    process: list[str] = field(default_factory=list)  # every agent message sent to the world
    records: list[CallRecord] = field(default_factory=list)
    steps: int = 0
    turns: int = 0
    finished: bool = False
    stop_reason: str = ""
    error: str | None = None  # why the episode failed (its agent or user raised), if it did
    prompts: list[ChatMessage] = field(default_factory=list)

    @property
    def transcript(self) -> list[ChatMessage]:
        return [*self.prompts, *self.messages]


_Request = tuple[str, list[ChatMessage]]
@dataclass(frozen=True, slots=True)
class Opening:
    """What a task's hooks say of every episode of it: whether a user simulator takes part (`multi_turn`),
    whether the agent's first reply is all that is scored (`single_reply`), and the conversation the agent
    first sees when no user opens it (the task's `opening_messages`, else its question). Read by
    `task_opening`; a caller starting many episodes of one task (`ToolEnv`) reads it once and passes it to
    `start_episode`, as the three hook lookups and the opening messages were a tenth of a reset."""

    multi_turn: bool
    single_reply: bool
    messages: tuple[ChatMessage, ...]


def task_opening(task: EpisodeTask) -> Opening:
    """The task's `Opening`, from its hooks (the messages are frozen, so episodes can share them)."""
    single_reply = bool(task_hook(task, "single_reply", False))
    opening = task_hook(task, "opening_messages")  # task hook: the conversation so far
    multi_turn = _multi_turn(task)
    if multi_turn:
        messages: tuple[ChatMessage, ...] = ()
    elif opening:
        messages = tuple([opening_message(entry) for entry in opening])
    else:
        messages = (ChatMessage("user", task.question, source="task"),)
    return Opening(multi_turn, single_reply, messages)


def _conversation(world: World, episode: Episode, opening: Opening, max_steps: int,
                  max_turns: int) -> Generator[_Request, Any, None]:
    conversation = episode.messages
    single_reply, multi_turn = opening.single_reply, opening.multi_turn
    # The two requests, made once: a request names who is to speak and the conversation (this same list), so
    # every step can hand out the same tuple.
    to_agent: _Request = ("agent", conversation)
    to_user: _Request = ("user", conversation)
    if multi_turn:
        opened = yield to_user
        conversation.append(_said("user", opened))
        if END in opened:  # the user is done before the agent said a word: it is not asked again
            episode.finished, episode.stop_reason = True, "user ended"
            return
    else:
        conversation.extend(opening.messages)
    while True:
        if episode.steps >= max_steps:
            episode.stop_reason = "step limit"
            return
        turn: Turn = yield to_agent
        episode.steps += 1
        if single_reply:  # task hook: scored on this reply alone
            _end_on_reply(episode, turn)
            if turn.truncated:
                episode.finished, episode.stop_reason = False, "length"
            return
        if turn.truncated:
            _end_cut_off(episode, turn)
            return
        if turn.tool_calls:
            _run_native(turn, world, episode)
            if len(turn.tool_calls) > world.limits.max_calls:
                # Refused whole, and answered call by call as the protocol asks: going on would send every
                # call and its answer back with each later request (10,000 calls: 95 MB requests).
                episode.stop_reason = "call limit"
                return
            continue  # every call is answered: the agent speaks next
        if turn.calls or turn.call_text is not None:
            last = _run_written(turn, world, episode)
            if last is not None and last.error is not None and _over_call_limit([last]):
                episode.stop_reason = "call limit"  # the same limit, the same end, for calls written as text
                return
            continue  # the results are answered: the agent speaks next
        conversation.append(ChatMessage("assistant", turn.text, source="agent", usage=turn.usage))
        if not multi_turn:
            episode.finished, episode.stop_reason = True, "agent answered"
            return
        if episode.turns >= max_turns:
            episode.stop_reason = "turn limit"
            return
        reply = yield to_user
        episode.turns += 1
        if END in reply:
            episode.finished, episode.stop_reason = True, "user ended"
            return
        conversation.append(_said("user", reply))


def _said(role: str, text: str) -> ChatMessage:
    """A message of the user simulator (its usage is filled in by the driver that asked it)."""
    return ChatMessage(role, text, source="user")


def _over_call_limit(records: list[CallRecord]) -> bool:
    """Whether the world refused a message whole for holding more calls than `max_calls`."""
    return bool(records) and records[0].error is not None and any(
        detail.get("limit") == "max_calls" for detail in records[0].error.details if isinstance(detail, dict))


def _run_written(turn: Turn, world: World, episode: Episode) -> CallRecord | None:
    """Calls the agent wrote (or gave as `Call`s): every result in one tool message. Returns the last record
    (None when there was none), for the call limit's test."""
    if turn.call_text is not None:  # the world reads it, and says why it cannot
        text = turn.call_text
        records = world.execute(text)
        calls = tuple(Call(r.tool, r.arguments) for r in records
                      if type(r.tool) is str and isinstance(r.arguments, dict))
        call_text: str | None = text
    else:
        text = turn.raw if turn.raw is not None else render_calls(turn.calls)
        records = world.execute(list(turn.calls))
        calls, call_text = turn.calls, None
    episode.messages.append(ChatMessage("assistant", text, calls, source="agent", call_text=call_text,
                                        usage=turn.usage))
    episode.process.append(text)
    episode.records.extend(records)
    observations = []
    for record in records:  # a loop: a comprehension is a call of its own (Python 3.11)
        observations.append(record.observation())
    episode.messages.append(ChatMessage("tool", json_text(observations), source="world"))
    return records[-1] if records else None


def _run_native(turn: Turn, world: World, episode: Episode) -> None:
    """Native tool calls: each result is a tool message answering its call's id.

    Calls whose arguments all read as JSON objects run as `Call`s; otherwise the world reads the
    calls as one JSON message and refuses, in place, each it cannot read (`sandbox.chat.uses_message`,
    as `World.run_openai` and `ToolEnv` do). Should the message as a whole break a limit (one error
    for all), every call is answered with that error.
    """
    message = uses_message(turn.tool_calls, world.limits)
    records = world.execute(message)
    call_text: str | None = None
    if isinstance(message, str):
        call_text = message
        calls = [Call(r.tool, r.arguments) for r in records if type(r.tool) is str and isinstance(r.arguments, dict)]
    else:
        calls = message
    episode.process.append(call_text if call_text is not None else render_calls(calls))
    episode.messages.append(ChatMessage("assistant", turn.text, tuple(calls), turn.tool_calls, source="agent",
                                        call_text=call_text, usage=turn.usage))
    episode.records.extend(records)
    for tool_call, record in zip(turn.tool_calls, answering(records, len(turn.tool_calls)), strict=True):
        episode.messages.append(ChatMessage("tool", result_text(record), tool_call_id=tool_call.id, source="world"))


def _end_cut_off(episode: Episode, turn: Turn) -> None:
    """A reply cut off at the endpoint's token limit: kept as the model wrote it (native calls as their JSON
    text, so a replay runs nothing of it), nothing of it run; the episode stops with stop reason `length`."""
    parts = [turn.raw if turn.raw is not None else turn.text]
    if turn.tool_calls:
        parts.append(uses_json(turn.tool_calls))
    episode.messages.append(ChatMessage("assistant", "\n".join(part for part in parts if part), source="agent",
                                        usage=turn.usage))
    episode.finished, episode.stop_reason = False, "length"


def _end_on_reply(episode: Episode, turn: Turn) -> None:
    """A single-reply task: the agent's first reply, verbatim, is all there is; nothing runs."""
    if turn.raw is not None:
        text = turn.raw
    elif turn.call_text is not None:
        text = turn.call_text
    elif turn.tool_calls:  # native calls, as the JSON message the world and the scorers read
        text = uses_json(turn.tool_calls)
    else:
        text = render_calls(turn.calls) if turn.calls else turn.text
    episode.messages.append(ChatMessage("assistant", turn.text if turn.tool_calls else text, turn.calls,
                                        turn.tool_calls, source="agent", usage=turn.usage))
    episode.process.append(text)
    episode.finished, episode.stop_reason = True, "single reply"


def _multi_turn(task: EpisodeTask) -> bool:
    """Whether a user simulator takes part: multi-turn tasks, and tasks that say so (task hook `multi_turn`)."""
    return task.category == "multi_turn" or task_hook(task, "multi_turn", False) is True


def _record_prompts(episode: Episode, agent: Agent | AsyncAgent, user: Any) -> None:
    """The system prompts of the agent and the user simulator, for the transcript, when they have one."""
    for who, party in (("agent", agent), ("user", user)):
        prompt = getattr(party, "prompt", None) or getattr(party, "system_prompt", None)
        if isinstance(prompt, str) and prompt:
            episode.prompts.append(ChatMessage("system", prompt, source=who))


def _with_usage(episode: Episode, user: Any, count: int) -> None:
    """Attach the user simulator's last model call to the message it just wrote."""
    usage = getattr(user, "last_usage", None)
    if usage and len(episode.messages) > count and episode.messages[-1].source == "user":
        episode.messages[-1] = dataclasses.replace(episode.messages[-1], usage=usage)


def _fail(episode: Episode, who: str, exc: Exception) -> None:
    episode.finished = False
    episode.stop_reason = f"{who} failed"
    episode.error = f"{who}: {exception_line(exc)}"


def start_episode(task: EpisodeTask, *, world: World | None = None, user: Any = None, max_steps: int = 30,
                  max_turns: int = 10, opening: Opening | None = None
                  ) -> tuple[World, Episode, Any, Generator[_Request, Any, None], _Request | None]:
    """Everything a driver sets up (`run_episode`, `arun_episode`, and a caller that supplies the agent's turns
    itself: `toolworlds.env.ToolEnv`): the world, the record, the user, the conversation generator and its
    first request, `("agent" | "user", conversation)` or None once the episode is over. `opening` is
    `task_opening(task)`, when the caller keeps it (else it is read)."""
    if world is None:
        world = task.world()
    if user is None:
        user = ScriptedUser(task.question)
    episode = Episode(task.id)
    steps = _conversation(world, episode, task_opening(task) if opening is None else opening, max_steps, max_turns)
    try:
        first: _Request | None = next(steps)
    except StopIteration:
        first = None
    return world, episode, user, steps, first


def run_episode(task: EpisodeTask, agent: Agent, *, user: UserSimulator | None = None, world: World | None = None,
                max_steps: int = 30, max_turns: int = 10,
                openai: list[dict[str, Any]] | None = None) -> tuple[World, Episode]:
    """Run a task with a sync agent; multi-turn tasks use `user` (default: a scripted user). `openai` is
    the task's tools as OpenAI schemas when the caller has made them (see `tools_for`)."""
    world, episode, user, steps, request = start_episode(task, world=world, user=user, max_steps=max_steps,
                                                         max_turns=max_turns)
    tools, request = _prepare(task, episode, agent, user, request, openai)
    while request is not None:
        who, conversation = request
        try:
            answer = agent.act(conversation, tools) if who == "agent" else user.respond(conversation)
        except Exception as exc:
            _fail(episode, who, exc)
            break
        request = _answer(steps, who, answer, episode, user)
    steps.close()
    return world, episode


def _prepare(task: EpisodeTask, episode: Episode, agent: Agent | AsyncAgent, user: Any, request: _Request | None,
             openai: list[dict[str, Any]] | None = None) -> tuple[list[dict[str, Any]], _Request | None]:
    """Record the parties' prompts; the tools in the agent's format (an agent asking for a format
    there is none of fails the episode before it starts)."""
    _record_prompts(episode, agent, user)
    try:
        return tools_for(agent, task.functions, openai), request
    except Exception as exc:
        _fail(episode, "agent", exc)
        return [], None


def _answer(steps: Generator[_Request, Any, None], who: str, answer: Any, episode: Episode, user: Any
            ) -> _Request | None:
    """Give the conversation an answer; the user simulator's model usage joins the message it wrote."""
    count = len(episode.messages)
    request = _advance(steps, answer, episode)
    if who == "user":
        _with_usage(episode, user, count)
    return request


def _advance(steps: Generator[_Request, Any, None], answer: Any, episode: Episode) -> _Request | None:
    """The conversation's next request, or None when it is over (or broke on an answer it could not use)."""
    try:
        return steps.send(answer)
    except StopIteration:
        return None
    except Exception as exc:  # e.g. an agent that answered with something that is not a Turn
        _fail(episode, "episode", exc)
        return None


async def arun_episode(task: EpisodeTask, agent: Agent | AsyncAgent, *, user: Any | None = None,
                       world: World | None = None, max_steps: int = 30, max_turns: int = 10) -> tuple[World, Episode]:
    """Like `run_episode`, for agents (and users) whose methods are coroutines."""
    world, episode, user, steps, request = start_episode(task, world=world, user=user, max_steps=max_steps,
                                                         max_turns=max_turns)
    tools, request = _prepare(task, episode, agent, user, request)
    while request is not None:
        who, conversation = request
        try:
            answer = agent.act(conversation, tools) if who == "agent" else user.respond(conversation)
            if inspect.isawaitable(answer):
                answer = await answer
        except Exception as exc:
            _fail(episode, who, exc)
            break
        request = _answer(steps, who, answer, episode, user)
    steps.close()
    return world, episode
