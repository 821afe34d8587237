"""ToolBench benchmark: a task's world built from its tool list, its calls, and a whole scored episode.

Run: python bench/toolbench.py [--tools N]
A ToolBench task builds its tools from data (a pydantic model per tool) once, on its first
world; each further world, and each call, is set beside the to-do world's (tools from
methods, built once per class) as the baseline.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console
from rich.table import Table
from timing import per_op_us

from evaluators.toolbench import score_episode
from scenarios.todo import todo_world
from scenarios.toolbench import ToolBenchTask
from toolworlds.agents import OracleAgent
from toolworlds.episodes import run_episode


def synthetic_task(tools: int) -> ToolBenchTask:
    """A task shaped like ToolBench's multi-tool ones: N RapidAPI-style tools, two gold calls."""
    described = [{"name": f"endpoint_{i}_for_service", "description": f"Endpoint {i} of the service.",
                  "parameters": {"type": "object", "required": ["query"], "optional": ["page", "lang"],
                                 "properties": {"query": {"type": "STRING", "example_value": "x"},
                                                "page": {"type": "NUMBER"}, "lang": {"type": "string"}}}}
                 for i in range(tools)]
    gold = [{"name": "endpoint_0_for_service", "parameters": {"query": "weather in Oslo"}},
            {"name": f"endpoint_{tools - 1}_for_service", "parameters": {"query": "Oslo", "page": 2}}]
    return ToolBenchTask(id="bench", query="Look it up.", tools=described, ground_truth=gold)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tools", type=int, default=10)
    args = parser.parse_args()
    task = synthetic_task(args.tools)
    world = task.world()
    todo = todo_world()
    good = {"query": "weather in Oslo", "page": 1}
    bad = {"page": "two", "extra": True}

    def episode() -> None:
        played, _ = run_episode(task, OracleAgent(task))
        score_episode(task, played, [], "exact")

    rows = [
        ("first world of a task (builds its tool models)",
         per_op_us(lambda: synthetic_task(args.tools).world(), batch=2, rounds=20)[0], None),
        ("further world of the task", per_op_us(task.world, batch=50, rounds=30)[0],
         per_op_us(todo_world, batch=50, rounds=30)[0]),
        ("accepted call", per_op_us(lambda: world.call("endpoint_0_for_service", good), batch=200)[0],
         per_op_us(lambda: todo.call("list_tasks", {}), batch=200)[0]),
        ("refused call (invalid arguments)", per_op_us(lambda: world.call("endpoint_0_for_service", bad))[0],
         per_op_us(lambda: todo.call("add_task", {"title": ""}))[0]),
        ("oracle episode, scored", per_op_us(episode, batch=2, rounds=20)[0], None),
    ]
    table = Table(title=f"ToolBench world of {args.tools} tools (median, microseconds)")
    for column in ("measure", "toolbench", "todo (baseline)", "ratio"):
        table.add_column(column, justify="right" if column != "measure" else "left")
    for name, ours, baseline in rows:
        table.add_row(name, f"{ours:.1f}", "-" if baseline is None else f"{baseline:.1f}",
                      "-" if baseline is None else f"{ours / baseline:.1f}x")
    Console().print(table)


if __name__ == "__main__":
    main()
