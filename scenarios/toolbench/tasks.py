"""ToolBench tasks: the dataset's fields, read once into a task a world can be built from.

mcpbr's ToolBench benchmark reads `query`, `tools`, `category`, `ground_truth` and
`difficulty` (and `id` for task ids). `tools` and `ground_truth` arrive as objects or as
JSON text, depending on who wrote the file; both are read. A row that cannot be a task
(not an object, JSON that does not parse, tools that are not a list) raises
`TaskShapeError`, which loaders collect as a problem and move on.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from sandbox import World
from sandbox.template import WorldTemplate
from sandbox.tools import ToolSpec

from .cache import ResponseCache
from .prompt import agent_prompt, problem_statement
from .schema import ToolShapeError, normalize_tool, shown_parameters
from .world import APP_NAME, tool_specs, toolbench_world

FAMILY_NAME = "toolbench"


class TaskShapeError(ValueError):
    """A row that cannot be read as a ToolBench task."""


@dataclass
class ToolBenchTask:
    """One ToolBench task.

    `tools` are the tool descriptions as the data gives them (objects, or bare names) and
    `ground_truth` the expected calls as given (normally `{"name", "parameters"}` objects);
    `tools_text` is the `tools` field as text, which is what tag filters search. What the
    runner reads (`functions`, `question`, `paths`) is worked out once, when the task is made.
    """

    id: str
    query: str | None
    tools: list[Any]
    ground_truth: list[Any]
    category: str = ""
    difficulty: str = ""
    source_id: str = ""  # the dataset's own `id`, when it has one
    tools_text: str = ""
    source: str = ""  # where the row was read (file and line or row)
    cache: ResponseCache | None = field(default=None, compare=False, repr=False)
    family: str = FAMILY_NAME
    lang: str = "en"
    functions: list[dict[str, Any]] = field(init=False, compare=False, repr=False)
    question: str = field(init=False, compare=False, repr=False)  # the statement and the output instructions
    paths: list[list[str]] = field(init=False, compare=False, repr=False)
    _specs: Mapping[str, ToolSpec] | None = field(default=None, init=False, compare=False, repr=False)
    _templates: dict[int, WorldTemplate] = field(default_factory=dict, init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        described: dict[str, dict[str, Any]] = {}
        for tool in self.tools:
            try:
                normalized = normalize_tool(tool)
            except ToolShapeError as exc:
                raise TaskShapeError(f"{self.id}: {exc}") from None
            described.setdefault(normalized["name"], normalized)
        self.functions = [{"name": tool["name"], "description": tool["description"],
                           "parameters": shown_parameters(tool)} for tool in described.values()]
        self.question = agent_prompt(self.query, self.tools)
        # One gold path: the ground truth written as the JSON array the instructions ask for.
        calls = [c for c in self.expected_calls if isinstance(c["name"], str) and c["name"]]
        self.paths = [[json.dumps(calls, ensure_ascii=False)]] if calls else []

    @property
    def problem_statement(self) -> str:
        return problem_statement(self.query, self.tools)

    @property
    def expected_calls(self) -> list[dict[str, Any]]:
        """The ground truth's calls as `{"name", "parameters"}` (entries that are no object are skipped).

        A parameter whose value is null counts as left out: files typed with Arrow (parquet,
        the hub) give every call every key any call has, null where it has none.
        """
        calls = []
        for call in self.ground_truth:
            if isinstance(call, Mapping):
                parameters = parameters_of(call)
                if isinstance(parameters, Mapping):
                    parameters = {key: value for key, value in parameters.items() if value is not None}
                calls.append({"name": call.get("name", ""), "parameters": parameters})
        return calls

    def world(self, seed: int = 0) -> World:
        """A fork of the task's world, built on first use per seed (a task's trials and resets share it)."""
        template = self._templates.get(seed)
        if template is None:
            if self._specs is None:  # built on first use, then shared by every world of this task
                self._specs = tool_specs(self.tools)
            template = self._templates[seed] = WorldTemplate(
                toolbench_world(specs=self._specs, task_id=self.id, seed=seed, cache=self.cache))
        return template.fork()

    def __getstate__(self) -> dict[str, Any]:
        # The specs hold classes made at run time, which do not pickle: a worker rebuilds them.
        return {**self.__dict__, "_specs": None, "_templates": {}}

    def end_state(self, world: World) -> list[dict[str, Any]]:
        """The calls the world answered, in order, as `{"name", "parameters"}`."""
        calls: list[dict[str, Any]] = world.state()[APP_NAME]["calls"]
        return calls


def parameters_of(call: Mapping[str, Any]) -> Any:
    """A call's parameters: `parameters`, else `arguments`, JSON text read; {} when absent."""
    value = call.get("parameters", call.get("arguments"))
    if isinstance(value, str):
        try:
            value = json.loads(value) if value.strip() else {}
        except (json.JSONDecodeError, RecursionError):
            return value
    return {} if value is None else value


def task_from_row(row: Any, index: int, *, source: str = "", cache: ResponseCache | None = None) -> ToolBenchTask:
    """The task in one dataset row; `index` is the row's position in its source (for the default id)."""
    if not isinstance(row, Mapping):
        raise TaskShapeError(f"a row must be an object, not {type(row).__name__}")
    if "conversations" in row and not any(key in row for key in ("query", "tools", "ground_truth")):
        raise TaskShapeError("this row is a ToolBench conversation (id, conversations), not a task in mcpbr's "
                             "shape (query, tools, ground_truth, ...); conversation rows are not read")
    given_id = row.get("instance_id")
    task_id = given_id if isinstance(given_id, str) and given_id else f"toolbench_{index}"
    tools = _list_field(row, "tools", task_id)
    ground_truth = _list_field(row, "ground_truth", task_id)
    query = row.get("query")
    return ToolBenchTask(
        id=task_id, query=None if query is None else str(query), tools=tools, ground_truth=ground_truth,
        category=_text(row.get("category")), difficulty=_text(row.get("difficulty")),
        source_id="" if row.get("id") is None else str(row.get("id")),
        tools_text=str(row.get("tools", "")), source=source, cache=cache,
    )


def _list_field(row: Mapping[str, Any], key: str, task_id: str) -> list[Any]:
    value = row.get(key)
    if isinstance(value, str):
        try:
            value = json.loads(value) if value.strip() else None
        except (json.JSONDecodeError, RecursionError):
            raise TaskShapeError(f"{task_id}: '{key}' is text but not valid JSON") from None
    if value is None:
        return []
    if isinstance(value, Mapping):  # a single object: one tool, or one expected call
        return [dict(value)]
    if not isinstance(value, list):
        raise TaskShapeError(f"{task_id}: '{key}' must be a list, not {type(value).__name__}")
    return value


def _text(value: Any) -> str:
    return "" if value is None else str(value)
