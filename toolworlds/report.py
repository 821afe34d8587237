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
    table = Table(title=title or f"scores of {run_id}")
    table.add_column("task set", no_wrap=True)
    table.add_column("category", no_wrap=True)
    for metric in METRICS:
        table.add_column(HEADERS[metric], justify="right", no_wrap=True)
    grouped = _by_group(scores)
    for (task_set, category), values in sorted(grouped.items(), key=lambda kv: kv[0] == ("all", "all")):
        cells = [_fmt(metric, values.get(metric)) for metric in METRICS]
        style = "bold" if task_set == "all" else None
        table.add_row(task_set, category, *cells, style=style)
    return table


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
    for index, column in enumerate(scored.columns):
        table.add_column(column, justify="left" if index == 0 else "right", no_wrap=True)
    for number, section in enumerate(scored.sections):
        if number:
            table.add_section()
        for row in section:
            table.add_row(*row, style="bold" if row[0] in scored.bold else None)
    return table
