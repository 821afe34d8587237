"""`toolworlds score toolbench`: a model's ToolBench answers, scored as mcpbr scores them.

The results file holds one answer per task, as JSON lines, a JSON list, or one JSON
object mapping task ids to answers. Each line or list entry is an object naming its task
(`instance_id`, `task_id` or `id`) and giving the answer text (`solution`, `response` or
`output`); an answer that is already a JSON list or object is read as its JSON text. A
task id matches a task's instance id, else the dataset's own `id`.

Only tasks with an answer are scored. The table gives, overall, per category and per
difficulty: how many, the share resolved, the mean tool-selection accuracy (an answer
with no readable calls counts 0), the mean argument-level accuracy (our extension) and
how many answers were errors. The JSON payload keeps every item's verdict exactly as
mcpbr reports it, with the argument check beside it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scenarios.jsonlines import JsonTextError, decoded_lines, file_text, json_value
from scenarios.toolbench import ToolBenchTask, read_tasks
from scenarios.toolbench.family import FAMILY
from scenarios.toolbench.sources import is_hub_name

from ..results import ResultsRequest, ScoreTable
from .arguments import ArgumentScore, check_arguments
from .sequence import SequenceScore, extract_calls, score_calls

_ID_KEYS = ("instance_id", "task_id", "id")
_ANSWER_KEYS = ("solution", "response", "output")
COLUMNS = ("group", "n", "resolved", "tool selection", "arguments", "errors")


@dataclass(frozen=True)
class Item:
    task: ToolBenchTask
    verdict: SequenceScore
    arguments: ArgumentScore

    def to_dict(self) -> dict[str, Any]:
        return {"instance_id": self.task.id, "category": self.task.category, "difficulty": self.task.difficulty,
                "result": self.verdict.to_dict(), "arguments": self.arguments.to_dict()}


def score_answer(task: ToolBenchTask, answer: str) -> Item:
    """One answer's verdict (mcpbr's) and argument check (ours)."""
    calls = extract_calls(answer)
    return Item(task, score_calls(task.ground_truth, calls), check_arguments(task.ground_truth, calls))


def read_answers(path: Path) -> dict[str, str]:
    """Task id -> answer text; `ValueError` for a file that cannot be read this way."""
    text = file_text(path)  # `DataFileError` (a `ValueError`) naming the file, and the line of a byte not UTF-8
    try:
        whole = json_value(text)
    except JsonTextError:  # JSON lines, or not JSON at all (then the first bad line is named)
        whole = None
    if isinstance(whole, dict) and not any(key in whole for key in _ID_KEYS):
        return {str(key): _answer_text(value) for key, value in whole.items()}
    records = whole if isinstance(whole, list) else ([whole] if isinstance(whole, dict) else _lines(path, text))
    answers: dict[str, str] = {}
    for number, record in enumerate(records, start=1):
        if not isinstance(record, dict):
            raise ValueError(f"{path.name}: entry {number} is not an object")
        task_id = next((record[k] for k in _ID_KEYS if record.get(k) is not None), None)
        if task_id is None:
            raise ValueError(f"{path.name}: entry {number} names no task ({', '.join(_ID_KEYS)})")
        if str(task_id) in answers:
            raise ValueError(f"{path.name}: two answers for task {task_id}")
        answer = next((record[k] for k in _ANSWER_KEYS if k in record), None)
        answers[str(task_id)] = _answer_text(answer)
    return answers


def _lines(path: Path, text: str) -> list[Any]:
    records = []
    for number, value, reason in decoded_lines(text.encode("utf-8")):
        if reason:
            raise ValueError(f"{path.name}:{number}: {reason}")
        records.append(value)
    return records


def _answer_text(answer: Any) -> str:
    if isinstance(answer, str):
        return answer
    return "" if answer is None else json.dumps(answer, ensure_ascii=False)


def score_results(request: ResultsRequest) -> ScoreTable:
    if request.mode != "compat":
        raise ValueError("toolbench is scored one way, as mcpbr scores it: leave --mode at compat")
    if request.lang != "en":
        raise ValueError(f"toolbench has no {request.lang!r} tasks; languages: en")
    source = str(request.data) if request.data is not None and is_hub_name(request.data) else \
        FAMILY.data_source(request.data)
    loaded = read_tasks(source)
    if loaded.problems:
        raise ValueError("; ".join(loaded.problems[:5]))
    answers = read_answers(request.results)
    by_id = {task.source_id: task for task in loaded.tasks if task.source_id}
    by_id.update({task.id: task for task in loaded.tasks})
    unknown = [task_id for task_id in answers if task_id not in by_id]
    if unknown:
        raise ValueError(f"answers for tasks not in the data: {', '.join(unknown[:5])}"
                         + (f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""))
    items = [score_answer(by_id[task_id], answer) for task_id, answer in answers.items()]
    return _table(items, len(loaded.tasks))


def summarize(items: Iterable[Item]) -> dict[str, float | int]:
    members = list(items)
    n = len(members)
    return {
        "n": n,
        "resolved": round(sum(i.verdict.resolved for i in members) / n, 3) if n else 0.0,
        "tool_selection_accuracy": round(sum(i.verdict.tool_selection_accuracy or 0.0 for i in members) / n, 3)
        if n else 0.0,
        "argument_accuracy": round(sum(i.arguments.accuracy for i in members) / n, 3) if n else 0.0,
        "errors": sum(bool(i.verdict.error) for i in members),
    }


def _groups(items: list[Item], key: str) -> dict[str, list[Item]]:
    groups: dict[str, list[Item]] = {}
    for item in items:
        groups.setdefault(getattr(item.task, key) or "-", []).append(item)
    return dict(sorted(groups.items()))


def _row(label: str, summary: Mapping[str, float | int]) -> tuple[str, ...]:
    return (label, str(summary["n"]), f"{summary['resolved']:.3f}", f"{summary['tool_selection_accuracy']:.3f}",
            f"{summary['argument_accuracy']:.3f}", str(summary["errors"]))


def _table(items: list[Item], tasks_in_data: int) -> ScoreTable:
    overall = summarize(items)
    categories = {name: summarize(group) for name, group in _groups(items, "category").items()}
    difficulties = {name: summarize(group) for name, group in _groups(items, "difficulty").items()}
    sections = (
        (_row("all", overall),),
        tuple(_row(f"category {name}", summary) for name, summary in categories.items()),
        tuple(_row(f"difficulty {name}", summary) for name, summary in difficulties.items()),
    )
    payload = {"benchmark": "toolbench", "tasks_in_data": tasks_in_data, "overall": overall,
               "categories": categories, "difficulties": difficulties, "items": [i.to_dict() for i in items]}
    title = f"ToolBench: {len(items)} answers scored (of {tasks_in_data} tasks in the data)"
    return ScoreTable(title, COLUMNS, sections, payload, bold=frozenset({"all"}))
