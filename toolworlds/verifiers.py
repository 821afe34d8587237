"""toolworlds tasks as a verifiers environment: `load_environment("banking")`, or `vf-eval toolworlds-verifiers`.

Optional: needs `verifiers` 0.4 (`pip install -e ".[verifiers]"`, without the `mcp` extra: verifiers
pins `mcp==2.0.0`). verifiers 0.4 builds an environment from a config (`vf.load_environment(EnvConfig)`):
a taskset, found by its id as an installed module exporting its `Taskset` (and here its `Env`) in
`__all__`, and the agents that play it. `load_environment(family, ...)` here makes that config for a
family's tasks and returns verifiers' own `load_environment` of it; the id `toolworlds-verifiers` is the
top-level module `toolworlds_verifiers`, which re-exports this one for verifiers' command line.

An episode (`ToolworldsEnv.run`) drives the player agent turn by turn, as verifiers' own OpenEnv
environment does: the task's opening is the first user turn, each reply of the model goes to a fork of
the task's world (`EpisodeSession`), and what answers it is the next user turn, until the episode
ends. verifiers' harnesses offer a model no tools of an environment's own except as MCP servers, so
the model writes its calls as text: the task's own prompt (ACEBench's) or the bracket protocol's,
which lists the tools. The reward `toolworlds` is the runner's score (1.0 when the end state is the
task's ground truth); `state_fraction`, `process` and `calls` are metrics beside it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import verifiers.v1 as vf
from pydantic import Field

from scenarios.family import TaskQuery

from .prebuilt import TaskWorlds
from .sessions import EpisodeSession, system_prompt

# The taskset's id: verifiers imports the module `toolworlds_verifiers` for it.
TASKSET_ID = "toolworlds-verifiers"


class ToolworldsData(vf.TaskData):
    """One task of a family: `id` is the toolworlds task id."""

    family: str
    lang: str = "en"
    category: str = ""


class ToolworldsTask(vf.Task[ToolworldsData]):
    """Scored by `ToolworldsEnv.run`, which holds the task's world."""


class ToolworldsTasksetConfig(vf.TasksetConfig):
    id: str = TASKSET_ID
    family: str = "banking"
    """A family name from `scenarios.registry`."""
    tasks: list[str] = Field(default_factory=list)
    """Task ids (empty: every task of the family and language)."""
    lang: str = "en"
    categories: list[str] = Field(default_factory=list)
    limit: int | None = None
    """At most this many tasks, taken evenly across categories."""
    data: str | None = None
    """Read the tasks from this file or folder (as `toolworlds run --data`)."""
    seed: int = 0
    max_steps: int = Field(64, ge=1)
    max_turns: int = Field(10, ge=0)


class ToolworldsTaskset(vf.Taskset[ToolworldsTask, ToolworldsTasksetConfig]):
    """A family's tasks, each world built once and forked per episode."""

    def __init__(self, config: ToolworldsTasksetConfig) -> None:
        super().__init__(config)
        self.worlds = TaskWorlds(config.family, config.tasks or None, config.lang, config.seed, _path(config.data))

    def load(self) -> Iterator[ToolworldsTask]:
        config = self.config
        query = TaskQuery(lang=config.lang, data=_path(config.data), categories=tuple(config.categories),
                          task_ids=tuple(config.tasks), limit=config.limit)
        chosen = self.worlds.family.tasks(query).tasks if (config.categories or config.limit is not None) \
            else self.worlds.tasks.values()
        for task in chosen:
            yield ToolworldsTask(ToolworldsData(id=task.id, name=f"{config.family}/{config.lang}:{task.id}",
                                                system_prompt=system_prompt(task, written=True),
                                                family=config.family, lang=config.lang, category=task.category),
                                 config.task)


class ToolworldsEnvConfig(vf.EnvConfig):
    player: vf.AgentConfig = vf.AgentConfig.model_validate({"harness": {"id": "null"}})
    """The agent that plays the tasks: its harness (by default verifiers' plain chat program, which
    gives the model no tools of its own: the calls it writes are for the world), runtime and model."""


class ToolworldsEnv(vf.Env[ToolworldsEnvConfig]):
    """Each episode: the player's replies go to a fork of the task's world until the episode ends."""

    async def run(self, task: vf.Task, agents: vf.Agents) -> None:
        taskset = self.taskset
        assert isinstance(taskset, ToolworldsTaskset)
        config = taskset.config
        session = EpisodeSession(taskset.worlds, str(task.data.id), max_steps=config.max_steps,
                                 max_turns=config.max_turns)
        opening = "\n\n".join(str(message["content"]) for message in session.opening()[1:])
        async with agents.player.interaction(task) as interaction:
            segment = await interaction.turn(opening)
            while not segment.terminated:
                answers = session.send(segment.last_reply or "")
                if session.over:
                    break
                segment = await interaction.turn("\n\n".join(str(answer["content"]) for answer in answers))
        parts = session.score()
        trace = interaction.trace
        trace.record_reward("toolworlds", float(parts["reward"]))
        trace.record_metric("state_fraction", float(parts["state_fraction"] or 0.0))
        if parts["process"] is not None:
            trace.record_metric("process", float(parts["process"]))
        trace.record_metric("calls", float(parts["calls"]))


def load_environment(family: str = "banking", tasks: Sequence[str] = (), lang: str = "en", *,
                     categories: Sequence[str] = (), limit: int | None = None, data: str | Path | None = None,
                     seed: int = 0, max_steps: int = 64, max_turns: int = 10, **env: Any) -> vf.Env:
    """The verifiers environment of a family's tasks (all, or those chosen).

    `env` holds the rest of verifiers' `EnvConfig` as its own fields: `player={"harness": {"id":
    "null"}, "runtime": {"type": "subprocess"}}` picks the player's harness and runtime, for example.
    """
    taskset = {"id": TASKSET_ID, "family": family, "tasks": list(tasks), "lang": lang,
               "categories": list(categories), "limit": limit, "data": None if data is None else str(data),
               "seed": seed, "max_steps": max_steps, "max_turns": max_turns}
    return vf.load_environment(ToolworldsEnvConfig.model_validate({**env, "taskset": taskset}))


def _path(value: str | None) -> Path | None:
    return Path(value) if value else None
