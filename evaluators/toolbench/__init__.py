"""ToolBench scores, as mcpbr's ToolBench benchmark reports them, plus an argument-level check.

- `sequence`: mcpbr's verdict (`resolved`, `tool_selection_accuracy`) and its reading of answers;
- `arguments`: our extension, parameters compared call by call after normalisation;
- `episode`: `score_episode`, scoring a run's episode from the world's call log;
- `results`: `score_results`, scoring a file of answers (`toolworlds score toolbench`).
"""

from .arguments import ArgumentScore, CallCheck, check_arguments, normalize
from .episode import episode_calls, judge_episode, score_episode
from .results import read_answers, score_answer, score_results
from .sequence import NO_CALLS, NO_GROUND_TRUTH, SequenceScore, extract_calls, score_calls, score_sequence

__all__ = [
    "NO_CALLS", "NO_GROUND_TRUTH", "ArgumentScore", "CallCheck", "SequenceScore", "check_arguments",
    "episode_calls", "extract_calls", "judge_episode", "normalize", "read_answers", "score_answer", "score_calls",
    "score_episode", "score_results", "score_sequence",
]
