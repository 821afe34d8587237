"""Stored runs' scores as rows a script reads: `toolworlds report --format json|csv|md`.

One row per run, task set and category (and each run's overall row): the run's identity (id,
agent, model), how many tasks and episodes the group holds, end-to-end accuracy with its 95%
bootstrap interval over tasks, the same without the known-defective tasks, pass^1..k over the
run's trials (tau-bench's estimate, per task, averaged), process accuracy, mean steps, call errors
and failed episodes. A leaderboard across models is these rows, concatenated; nobody has to
scrape a terminal table or query the store.

Accuracies come from the episodes themselves (`run_views`, as the HTML page computes them), the
other figures from the scores the run stored, so every format agrees with `report` and the page.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from typing import Any

from .run_views import ALL, RunView, load_views
from .stats import bootstrap_interval, pass_hat
from .store import RunStore

FORMATS = ("json", "csv", "md")
# Figures the run stored per group, by the name a row gives them.
STORED = (("process", "process"), ("mean_steps", "mean_steps"), ("call_errors", "call_errors"), ("failed", "failed"))


def score_rows(store: RunStore, run_ids: Sequence[str]) -> list[dict[str, Any]]:
    """The rows of the runs named, each run's groups in order and its overall row last."""
    rows: list[dict[str, Any]] = []
    for view in load_views(store, run_ids):
        stored: dict[tuple[str, str], dict[str, float]] = {}
        for score in store.scores(view.run.run_id):
            stored.setdefault((score.task_set, score.category), {})[score.metric] = score.value
        outcomes, clean = view.outcomes(), view.outcomes(clean=True)
        known_defects = any(ids is not None for ids in view.defects.values())
        for group in sorted(outcomes, key=lambda g: (g == ALL, g)):
            rows.append(_row(view, group, outcomes[group], clean.get(group, {}), known_defects,
                             stored.get(group, {})))
    return rows


def _row(view: RunView, group: tuple[str, str], tasks: dict[str, list[bool]], clean: dict[str, list[bool]],
         known_defects: bool, stored: dict[str, float]) -> dict[str, Any]:
    accuracy, values = pass_hat(tasks, 1)
    interval = bootstrap_interval(values)
    row: dict[str, Any] = {
        "run": view.run.run_id, "agent": view.run.agent, "model": view.config.get("model") or None,
        "task_set": group[0], "category": group[1], "tasks": len(tasks),
        "episodes": sum(len(trials) for trials in tasks.values()), "trials": view.trials,
        "end_to_end": _rounded(accuracy),
        "ci_low": None if interval is None else round(interval[0], 3),
        "ci_high": None if interval is None else round(interval[1], 3),
        # None, not a score, when nothing says which tasks are defective (a family without a gold replay).
        "end_to_end_clean": _rounded(pass_hat(clean, 1)[0]) if known_defects else None,
        "pass_hat": {str(k): _rounded(pass_hat(tasks, k)[0]) for k in range(1, view.trials + 1)},
    }
    for name, metric in STORED:
        value = stored.get(metric)
        row[name] = None if value is None else (int(value) if name in ("call_errors", "failed") else value)
    return row


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def render(rows: list[dict[str, Any]], fmt: str) -> str:
    """The rows as JSON (a list of objects), CSV (pass^k as columns `pass^1`..`pass^K`) or a Markdown table."""
    if fmt == "json":
        return json.dumps(rows, indent=2, ensure_ascii=False) + "\n"
    flat = [_flat(row, max((row["trials"] for row in rows), default=1)) for row in rows]
    columns = list(flat[0]) if flat else _flat_columns(1)
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(flat)
        return out.getvalue()
    if fmt == "md":
        lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
        lines += ["| " + " | ".join(_md_cell(row[c]) for c in columns) + " |" for row in flat]
        return "\n".join(lines) + "\n"
    raise ValueError(f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}")


def _flat_columns(most_trials: int) -> list[str]:
    return ["run", "agent", "model", "task_set", "category", "tasks", "episodes", "trials", "end_to_end", "ci_low",
            "ci_high", "end_to_end_clean", *(f"pass^{k}" for k in range(1, most_trials + 1)),
            *(name for name, _ in STORED)]


def _flat(row: dict[str, Any], most_trials: int) -> dict[str, Any]:
    flat = {column: row.get(column) for column in _flat_columns(most_trials) if not column.startswith("pass^")}
    for k in range(1, most_trials + 1):
        flat[f"pass^{k}"] = row["pass_hat"].get(str(k))
    return {column: flat[column] for column in _flat_columns(most_trials)}


def _md_cell(value: Any) -> str:
    if value is None:
        return "-"
    return str(value).replace("|", "\\|").replace("\n", " ")
