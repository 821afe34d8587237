"""One self-contained HTML page over one or more runs: models side by side, then every episode.

The page compares runs per task set and category (end-to-end accuracy with a bootstrap
interval, the same without the benchmark's known-defective tasks, pass^k over repeated
trials), plots accuracy and call errors per run, lists every task with each run's outcome,
and drills down into each episode: its transcript, its call log, and every field of its end
state that differs from the expected one. Images are inline and nothing is fetched.
"""

from __future__ import annotations

import base64
import html
import io
import json
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from .run_views import ALL, RunView, load_views
from .stats import bootstrap_interval, pass_hat
from .store import EpisodeRow, RunStore
from .transcript import transcript_text
from .visible import visible_text

_CELL_CHARS = 4000  # longest message text shown in a drill-down (the export has it whole)


def html_report(store: RunStore, run_ids: str | Sequence[str]) -> str:
    """The page for the runs named (one run id, or several to compare)."""
    views = load_views(store, [run_ids] if isinstance(run_ids, str) else list(run_ids))
    title = ", ".join(v.run.run_id for v in views)
    body = [
        f"<h1>toolworlds report: {html.escape(title)}</h1>",
        _runs_table(views),
        "<h2>Scores side by side</h2>",
        _comparison(views),
        _method_note(views),
        "<h2>End-to-end accuracy per category</h2>",
        f'<img alt="accuracy per category" src="data:image/png;base64,{_plotted(_accuracy_plot, views)}">',
        "<h2>Call errors by type</h2>",
        f'<img alt="call errors by type" src="data:image/png;base64,{_plotted(_error_plot, views)}">',
        "<h2>Tasks</h2>",
        _task_table(views),
        "<h2>Episodes</h2>",
        *(_drill_down(store, view) for view in views),
    ]
    return _PAGE.format(title=html.escape(title), body="\n".join(body))


_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>toolworlds report: {title}</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2rem; color: #222; }}
table {{ border-collapse: collapse; margin: 1rem 0; }}
td, th {{ border: 1px solid #ccc; padding: 4px 8px; text-align: left; vertical-align: top; }}
th {{ background: #f3f3f3; }}
td.num {{ text-align: right; font-variant-numeric: tabular-nums; }}
img {{ max-width: 100%; display: block; margin: 1rem 0; }}
.ok {{ color: #1a7f37; }} .miss {{ color: #b42318; }} .failed {{ color: #9a6700; }}
.defect {{ background: #fff4d6; }}
details {{ margin: 0.3rem 0; }} summary {{ cursor: pointer; }}
pre {{ white-space: pre-wrap; margin: 0.2rem 0 0.6rem 1rem; max-width: 1100px; }}
.role {{ font-weight: 600; margin-top: 0.5rem; }}
.note {{ color: #555; max-width: 1000px; }}
</style></head><body>
{body}
</body></html>
"""


def _runs_table(views: list[RunView]) -> str:
    rows = []
    for view in views:
        config = view.config
        forced = config.get("forced") or []
        protocols = sorted({p for values in (config.get("protocols") or {}).values() for p in values})
        defects = sum(len(ids or ()) for ids in view.defects.values())
        rows.append(
            f"<tr><td>{_e(view.run.run_id)}</td><td>{_e(view.run.agent)}</td><td>{_e(config.get('model') or '-')}</td>"
            f"<td>{_e(', '.join(protocols) or '-')}</td><td class=num>{view.trials}</td>"
            f"<td class=num>{len(view.episodes)}</td>"
            f"<td class=num>{sum(e.error is not None for e in view.episodes)}</td><td class=num>{defects}</td>"
            f"<td>{view.run.created_at:%Y-%m-%d %H:%M} UTC</td>"
            f"<td>{_e('; '.join(d for f in forced for d in f.get('differences', [])) or '-')}</td></tr>")
    return ("<table><tr><th>run</th><th>agent</th><th>model</th><th>protocol</th><th>trials</th><th>episodes</th>"
            "<th>failed</th><th>known-defective tasks</th><th>started</th><th>resumed with --force</th></tr>"
            + "".join(rows) + "</table>")


def _comparison(views: list[RunView]) -> str:
    """Rows: task set and category; for each run: accuracy [interval], the same without defects, pass^k."""
    per_run = [(view, view.outcomes(), view.outcomes(clean=True)) for view in views]
    groups = sorted({g for _, outcomes, _ in per_run for g in outcomes}, key=lambda g: (g == ALL, g))
    repeated = any(v.trials > 1 for v in views)  # pass^k is shown only when some run repeated its tasks
    span = 3 if repeated else 2
    head = "".join(f'<th colspan="{span}">{_e(v.run.run_id)}: {_e(v.run.agent)}</th>' for v in views)
    sub = "".join("<th>end-to-end [95% CI]</th><th>w/o defects</th>"
                  + (f"<th>pass^{v.trials}</th>" if repeated else "") for v in views)
    rows = []
    for group in groups:
        cells = []
        for view, outcomes, clean in per_run:
            tasks = outcomes.get(group)
            if not tasks:
                cells.append("<td>-</td>" * span)
                continue
            accuracy, values = pass_hat(tasks, 1)
            interval = bootstrap_interval(values)
            shown = _score(accuracy) + (f" [{interval[0]:.3f}, {interval[1]:.3f}]" if interval else "")
            clean_score, _ = pass_hat(clean.get(group, {}), 1)
            flawed = len(tasks) - len(clean.get(group, {}))
            without = _score(clean_score) + (f" ({flawed} left out)" if flawed else "")
            if not any(view.defects.get(name) is not None for name in view.defects):
                without = "unknown"
            k_score, k_values = pass_hat(tasks, view.trials)
            k_interval = bootstrap_interval(k_values)
            k_shown = _score(k_score) + (f" [{k_interval[0]:.3f}, {k_interval[1]:.3f}]" if k_interval else "")
            cells.append(f"<td class=num>{shown} <small>n={len(tasks)}</small></td><td class=num>{without}</td>"
                         + (f"<td class=num>{k_shown if view.trials > 1 else '-'}</td>" if repeated else ""))
        style = ' style="font-weight:600"' if group == ALL else ""
        rows.append(f"<tr{style}><td>{_e(group[0])}</td><td>{_e(group[1])}</td>{''.join(cells)}</tr>")
    return (f'<table><tr><th rowspan="2">task set</th><th rowspan="2">category</th>{head}</tr><tr>{sub}</tr>'
            + "".join(rows) + "</table>")


def _method_note(views: list[RunView]) -> str:
    return ('<p class="note">End-to-end: the share of tasks (averaged over their trials) whose episode reached the '
            "expected end state; failed episodes count as missed. The interval is a 95% percentile bootstrap over "
            "tasks (1,000 resamples, fixed seed). <i>w/o defects</i> leaves out the tasks whose own gold path does "
            "not reproduce the benchmark's ground truth (<code>toolworlds doctor</code>), marked "
            '<span class="defect">like this</span> below. pass^k (tau-bench): the chance that all k trials of a '
            "task succeed, estimated per task as C(c,k)/C(n,k) from n trials with c successes, averaged over "
            "tasks.</p>")


def _task_table(views: list[RunView]) -> str:
    """Every task, with each run's outcome over its trials and links to the episodes."""
    tasks: dict[tuple[str, str], dict[str, list[EpisodeRow]]] = {}
    for view in views:
        for episode in view.episodes:
            tasks.setdefault((episode.task_set, episode.task_id), {}).setdefault(view.run.run_id, []).append(episode)
    head = "".join(f"<th>{_e(v.run.run_id)}</th>" for v in views)
    rows = []
    for (task_set, task_id), by_run in sorted(tasks.items()):
        flawed = any(v.flawed(e) for v in views for e in by_run.get(v.run.run_id, []))
        cells = []
        for view in views:
            episodes = sorted(by_run.get(view.run.run_id, []), key=lambda e: e.trial or 0)
            links = " ".join(f'<a href="#{_anchor(view, e)}" class="{_verdict(e)[0]}">{_verdict(e)[1]}</a>'
                             for e in episodes)
            solved = sum(e.success for e in episodes)
            cells.append(f"<td>{solved}/{len(episodes)} {links}</td>" if episodes else "<td>-</td>")
        mark = ' class="defect" title="known-defective task"' if flawed else ""
        rows.append(f"<tr{mark}><td>{_e(task_set)}</td><td>{_e(task_id)}</td>{''.join(cells)}</tr>")
    return f"<table><tr><th>task set</th><th>task</th>{head}</tr>" + "".join(rows) + "</table>"


def _verdict(episode: EpisodeRow) -> tuple[str, str]:
    if episode.error is not None:
        return "failed", "failed"
    return ("ok", "solved") if episode.success else ("miss", "missed")


def _anchor(view: RunView, episode: EpisodeRow) -> str:
    return f"ep-{html.escape(view.run.run_id, quote=True)}-{episode.id}"


def _drill_down(store: RunStore, view: RunView) -> str:
    parts = [f"<h3>{_e(view.run.run_id)}: {_e(view.run.agent)}</h3>"]
    for episode in view.episodes:
        kind, word = _verdict(episode)
        flawed = " (known-defective task)" if view.flawed(episode) else ""
        summary = (f'<span class="{kind}">{word}</span> {_e(episode.task_set)}:{_e(episode.task_id)} trial '
                   f"{episode.trial or 0} ({_e(episode.category)}){flawed}; {_e(episode.stop_reason)}; "
                   f"{episode.steps} steps, {episode.calls} calls, {episode.errors} errors")
        parts.append(f'<details id="{_anchor(view, episode)}"><summary>{summary}</summary>'
                     f"{_episode_body(store, episode)}</details>")
    return "\n".join(parts)


def _episode_body(store: RunStore, episode: EpisodeRow) -> str:
    parts = []
    if episode.error:
        parts.append(f'<p class="failed">failed: {_e(episode.error)}</p>')
    messages = store.messages(episode.id) if episode.id is not None else []
    parts.append("<h4>Transcript</h4>")
    if not messages:
        parts.append("<p>no transcript stored (an episode from before transcripts were)</p>")
    for heading, text in transcript_text(messages):
        shown = text if len(text) <= _CELL_CHARS else text[:_CELL_CHARS] + f"... ({len(text)} characters)"
        parts.append(f'<div class="role">{_e(heading)}</div><pre>{_e(shown)}</pre>')
    calls = store.calls(episode.id) if episode.id is not None else []
    if calls:
        rows = "".join(
            f"<tr><td class=num>{c.seq}</td><td>{_e(c.tool or '-')}</td><td><code>{_e(c.arguments)}</code></td>"
            f"<td>{_e(c.result) if c.error_type is None else _e(c.error_type + ': ' + (c.error_message or ''))}"
            "</td></tr>" for c in calls)
        parts.append("<h4>Call log</h4><table><tr><th>#</th><th>tool</th><th>arguments</th><th>outcome</th></tr>"
                     f"{rows}</table>")
    differences = json.loads(episode.diff or "[]")
    if differences:
        rows = "".join(f"<tr><td><code>{_e(str(d.get('path')))}</code></td><td>{_e(str(d.get('kind')))}</td>"
                       f"<td><code>{_e(_json(d.get('expected')))}</code></td>"
                       f"<td><code>{_e(_json(d.get('actual')))}</code></td></tr>" for d in differences)
        parts.append(f"<h4>End state: {len(differences)} field(s) differ</h4><table><tr><th>field</th><th>kind</th>"
                     f"<th>expected</th><th>got</th></tr>{rows}</table>")
    else:
        parts.append("<h4>End state: as expected</h4>")
    return "".join(parts)


def _plotted(draw: Callable[[Any, list[RunView]], str], views: list[RunView]) -> str:
    """`draw(pyplot, views)` with every label shown as written: run ids and categories are text, never $math$."""
    plt = pyplot()
    with plt.rc_context({"text.parse_math": False}):
        return draw(plt, views)


# The accuracy plot: one row of bars per category, so labels keep a readable size however many
# categories and runs there are (vertical bars were about 3 px wide, with labels to match, at 21
# categories x 2 runs). The figure grows downwards; at 100 dpi it is shown at its own size.
BAR_INCHES = 0.22  # height of one run's bar
LABEL_POINTS = 9


def _accuracy_plot(plt: Any, views: list[RunView]) -> str:
    per_run = [view.outcomes() for view in views]
    groups = sorted({g for outcomes in per_run for g in outcomes if g != ALL})
    rows = max(1, len(groups))
    figure, axes = plt.subplots(figsize=(8.5, 1.2 + rows * (BAR_INCHES * len(views) + 0.12)))
    height = 0.8 / max(1, len(views))
    for index, (view, outcomes) in enumerate(zip(views, per_run, strict=True)):
        places = [i + index * height for i in range(len(groups))]
        ran = [(place, pass_hat(outcomes[g], 1)[0] or 0.0) for place, g in zip(places, groups, strict=True)
               if g in outcomes]
        bars = axes.barh([p for p, _ in ran], [v for _, v in ran], height, label=f"{view.run.run_id}: {view.run.agent}")
        axes.bar_label(bars, fmt="%.2f", fontsize=LABEL_POINTS - 1, padding=2)
        # A category this run did not run is said to be absent, never drawn as a 0.00 bar.
        for place, group in zip(places, groups, strict=True):
            if group not in outcomes:
                axes.text(0.01, place, f"not run by {view.run.run_id}", va="center", fontsize=LABEL_POINTS - 1,
                          color="#888888", style="italic")
    axes.set_yticks([i + height * (len(views) - 1) / 2 for i in range(len(groups))],
                    [f"{ts} · {cat}" for ts, cat in groups], fontsize=LABEL_POINTS)
    axes.invert_yaxis()
    axes.set_xlim(0, 1.12)
    axes.set_xlabel("end-to-end accuracy", fontsize=LABEL_POINTS)
    axes.legend(fontsize=LABEL_POINTS - 1, loc="lower left", bbox_to_anchor=(0, 1.0), ncol=min(3, len(views)),
                frameon=False)
    return _png(plt, figure)


def _error_plot(plt: Any, views: list[RunView]) -> str:
    counts = [Counter() for _ in views]  # type: list[Counter[str]]
    for counter, view in zip(counts, views, strict=True):
        for episode in view.episodes:
            counter.update(json.loads(episode.error_types or "{}"))
    names = sorted({name for counter in counts for name in counter})
    figure, axes = plt.subplots(figsize=(7, max(2.5, 0.35 * len(names) * len(views) + 1)))
    if names:
        height = 0.8 / len(views)
        for index, (view, counter) in enumerate(zip(views, counts, strict=True)):
            axes.barh([i + index * height for i in range(len(names))], [counter[n] for n in names], height,
                      label=view.run.run_id)
        axes.set_yticks([i + height * (len(views) - 1) / 2 for i in range(len(names))], names)
        axes.invert_yaxis()
        axes.set_xlabel("calls")
        axes.legend(fontsize=7)
    else:
        axes.text(0.5, 0.5, "no call errors", ha="center", va="center")
        axes.set_axis_off()
    return _png(plt, figure)


def pyplot() -> Any:
    try:
        import matplotlib
    except ImportError as exc:
        raise RuntimeError('HTML reports need matplotlib: '
                           'pip install -e ".[report]" in the toolworlds checkout') from exc
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _png(plt: Any, figure: Any) -> str:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
    plt.close(figure)
    return base64.b64encode(buffer.getvalue()).decode()


def _score(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _e(text: Any) -> str:
    """`text` for the page: markup escaped, and control and bidi characters a model wrote shown as escapes
    (an override would show a cell's text reversed)."""
    return html.escape(visible_text(str(text)))
