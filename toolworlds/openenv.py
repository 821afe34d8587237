"""toolworlds tasks as an OpenEnv environment: `python -m toolworlds.openenv banking --port 8000`.

Optional: needs `openenv-core` (`pip install -e ".[openenv]"`). `create_app(family, ...)` is the
FastAPI app OpenEnv's `create_app` makes of `ToolworldsEnvironment`; any OpenEnv client talks to
it over its WebSocket session protocol (`ToolworldsClient` here, or OpenEnv's `GenericEnvClient`,
which is what verifiers and NeMo Gym import environments through).

- **Sessions.** Every client connection gets its own environment, and every reset a fresh fork
  of the task's prebuilt world (`TaskWorlds`, built once per server), so sessions never share a
  world. They all run on one thread (OpenEnv's single-thread executor): the prebuilt worlds are
  shared, and an episode step costs microseconds.
- **reset(task=ID, seed=N)** starts an episode: the task given, else one drawn from the
  environment's tasks with a `random.Random` seeded by `seed` (or the server's seed).
- **Actions** are the model's message in the OpenAI shape: `content` (text; calls written in it
  run, in the bracket protocol of ACEBench's prompts) and/or `tool_calls`.
- **Observations** hold the messages that answer it (at reset: the system prompt and the opening
  of the conversation), the task's tools (at reset), the task, and `info`: steps, why the episode
  stopped, each step's failed calls and, at the end, the score's parts. OpenEnv's serializer
  drops an observation's `metadata` field, so what a trainer reads is in `info`, a field of its own.
- **Reward** is 0.0 until the episode ends, then the runner's score (1.0 when the end state is
  the task's ground truth), so the sum over an episode, what verifiers scores, is that score.
"""

from __future__ import annotations

import argparse
import functools
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from openenv.core import EnvClient
from openenv.core.client_types import StepResult
from openenv.core.env_server import Action, Environment, Observation, State
from openenv.core.env_server import create_app as openenv_app
from pydantic import Field

from .prebuilt import TaskWorlds
from .sessions import EpisodeSession


class ToolworldsAction(Action):
    """The model's message: text and/or OpenAI-shaped tool calls."""

    content: str = Field(default="", description="The assistant's text: an answer, or calls written as text")
    tool_calls: list[dict[str, Any]] = Field(
        default_factory=list,
        description='OpenAI tool calls: [{"id": ..., "type": "function", "function": {"name": ..., "arguments": '
                    '"<JSON text>"}}]')


class ToolworldsObservation(Observation):
    """What answers an action (at reset: the opening), in the OpenAI chat shape."""

    messages: list[dict[str, Any]] = Field(default_factory=list, description="Messages answering the action")
    tools: list[dict[str, Any]] = Field(default_factory=list, description="The task's tools (at reset)")
    task: dict[str, Any] = Field(default_factory=dict, description="The task: family, id, category, question")
    info: dict[str, Any] = Field(default_factory=dict, description="Steps, stop reason, failed calls, score")


class ToolworldsEnvironment(Environment[ToolworldsAction, ToolworldsObservation, State]):
    """One session's environment over a family's prebuilt worlds."""

    SUPPORTS_CONCURRENT_SESSIONS = True
    REQUIRES_SINGLE_THREAD_EXECUTOR = True

    def __init__(self, worlds: TaskWorlds, max_steps: int = 64, max_turns: int = 10, seed: int = 0) -> None:
        super().__init__()
        self.worlds = worlds
        self.max_steps, self.max_turns = max_steps, max_turns
        self._rng = random.Random(seed)
        self._session: EpisodeSession | None = None
        self._state = State(step_count=0)

    def reset(self, seed: int | None = None, episode_id: str | None = None, task: str | None = None,
              **kwargs: Any) -> ToolworldsObservation:
        if seed is not None:
            self._rng = random.Random(seed)
        if task is None:
            task = self._rng.choice(sorted(self.worlds.tasks))
        elif task not in self.worlds.tasks:
            known = ", ".join(list(self.worlds.tasks)[:10])
            raise ValueError(f"{self.worlds.family.name} has no task {task!r} here; tasks: {known}")
        session = self._session = EpisodeSession(self.worlds, task, max_steps=self.max_steps,
                                                 max_turns=self.max_turns)
        self._state = State(episode_id=episode_id, step_count=0, task=task, family=session.family)
        return self._observed(session.opening(), [], tools=session.tools)

    def step(self, action: ToolworldsAction, timeout_s: float | None = None, **kwargs: Any) -> ToolworldsObservation:
        session = self._session
        if session is None:
            raise RuntimeError("no episode yet: reset first")
        before = len(session.episode.records)
        answers = session.send({"role": "assistant", "content": action.content, "tool_calls": action.tool_calls})
        self._state.step_count += 1
        failed = [r.error.type for r in session.episode.records[before:] if r.error is not None]
        return self._observed(answers, failed)

    @property
    def state(self) -> State:
        return self._state

    def _observed(self, messages: list[dict[str, Any]], failed: list[str],
                  tools: list[dict[str, Any]] | None = None) -> ToolworldsObservation:
        session = self._session
        assert session is not None
        info: dict[str, Any] = {"steps": session.episode.steps, "stop_reason": session.stop_reason,
                                "call_errors": failed, "error": session.episode.error}
        reward = 0.0
        if session.over:
            info["score"] = session.score()
            reward = float(info["score"]["reward"])
        task = {"family": session.family, "id": session.task.id, "category": session.task.category,
                "question": session.task.question, "protocol": session.protocol}
        return ToolworldsObservation(messages=messages, tools=tools or [], task=task, info=info, done=session.over,
                                     reward=reward, metadata=info)


def create_app(family: str, tasks: Sequence[str] | None = None, lang: str = "en", *, max_steps: int = 64,
               max_turns: int = 10, seed: int = 0, data: Path | None = None, max_concurrent_envs: int = 64) -> Any:
    """The OpenEnv server app (FastAPI) of a family's tasks (all, or those given)."""
    worlds = TaskWorlds(family, tasks, lang, seed, data)
    factory = functools.partial(ToolworldsEnvironment, worlds, max_steps, max_turns, seed)
    return openenv_app(factory, ToolworldsAction, ToolworldsObservation, env_name=f"toolworlds-{family}",
                       max_concurrent_envs=max_concurrent_envs)


class ToolworldsClient(EnvClient[ToolworldsAction, ToolworldsObservation, State]):
    """OpenEnv's WebSocket client, typed for this environment: `reset(task=...)`, `step(ToolworldsAction(...))`."""

    def _step_payload(self, action: ToolworldsAction) -> dict[str, Any]:
        return action.model_dump(exclude={"metadata"})

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[ToolworldsObservation]:
        observation = ToolworldsObservation(**payload.get("observation", {}), done=payload.get("done", False),
                                            reward=payload.get("reward"))
        return StepResult(observation=observation, reward=payload.get("reward"), done=payload.get("done", False))

    def _parse_state(self, payload: dict[str, Any]) -> State:
        return State(**payload)


def main(argv: Sequence[str] | None = None) -> None:
    """Serve a family's tasks: `python -m toolworlds.openenv banking --port 8000`."""
    import uvicorn

    parser = argparse.ArgumentParser(prog="python -m toolworlds.openenv", description=main.__doc__)
    parser.add_argument("family")
    parser.add_argument("--task", action="append", dest="tasks", help="serve this task (repeat for more)")
    parser.add_argument("--lang", default="en")
    parser.add_argument("--data", type=Path, help="read the tasks from this file or folder")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--max-sessions", type=int, default=64)
    options = parser.parse_args(argv)
    try:
        app = create_app(options.family, options.tasks, options.lang, seed=options.seed, data=options.data,
                         max_concurrent_envs=options.max_sessions)
    except (LookupError, ValueError) as exc:
        parser.exit(2, f"error: {exc}\n")
    uvicorn.run(app, host=options.host, port=options.port, log_level="warning")


if __name__ == "__main__":
    main()
