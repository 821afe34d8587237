"""One task's episode driven from outside, a message at a time: what the harness adapters share.

inspect_ai, OpenEnv and verifiers each own the loop that asks a model for its next message;
toolworlds owns what that message does. An `EpisodeSession` is the conversation `run_episode`
holds (`toolworlds.episodes.start_episode`) in a fork of the task's prebuilt world, answered
in the OpenAI chat shape every one of those libraries speaks: native tool calls are answered
call by call (`role: "tool"` with the call's id), calls written as text (the bracket protocol
of ACEBench's prompts) come back as one user message, and on multi-turn tasks the user
simulator answers the agent's words. The score is the runner's (`episode_score`), so a reward
read through any adapter is the one `toolworlds run` would give the same calls.

Nothing here imports an adapter's library, so every adapter, and its tests, use this one way in.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sandbox.chat import field_of, openai_uses
from sandbox.input_limits import exception_line
from sandbox.schemas import openai_tools
from scenarios.family import Task, task_hook

from .agents import ChatMessage, ToolCall, Turn
from .episode_score import episode_score
from .episodes import start_episode
from .llm import AGENT_PROMPT, bracket_prompt, task_protocol
from .prebuilt import TaskWorlds

UserFactory = Callable[[Task], Any]


class EpisodeSession:
    """One episode of one task: `opening()` is what the model is shown first, `send(message)` runs
    the model's next message and gives back what the world and the user said to it, `score()`
    scores the world as it is now.

    Args:
        worlds: The family's prebuilt worlds (shared by every session of a harness run).
        task_id: The task to play.
        max_steps: Agent messages before the episode is truncated.
        max_turns: User replies per multi-turn episode.
        user: Makes the user simulator for a task (default: the scripted user, which opens
            with the instruction and ends the conversation at the agent's first answer).
    """

    def __init__(self, worlds: TaskWorlds, task_id: str, *, max_steps: int = 64, max_turns: int = 10,
                 user: UserFactory | None = None) -> None:
        if max_steps < 1 or max_turns < 0:
            raise ValueError("max_steps must be at least 1 and max_turns at least 0")
        self.family = worlds.family.name
        self.mode = worlds.mode
        self.task: Task = worlds.task(task_id)
        made_user = user(self.task) if user is not None else None
        self.world, self.episode, self._user, self._steps, self._request = start_episode(
            self.task, world=worlds.fork(task_id), user=made_user, max_steps=max_steps, max_turns=max_turns)
        self._users_turn()
        self._seen = 0

    # -- what the model is shown -----------------------------------------------------------

    @property
    def system_prompt(self) -> str:
        """The task's own system prompt (ACEBench's), else the one its protocol's runs use."""
        return system_prompt(self.task)

    @property
    def protocol(self) -> str:
        """How the task's runs exchange calls: "native" (tools offered as schemas, called by id) or
        "bracket" (ACEBench's: no tools offered; the system prompt lists them and the model writes its
        calls as text; a single-reply item's answer is checked as that text, so a native call fails it)."""
        return task_protocol(self.task)

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The task's tools as OpenAI function schemas: exactly what a run offers the model."""
        return json.loads(json.dumps(openai_tools(self.task.functions)))

    def opening(self) -> list[dict[str, Any]]:
        """The system prompt and the conversation before the model's first message."""
        return [{"role": "system", "content": self.system_prompt}, *self._new_messages()]

    # -- what the model does ---------------------------------------------------------------

    @property
    def over(self) -> bool:
        return self._request is None

    @property
    def stop_reason(self) -> str:
        """Why the episode ended ("" while it runs): agent answered, user ended, step limit, ..."""
        return self.episode.stop_reason

    def send(self, message: str | Mapping[str, Any] | Any) -> list[dict[str, Any]]:
        """Run the model's next message: text (calls written in it run; text without calls is an
        answer), or an OpenAI-shaped assistant message (dict or SDK object) whose `tool_calls`
        run in order. Returns the messages that answer it; after the episode has ended, one user
        message saying so (nothing runs). Never raises for what the model wrote."""
        if self._request is None:
            return [{"role": "user", "content": self._ended()}]
        self._steps_send(_turn(message))
        self._users_turn()
        return self._new_messages()

    def call(self, name: str, arguments: Any, call_id: str | None = None) -> str:
        """One native tool call as a message of its own (how MCP-style tool loops call), answered
        with the result text or the error JSON; after the episode has ended, an error saying so."""
        if self._request is None:
            return json.dumps({"error": "episode_over", "message": self._ended()})
        identifier = call_id or f"call_{self.episode.steps}"
        answers = self.send({"role": "assistant", "content": None, "tool_calls": [
            {"id": identifier, "type": "function", "function": {"name": name, "arguments": arguments}}]})
        for answer in answers:
            if answer.get("tool_call_id") == identifier:
                return str(answer["content"])
        # A task scored on its first reply runs nothing: the call was the reply.
        return "Recorded: this task is scored on this reply alone." if self.over else str(answers[-1]["content"])

    def score(self) -> dict[str, Any]:
        """The reward and its parts for the world as it is now (`episode_score`): reward 1.0 when the
        end state is the task's ground truth (or the family's own scorer says solved)."""
        return episode_score(self.family, self.task, self.world, self.episode.process, self.episode.records,
                             self.mode)

    # -- internals -------------------------------------------------------------------------

    def _ended(self) -> str:
        return f"The episode has ended ({self.stop_reason}); nothing more runs."

    def _steps_send(self, answer: Any) -> None:
        try:
            self._request = self._steps.send(answer)
        except StopIteration:
            self._request = None
        except Exception as exc:  # an answer the conversation could not use: the episode fails, as a run's would
            self._fail("episode", exc)

    def _users_turn(self) -> None:
        """Let the user simulator speak while it is its turn (multi-turn tasks); a user simulator that
        raises ends the episode, failed, with the reason in `episode.error` (as `run_episode` does)."""
        while self._request is not None and self._request[0] == "user":
            try:
                reply = self._user.respond(self._request[1])
            except Exception as exc:
                self._fail("user", exc)
                return
            self._steps_send(reply)

    def _fail(self, who: str, exc: Exception) -> None:
        self._request = None
        self._steps.close()
        self.episode.finished = False
        self.episode.stop_reason = f"{who} failed"
        self.episode.error = f"{who}: {exception_line(exc)}"

    def _new_messages(self) -> list[dict[str, Any]]:
        """The conversation's messages since last asked, but the model's own, in chat shape."""
        new = self.episode.messages[self._seen:]
        self._seen = len(self.episode.messages)
        return [_chat(message) for message in new if message.source != "agent"]


def system_prompt(task: Task, *, written: bool = False) -> str:
    """The task's own system prompt (ACEBench's), else the one a run of its protocol uses; `written`
    for a harness that offers the model no tools, whose calls must then be written as text: the
    bracket protocol's prompt, which lists the tools."""
    prompt = task_hook(task, "system_prompt")
    if isinstance(prompt, str) and prompt:
        return prompt
    if written or task_protocol(task) != "native":
        return bracket_prompt(task.functions)
    return AGENT_PROMPT


def _chat(message: ChatMessage) -> dict[str, Any]:
    if message.role == "tool" and message.tool_call_id is not None:
        return {"role": "tool", "tool_call_id": message.tool_call_id, "content": message.content}
    if message.role == "tool":  # results of calls written as text: the bracket protocol's user message
        return {"role": "user", "content": f"execution result: {message.content}"}
    return {"role": message.role, "content": message.content}


def _turn(message: Any) -> Turn:
    """The model's message as the episode's `Turn`. Tool calls that cannot be read as a list of
    calls leave the message's text as its answer; arguments that are not JSON reach the world as
    they are, which answers them with a `parse_error` in that call's place."""
    if isinstance(message, str):
        return Turn.from_text(message)
    content = field_of(message, "content")
    text = content if isinstance(content, str) else _text_of(content)
    try:
        uses = openai_uses(field_of(message, "tool_calls") or [])
    except TypeError:  # not a list of calls
        uses = []
    if not uses:
        return Turn.from_text(text)
    tool_calls = tuple(ToolCall(use.id, use.name, use.arguments if isinstance(use.arguments, str)
                                else json.dumps(use.arguments, ensure_ascii=False, default=str))
                       for use in uses)
    return Turn(text=text, tool_calls=tool_calls)


def _text_of(content: Any) -> str:
    """Text of a list-of-parts content (OpenAI's `[{"type": "text", "text": ...}]`); "" for none."""
    if isinstance(content, Sequence) and not isinstance(content, str | bytes):
        return "".join(str(field_of(part, "text") or "") for part in content
                       if field_of(part, "type") in (None, "text"))
    return ""
