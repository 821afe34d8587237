"""Category files, group means and the overall score, and `toolworlds score acebench`."""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

from scenarios.acebench.family import FAMILY

from ..results import ResultsRequest, ScoreTable
from .agent import score_agent
from .categories import AGENT_CATEGORIES, NORMAL_CATEGORIES, SPECIAL_CATEGORIES, WEIGHTS
from .items import CategoryScore, read_jsonl, score_category, unreadable_lines
from .verdicts import Mode


def score_directory(data: Path, results: Path, mode: Mode = "compat", only_given: bool = False,
                    problems: list[str] | None = None) -> dict[str, CategoryScore]:
    """Every category with a result file `data_<category>_result.json` under `results`.

    An item with no line in its category's file scores as wrong, as in the reference; with
    `only_given`, only the items the files hold are scored (a run over a sample of items).
    A result line that does not read (not UTF-8, not JSON, not an object) scores its item as
    missing and spares the others; `problems`, when given, gets one `file:line: reason` each,
    for the command to name them and refuse to call the scores a result.
    """
    scores: dict[str, CategoryScore] = {}
    for category in NORMAL_CATEGORIES + SPECIAL_CATEGORIES + AGENT_CATEGORIES:
        result_file = results / f"data_{category}_result.json"
        prompt_file = data / f"data_{category}.json"
        answer_file = data / "possible_answer" / f"data_{category}.json"
        if not (result_file.is_file() and prompt_file.is_file() and answer_file.is_file()):
            continue
        if problems is not None:
            problems.extend(unreadable_lines(result_file))
        rows = read_jsonl(result_file)
        prompts, answers = read_jsonl(prompt_file), read_jsonl(answer_file)
        if only_given:
            given = {str(r.get("id")) for r in rows}
            prompts = [p for p in prompts if str(p.get("id")) in given]
        if category.startswith("agent"):
            records = {str(r["id"]): r for r in rows if "id" in r}
            scores[category] = score_agent(prompts, answers, records, category, mode)
        else:
            outputs = {str(r["id"]): r.get("result") for r in rows if "id" in r}
            scores[category] = score_category(category, prompts, answers, outputs, mode)
    return scores


GROUPS = MappingProxyType({
    "atom": NORMAL_CATEGORIES[:6], "single_turn": NORMAL_CATEGORIES[6:8], "multi_turn": NORMAL_CATEGORIES[8:10],
    "normal": NORMAL_CATEGORIES, "special": SPECIAL_CATEGORIES, "agent": AGENT_CATEGORIES,
})


def summarize(scores: Mapping[str, float], mode: Mode = "compat",
              totals: Mapping[str, int] | None = None) -> dict[str, float]:
    """Group means and the weighted overall score.

    compat, as the reference: a category without a score counts as 0, and the overall
    weights are the constants 0.578 / 0.2676 / 0.1545. strict: groups average only the
    categories scored (a group with none is left out), and each group's weight is
    sqrt(n)/Σsqrt(n) over the samples actually scored (`totals`, per category; a multi-turn
    conversation counts once), the rule those constants came from. `missing_categories`
    says which categories a strict summary left out.
    """
    if mode == "compat":
        summary = {group: _mean([scores.get(name, 0.0) for name in names]) for group, names in GROUPS.items()}
        summary["overall"] = round(sum(summary[group] * weight for group, weight in WEIGHTS), 3)
        return summary
    summary = {group: _mean([scores[name] for name in names if name in scores]) for group, names in GROUPS.items()
               if any(name in scores for name in names)}
    roots = {group: math.sqrt(sum((totals or {}).get(name, 0) for name in GROUPS[group] if name in scores))
             for group, _ in WEIGHTS if group in summary}
    if sum(roots.values()) > 0:
        summary["overall"] = round(sum(summary[g] * root for g, root in roots.items()) / sum(roots.values()), 3)
    return summary


def sample_summary(scores: Mapping[str, float], mode: Mode = "compat",
                   totals: Mapping[str, int] | None = None) -> dict[str, float]:
    """Group means and the overall score of a run over a sample of the benchmark: a group averages the
    categories that were scored and a group with none is left out (never counted as 0), and the overall is
    over the groups scored (`overall_groups`). compat weighs those groups with the reference's constants,
    scaled to sum to 1; strict as `summarize` does. Over every category this is `summarize` itself."""
    if mode == "strict":
        return summarize(scores, "strict", totals)
    summary = {group: _mean([scores[name] for name in names if name in scores]) for group, names in GROUPS.items()
               if any(name in scores for name in names)}
    weights = {group: weight for group, weight in WEIGHTS if group in summary}
    if weights:
        summary["overall"] = round(sum(summary[g] * w for g, w in weights.items()) / sum(weights.values()), 3)
    return summary


def overall_groups(summary: Mapping[str, float]) -> str:
    """Which of the weighted groups an overall score is computed over, as a table shows it."""
    scored = [group for group, _ in WEIGHTS if group in summary]
    return "all groups" if len(scored) == len(WEIGHTS) else " + ".join(scored) or "-"


def missing_categories(scores: Mapping[str, float]) -> list[str]:
    """The categories of the benchmark with no score."""
    return [name for name in NORMAL_CATEGORIES + SPECIAL_CATEGORIES + AGENT_CATEGORIES if name not in scores]


def _named(names: list[str]) -> str:
    """Categories as a table cell: every name when they are few, else how many and the first two."""
    return ", ".join(names) if len(names) <= 3 else f"{len(names)} categories: {', '.join(names[:2])}, ..."


def _mean(values: list[float]) -> float:
    return round(sum(values) / len(values), 3)


SUMMARY_GROUPS = ("atom", "single_turn", "multi_turn", "normal", "special", "agent", "overall")


def score_results(request: ResultsRequest) -> ScoreTable:
    """`toolworlds score acebench`: every category with a result file, the group means and overall."""
    if request.mode not in ("compat", "strict"):
        raise ValueError("--mode must be compat or strict")
    mode: Mode = "strict" if request.mode == "strict" else "compat"
    root = FAMILY.data_source(request.data)
    folder = root / f"data_{request.lang}" if (root / f"data_{request.lang}").is_dir() else root
    if not request.results.is_dir():
        raise ValueError(f"{request.results} is not a folder")
    problems: list[str] = []
    scores = score_directory(folder, request.results, mode, problems=problems)
    if problems:  # scored as missing, an unreadable line would be a silent 0 in the table
        shown = "; ".join(problems[:5]) + (f" (and {len(problems) - 5} more)" if len(problems) > 5 else "")
        raise ValueError(f"{len(problems)} result line(s) could not be read: {shown}")
    if not scores:
        raise ValueError(f"no result files (data_<category>_result.json) in {request.results} match the data "
                         f"in {folder}")
    return category_table(scores, mode, request.lang)


def category_table(scores: Mapping[str, CategoryScore], mode: Mode, lang: str, sample: bool = False
                   ) -> ScoreTable:
    """The per-category accuracies, the group means and the overall score, as printed. `sample`: the
    scores of a run over a sample, summarized over what was scored (`sample_summary`), the categories not
    run named; else as the reference summarizes a folder of result files (`summarize`)."""
    accuracies = {name: s.accuracy for name, s in scores.items()}
    totals = {name: s.total for name, s in scores.items()}
    summary = sample_summary(accuracies, mode, totals) if sample else summarize(accuracies, mode, totals)
    missing = missing_categories(accuracies)
    categories = tuple(
        (name, f"{s.accuracy:.3f}" + (f" (process {s.process:.3f})" if s.process is not None else "")
         + (f" ({len(s.unscorable)} unscorable)" if s.unscorable else ""), str(s.total))
        for name, s in scores.items()
    )
    over = f"over {overall_groups(summary)}" if sample else ""
    # A group none of whose categories has a result file is shown as absent, "-": compat's summary counts
    # it as 0 towards the overall, as the reference does, and the overall row says so.
    absent = {group for group, names in GROUPS.items() if not any(name in scores for name in names)}
    if not sample and mode == "compat" and absent:
        over = "groups without results count as 0 (the reference's rule)"
    groups = tuple((group, "-" if group in absent else f"{summary[group]:.3f}", over if group == "overall" else "")
                   for group in SUMMARY_GROUPS if group in summary)
    if sample and missing:
        groups += (("not run", _named(missing), ""),)
    elif mode == "strict" and missing:
        groups += (("not scored", ", ".join(missing), ""),)
    payload: dict[str, Any] = {"mode": mode, "summary": summary, "missing": missing,
                               "categories": {name: {"accuracy": s.accuracy, "total": s.total, "process": s.process,
                                                     "process_unscorable": s.unscorable, "items": s.items}
                                              for name, s in scores.items()}}
    if sample:
        payload["overall_over"] = overall_groups(summary)
    return ScoreTable(f"ACEBench ({lang}, {mode})", ("category", "accuracy", "items"),
                      (categories, groups), payload, frozenset({"normal", "special", "agent", "overall"}))


# The paper's table: its columns, and the group or category each one shows.
PAPER_COLUMNS = (("Atom", "atom"), ("Single-Turn", "single_turn"), ("Multi-Turn", "multi_turn"),
                 ("Similar", "normal_similar_api"), ("Preference", "normal_preference"), ("Summary", "normal"),
                 ("Special", "special"), ("Agent", "agent"), ("Overall", "overall"))


def paper_table(by_mode: Mapping[str, Mapping[str, CategoryScore]], lang: str) -> ScoreTable:
    """The paper's table of a run, one row per mode, over what the run scored (`sample_summary`): a
    category or group with nothing scored shows "-" in both modes, never 0, and the last column says
    which groups Overall is computed over."""
    rows = []
    for mode, scores in by_mode.items():
        accuracies = {name: s.accuracy for name, s in scores.items()}
        summary = sample_summary(accuracies, "strict" if mode == "strict" else "compat",
                                 {name: s.total for name, s in scores.items()})
        values = {**accuracies, **summary}
        rows.append((mode, *(f"{values[key]:.3f}" if key in values else "-" for _, key in PAPER_COLUMNS),
                     overall_groups(summary)))
    columns = (*(c for c, _ in PAPER_COLUMNS), "Overall over")
    payload = {mode: dict(zip(columns, row[1:], strict=True)) for mode, row in zip(by_mode, rows, strict=True)}
    return ScoreTable(f"ACEBench ({lang}): the paper's table", ("mode", *columns), (tuple(rows),), payload)
