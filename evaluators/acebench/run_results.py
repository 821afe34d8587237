"""After `toolworlds run --tasks acebench`: the run's replies and end states as ACEBench
result files, scored in compat and strict mode, and the paper's table.

The files are the reference's own format (`data_<category>_result.json`, one
`{"id", "result"}` per line, agent lines with `"process"`), so `toolworlds score acebench`
and the reference's evaluator read them. Only the items the run answered are scored: a
run over a sample reports the sample's accuracy, a full run the benchmark's. Groups the run did
not touch are "-" (never 0) and each overall names the groups it is over (`summary.sample_summary`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from scenarios.acebench.family import FAMILY

from ..results import RunRecords, ScoreTable
from .items import CategoryScore
from .summary import category_table, paper_table, score_directory
from .verdicts import Mode


def result_file_category(category: str) -> str:
    """The result file a task's category writes to (agent tasks: `agent_<category>`)."""
    return category if category.startswith(("normal", "special")) else f"agent_{category}"


def write_result_files(records: tuple[tuple[str, Mapping[str, Any]], ...], folder: Path) -> list[Path]:
    """One `data_<category>_result.json` per category, lines in run order."""
    lines: dict[str, list[str]] = {}
    for category, record in records:
        lines.setdefault(result_file_category(category), []).append(json.dumps(record, ensure_ascii=False))
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for category, rows in lines.items():
        path = folder / f"data_{category}_result.json"
        path.write_text("".join(row + "\n" for row in rows), encoding="utf-8")
        written.append(path)
    return written


def score_run(run: RunRecords) -> list[ScoreTable]:
    """Write the result files, then the paper's table and both modes' category tables."""
    write_result_files(run.records, run.folder)
    root = FAMILY.data_source(run.data)
    data = root / f"data_{run.lang}" if (root / f"data_{run.lang}").is_dir() else root
    modes: tuple[Mode, ...] = ("compat", "strict")
    by_mode: dict[str, dict[str, CategoryScore]] = {
        mode: score_directory(data, run.folder, mode, only_given=True) for mode in modes}
    return [paper_table(by_mode, run.lang), *(category_table(by_mode[m], m, run.lang, sample=True) for m in modes)]
