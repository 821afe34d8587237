"""ACEBench agent tasks: prompts joined with their possible answers.

Accepts the benchmark's own layout (a folder holding `data_<lang>/`, or a `data_<lang>`
folder, or a single `data_agent_*.json` file with `possible_answer/` beside it), so
dataset authors can load and lint their own files. Malformed lines do not abort loading:
they are collected in `TaskSet.problems`.
"""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

from pydantic import BaseModel, Field

from sandbox import World

# Task families in ACEBench's format, and the function that builds each one's worlds.
WORLD_BUILDERS = MappingProxyType({
    "acebench": "scenarios.acebench.world:acebench_world",
    "banking": "scenarios.banking.world:banking_world",
})

Category = Literal["multi_step", "multi_turn"]
CATEGORIES: tuple[Category, ...] = ("multi_step", "multi_turn")


class AceTask(BaseModel):
    """One agent task with everything needed to run and score it."""

    id: str
    category: str
    family: str = "acebench"
    lang: str = "en"
    question: str = ""
    initial_config: dict[str, Any] = Field(default_factory=dict)
    involved_classes: list[str] = Field(default_factory=list)
    functions: list[dict[str, Any]] = Field(default_factory=list)
    ground_truth: list[dict[str, Any]] = Field(default_factory=list)
    paths: list[list[str]] = Field(default_factory=list, description="gold milestone paths (alternatives)")
    source: str = ""

    def world(self, seed: int = 0) -> World:
        """A fresh world for this task, configured the way ACEBench configures it."""
        module, _, function = WORLD_BUILDERS[self.family].partition(":")
        build = getattr(importlib.import_module(module), function)
        return build(self.involved_classes, lang=self.lang, initial_config=self.initial_config, seed=seed)

    def end_state(self, world: World) -> list[dict[str, Any]]:
        """The end state as ACEBench records it, JSON round-tripped like its result files."""
        from .world import saved_state

        return json.loads(json.dumps(saved_state(world, self.involved_classes), ensure_ascii=False))


@dataclass
class TaskSet:
    tasks: list[AceTask] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def load_tasks(data: str | Path, lang: str = "en", categories: tuple[str, ...] = CATEGORIES,
               family: str = "acebench") -> list[AceTask]:
    """The agent tasks under `data`; raises `ValueError` if any line is malformed."""
    loaded = read_tasks(data, lang, categories, family)
    if loaded.problems:
        raise ValueError("; ".join(loaded.problems[:5]))
    return loaded.tasks


def read_tasks(data: str | Path, lang: str = "en", categories: tuple[str, ...] = CATEGORIES,
               family: str = "acebench") -> TaskSet:
    """Like `load_tasks` but keeps going past bad lines, recording each as a problem."""
    if family not in WORLD_BUILDERS:
        raise ValueError(f"unknown task family {family!r}; known: {', '.join(WORLD_BUILDERS)}")
    result = TaskSet()
    for prompt_file in _prompt_files(Path(data), lang, categories):
        answer_file = prompt_file.parent / "possible_answer" / prompt_file.name
        category = "multi_turn" if "multi_turn" in prompt_file.name else "multi_step"
        answers: dict[str, dict[str, Any]] = {}
        if answer_file.is_file():
            for number, record in _records(answer_file, result.problems):
                if isinstance(record.get("id"), str):
                    answers[record["id"]] = record
                else:
                    result.problems.append(f"{answer_file.name}:{number}: answer without an id")
        else:
            result.problems.append(f"{prompt_file.name}: no possible_answer/{prompt_file.name} beside it")
        for number, record in _records(prompt_file, result.problems):
            task_id = record.get("id")
            if not isinstance(task_id, str):
                result.problems.append(f"{prompt_file.name}:{number}: task without an id")
                continue
            answer = answers.get(task_id)
            if answer is None:
                result.problems.append(f"{task_id}: no possible answer")
                continue
            try:
                result.tasks.append(AceTask(
                    id=task_id, category=category, family=family, lang=lang, question=record.get("question", ""),
                    initial_config=record.get("initial_config") or {},
                    involved_classes=record.get("involved_classes") or [],
                    functions=record.get("function") or [],
                    ground_truth=_as_list(answer.get("ground_truth")),
                    paths=_paths(answer.get("mile_stone")),
                    source=f"{prompt_file.name}:{number}",
                ))
            except ValueError as exc:
                result.problems.append(f"{task_id}: malformed task: {exc}")
    if not result.tasks and not result.problems:
        result.problems.append(f"no agent task files found under {data}")
    return result


def _prompt_files(data: Path, lang: str, categories: tuple[str, ...]) -> list[Path]:
    if data.is_file():
        return [data]
    for folder in (data / f"data_{lang}", data):
        files = [folder / f"data_agent_{category}.json" for category in categories]
        found = [f for f in files if f.is_file()]
        if found:
            return found
    return []


def _records(path: Path, problems: list[str]) -> list[tuple[int, dict[str, Any]]]:
    records = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                problems.append(f"{path.name}:{number}: not valid JSON ({exc.msg})")
                continue
            if isinstance(record, dict):
                records.append((number, record))
            else:
                problems.append(f"{path.name}:{number}: a line must be a JSON object")
    return records


def _as_list(value: Any) -> list[dict[str, Any]]:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def _paths(milestones: Any) -> list[list[str]]:
    """Milestones are a list of messages, or a list of alternative lists of messages."""
    if not milestones:
        return []
    if isinstance(milestones, list) and all(isinstance(m, list) for m in milestones):
        return [[str(m) for m in path] for path in milestones]
    if isinstance(milestones, list):
        return [[str(m) for m in milestones]]
    return [[str(milestones)]]
