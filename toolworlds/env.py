"""Worlds as RL environments: `ToolEnv` in the gymnasium API, and a class for TRL's `environment_factory`.

Optional: needs `gymnasium` (`pip install -e ".[rl]"` in the toolworlds checkout). An episode is one
task of a family; the conversation is the one `run_episode` holds (`toolworlds.episodes`), driven a
step at a time: an action is the assistant's message, the observation is every chat message so far,
and the scripted (or given) user answers in between on multi-turn tasks. Each reset forks the task's
prebuilt world, so starting an episode never rebuilds one.

The reward, given when the episode ends, is the end-state verdict (1.0 when the world ends
in the task's ground-truth state); `info["score"]` names its parts (state fraction, process
accuracy, failed calls by type) for trainers that shape rewards.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Generator, Sequence
from pathlib import Path
from typing import Any, SupportsFloat

import gymnasium

from sandbox.calllog import CallRecord
from sandbox.chat import field_of, openai_uses
from sandbox.world import World
from scenarios.family import Task

from .agents import ChatMessage, ToolCall, Turn
from .episode_score import episode_score
from .episodes import Episode, start_episode
from .prebuilt import TaskWorlds
from .signatures import python_name_problems, tool_method
from .spaces import AssistantMessage, Conversation

UserFactory = Callable[[Task], Any]
_LIMITS = frozenset({"step limit", "turn limit"})
_RESERVED = frozenset({"reset", "get_reward"})


class ToolEnv(gymnasium.Env[dict[str, Any], Any]):
    """One family's tasks as a gymnasium environment.

    Args:
        family: A family name from `scenarios.registry`, or the `TaskWorlds` of another
            environment (to share its prebuilt worlds).
        tasks: Task ids to draw from (default: every task of the family and language).
        lang: Language of the tasks.
        max_steps: Agent messages per episode; the episode is truncated after that many.
        max_turns: User replies per multi-turn episode.
        seed: Seed of the worlds (each task's episodes all start from the same state).
        user: Makes the multi-turn user simulator for a task (default: a scripted user).
        data: Where to read the tasks (as `toolworlds run --data`), else the family's own.
    """

    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(self, family: str | TaskWorlds, tasks: Sequence[str] | None = None, lang: str = "en",
                 max_steps: int = 30, *, max_turns: int = 10, seed: int = 0, user: UserFactory | None = None,
                 data: Path | None = None) -> None:
        if max_steps < 1 or max_turns < 0:
            raise ValueError("max_steps must be at least 1 and max_turns at least 0")
        if isinstance(family, TaskWorlds):
            self.worlds = family
            unknown = [t for t in tasks or () if t not in family.tasks]
            if unknown:
                raise LookupError(f"{family.family.name} has no task {', '.join(unknown)}")
        else:
            self.worlds = TaskWorlds(family, tasks, lang, seed, data)
        self.task_ids: list[str] = list(tasks) if tasks else list(self.worlds.tasks)
        self.max_steps, self.max_turns = max_steps, max_turns
        self.observation_space = Conversation()
        self.action_space = AssistantMessage()
        self._make_user = user
        self.task: Task | None = None
        self._world: World | None = None
        self._episode = Episode("")
        self._user: Any = None
        self._steps: Generator[Any, Any, None] | None = None
        self._request: tuple[str, list[ChatMessage]] | None = None
        self._messages: list[dict[str, Any]] = []
        self._seen = 0

    # -- the gymnasium API -----------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Start an episode: `options={"task": id}` picks the task, else one is drawn with the seeded RNG."""
        self._begin(seed, options)
        while self._user_turn():
            self._send(self._user.respond(self._conversation()))
        return self._observed()

    def step(self, action: Any) -> tuple[dict[str, Any], SupportsFloat, bool, bool, dict[str, Any]]:
        records = self._act(action)
        while self._user_turn():
            self._send(self._user.respond(self._conversation()))
        return self._stepped(records)

    async def areset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
                     ) -> tuple[dict[str, Any], dict[str, Any]]:
        """`reset` for trainers that run many environments on one event loop (async users are awaited)."""
        self._begin(seed, options)
        while self._user_turn():
            self._send(await _answer(self._user.respond(self._conversation())))
        return self._observed()

    async def astep(self, action: Any) -> tuple[dict[str, Any], SupportsFloat, bool, bool, dict[str, Any]]:
        records = self._act(action)
        while self._user_turn():
            self._send(await _answer(self._user.respond(self._conversation())))
        return self._stepped(records)

    # -- beyond gymnasium ------------------------------------------------------------------

    @property
    def over(self) -> bool:
        """True once the episode has ended (or before the first reset)."""
        return self._request is None

    @property
    def steps(self) -> int:
        """Agent messages sent in this episode."""
        return self._episode.steps

    @property
    def stop_reason(self) -> str:
        """Why the episode ended ("" while it runs): agent answered, user ended, step limit, turn limit."""
        return self._episode.stop_reason

    @property
    def world(self) -> World:
        if self._world is None:
            raise RuntimeError("no episode yet: call reset()")
        return self._world

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The current task's tools as OpenAI function schemas (a fresh copy)."""
        return json.loads(json.dumps(self.world.schemas("openai")))

    def score(self) -> dict[str, Any]:
        """The reward and its parts for the world as it is now (the episode need not be over)."""
        if self.task is None:
            raise RuntimeError("no episode yet: call reset()")
        episode = self._episode
        return episode_score(self.worlds.family.name, self.task, self.world, episode.process, episode.records,
                             self.worlds.mode)

    def group(self, task: str, n: int, *, seed: int | None = None) -> list[ToolEnv]:
        """`n` independent environments, reset to the same start of `task` (forks of one prebuilt
        world), for GRPO-style groups; resetting a member starts it there again."""
        members = [ToolEnv(self.worlds, [task], max_steps=self.max_steps, max_turns=self.max_turns,
                           user=self._make_user) for _ in range(n)]
        for member in members:
            member.reset(seed=seed, options={"task": task})
        return members

    # -- internals -------------------------------------------------------------------------

    def _begin(self, seed: int | None, options: dict[str, Any] | None) -> None:
        super().reset(seed=seed)
        task_id = (options or {}).get("task")
        if task_id is None:
            task_id = self.task_ids[int(self.np_random.integers(len(self.task_ids)))]
        elif task_id not in self.task_ids:
            raise ValueError(f"task {task_id!r} is not one of this environment's tasks")
        self.task = self.worlds.task(task_id)
        user = self._make_user(self.task) if self._make_user is not None else None
        world, episode, user, steps, request = start_episode(
            self.task, world=self.worlds.fork(task_id), user=user, max_steps=self.max_steps,
            max_turns=self.max_turns)
        self._world, self._episode, self._user, self._steps, self._request = world, episode, user, steps, request
        self._messages, self._seen = [], 0

    def _conversation(self) -> list[ChatMessage]:
        assert self._request is not None
        return self._request[1]

    def _user_turn(self) -> bool:
        return self._request is not None and self._request[0] == "user"

    def _send(self, answer: Any) -> None:
        assert self._steps is not None
        try:
            self._request = self._steps.send(answer)
        except StopIteration:
            self._request = None

    def _act(self, action: Any) -> list[CallRecord]:
        """Send the agent's message; the observation gains it and its results in chat shape."""
        if self._request is None:
            raise RuntimeError("the episode is over: call reset()")
        turn, assistant = read_action(action)
        before_records, before_messages = len(self._episode.records), len(self._episode.messages)
        self._send(turn)
        records = self._episode.records[before_records:]
        for message in self._episode.messages[before_messages:]:
            if message.role == "assistant" and assistant is not None:
                self._messages.append(assistant)
            elif message.tool_call_id is not None:  # the answer to one native call
                self._messages.append({"role": "tool", "tool_call_id": message.tool_call_id,
                                       "content": message.content})
            else:
                self._messages.append({"role": message.role, "content": message.content})
        self._seen = len(self._episode.messages)
        return records

    def _take_user_messages(self) -> None:
        for message in self._episode.messages[self._seen:]:
            self._messages.append({"role": message.role, "content": message.content})
        self._seen = len(self._episode.messages)

    def _observed(self) -> tuple[dict[str, Any], dict[str, Any]]:
        self._take_user_messages()
        return self._observation(), self._info()

    def _stepped(self, records: list[CallRecord]
                 ) -> tuple[dict[str, Any], SupportsFloat, bool, bool, dict[str, Any]]:
        self._take_user_messages()
        info = self._info()
        info["call_errors"] = [r.error.type for r in records if r.error is not None]
        if self._request is not None:
            return self._observation(), 0.0, False, False, info
        info["score"] = self.score()
        truncated = self._episode.stop_reason in _LIMITS
        return self._observation(), float(info["score"]["reward"]), not truncated, truncated, info

    def _observation(self) -> dict[str, Any]:
        return {"messages": [dict(m) for m in self._messages]}

    def _info(self) -> dict[str, Any]:
        assert self.task is not None
        episode = self._episode
        return {"task": self.task.id, "category": self.task.category, "steps": episode.steps,
                "turns": episode.turns, "stop_reason": episode.stop_reason}


async def _answer(reply: Any) -> Any:
    return await reply if inspect.isawaitable(reply) else reply


def read_action(action: Any) -> tuple[Turn, dict[str, Any] | None]:
    """An action as the episode's `Turn`; for OpenAI tool calls also the assistant message (plain
    dicts) that the observation shows."""
    if isinstance(action, str):
        return Turn.from_text(action), None
    if not (isinstance(action, dict) or hasattr(action, "content") or hasattr(action, "tool_calls")):
        raise TypeError(f"an action is assistant text or a message with content and/or tool_calls, "
                        f"not {type(action).__name__}")
    content = field_of(action, "content")
    if content is not None and not isinstance(content, str):
        raise TypeError("an assistant message's content must be text")
    uses = openai_uses(field_of(action, "tool_calls") or [])
    if not uses:
        return Turn.from_text(content or ""), None
    # Native calls, as a run with `--protocol native` takes them: the world answers the same, call by call.
    tool_calls = tuple(ToolCall(use.id, use.name, use.arguments if isinstance(use.arguments, str)
                                else json.dumps(use.arguments, ensure_ascii=False)) for use in uses)
    calls = [{"id": call.id, "type": "function", "function": {"name": call.name, "arguments": call.arguments}}
             for call in tool_calls]
    assistant = {"role": "assistant", "content": content, "tool_calls": calls}
    return Turn(text=content or "", tool_calls=tool_calls), assistant


# -- TRL ---------------------------------------------------------------------------------------


def trl_environment(family: str, tasks: Sequence[str] | None = None, lang: str = "en", *, max_steps: int = 64,
                    seed: int = 0, data: Path | None = None) -> type:
    """A class for TRL's `GRPOTrainer(environment_factory=...)`.

    TRL builds it with no arguments, once per concurrent rollout, and calls `reset(**row)` at
    the start of each: the row's `task` column picks the task (else one is drawn), the world
    is restored from a fork, and the task's instruction comes back as the prompt. Every tool
    of the family's tasks is a public method with the tool's signature and a Google-style
    docstring (TRL exposes every public method but `reset` and `get_reward` as a tool), and
    `get_reward()` scores the end state. Multi-turn tasks run on their instruction alone:
    TRL's loop has no user simulator. The tools are the union over the tasks, so the tasks
    must agree on any tool they share, and every name must be a Python identifier (tools
    defined by data, as ToolBench's, may not be).
    """
    worlds = TaskWorlds(family, tasks, lang, seed, data)
    specs = worlds.tool_specs()
    clashes = sorted(_RESERVED & {spec.name for spec in specs})
    if clashes:
        raise ValueError(f"tools named {', '.join(clashes)} would shadow TRL's reserved methods")
    unnameable = [problem for spec in specs for problem in python_name_problems(spec)]
    if unnameable:
        raise ValueError("TRL reads tools from Python signatures, which cannot name the "
                         + "; ".join(unnameable[:5]) + ": choose tasks whose tools have Python names")

    def __init__(self: Any) -> None:
        self._env = ToolEnv(worlds, max_steps=max_steps)

    def reset(self: Any, **row: Any) -> str:
        task = row.get("task")
        observation, _ = self._env.reset(options=None if task is None else {"task": task})
        return str(observation["messages"][0]["content"])

    def get_reward(self: Any) -> float:
        return float(self._env.score()["reward"])

    def run(self: Any, name: str, arguments: dict[str, Any]) -> str:
        env: ToolEnv = self._env
        if env.over:
            return json.dumps({"error": "episode_over", "message": f"the episode has ended ({env.stop_reason})"})
        call = {"id": f"call_{env.steps}", "type": "function", "function": {"name": name, "arguments": arguments}}
        observation, *_ = env.step({"role": "assistant", "content": None, "tool_calls": [call]})
        return str(observation["messages"][-1]["content"])

    namespace: dict[str, Any] = {
        "__doc__": f"The {family} world's tasks as a TRL environment (toolworlds).",
        "__module__": __name__,
        "__init__": __init__,
        "reset": reset,
        "get_reward": get_reward,
    }
    namespace.update({spec.name: tool_method(spec, run) for spec in specs})
    return type(f"{family.title().replace('_', '')}Environment", (), namespace)
