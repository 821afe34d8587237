"""Category files, group means and the overall score, and `toolworlds score acebench`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from scenarios.acebench.family import FAMILY

from ..results import ResultsRequest, ScoreTable
from .agent import score_agent
from .categories import AGENT_CATEGORIES, NORMAL_CATEGORIES, SPECIAL_CATEGORIES, WEIGHTS
from .items import CategoryScore, read_jsonl, score_category
from .verdicts import Mode


def score_directory(data: Path, results: Path, mode: Mode = "compat") -> dict[str, CategoryScore]:
    """Every category with a result file `data_<category>_result.json` under `results`."""
    scores: dict[str, CategoryScore] = {}
    for category in NORMAL_CATEGORIES + SPECIAL_CATEGORIES + AGENT_CATEGORIES:
        result_file = results / f"data_{category}_result.json"
        prompt_file = data / f"data_{category}.json"
        answer_file = data / "possible_answer" / f"data_{category}.json"
        if not (result_file.is_file() and prompt_file.is_file() and answer_file.is_file()):
            continue
        rows = read_jsonl(result_file)
        prompts, answers = read_jsonl(prompt_file), read_jsonl(answer_file)
        if category.startswith("agent"):
            records = {str(r["id"]): r for r in rows if "id" in r}
            scores[category] = score_agent(prompts, answers, records, category, mode)
        else:
            outputs = {str(r["id"]): r.get("result") for r in rows if "id" in r}
            scores[category] = score_category(category, prompts, answers, outputs, mode)
    return scores


def summarize(scores: Mapping[str, float]) -> dict[str, float]:
    """Group means (missing categories count as 0) and the weighted overall score."""
    def mean(names: Iterable[str]) -> float:
        values = [scores.get(name, 0.0) for name in names]
        return round(sum(values) / len(values), 3)

    summary = {
        "atom": mean(NORMAL_CATEGORIES[:6]),
        "single_turn": mean(NORMAL_CATEGORIES[6:8]),
        "multi_turn": mean(NORMAL_CATEGORIES[8:10]),
        "normal": mean(NORMAL_CATEGORIES),
        "special": mean(SPECIAL_CATEGORIES),
        "agent": mean(AGENT_CATEGORIES),
    }
    summary["overall"] = round(sum(summary[group] * weight for group, weight in WEIGHTS), 3)
    return summary



SUMMARY_GROUPS = ("atom", "single_turn", "multi_turn", "normal", "special", "agent", "overall")


def score_results(request: ResultsRequest) -> ScoreTable:
    """`toolworlds score acebench`: every category with a result file, the group means and overall."""
    if request.mode not in ("compat", "strict"):
        raise ValueError("--mode must be compat or strict")
    root = FAMILY.data_source(request.data)
    folder = root / f"data_{request.lang}" if (root / f"data_{request.lang}").is_dir() else root
    if not request.results.is_dir():
        raise ValueError(f"{request.results} is not a folder")
    scores = score_directory(folder, request.results, request.mode)  # type: ignore[arg-type]
    if not scores:
        raise ValueError(f"no result files (data_<category>_result.json) in {request.results} match the data "
                         f"in {folder}")
    summary = summarize({name: s.accuracy for name, s in scores.items()})
    categories = tuple(
        (name, f"{s.accuracy:.3f}" + (f" (process {s.process:.3f})" if s.process is not None else ""), str(s.total))
        for name, s in scores.items()
    )
    groups = tuple((group, f"{summary[group]:.3f}", "") for group in SUMMARY_GROUPS)
    payload = {"mode": request.mode, "summary": summary,
               "categories": {name: {"accuracy": s.accuracy, "total": s.total, "process": s.process,
                                     "items": s.items} for name, s in scores.items()}}
    return ScoreTable(f"ACEBench ({request.lang}, {request.mode})", ("category", "accuracy", "items"),
                      (categories, groups), payload, frozenset({"normal", "special", "agent", "overall"}))
