"""Scoring a ToolBench episode: the world's call log is the agent's tool-call sequence.

mcpbr reads the calls out of the agent's answer text; in a world the agent makes them,
so every call the log records under a tool name counts, in order, whether the world
answered it or refused it (an unknown tool, invalid arguments): mcpbr likewise counts
every call an answer lists. A retry after a refused call is therefore a second call.

The runner stores the verdict in the columns every family has: `success` is `resolved`,
`process` is `tool_selection_accuracy` (0.0 when no call was made), `state_fraction` is
the argument-level accuracy, and `diff` lists where the calls differ from the expected ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sandbox import World
from sandbox.diffing import diff_states
from scenarios.toolbench import ToolBenchTask

from ..task_score import TaskScore
from .arguments import ArgumentScore, check_arguments
from .sequence import SequenceScore, score_calls


def episode_calls(world: World) -> list[dict[str, Any]]:
    """The agent's calls as `{"name", "parameters"}`, from the world's call log."""
    return [{"name": record.tool, "parameters": record.arguments} for record in world.log if record.tool is not None]


def judge_episode(task: ToolBenchTask, world: World) -> tuple[SequenceScore, ArgumentScore]:
    """mcpbr's verdict on the episode's calls, and the argument-level check beside it."""
    calls = episode_calls(world)
    return score_calls(task.ground_truth, calls), check_arguments(task.ground_truth, calls)


def score_episode(task: ToolBenchTask, world: World, process: Sequence[str], mode: str) -> TaskScore:
    """The family's per-episode score (found by `evaluators.task_score.episode_scorer`)."""
    sequence, arguments = judge_episode(task, world)
    diff = diff_states({"calls": task.expected_calls}, {"calls": episode_calls(world)})
    return TaskScore(sequence.resolved, arguments.accuracy, sequence.tool_selection_accuracy or 0.0, diff)
