"""The agent categories: end state and process accuracy of multi-step and multi-turn results."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sandbox.comparison import compare_states

from ..process import acebench_process
from .items import CategoryScore
from .verdicts import PASS, Mode, Verdict


def score_agent(prompts: Sequence[Mapping[str, Any]], answers: Sequence[Mapping[str, Any]],
                results: Mapping[str, Mapping[str, Any]], category: str, mode: Mode = "compat") -> CategoryScore:
    """End-to-end (end state) and process accuracy of agent results `{id, result, process}`.

    compat: the reference's rules (a class count mismatch fails; expected classes whose
    name is misspelled are never compared). strict: misspelled classes are compared with
    the closest real class, and process matching ignores quote style and spacing.
    """
    answers_by_id = {a.get("id"): a for a in answers}
    items, processes = [], []
    for prompt in prompts:
        item_id = prompt.get("id", "")
        answer = answers_by_id.get(item_id, {})
        expected = answer.get("ground_truth") or []
        expected = expected if isinstance(expected, list) else [expected]
        outcome = results.get(item_id)
        if not isinstance(outcome, Mapping):
            items.append(Verdict(False, "missing_result", "no result for this item").to_dict(item_id))
            processes.append(0.0)
            continue
        process = outcome.get("process")
        if process is not None and not isinstance(process, list):
            items.append(Verdict(False, "malformed_process", f"process is {type(process).__name__}, "
                                 "not a list of messages").to_dict(item_id))
            processes.append(0.0)
            continue
        verdict = _end_state_verdict(expected, outcome.get("result") or [], mode)
        milestones = answer.get("mile_stone") or []
        paths = milestones if milestones and isinstance(milestones[0], list) else [milestones]
        processes.append(1.0 if verdict.valid else acebench_process(paths, [str(p) for p in process or []],
                                                                    canonical=mode == "strict"))
        items.append(verdict.to_dict(item_id))
    total = len(items)
    accuracy = round(sum(i["valid"] for i in items) / total, 3) if total else 0.0
    process_accuracy = round(sum(processes) / total, 3) if total else 0.0
    return CategoryScore(category, accuracy, total, items, process_accuracy)


def _end_state_verdict(expected: list[Any], state: Any, mode: Mode) -> Verdict:
    """The end-to-end check of one result: the class count, then the classes the answer lists."""
    if not isinstance(state, list) or len(state) != len(expected):
        return Verdict(False, "wrong number of class", f"expected {len(expected)} classes")
    comparison = compare_states(expected, state, mode="acebench", misspelled="skip" if mode == "compat" else "match")
    if comparison.equal:
        return PASS
    # A state unequal with no differing field (an entry that is not an object) says why in its notes.
    detail = comparison.diff.text(500) if comparison.diff else "; ".join(comparison.notes)[:500]
    return Verdict(False, "end_state", detail)
