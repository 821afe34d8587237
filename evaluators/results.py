"""Scoring a model's result files for a benchmark, through one entry point per family.

A family declares the module of its scorers (`WorldFamily.scorers`, see `conventions.py`), and that
module exposes `score_results(request) -> ScoreTable`. `toolworlds score NAME` finds it here, so adding
a benchmark's scorer touches only its evaluator module and its family's declaration.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .conventions import family_function, scored_families


@dataclass(frozen=True)
class ResultsRequest:
    """What the user gave `toolworlds score`: result files, the benchmark data, language and mode."""

    results: Path
    data: Path | None = None
    lang: str = "en"
    mode: str = "compat"


@dataclass(frozen=True)
class ScoreTable:
    """A benchmark's scores as a table (sections separated by a rule) plus the JSON to save."""

    title: str
    columns: tuple[str, ...]
    sections: tuple[tuple[tuple[str, ...], ...], ...]
    payload: dict[str, Any] = field(default_factory=dict)
    bold: frozenset[str] = frozenset()  # first-column labels of rows to emphasise


ResultsScorer = Callable[[ResultsRequest], ScoreTable]


@dataclass(frozen=True)
class RunRecords:
    """One task set of a finished run, for its family's own tables (`score_run`): the result
    record each task wrote (`task.result_record`), and where to write the benchmark's files."""

    lang: str
    folder: Path  # where the benchmark's own result files go
    records: tuple[tuple[str, dict[str, Any]], ...]  # (task category, the task's result record)
    data: Path | None = None


RunScorer = Callable[[RunRecords], list[ScoreTable]]


def results_scorer(family: str) -> ResultsScorer:
    """The `score_results` the family declares; `LookupError` naming those that exist."""
    scorer: ResultsScorer | None = family_function(family, "score_results")
    if scorer is None:
        available = [name for name in scored_families() if family_function(name, "score_results") is not None]
        raise LookupError(f"no scorer for {family!r} result files; available: {', '.join(available)}")
    return scorer
