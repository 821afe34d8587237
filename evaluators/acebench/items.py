"""Scoring items and categories: one verdict per item, whatever the model wrote."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scenarios.jsonlines import decoded_lines

from .decoding import decode_compat, decode_strict
from .normal_compat import compat_normal
from .normal_strict import strict_normal
from .special import special
from .verdicts import CheckFailure, Mode, Verdict


def check_item(category: str, functions: Sequence[Mapping[str, Any]], output: Any, answer: Any,
               mode: Mode = "compat") -> Verdict:
    """One item's verdict; never raises, whatever the model wrote."""
    try:
        if category.startswith("special"):
            return special(category, output if isinstance(output, str) else json.dumps(output), answer, mode, functions)
        calls = (decode_compat if mode == "compat" else decode_strict)(output if isinstance(output, str)
                                                                         else json.dumps(output))
        alternatives = answer if isinstance(answer, list) else [answer]
        check = compat_normal if mode == "compat" else strict_normal
        first: Verdict | None = None
        for alternative in alternatives:
            if not isinstance(alternative, Mapping):
                continue
            verdict = check(functions, calls, alternative)
            if verdict.valid:
                return verdict
            first = first or verdict
        return first or Verdict(False, "wrong_param", "no usable possible answer")
    except CheckFailure as exc:
        return exc.verdict
    except (RecursionError, MemoryError, TypeError, ValueError, KeyError, AttributeError) as exc:
        return Verdict(False, "checker_error", f"{type(exc).__name__}: {exc}")


@dataclass
class CategoryScore:
    category: str
    accuracy: float
    total: int
    items: list[dict[str, Any]] = field(default_factory=list)
    process: float | None = None
    unscorable: list[str] = field(default_factory=list)  # items whose process has nothing to score (strict)


def score_category(category: str, prompts: Sequence[Mapping[str, Any]], answers: Sequence[Mapping[str, Any]],
                   results: Mapping[str, Any], mode: Mode = "compat") -> CategoryScore:
    """Score one category; results maps item id to the model's raw output."""
    answers_by_id = {a.get("id"): a for a in answers}
    items = []
    for prompt in prompts:
        item_id = prompt.get("id", "")
        answer = answers_by_id.get(item_id, {}).get("ground_truth")
        if item_id not in results:
            verdict = Verdict(False, "missing_result", "no result for this item")
        else:
            verdict = check_item(category, prompt.get("function") or [], results[item_id], answer, mode)
        items.append(verdict.to_dict(item_id))
    if "multi_turn" in category and category.startswith("normal"):
        conversations: dict[str, list[bool]] = {}
        for item in items:
            conversations.setdefault(item["id"].rsplit("_", 2)[-2] if item["id"].count("_") >= 2 else item["id"],
                                     []).append(item["valid"])
        ends = [all(turns) for turns in conversations.values()]
        accuracy = round(sum(ends) / len(ends), 3) if ends else 0.0
        process = round(sum(sum(t) / len(t) for t in conversations.values()) / len(conversations), 3) if ends else 0.0
        return CategoryScore(category, accuracy, len(conversations), items, process)
    correct = sum(item["valid"] for item in items)
    accuracy = correct / len(items) if items else 0.0
    if not category.startswith("special"):
        accuracy = round(accuracy, 3)
    return CategoryScore(category, accuracy, len(items), items)



def unreadable_lines(path: Path) -> list[str]:
    """Each line of a JSON-lines file that `read_jsonl` reads as an empty record, as `name:line: reason`."""
    return [f"{path.name}:{number}: {reason or 'not a JSON object'}"
            for number, value, reason in decoded_lines(path.read_bytes()) if reason or not isinstance(value, dict)]


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """JSON lines; a malformed line becomes an empty record (its item then scores as missing).

    Malformed covers every way one line can fail to read (`scenarios.jsonlines.decoded_lines`: not
    UTF-8, not JSON, an integer past Python's conversion limit, nesting past the stack), so that one
    hostile line in a model's results never costs the other lines their scores.
    """
    return [value if not reason and isinstance(value, dict) else {}
            for _, value, reason in decoded_lines(path.read_bytes())]
