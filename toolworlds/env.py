"""Worlds as RL environments: `ToolEnv` in the gymnasium API, and TRL's `environment_factory` and dataset.

Optional: needs `gymnasium` (`pip install -e ".[rl]"` in the toolworlds checkout). An episode is one
task of a family; the conversation is the one `run_episode` holds (`toolworlds.episodes`), driven a
step at a time: an action is the assistant's message, the reset observation is what a run gives the
model before it speaks (the system prompt, the opening messages, the tools), a step's observation the
messages it added, and the scripted (or given) user answers in between on multi-turn tasks. Each
reset forks the task's prebuilt world, so starting an episode never rebuilds one. Importing this
module registers the gymnasium ids `toolworlds/<family>-v0`.

The reward, given when the episode ends, is the end-state verdict (1.0 when the world ends
in the task's ground-truth state); `info["score"]` names its parts (state fraction, process
accuracy, failed calls by type) for trainers that shape rewards.
"""

from __future__ import annotations

import copy
import hashlib
import inspect
import json
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, SupportsFloat

import gymnasium

from sandbox.calllog import CallRecord
from sandbox.chat import field_of, openai_uses
from sandbox.parsing import Call, render_calls
from sandbox.world import World
from scenarios.family import Task, task_hook
from scenarios.registry import FAMILIES

from .agents import ChatMessage, ToolCall, Turn
from .episode_score import episode_score
from .episodes import Episode, Opening, start_episode, task_opening
from .llm import api_message, task_protocol
from .prebuilt import TaskWorlds, shared_task_worlds
from .signatures import OfferedTool, python_name_problems, tool_method
from .spaces import AssistantMessage, Conversation
from .task_options import TaskOptions
from .users import ScriptedUser

UserFactory = Callable[[Task], Any]
_LIMITS = frozenset({"step limit", "turn limit"})
_RESERVED = frozenset({"reset", "get_reward"})


class ToolEnv(gymnasium.Env[dict[str, Any], Any]):
    """One family's tasks as a gymnasium environment.

    Args:
        family: A family name from `scenarios.registry` (its tasks and prebuilt worlds are then
            shared by every environment of the family, language, seed and data folder in this
            process: `prebuilt.shared_task_worlds`), or a `TaskWorlds` of your own.
        tasks: Task ids to draw from (default: every task of the family and language).
        lang: Language of the tasks.
        max_steps: Agent messages per episode; the episode is truncated after that many.
        max_turns: User replies per multi-turn episode.
        seed: Seed of the worlds (each task's episodes all start from the same state).
        user: Makes the multi-turn user simulator for a task (default: a scripted user).
        data: Where to read the tasks (as `toolworlds run --data`), else the family's own.
        protocol: "native" or "bracket" for every task, as `toolworlds run --protocol`; None
            (the default) gives each task the protocol it asks for, as a run does.
        options: A run's task selection (`TaskOptions`, or the `RunOptions` of a run): its task ids,
            language, data and protocol stand for `tasks`, `lang`, `data` and `protocol`.
        observe: "new" (the default): a step's observation holds the messages added since the
            last one (the assistant's message as the episode took it, the tool results, the
            user's reply), so `messages += observation["messages"]` rebuilds the conversation and
            a step costs the same at step 3,000 as at step 10; "all": every message so far, each
            step (a new list: its cost grows with the episode). The reset observation is the
            same either way: the system prompt, the opening message(s) and the tools.
    """

    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(self, family: str | TaskWorlds, tasks: Sequence[str] | None = None, lang: str = "en",
                 max_steps: int = 30, *, max_turns: int = 10, seed: int = 0, user: UserFactory | None = None,
                 data: Path | None = None, protocol: str | None = None, observe: str = "new",
                 options: TaskOptions | None = None) -> None:
        if max_steps < 1 or max_turns < 0:
            raise ValueError("max_steps must be at least 1 and max_turns at least 0")
        if options is None:  # the protocol is checked where a run's is
            options = TaskOptions.checked(protocol=protocol or "")
        else:
            tasks, lang, data = options.task_ids or tasks, options.one_lang(lang), options.data or data
        protocol = options.protocol or None
        if observe not in ("new", "all"):
            raise ValueError(f"observe is 'new' or 'all', not {observe!r}")
        if isinstance(family, TaskWorlds):
            self.worlds = family
            unknown = [t for t in tasks or () if t not in family.tasks]
            if unknown:
                raise LookupError(f"{family.family.name} has no task {', '.join(unknown)}")
        else:  # the family's tasks and prebuilt worlds, shared with every other environment of the family
            self.worlds = shared_task_worlds(family, lang, seed, data)
            self.worlds.check(tasks or ())
        self.task_ids: list[str] = list(tasks) if tasks else list(self.worlds.tasks)
        self.max_steps, self.max_turns, self.protocol, self.observe = max_steps, max_turns, protocol, observe
        self.observation_space = Conversation()
        self.action_space = AssistantMessage()
        self._make_user = user
        self.task: Task | None = None
        self._world: World | None = None
        self._episode = Episode("")
        self._user: Any = None
        self._steps: Generator[Any, Any, None] | None = None
        self._request: tuple[str, list[ChatMessage]] | None = None
        self._protocol = "native"
        self._messages: list[dict[str, Any]] = []
        self._tools: list[dict[str, Any]] = []
        self._seen = 0
        self._final: dict[str, Any] | None = None
        self._openings: dict[tuple[str, str | None], _TaskStart] = {}

    # -- the gymnasium API -----------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Start an episode: `options={"task": id}` picks the task, else one is drawn with the seeded RNG.
        The observation holds all a model is given before it first speaks: the system prompt, the
        task's opening message(s) and its tools."""
        self._begin(seed, options)
        if self._request is not None and self._request[0] == "user":  # a user opens (multi-turn tasks)
            self._users_turns()
        return self._observed()

    def step(self, action: Any) -> tuple[dict[str, Any], SupportsFloat, bool, bool, dict[str, Any]]:
        records, problem = self._act(action)
        if self._request is not None and self._request[0] == "user":
            self._users_turns()
        return self._stepped(records, problem)

    async def areset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
                     ) -> tuple[dict[str, Any], dict[str, Any]]:
        """`reset` for trainers that run many environments on one event loop (async users are awaited)."""
        self._begin(seed, options)
        while self._user_turn():
            self._send(await _answer(self._user.respond(self._conversation())))
        return self._observed()

    async def astep(self, action: Any) -> tuple[dict[str, Any], SupportsFloat, bool, bool, dict[str, Any]]:
        records, problem = self._act(action)
        while self._user_turn():
            self._send(await _answer(self._user.respond(self._conversation())))
        return self._stepped(records, problem)

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
        """Why the episode ended ("" while it runs): agent answered, user ended, step limit, turn limit, call limit."""
        return self._episode.stop_reason

    @property
    def single_reply(self) -> bool:
        """Whether the current task is scored on the agent's first reply alone (ACEBench's items)."""
        return self.task is not None and bool(task_hook(self.task, "single_reply", False))

    @property
    def world(self) -> World:
        if self._world is None:
            raise RuntimeError("no episode yet: call reset()")
        return self._world

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The tools offered to the model as OpenAI function schemas (a fresh copy): the current task's,
        or before the first reset every tool the environment's tasks offer (by name, first seen)."""
        if self.task is not None:
            return json.loads(json.dumps(self._tools))
        return self.worlds.offered_union(self.task_ids)

    def score(self) -> dict[str, Any]:
        """The reward and its parts for the world as it is now (the episode need not be over); once the
        episode has ended, the score its last step gave (scoring it again could differ: API-Bank's
        scorer runs the reply in the episode's world)."""
        if self.task is None:
            raise RuntimeError("no episode yet: call reset()")
        if self._final is not None:
            return copy.deepcopy(self._final)
        episode = self._episode
        return episode_score(self.worlds.family.name, self.task, self.world, episode.process, episode.records,
                             self.worlds.mode)

    def group(self, task: str, n: int, *, seed: int | None = None) -> list[ToolEnv]:
        """`n` independent environments, reset to the same start of `task` (forks of one prebuilt
        world), for GRPO-style groups; resetting a member starts it there again."""
        members = [ToolEnv(self.worlds, [task], max_steps=self.max_steps, max_turns=self.max_turns,
                           user=self._make_user, protocol=self.protocol, observe=self.observe) for _ in range(n)]
        for member in members:
            member.reset(seed=seed, options={"task": task})
        return members

    # -- internals -------------------------------------------------------------------------

    def _begin(self, seed: int | None, options: dict[str, Any] | None) -> None:
        if seed is not None:  # gymnasium's `reset` does nothing else: without a seed, a call for nothing
            super().reset(seed=seed)
        task_id = options.get("task") if options else None
        if task_id is None:
            task_id = self.task_ids[int(self.np_random.integers(len(self.task_ids)))]
        key = (task_id, self.protocol)
        start = self._openings.get(key)
        if start is None:  # a task's first episode: is it one of ours (checked once: a list scan per reset
            if task_id not in self.task_ids:  # cost a family of 2,000 tasks more than the reset)
                raise ValueError(f"task {task_id!r} is not one of this environment's tasks")
            start = self._openings[key] = self._start_of(task_id)
        self.task = task = start.task
        user = self._make_user(task) if self._make_user is not None else start.user
        self._world, self._episode, self._user, self._steps, self._request = start_episode(
            task, world=start.built.fork(), user=user, max_steps=self.max_steps, max_turns=self.max_turns,
            opening=start.opening)
        self._protocol = start.protocol
        self._messages = list(map(dict, start.head))  # an episode's own: a user may edit them
        self._tools = start.tools
        self._seen = len(start.opening.messages)
        self._final = None

    def _start_of(self, task_id: str) -> _TaskStart:
        """What every episode of the task starts from, whatever happens in it. Kept per task and protocol
        by `_begin`, as a third of a reset went to looking it up again."""
        task = self.worlds.task(task_id)
        protocol = self.protocol or task_protocol(task)
        opening = task_opening(task)
        head = ({"role": "system", "content": self.worlds.prompt(task_id, protocol)},
                *[api_message(message, protocol) for message in opening.messages])
        return _TaskStart(task, protocol, head, self.worlds.shared_offered(task_id), opening,
                          ScriptedUser(task.question), self.worlds.start(task_id))

    def _conversation(self) -> list[ChatMessage]:
        assert self._request is not None
        return self._request[1]

    def _users_turns(self) -> None:
        """The user's answers (a sync user's), until the agent is to speak or the episode is over."""
        request = self._request
        while request is not None and request[0] == "user":
            self._send(self._user.respond(request[1]))
            request = self._request

    def _user_turn(self) -> bool:
        return self._request is not None and self._request[0] == "user"

    def _send(self, answer: Any) -> None:
        assert self._steps is not None
        try:
            self._request = self._steps.send(answer)
        except StopIteration:
            self._request = None

    def _act(self, action: Any) -> tuple[list[CallRecord], str | None]:
        """Send the agent's message; what an unreadable action was is said, and it counts as saying nothing."""
        if self._request is None:
            raise RuntimeError("the episode is over: call reset()")
        try:
            turn, problem = _text_turn(action) if type(action) is str else read_action(action)[0], None
        except TypeError as exc:
            turn, problem = Turn(), str(exc)
        records = self._episode.records
        before = len(records)
        assert self._steps is not None
        try:  # `_send`, written out: a frame less on every step
            self._request = self._steps.send(turn)
        except StopIteration:
            self._request = None
        return records[before:], problem

    def _catch_up(self) -> list[dict[str, Any]]:
        """The conversation's new messages, as the chat API is sent them in the episode's protocol: added to
        the episode's API messages, and returned."""
        messages = self._episode.messages
        protocol = self._protocol
        new = []
        for message in messages[self._seen:]:  # a loop: a comprehension is a call of its own (Python 3.11)
            new.append(api_message(message, protocol))
        self._messages += new
        self._seen = len(messages)
        return new

    def _observed(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """The reset observation (every message so far: the system prompt and the opening, either way
        `observe` is set) and its info."""
        if self._seen != len(self._episode.messages):  # a user opened (the task's opening is in `head`)
            self._catch_up()
        return {"messages": self._messages[:], "tools": self._tools}, self._info()

    def _stepped(self, records: list[CallRecord], problem: str | None
                 ) -> tuple[dict[str, Any], SupportsFloat, bool, bool, dict[str, Any]]:
        """A step's observation: the messages it added (with `observe="all"`, every message so far), and the
        task's tools. Message dicts and the tools are shared between observations (and the tools between episodes
        of the task): copy one before editing it."""
        new = self._catch_up()
        observation = {"messages": new if self.observe == "new" else self._messages[:], "tools": self._tools}
        errors = []
        for record in records:  # as in `_catch_up`, a loop
            if record.error is not None:
                errors.append(record.error.type)
        info = self._info(errors)
        if problem is not None:
            info["action_error"] = problem
        if self._request is not None:
            return observation, 0.0, False, False, info
        info["score"] = self.score()
        self._final = copy.deepcopy(info["score"])
        truncated = self._episode.stop_reason in _LIMITS
        return observation, float(info["score"]["reward"]), not truncated, truncated, info

    def _info(self, call_errors: list[str] | None = None) -> dict[str, Any]:
        """What `info` says of the episode so far; a step's (`_stepped`) also names its calls' errors, written
        into the same dict at once (the one place the keys are named)."""
        task = self.task
        assert task is not None
        episode = self._episode
        info = {"task": task.id, "category": task.category, "steps": episode.steps,
                "turns": episode.turns, "stop_reason": episode.stop_reason, "protocol": self._protocol}
        if call_errors is not None:
            info["call_errors"] = call_errors
        return info


@dataclass(frozen=True, slots=True)
class _TaskStart:
    """What every episode of a task starts from: the task, its protocol, the API messages before the agent
    speaks (the system prompt and, when no user opens, the opening's messages), the tools (the family's shared
    copy), its `Opening`, the scripted user (it keeps nothing between replies) and the prebuilt world."""

    task: Task
    protocol: str
    head: tuple[dict[str, Any], ...]
    tools: list[dict[str, Any]]
    opening: Opening
    user: ScriptedUser
    built: World  # the task's prebuilt world (`TaskWorlds.start`): forked, never acted on


async def _answer(reply: Any) -> Any:
    return await reply if inspect.isawaitable(reply) else reply


def read_action(action: Any) -> tuple[Turn, dict[str, Any] | None]:
    """An action as the episode's `Turn`; for OpenAI tool calls also the assistant message (plain
    dicts) that the observation shows. Content may be text or a list of content parts (their
    text parts, joined, are the text). `TypeError` for what is no assistant message."""
    if isinstance(action, str):
        return _text_turn(action), None
    if not (isinstance(action, Mapping) or hasattr(action, "content") or hasattr(action, "tool_calls")):
        raise TypeError(f"an action is assistant text or a message with content and/or tool_calls, "
                        f"not {type(action).__name__}")
    content = _content_text(field_of(action, "content"))
    try:
        uses = openai_uses(field_of(action, "tool_calls") or [])
    except (TypeError, ValueError, AttributeError) as exc:
        raise TypeError(f"an action's tool_calls must be a list of OpenAI tool calls: {exc}") from None
    if not uses:
        return _text_turn(content or ""), None
    # Native calls, as a run with `--protocol native` takes them: the world answers the same, call by call.
    tool_calls = tuple(ToolCall(str(use.id), str(use.name), use.arguments if isinstance(use.arguments, str)
                                else _json_text(use.arguments)) for use in uses)
    calls = [{"id": call.id, "type": "function", "function": {"name": call.name, "arguments": call.arguments}}
             for call in tool_calls]
    assistant = {"role": "assistant", "content": content, "tool_calls": calls}
    return Turn(text=content or "", tool_calls=tool_calls), assistant


# The one place a text action is read (as a run reads a model's text reply): `Turn.from_text` under its own
# name, not wrapped, as a step's frames add up.
_text_turn = Turn.from_text


def _content_text(content: Any) -> str | None:
    """A message's content as text: text as is, a list of content parts as their text parts joined
    (an image or audio part says nothing a tool world can read); `TypeError` for anything else."""
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, (list, tuple)):
        texts = []
        for part in content:
            kind = field_of(part, "type")
            text = field_of(part, "text")
            if kind == "text" and isinstance(text, str):
                texts.append(text)
            elif kind is None and isinstance(part, str):
                texts.append(part)
        return "".join(texts)
    raise TypeError(f"an assistant message's content is text or a list of content parts, "
                    f"not {type(content).__name__}")


def _json_text(value: Any) -> str:
    """Arguments given as data, as the JSON text a model would have written (data JSON cannot write
    is passed on as its text, for the world to refuse)."""
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return str(value)


# -- TRL ---------------------------------------------------------------------------------------


def trl_environment(family: str, tasks: Sequence[str] | None = None, lang: str = "en", *, max_steps: int = 64,
                    seed: int = 0, data: Path | None = None) -> type:
    """One class for TRL's `GRPOTrainer(environment_factory=...)`, offering the union of the tasks' tools.

    TRL builds it with no arguments, once per concurrent rollout, and calls `reset(**row)` at
    the start of each: the row's `task` column picks the task (else one is drawn), the world
    is restored from a fork, and what the model is given comes back (see `trl_environments`).
    Every tool the tasks offer is a public method with the tool's signature and a Google-style
    docstring (TRL exposes every public method but `reset` and `get_reward` as a tool), and
    `get_reward()` scores the episode. The tasks must agree on any tool they share; tasks that
    offer different tools are better served by `trl_environments`, which offers each task
    exactly its own.
    """
    worlds = TaskWorlds(family, tasks, lang, seed, data)
    tools = [OfferedTool.from_openai(tool) for tool in _agreed_tools(worlds, list(worlds.tasks))]
    return _trl_class(f"{family.title().replace('_', '')}Environment", family, worlds, list(worlds.tasks),
                      tools, max_steps)


def trl_environments(family: str, tasks: Sequence[str] | None = None, lang: str = "en", *, max_steps: int = 64,
                     seed: int = 0, data: Path | None = None, reply_reward: bool = False) -> dict[str, type]:
    """TRL's multi-environment `environment_factory`: one class per set of tools the tasks offer, keyed
    by the name `trl_dataset` writes in each row's `environment` column, so TRL shows each prompt
    exactly its task's tools (it renders a prompt's tools from its environment's methods).

    `reset(**row)` returns what the row's prompt lacks of the reset observation: with a prompt
    from `trl_dataset` (the observation's messages, the last one's content left for `reset`),
    that content, so the model sees the system prompt, the opening messages and the tools as a
    run would give them; with no such prompt, the system prompt and opening messages as one text.
    A tool method runs the call in the episode's world and returns the result text (or the
    error JSON). On a task scored on one reply (ACEBench's items), calls are collected and
    `get_reward` sends them as that reply, written in the bracket syntax the benchmark reads:
    TRL runs a message's calls one by one, so where the message ended is not seen. A task whose
    answer is text (API-Bank's response items, ACEBench's special items) cannot be answered
    through tools: `get_reward` gives 0.0 there, since TRL does not show an environment the
    completion. With `reply_reward=True` the classes have no `get_reward`; pass
    `reward_funcs=trl_reward`, which hands each environment its rollout's last reply first, so
    those tasks are scored too. Multi-turn tasks run on their opening alone, as TRL's loop has
    no user simulator.
    """
    worlds = TaskWorlds(family, tasks, lang, seed, data)
    classes: dict[str, type] = {}
    for key, (task_ids, tools) in _tool_sets(worlds, list(worlds.tasks)).items():
        classes[key] = _trl_class(_class_name(family, key), family, worlds, task_ids,
                                  [OfferedTool.from_openai(tool) for tool in tools], max_steps, reply_reward)
    return classes


def trl_dataset(family: str, tasks: Sequence[str] | None = None, lang: str = "en", *, repeats: int = 1,
                seed: int = 0, data: Path | None = None) -> Any:
    """A `datasets.Dataset` for `GRPOTrainer(train_dataset=...)`: one row per task (each repeated
    `repeats` times in a row), with `prompt` (the reset observation's messages, the last one's
    content left for the environment's `reset` to fill), `task` and `environment` (the key of its
    class in `trl_environments`). A row names its task, so every generation of a GRPO group works
    on the same task and world; nothing is drawn from an unseeded source. Needs `datasets`."""
    import datasets  # optional: only for TRL users

    if repeats < 1:
        raise ValueError("repeats must be at least 1")
    worlds = TaskWorlds(family, tasks, lang, seed, data)
    env = ToolEnv(worlds, protocol="native", max_steps=1)
    keys = {task_id: key for key, (task_ids, _) in _tool_sets(worlds, list(worlds.tasks)).items()
            for task_id in task_ids}
    rows: dict[str, list[Any]] = {"prompt": [], "task": [], "environment": []}
    for task_id in worlds.tasks:
        observation, _ = env.reset(options={"task": task_id})
        prompt = [dict(message) for message in observation["messages"]]
        prompt[-1]["content"] = ""
        for _ in range(repeats):
            rows["prompt"].append(prompt)
            rows["task"].append(task_id)
            rows["environment"].append(keys[task_id])
    return datasets.Dataset.from_dict(rows)


def trl_reward(completions: Sequence[Any], environments: Sequence[Any] | None = None, **_: Any) -> list[float | None]:
    """A reward function for `GRPOTrainer(reward_funcs=trl_reward)` with `trl_environments(..., reply_reward=True)`:
    each rollout's environment is handed the rollout's last assistant reply (TRL passes `environments`
    to reward functions), which ends its episode, and scored. So a task answered in words (ACEBench's
    special items, API-Bank's response items) is scored as a run scores it. None for a rollout whose
    environment is not one of ours (TRL then leaves it out of this reward)."""
    rewards: list[float | None] = []
    for index, completion in enumerate(completions):
        environment = environments[index] if environments is not None and index < len(environments) else None
        finish = getattr(environment, "_finish", None)
        rewards.append(float(finish(_last_reply(completion))) if callable(finish) else None)
    return rewards


def _last_reply(completion: Any) -> str:
    """The text of a completion's last assistant message (a conversational completion is a list of
    messages; a standard one is text)."""
    if isinstance(completion, str):
        return completion
    for message in reversed(list(completion or ())):
        if isinstance(message, Mapping) and message.get("role", "assistant") == "assistant":
            try:
                return _content_text(message.get("content")) or ""
            except TypeError:
                return ""
    return ""


def _agreed_tools(worlds: TaskWorlds, task_ids: list[str]) -> list[dict[str, Any]]:
    """The tools the tasks offer, once each; `ValueError` when two give one name different schemas."""
    first: dict[str, tuple[str, dict[str, Any]]] = {}
    for task_id in task_ids:
        for tool in worlds.offered(task_id):
            name = str(tool["function"]["name"])
            seen_in, seen = first.setdefault(name, (task_id, tool))
            if seen != tool:
                raise ValueError(f"tool {name!r} differs between tasks {seen_in} and {task_id}: "
                                 "choose tasks whose tools agree, or use trl_environments")
    return [tool for _, tool in first.values()]


def _tool_sets(worlds: TaskWorlds, task_ids: list[str]) -> dict[str, tuple[list[str], list[dict[str, Any]]]]:
    """The tasks grouped by the tools they offer, keyed by a digest of those tools (same tasks, same keys)."""
    sets: dict[str, tuple[list[str], list[dict[str, Any]]]] = {}
    for task_id in task_ids:
        tools = worlds.offered(task_id)
        text = json.dumps(tools, sort_keys=True, ensure_ascii=False)
        key = f"{worlds.family.name}-{hashlib.sha256(text.encode()).hexdigest()[:12]}"
        sets.setdefault(key, ([], tools))[0].append(task_id)
    return sets


def _class_name(family: str, key: str) -> str:
    return f"{family.title().replace('_', '')}Environment_{key.rsplit('-', 1)[-1]}"


def _trl_class(name: str, family: str, worlds: TaskWorlds, task_ids: list[str], tools: list[OfferedTool],
               max_steps: int, reply_reward: bool = False) -> type:
    """The class TRL builds environments from: `reset`, `get_reward` (unless `reply_reward`: then
    `trl_reward` scores it), and one method per tool."""
    clashes = sorted(_RESERVED & {tool.name for tool in tools})
    if clashes:
        raise ValueError(f"tools named {', '.join(clashes)} would shadow TRL's reserved methods")
    unnameable = [problem for tool in tools for problem in python_name_problems(tool)]
    if unnameable:
        raise ValueError("TRL reads tools from Python signatures, which cannot name the "
                         + "; ".join(unnameable[:5]) + ": choose tasks whose tools have Python names")

    def __init__(self: Any) -> None:
        self._env = ToolEnv(worlds, task_ids, max_steps=max_steps, protocol="native")
        self._reply = []

    def reset(self: Any, **row: Any) -> str:
        task = row.get("task")
        observation, _ = self._env.reset(options=None if task is None else {"task": task})
        self._reply = []
        return _prompt_rest(observation["messages"], row.get("prompt"))

    def finish(self: Any, reply: str | None = None) -> float:
        """End the episode and score it: a one-reply task's collected calls are its reply, written as
        its benchmark reads them; else `reply` (the rollout's last words, when known) is the answer."""
        env: ToolEnv = self._env
        if not env.over and self._reply:
            env.step(render_calls(self._reply))
        elif not env.over and reply is not None:
            env.step(reply)
        self._reply = []
        return float(env.score()["reward"])

    def get_reward(self: Any) -> float:
        return float(self._finish())

    def run(self: Any, tool: str, arguments: dict[str, Any]) -> str:
        env: ToolEnv = self._env
        if env.over:
            return json.dumps({"error": "episode_over", "message": f"the episode has ended ({env.stop_reason})"})
        if env.single_reply:
            self._reply.append(Call(tool, arguments))
            return json.dumps({"recorded": True, "message": "This task is scored on your calls as one reply; "
                               "nothing runs."})
        call = {"id": f"call_{env.steps}", "type": "function",
                "function": {"name": tool, "arguments": _json_text(arguments)}}
        observation, *_ = env.step({"role": "assistant", "content": None, "tool_calls": [call]})
        return str(observation["messages"][-1]["content"])

    namespace: dict[str, Any] = {
        "__doc__": f"The {family} world's tasks as a TRL environment (toolworlds).",
        "__module__": __name__,
        "__init__": __init__,
        "task_ids": tuple(task_ids),  # not a method: TRL offers methods only
        "reset": reset,
        "_finish": finish,  # private: TRL offers public methods only
    }
    if not reply_reward:
        namespace["get_reward"] = get_reward
    namespace.update({tool.name: tool_method(tool, run) for tool in tools})
    return type(name, (), namespace)


def _prompt_rest(messages: list[dict[str, Any]], prompt: Any) -> str:
    """What TRL should append to the prompt's last message so the model sees `messages`: the last
    message's content when the prompt holds the others (a `trl_dataset` row), else every message's
    text in order (the system prompt first), for a prompt that holds nothing of them."""
    if isinstance(prompt, list) and len(prompt) == len(messages) and all(
            isinstance(given, Mapping) and given.get("role") == own["role"]
            and (given.get("content") == own["content"] or index == len(messages) - 1)
            for index, (given, own) in enumerate(zip(prompt, messages, strict=True))):
        return str(messages[-1]["content"] or "")
    return "\n\n".join(str(message["content"]) for message in messages if message.get("content"))


# -- gymnasium ids ---------------------------------------------------------------------------


def register_environments() -> list[str]:
    """Register `toolworlds/<family>-v0` for every family (naming no family module, so importing this
    imports no world; `toolworlds/todo-v0`, a world without tasks, says so when made), so `gymnasium.make` and
    `gymnasium.make_vec` build a `ToolEnv` (keywords go to it: `gymnasium.make("toolworlds/banking-v0",
    lang="zh")`). Done when this module is imported; `gymnasium.make("toolworlds.env:toolworlds/banking-v0")`
    imports it first. Returns the ids."""
    ids = []
    for name in FAMILIES:
        env_id = f"toolworlds/{name}-v0"
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point="toolworlds.env:ToolEnv", kwargs={"family": name})
        ids.append(env_id)
    return ids


register_environments()
