"""ACEBench agent tasks: prompts joined with their possible answers.

Accepts the benchmark's own layout (a folder holding `data_<lang>/`, or a `data_<lang>`
folder, or a single `data_agent_*.json` file with `possible_answer/` beside it), so
dataset authors can load and lint their own files. Malformed lines do not abort loading:
they are collected in `TaskLoad.problems`. The same format serves the banking family, whose
tasks carry their own world builder.
"""

# Annotations are evaluated here (no `from __future__ import annotations`): pydantic and `@tool` read
# every field's and parameter's type at import, and a type kept as a string is compiled and evaluated
# on its own, a noticeable share of a cold `toolworlds replay`.

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from sandbox import World

from ..family import TaskLoad
from ..jsonlines import FirstSeen, json_lines
from .prompts import USER_OPENER, agent_prompt, user_prompt
from .world import acebench_world, saved_state

WorldBuilder = Callable[..., World]

Category = Literal["multi_step", "multi_turn"]
CATEGORIES: tuple[Category, ...] = ("multi_step", "multi_turn")


class AceTask(BaseModel):
    """One agent task with everything needed to run and score it."""

    id: str
    category: str
    family: str = "acebench"
    lang: str = "en"
    question: str = ""
    # Empty defaults as values, as the state models write them (pydantic gives each task its own copy):
    # a builtin `default_factory` makes pydantic read the builtin's signature from its text, which
    # compiles the tokenizer's patterns in a cold process.
    initial_config: dict[str, Any] = {}
    involved_classes: list[str] = []
    functions: list[dict[str, Any]] = []
    ground_truth: list[dict[str, Any]] = []
    paths: list[list[str]] = Field(default=[], description="gold milestone paths (alternatives)")
    source: str = ""
    # The family's world factory, called as ACEBench builds worlds (classes, lang, initial_config).
    build: WorldBuilder = Field(default=acebench_world, exclude=True, repr=False)

    def world(self, seed: int = 0) -> World:
        """A fresh world for this task, configured the way ACEBench configures it."""
        return self.build(self.involved_classes, lang=self.lang, initial_config=self.initial_config, seed=seed)

    def end_state(self, world: World) -> list[dict[str, Any]]:
        """The end state as ACEBench records it in its result files.

        What reading the JSON of those files back gives, without writing and reading it: each app's
        dump (`App.dump`) is JSON data already, text keys, lists and plain values, made fresh for
        the caller. That round trip was half the cost of scoring an RL episode's end state."""
        return saved_state(world, self.involved_classes)

    # The task hooks (toolworlds' runner and LLM agents read them): ACEBench's own prompts and
    # bracket protocol for ACEBench's tasks; other families using this format keep the defaults.
    @property
    def system_prompt(self) -> str | None:
        if self.family != "acebench":
            return None
        return agent_prompt(self.category, self.lang, self.involved_classes, self.functions)

    @property
    def protocol(self) -> str:
        return "bracket" if self.family == "acebench" else "native"

    @property
    def user_prompt(self) -> str | None:
        """The simulated user's system prompt (multi-turn tasks): ACEBench's user rules."""
        if self.family != "acebench" or self.category != "multi_turn":
            return None
        return user_prompt(self.lang, self.involved_classes, self.question)

    @property
    def user_opener(self) -> str | None:
        """What the simulated user is first asked, before the agent said anything."""
        return USER_OPENER.get(self.lang) if self.family == "acebench" else None

    def result_record(self, world: World, process: list[str]) -> dict[str, Any]:
        """The task's line of an ACEBench result file: the end state and every agent message."""
        return self.end_state_record(self.end_state(world), process)

    def end_state_record(self, end_state: Any, process: list[str]) -> dict[str, Any]:
        """`result_record` of an end state made already (the scorer's): the runner makes it once an episode."""
        return {"id": self.id, "result": end_state, "process": list(process)}


def load_tasks(data: str | Path, lang: str = "en", categories: tuple[str, ...] = CATEGORIES,
               family: str = "acebench", build: WorldBuilder = acebench_world) -> list[AceTask]:
    """The agent tasks under `data`; raises `ValueError` if any line is malformed."""
    loaded = read_tasks(data, lang, categories, family, build)
    if loaded.problems:
        raise ValueError("; ".join(loaded.problems[:5]))
    return loaded.tasks


def read_tasks(data: str | Path, lang: str = "en", categories: tuple[str, ...] = CATEGORIES,
               family: str = "acebench", build: WorldBuilder = acebench_world) -> TaskLoad:
    """Like `load_tasks` but keeps going past bad lines, recording each as a problem.

    A task id met twice (in the prompts, or in the possible answers) is a problem naming both
    lines, and only the first is kept: the run store keys episodes by task id, so a second task
    of the same id would silently replace the first one's episode, and a second answer would
    silently become the first task's ground truth."""
    result = TaskLoad()
    for prompt_file in _prompt_files(Path(data), lang, categories):
        answer_file = prompt_file.parent / "possible_answer" / prompt_file.name
        category = "multi_turn" if "multi_turn" in prompt_file.name else "multi_step"
        answers: dict[str, tuple[int, dict[str, Any]]] = {}
        if answer_file.is_file():
            answers = answers_by_id(answer_file, f"possible_answer/{prompt_file.name}", result.problems)
        else:
            result.problems.append(f"{prompt_file.name}: no possible_answer/{prompt_file.name} beside it")
        for number, record in unique_records(prompt_file, prompt_file.name, result.problems):
            task = _task(record, answers, category, lang, f"{prompt_file.name}:{number}", family, build,
                         result.problems)
            if task is not None:
                result.tasks.append(task)
    if not result.tasks and not result.problems:
        result.problems.append(f"no agent task files found under {data}")
    return result


def _task(record: dict[str, Any], answers: dict[str, tuple[int, dict[str, Any]]], category: str, lang: str,
          source: str, family: str, build: WorldBuilder, problems: list[str]) -> AceTask | None:
    """One prompt line joined with its possible answer, or None (and a problem) when it cannot be a task."""
    task_id = record["id"]
    if task_id not in answers:
        problems.append(f"{task_id}: no possible answer")
        return None
    _, answer = answers[task_id]
    try:
        return AceTask(
            id=task_id, category=category, family=family, lang=lang, question=record.get("question", ""),
            initial_config=record.get("initial_config") or {},
            involved_classes=record.get("involved_classes") or [],
            functions=record.get("function") or [],
            ground_truth=_as_list(answer.get("ground_truth")),
            paths=_paths(answer.get("mile_stone")),
            source=source, build=build,
        )
    except ValueError as exc:
        problems.append(f"{task_id}: malformed task: {exc}")
        return None


def answers_by_id(path: Path, label: str, problems: list[str]) -> dict[str, tuple[int, dict[str, Any]]]:
    """The possible answers of a file by id, each with its line (the first of each id; `label` names
    the file in problems)."""
    return {record["id"]: (number, record) for number, record in unique_records(path, label, problems)}


def unique_records(path: Path, label: str, problems: list[str]) -> list[tuple[int, dict[str, Any]]]:
    """The lines of a file that are objects with a text id, each id once: a line without one, or
    repeating an earlier line's, is a problem (`label:line: ...`) and is left out."""
    seen = FirstSeen()
    kept = []
    for number, record in json_records(path, problems, label):
        record_id = record.get("id")
        if not isinstance(record_id, str):
            problems.append(f"{label}:{number}: no id (an 'id' text field)")
        elif repeat := seen.repeated(record_id, f"line {number}"):
            problems.append(f"{label}:{number}: {repeat}")
        else:
            kept.append((number, record))
    return kept


_LANGUAGE_FOLDER = re.compile(r"data_([a-z]{2})")


def folder_language(path: Path) -> str | None:
    """The language a `data_<lang>` folder (or a file directly in one) holds, or None for another name."""
    for name in (path.name, path.parent.name) if path.is_file() else (path.name,):
        named = _LANGUAGE_FOLDER.fullmatch(name)
        if named:
            return named.group(1)
    return None


def _prompt_files(data: Path, lang: str, categories: tuple[str, ...]) -> list[Path]:
    if folder_language(data) not in (None, lang):
        return []  # data_en holds no zh tasks (nor a file in it): never relabel one language as another
    if data.is_file():
        return [data]
    for folder in (data / f"data_{lang}", data):
        files = [folder / f"data_agent_{category}.json" for category in categories]
        found = [f for f in files if f.is_file()]
        if found:
            return found
    return []


def json_records(path: Path, problems: list[str], label: str | None = None) -> list[tuple[int, dict[str, Any]]]:
    """The JSON-object lines of a file with their numbers; any other line is a problem naming
    `label` (default: the file's name) and its line, and the others still load."""
    label = label or path.name
    records = []
    for number, record in json_lines(path, problems, label):
        if isinstance(record, dict):
            records.append((number, record))
        else:
            problems.append(f"{label}:{number}: a line must be a JSON object")
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
