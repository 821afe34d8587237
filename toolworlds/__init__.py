"""toolworlds: executable, stateful mock environments for LLM tool use.

The one documented entry point. It re-exports the engine's building blocks, the bundled
apps and world factories, the episode runner, and `RunOptions` with `run` (what `toolworlds
run` does, from Python); the layers underneath stay importable on their own:

- `sandbox`: the engine (state, tools, worlds, call log, parsing, comparison);
- `scenarios`: world families (apps, default data, tasks, gold replay);
- `evaluators`: scores over states, call logs and result files;
- `toolworlds`: what runs agents (agents, users, LLM clients, episodes, runner, store,
  reports, CLI) and the integrations.

Names are imported on first use, so `import toolworlds` stays as light as `import sandbox`.
"""

from __future__ import annotations

import importlib
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sandbox import (
        App,
        Call,
        CallRecord,
        Lifecycle,
        StateModel,
        ToolError,
        World,
        compare_states,
        export,
        output_schema,
        parse_message,
        render_calls,
        tool,
    )
    from scenarios.acebench import BaseApi, FoodPlatform, MessageApi, ReminderApi, Travel, acebench_world
    from scenarios.apibank import apibank_world
    from scenarios.banking import Bank, banking_world
    from scenarios.family import TaskQuery, WorldFamily
    from scenarios.registry import family
    from scenarios.todo import TodoApp, todo_world

    from .agents import ChatMessage, NoisyAgent, OracleAgent, Turn
    from .episodes import Episode, arun_episode, run_episode
    from .launch import RunResult, run
    from .options import RunOptions
    from .task_options import OptionError

_EXPORTS = MappingProxyType({
    **dict.fromkeys(("App", "Call", "CallRecord", "Lifecycle", "StateModel", "ToolError", "World",
                     "compare_states", "export", "output_schema", "parse_message", "render_calls", "tool"),
                   "sandbox"),
    **dict.fromkeys(("BaseApi", "FoodPlatform", "MessageApi", "ReminderApi", "Travel", "acebench_world"),
                    "scenarios.acebench"),
    "apibank_world": "scenarios.apibank",
    **dict.fromkeys(("Bank", "banking_world"), "scenarios.banking"),
    **dict.fromkeys(("TodoApp", "todo_world"), "scenarios.todo"),
    "family": "scenarios.registry",
    "TaskQuery": "scenarios.family",
    "WorldFamily": "scenarios.family",
    **dict.fromkeys(("ChatMessage", "NoisyAgent", "OracleAgent", "Turn"), "toolworlds.agents"),
    **dict.fromkeys(("Episode", "arun_episode", "run_episode"), "toolworlds.episodes"),
    **dict.fromkeys(("RunResult", "run"), "toolworlds.launch"),
    "RunOptions": "toolworlds.options",
    "OptionError": "toolworlds.task_options",
})

__all__ = [
    "App", "Bank", "BaseApi", "Call", "CallRecord", "ChatMessage", "Episode", "FoodPlatform", "Lifecycle",
    "MessageApi", "NoisyAgent", "OptionError", "OracleAgent", "ReminderApi", "RunOptions", "RunResult",
    "StateModel", "TaskQuery", "TodoApp", "ToolError",
    "Travel", "Turn", "World", "WorldFamily", "acebench_world", "apibank_world", "arun_episode", "banking_world",
    "compare_states", "export", "family", "output_schema", "parse_message", "render_calls", "run", "run_episode",
    "todo_world", "tool",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'toolworlds' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    return __all__
