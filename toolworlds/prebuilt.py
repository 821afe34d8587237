"""Worlds built once and handed out as forks: what every integration starts an episode from.

Building a task's world (reading its configuration, loading default data) costs
milliseconds; forking a built one costs microseconds. The MCP server forks one per client
session, `ToolEnv` one per `reset`, a GRPO group one per member. The prebuilt world itself
is never handed out, so nothing an agent does can reach the next episode's start.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from sandbox.schemas import openai_tools
from sandbox.tools import ToolSpec
from sandbox.world import World
from scenarios.family import Task, TaskQuery, WorldFamily
from scenarios.registry import family as registry_family


@functools.lru_cache(maxsize=64)
def shared_task_worlds(family: str, lang: str = "en", seed: int = 0, data: Path | None = None) -> TaskWorlds:
    """All of a family's tasks with their prebuilt worlds, made once per process for (family, language,
    seed, data folder) and shared by every caller that only forks them (every `ToolEnv` of a family, by
    default: a vector of 64 environments, or a GRPO group, held 64 copies of the tasks and worlds, 1.6 MB
    and 12 ms each for banking). A data folder whose files change meanwhile is not read again: pass a
    `TaskWorlds` of your own to read it afresh. Raises as `TaskWorlds` does (nothing is kept then)."""
    return TaskWorlds(family, None, lang, seed, data)


def family_world(entry: WorldFamily, lang: str = "en", seed: int = 0) -> World:
    """A family's default world; `lang` is passed only to families with more than one language."""
    if lang not in entry.languages:
        raise LookupError(f"{entry.name} has no {lang!r} world; languages: {', '.join(entry.languages)}")
    options: dict[str, Any] = {"seed": seed}
    if len(entry.languages) > 1:
        options["lang"] = lang
    return entry.build_world(**options)


class TaskWorlds:
    """A family's tasks (all, or the ids given), each task's world built on first use and then forked.

    `data` is where to read the tasks (as `toolworlds run --data`), else the family's own. `narrow`
    gives the filters the ids are read under (its categories, difficulties and tags), as `toolworlds
    run` reads `--task-ids` under its filters: a family may take an id to mean more than a task's own
    id (ToolBench: the dataset's id, and mcpbr's `toolbench_N` counted after the filters), and such an
    id answers for the one task it names. Raises `LookupError` for an unknown family, a family without
    runnable tasks, a language it lacks, or a task id that names no task or several.
    """

    def __init__(self, family: str, tasks: Sequence[str] | None = None, lang: str = "en", seed: int = 0,
                 data: Path | None = None, *, narrow: TaskQuery | None = None) -> None:
        try:
            self.family = registry_family(family)
        except KeyError as exc:
            raise LookupError(exc.args[0]) from None
        if self.family.load_tasks is None and (self.family.generator is None or data is None):
            raise LookupError(f"{family} has no runnable tasks of its own: it is the engine's example world, with "
                              "tools but no task (an instruction and the end state it should reach) to score an "
                              f"episode against; make some with `toolworlds generate {family}` and pass the file "
                              "as data, build it with scenarios.registry.family(name).build_world(), or run a "
                              "family with tasks (banking, acebench, apibank, toolbench)")
        query = replace(narrow or TaskQuery(), lang=lang, data=data, task_ids=tuple(tasks or ()), limit=None)
        loaded = self.family.tasks(query)
        if loaded.problems:
            raise LookupError(f"{family}/{lang}: " + "; ".join(loaded.problems[:5]))
        self.tasks: Mapping[str, Task] = {task.id: task for task in loaded.tasks}
        self._left_out = frozenset(loaded.errata)
        self.lang = lang
        self.aliases: dict[str, str] = {}  # an id given that is not a task's own id -> the task it names
        missing = []
        narrowed = bool(query.categories or query.difficulties or query.tags)  # ids may then mean more
        for task_id in tasks or ():
            if task_id in self.tasks and not narrowed:
                continue
            one = len(tasks or ()) == 1
            named = loaded.tasks if one else self.family.tasks(replace(query, task_ids=(task_id,))).tasks
            if len(named) > 1:
                raise LookupError(f"{family}/{lang}: {task_id} names {len(named)} tasks ("
                                  f"{', '.join(task.id for task in named[:5])}); give one task's own id")
            if named and named[0].id != task_id:
                self.aliases[task_id] = named[0].id
            elif not named:
                missing.append(task_id)
        self.check(missing)
        self.data = data
        self.seed = seed
        self._built: dict[str, World] = {}
        self._offered: dict[str, list[dict[str, Any]]] = {}
        self._prompts: dict[tuple[str, str], str] = {}

    def check(self, task_ids: Sequence[str]) -> None:
        """`LookupError` naming each of `task_ids` these worlds lack (saying so where an erratum left it out),
        or saying they hold no task at all."""
        family = self.family.name
        missing = [task_id for task_id in task_ids if task_id not in self.tasks and task_id not in self.aliases]
        corrected = [task_id for task_id in missing if task_id in self._left_out]
        if corrected:  # not a typo: say why the task is not there
            raise LookupError(f"{family}/{self.lang}: {', '.join(corrected)} left out by an erratum (`toolworlds "
                              f"doctor {family}` lists why)")
        if missing or not self.tasks:
            known = ", ".join(list(self.tasks)[:10]) or "none"
            raise LookupError(f"{family}/{self.lang} has no task {', '.join(missing) or '(any)'}; tasks: {known}")

    @property
    def mode(self) -> str:
        """How the family compares an end state with its ground truth (`sandbox.compare_states`)."""
        return self.family.end_state_mode

    def task(self, task_id: str) -> Task:
        try:
            return self.tasks[self.aliases.get(task_id, task_id)]
        except KeyError:
            raise LookupError(f"{self.family.name} has no task {task_id!r}") from None

    def start(self, task_id: str) -> World:
        """The task's prebuilt world: read it, fork it, never act on it."""
        task_id = self.aliases.get(task_id, task_id)
        built = self._built.get(task_id)
        if built is None:
            built = self._built[task_id] = self.task(task_id).world(self.seed)
        return built

    def fork(self, task_id: str) -> World:
        return self.start(task_id).fork()

    def tool_specs(self) -> list[ToolSpec]:
        """Every tool any of the tasks offers, once each by name, in first-seen order; `ValueError`
        when two tasks give one name different schemas (one description could not serve both)."""
        specs: dict[str, tuple[str, ToolSpec]] = {}
        for task_id in self.tasks:
            for name, spec in self.start(task_id).tools.items():
                first_task, first = specs.setdefault(name, (task_id, spec))
                if (first.description, first.parameters) != (spec.description, spec.parameters):
                    raise ValueError(f"tool {name!r} differs between tasks {first_task} and {task_id}: "
                                     "choose tasks whose tools agree")
        return [spec for _, spec in specs.values()]

    def offered(self, task_id: str) -> list[dict[str, Any]]:
        """The tools a run offers the model for the task, as OpenAI function schemas (a fresh copy):
        the task's own function list (`openai_tools(task.functions)`), which for a task whose tools
        exist only as descriptions (ACEBench's items) is all there is."""
        tools: list[dict[str, Any]] = json.loads(json.dumps(self.shared_offered(task_id), ensure_ascii=False))
        return tools

    def shared_offered(self, task_id: str) -> list[dict[str, Any]]:
        """`offered`, made once per task and shared by every caller (every episode's observation): read it,
        never edit it. Copying it costs a reset about half its time."""
        tools = self._offered.get(task_id)
        if tools is None:
            tools = self._offered[task_id] = openai_tools(self.task(task_id).functions)
        return tools

    def prompt(self, task_id: str, protocol: str | None = None) -> str:
        """The system prompt a model gets for the task in `protocol` (default: the task's own), made once per
        task and protocol: the bracket protocol's lists every tool, as JSON, which cost a reset a millisecond."""
        from .llm import agent_prompt, task_protocol  # here: the command line imports this module, not the clients

        task = self.task(task_id)
        key = (task_id, protocol or task_protocol(task))
        prompt = self._prompts.get(key)
        if prompt is None:
            prompt = self._prompts[key] = agent_prompt(task, key[1])
        return prompt

    def offered_union(self, task_ids: Sequence[str]) -> list[dict[str, Any]]:
        """Every tool the tasks offer, once each by name (the first task's schema for a name)."""
        union: dict[str, dict[str, Any]] = {}
        for task_id in task_ids:
            for tool in self.offered(task_id):
                union.setdefault(str(tool.get("function", {}).get("name")), tool)
        return list(union.values())
