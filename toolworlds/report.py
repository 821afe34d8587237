"""Reports from the run store: score tables for the terminal, and a self-contained HTML page."""

from __future__ import annotations

import base64
import html
import io
import json
from collections import Counter
from types import MappingProxyType

from rich.table import Table

from evaluators.results import ScoreTable

from .store import EpisodeRow, RunStore, ScoreRow

METRICS = ("episodes", "end_to_end", "process", "mean_steps", "call_errors", "failed")
HEADERS = MappingProxyType({"episodes": "n", "end_to_end": "end-to-end", "process": "process",
                            "mean_steps": "steps", "call_errors": "errors", "failed": "failed"})


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
    if metric in ("episodes", "call_errors", "failed"):
        return str(int(value))
    return f"{value:.3f}" if metric in ("end_to_end", "process") else f"{value:.2f}"


def html_report(store: RunStore, run_id: str) -> str:
    """One HTML page (images inline) with the score table and two plots."""
    run = store.run(run_id)
    if run is None:
        raise KeyError(f"no run {run_id!r} in {store.url}")
    scores = store.scores(run_id)
    episodes = store.episodes(run_id)
    grouped = _by_group(scores)
    rows = "".join(
        "<tr>" + f"<td>{html.escape(ts)}</td><td>{html.escape(cat)}</td>"
        + "".join(f"<td>{_fmt(m, vals.get(m))}</td>" for m in METRICS) + "</tr>"
        for (ts, cat), vals in sorted(grouped.items())
    )
    failures = "".join(
        f"<tr><td>{html.escape(e.task_set)}</td><td>{html.escape(e.task_id)}</td>"
        f"<td>{e.process:.3f}</td><td>{html.escape(e.stop_reason)}"
        f"{'' if e.error is None else ': ' + html.escape(e.error)}</td>"
        f"<td><code>{html.escape(_first_diff(e))}</code></td></tr>"
        for e in episodes if not e.success
    ) or '<tr><td colspan="5">every episode reached the expected end state</td></tr>'
    accuracy = _accuracy_plot(grouped)
    errors = _error_plot(episodes)
    header = "".join(f"<th>{HEADERS[m]}</th>" for m in METRICS)
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>toolworlds report: {html.escape(run_id)}</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2rem; color: #222; }}
table {{ border-collapse: collapse; margin: 1rem 0; }}
td, th {{ border: 1px solid #ccc; padding: 4px 8px; text-align: left; }}
th {{ background: #f3f3f3; }}
img {{ max-width: 640px; display: block; margin: 1rem 0; }}
</style></head><body>
<h1>toolworlds run {html.escape(run_id)}</h1>
<p>agent: <b>{html.escape(run.agent)}</b>; {len(episodes)} episodes; started {run.created_at:%Y-%m-%d %H:%M} UTC</p>
<h2>Scores</h2>
<table><tr><th>task set</th><th>category</th>{header}</tr>{rows}</table>
<h2>End-to-end accuracy per category</h2>
<img alt="accuracy per category" src="data:image/png;base64,{accuracy}">
<h2>Call errors by type</h2>
<img alt="call errors by type" src="data:image/png;base64,{errors}">
<h2>Episodes that missed the expected end state</h2>
<table><tr><th>task set</th><th>task</th><th>process</th><th>stopped</th><th>first difference</th></tr>
{failures}</table>
</body></html>
"""


def _first_diff(episode: EpisodeRow) -> str:
    diff = json.loads(episode.diff or "[]")
    if not diff:
        return ""
    first = diff[0]
    return f"{first['path']}: expected {first['expected']!r}, got {first['actual']!r}"


def _png(figure: object) -> str:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100, bbox_inches="tight")  # type: ignore[attr-defined]
    return base64.b64encode(buffer.getvalue()).decode()


def _pyplot():
    try:
        import matplotlib
    except ImportError as exc:
        raise RuntimeError('HTML reports need matplotlib: pip install "toolworlds[report]"') from exc
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _accuracy_plot(grouped: dict[tuple[str, str], dict[str, float]]) -> str:
    plt = _pyplot()
    labels = [f"{ts}\n{cat}" for (ts, cat) in sorted(grouped) if ts != "all"]
    values = [grouped[key].get("end_to_end", 0.0) for key in sorted(grouped) if key[0] != "all"]
    figure, axes = plt.subplots(figsize=(max(4, len(labels) * 1.4), 3))
    bars = axes.bar(labels, values, color="#4c78a8")
    axes.set_ylim(0, 1.05)
    axes.set_ylabel("end-to-end accuracy")
    axes.bar_label(bars, fmt="%.2f")
    image = _png(figure)
    plt.close(figure)
    return image


def _error_plot(episodes: list[EpisodeRow]) -> str:
    plt = _pyplot()
    counts: Counter[str] = Counter()
    for episode in episodes:
        counts.update(json.loads(episode.error_types or "{}"))
    figure, axes = plt.subplots(figsize=(6, 3))
    if counts:
        names, values = zip(*counts.most_common(), strict=True)
        axes.barh(list(names), list(values), color="#e45756")
        axes.invert_yaxis()
        axes.set_xlabel("calls")
    else:
        axes.text(0.5, 0.5, "no call errors", ha="center", va="center")
        axes.set_axis_off()
    image = _png(figure)
    plt.close(figure)
    return image


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
