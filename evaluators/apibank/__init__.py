"""API-Bank's scorers: call samples checked statefully, responses by ROUGE-L, level-3 scenes by
the gold calls made; one module per thing scored: `scorer` (predictions, `toolworlds score
apibank`), `episode` (one run episode), `level3` (a scene's calls), `run_results` (after a run:
result files and tables)."""

from .episode import score_episode, score_scene
from .level3 import SceneScore, gold_calls_made
from .run_results import scenes_table, score_run, score_scenes
from .scorer import (
    ApiBankScores,
    SampleScore,
    Scorer,
    judge_call,
    read_predictions,
    render_call,
    rouge_l,
    score_results,
    scores_table,
)

__all__ = [
    "ApiBankScores", "SampleScore", "SceneScore", "Scorer", "gold_calls_made", "judge_call", "read_predictions",
    "render_call", "rouge_l", "score_episode", "score_results", "score_run", "score_scene", "score_scenes",
    "scenes_table", "scores_table",
]
