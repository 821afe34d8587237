"""The ToolBench world: one app whose tools are a task's tool list, each answering like a RapidAPI call.

A task brings its own tools, so the app builds its tool specs per instance from the
task's (normalized) tool descriptions instead of from `@tool` methods. Every call is
checked against the tool's parameter schema by the world (a bad call is a structured
`invalid_arguments` error and changes nothing), recorded in the state, and answered with
`{"error": "", "response": ...}` as StableToolBench's server answers: a recorded answer
from the response cache when there is one, else a simulated one derived from the task,
the seed, the tool and the arguments alone, so the same call always gets the same bytes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

from pydantic import Field

from sandbox import App, StateModel, World
from sandbox.tools import ToolArguments, ToolSpec

from .cache import ResponseCache
from .schema import SchemaToolSpec, arguments_model, normalize_tool, shown_parameters

APP_NAME = "ToolBench"


class ToolBenchState(StateModel):
    """Every call the world answered, in order, as `{"name", "parameters"}`."""

    calls: list[dict[str, Any]] = Field(default_factory=list)


class _Endpoint:
    """The function behind one data-described tool (positional-only, so any parameter name fits)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self, app: ToolBenchApp, /, **arguments: Any) -> dict[str, Any]:
        return app.answer(self.name, arguments)


class ToolBenchApp(App[ToolBenchState]):
    """A task's RapidAPI tools as one app."""

    app_name = APP_NAME

    def __init__(self, tools: Sequence[Any] = (), *, specs: Mapping[str, ToolSpec] | None = None,
                 task_id: str = "", seed: int = 0, cache: ResponseCache | None = None,
                 state: ToolBenchState | None = None) -> None:
        super().__init__(state)
        self.task_id, self.seed, self.cache = task_id, seed, cache
        self._specs: Mapping[str, ToolSpec] = specs if specs is not None else tool_specs(tools)

    def specs(self) -> Mapping[str, ToolSpec]:
        return self._specs

    def answer(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """Record the call and answer it: recorded when the cache knows it, simulated otherwise."""
        recorded = self.cache.lookup(tool, arguments) if self.cache is not None else None
        self.state.calls.append({"name": tool, "parameters": arguments})
        return recorded if recorded is not None else simulated_response(self.task_id, self.seed, tool, arguments)


def tool_specs(tools: Sequence[Any]) -> Mapping[str, ToolSpec]:
    """The specs of a tool list (a repeated name keeps its first description).

    Building them (a pydantic model per tool) is most of a world's cost, and specs never
    change, so a task builds them once and every world of the task shares them.
    """
    specs: dict[str, ToolSpec] = {}
    for raw in tools:
        described = normalize_tool(raw)
        if described["name"] not in specs:
            specs[described["name"]] = _spec(described, APP_NAME)
    return MappingProxyType(specs)


def _spec(tool: Mapping[str, Any], app: str) -> ToolSpec:
    arguments = ToolArguments.given(arguments_model(tool), shown_parameters(tool))
    return SchemaToolSpec(name=tool["name"], description=tool["description"] or tool["name"], arguments=arguments,
                          function=_Endpoint(tool["name"]), mutates=True, app=app, atomic_args=False)


def simulated_response(task_id: str, seed: int, tool: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """A deterministic stand-in for a real API answer: the same task, seed, tool and arguments
    always give the same bytes, and any change to one of them gives a different answer."""
    material = json.dumps([task_id, seed, tool, dict(arguments)], sort_keys=True, ensure_ascii=False, default=str)
    digest = hashlib.sha256(material.encode()).hexdigest()
    return {"error": "", "response": {"api": tool, "arguments": dict(arguments), "simulated": True,
                                      "result_id": digest[:16]}}


def toolbench_world(tools: Sequence[Any] = (), *, specs: Mapping[str, ToolSpec] | None = None, task_id: str = "",
                    seed: int = 0, cache: ResponseCache | None = None, lang: str = "en") -> World:
    """A world whose tools are `tools` (ToolBench tool descriptions, as objects or names),
    or the prebuilt `specs` of such a list (`tool_specs`)."""
    if lang != "en":
        raise ValueError(f"ToolBench worlds are English only, not {lang!r}")
    return World([ToolBenchApp(tools, specs=specs, task_id=task_id, seed=seed, cache=cache)], seed=seed)
