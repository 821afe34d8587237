"""Reports from the run store for the terminal: score tables (the HTML page is `report_html`)."""

from __future__ import annotations

from types import MappingProxyType

from rich.table import Table

from evaluators.results import ScoreTable

from .store import ScoreRow

METRICS = ("episodes", "end_to_end", "end_to_end_clean", "process", "mean_steps", "call_errors", "failed")
HEADERS = MappingProxyType({"episodes": "n", "end_to_end": "end-to-end", "end_to_end_clean": "w/o defects",
                            "process": "process", "mean_steps": "steps", "call_errors": "errors",
                            "failed": "failed", "defective": "defective"})


def score_table(run_id: str, scores: list[ScoreRow], title: str | None = None) -> Table:
    grouped = _by_group(scores)
    rows = [(task_set, category, *[_fmt(metric, values.get(metric)) for metric in METRICS])
            for (task_set, category), values in sorted(grouped.items(), key=lambda kv: kv[0] == ("all", "all"))]
    table = Table(title=title or f"scores of {run_id}")
    _add_columns(table, ("task set", "category", *[HEADERS[metric] for metric in METRICS]), rows, labels=2)
    for row in rows:
        table.add_row(*row, style="bold" if row[0] == "all" else None)
    return table


def _add_columns(table: Table, headers: tuple[str, ...], rows: list[tuple[str, ...]], labels: int) -> None:
    """Label columns fold when the terminal is narrow; figure columns are never cut: a score
    shown as "1.0…" on an 80-column terminal is no score at all."""
    for index, header in enumerate(headers):
        if index < labels:
            table.add_column(header, overflow="fold")
        else:
            widest = max((len(row[index]) for row in rows if index < len(row)), default=0)
            table.add_column(header, justify="right", overflow="fold", min_width=widest)


def _by_group(scores: list[ScoreRow]) -> dict[tuple[str, str], dict[str, float]]:
    """Score rows as {(task set, category): {metric: value}}."""
    grouped: dict[tuple[str, str], dict[str, float]] = {}
    for row in scores:
        grouped.setdefault((row.task_set, row.category), {})[row.metric] = row.value
    return grouped


def _fmt(metric: str, value: float | None) -> str:
    if value is None:
        return "-"
    if metric in ("episodes", "call_errors", "failed", "defective"):
        return str(int(value))
    return f"{value:.3f}" if metric in ("end_to_end", "end_to_end_clean", "process") else f"{value:.2f}"


def results_table(scored: ScoreTable) -> Table:
    """A benchmark's score table (from `evaluators.results`) for the terminal."""
    table = Table(title=scored.title)
    _add_columns(table, tuple(scored.columns), [row for section in scored.sections for row in section], labels=1)
    for number, section in enumerate(scored.sections):
        if number:
            table.add_section()
        for row in section:
            table.add_row(*row, style="bold" if row[0] in scored.bold else None)
    return table
