"""Scoring a model's result files for a benchmark, through one entry point per family.

Convention: the evaluator of family `name` is the module (or package) `evaluators.<name>`,
and it exposes `score_results(request) -> ScoreTable`. `toolworlds score NAME` finds it
here, so adding a benchmark's scorer touches only its own evaluator module.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


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


def results_scorer(family: str) -> ResultsScorer:
    """The `score_results` of `evaluators.<family>`; `LookupError` naming those that exist."""
    scorer = _scorer_of(family)
    if scorer is None:
        available = [name for name in _evaluator_modules() if _scorer_of(name) is not None]
        raise LookupError(f"no scorer for {family!r} result files; available: {', '.join(available)}")
    return scorer


def _evaluator_modules() -> list[str]:
    package = importlib.import_module(__package__ or "evaluators")
    return sorted(info.name for info in pkgutil.iter_modules(package.__path__))


def _scorer_of(name: str) -> ResultsScorer | None:
    if not name.isidentifier() or name not in _evaluator_modules():
        return None
    module = importlib.import_module(f"{__package__}.{name}")
    scorer: ResultsScorer | None = getattr(module, "score_results", None)
    return scorer
