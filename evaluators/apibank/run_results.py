"""After `toolworlds run --tasks apibank`: the run's replies as API-Bank result files, and the tables.

Levels 1 and 2 are written as a predictions file (`predictions.jsonl`, the lines
`toolworlds score apibank --results` reads) and scored by the same `Scorer`, over the
samples the run answered: a run over a sample reports the sample's figures. Level-3
scenes are written one line each (`level3.jsonl`: the scene, every call made with its
envelope, the agent's messages) and scored from those lines against the scenes' gold calls.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from scenarios.apibank.family import FAMILY
from scenarios.apibank.replay import apibank_folder
from scenarios.apibank.scenes import read_scenes

from ..results import RunRecords, ScoreTable
from .level3 import SceneScore, gold_calls_made
from .scorer import Scorer, scores_table


def _write(path: Path, rows: Sequence[Mapping[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")


def score_scenes(data: Path, rows: Sequence[Mapping[str, Any]]) -> list[SceneScore]:
    """Each level-3 result line scored against its scene's gold calls (unknown scenes are skipped)."""
    scenes = {task.id: task for task in read_scenes(data).tasks}
    scores = []
    for row in rows:
        task = scenes.get(str(row.get("scene")))
        if task is None:
            continue
        made = [(call.get("api_name"), call.get("envelope") or {}) for call in row.get("calls") or []
                if isinstance(call, dict)]
        scores.append(SceneScore(task.id, gold_calls_made(task.calls, made)))
    return scores


def scenes_table(scores: list[SceneScore]) -> ScoreTable:
    calls = sum(len(s.made) for s in scores)
    made = sum(sum(s.made) for s in scores)
    rows = [(s.scene, f"{sum(s.made)}/{len(s.made)}", "yes" if s.solved else "no") for s in scores]
    total = (("all scenes", f"{made}/{calls} = {made / calls if calls else 0.0:.4f}",
              f"{sum(s.solved for s in scores)}/{len(scores)}"),)
    payload = {"call_accuracy": round(made / calls, 4) if calls else 0.0,
               "scenes_solved": sum(s.solved for s in scores), "scenes": len(scores),
               "per_scene": {s.scene: list(s.made) for s in scores}}
    return ScoreTable("API-Bank level 3", ("scene", "gold calls made", "solved"), (tuple(rows), total), payload,
                      frozenset({"all scenes"}))


def score_run(run: RunRecords) -> list[ScoreTable]:
    """Write the result files, then the level-1/2 table and the level-3 table (those the run has)."""
    source = apibank_folder(FAMILY.data_source(run.data))
    samples = [record for category, record in run.records if category != "level-3"]
    scenes = [record for category, record in run.records if category == "level-3"]
    tables = []
    if samples:
        _write(run.folder / "predictions.jsonl", samples)
        scorer = Scorer(source)
        levels = scorer.levels()
        shown = tuple(sorted({levels[str(row["file"])] for row in samples if str(row.get("file")) in levels}))
        tables.append(scores_table(scorer.score(samples), levels, shown))
    if scenes:
        _write(run.folder / "level3.jsonl", scenes)
        tables.append(scenes_table(score_scenes(source, scenes)))
    return tables
