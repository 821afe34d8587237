"""ToolBench (as mcpbr runs it): tasks, mcpbr's filters, the agent prompt, and worlds built from each task's tools."""

from .cache import ResponseCache
from .filters import choose
from .prompt import agent_prompt, problem_statement
from .replay import replay_report, replay_task
from .schema import SchemaToolSpec, arguments_model, normalize_tool
from .sources import read_tasks
from .tasks import TaskShapeError, ToolBenchTask, parameters_of, task_from_row
from .world import ToolBenchApp, ToolBenchState, simulated_response, tool_specs, toolbench_world

__all__ = [
    "ResponseCache", "SchemaToolSpec", "TaskShapeError", "ToolBenchApp", "ToolBenchState", "ToolBenchTask",
    "agent_prompt", "arguments_model", "choose", "normalize_tool", "parameters_of", "problem_statement",
    "read_tasks", "replay_report", "replay_task", "simulated_response", "task_from_row", "tool_specs",
    "toolbench_world",
]
