"""The agent categories: end state and process accuracy of multi-step and multi-turn results."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sandbox.comparison import closest_class, compare_states
from scenarios.acebench import ALL_CLASSES

from ..process import acebench_process, process_score
from .items import CategoryScore
from .normalise import is_number, same_number
from .verdicts import PASS, Mode, Verdict


def score_agent(prompts: Sequence[Mapping[str, Any]], answers: Sequence[Mapping[str, Any]],
                results: Mapping[str, Mapping[str, Any]], category: str, mode: Mode = "compat") -> CategoryScore:
    """End-to-end (end state) and process accuracy of agent results `{id, result, process}`.

    compat: the reference's rules (a class count mismatch fails; expected classes whose
    name is misspelled are never compared; an empty milestone path scores process 1.0).
    strict: misspelled expected classes are compared with the closest real class; the result
    must name real classes, each once; every compared value equals the gold's exactly (objects
    with the same keys, a boolean never a number, text never a number); process matching
    ignores quote style and spacing, and an item whose milestones give nothing to match is
    `unscorable` (listed, and left out of the process mean) rather than 1.0.
    """
    answers_by_id = {a.get("id"): a for a in answers}
    items, processes = [], []
    unscorable: list[str] = []
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
        messages = [str(p) for p in process or []]
        record = verdict.to_dict(item_id)
        if verdict.valid:
            processes.append(1.0)
        elif mode == "compat":
            processes.append(acebench_process(paths, messages))
        else:
            steps = process_score(paths, messages, canonical=True)
            if steps.unscorable:
                record["process_unscorable"] = steps.unscorable
                unscorable.append(item_id)
            else:
                processes.append(steps.score)
        items.append(record)
    total = len(items)
    accuracy = round(sum(i["valid"] for i in items) / total, 3) if total else 0.0
    process_accuracy = round(sum(processes) / len(processes), 3) if processes else None
    return CategoryScore(category, accuracy, total, items, process_accuracy if total else 0.0, unscorable)


def _end_state_verdict(expected: list[Any], state: Any, mode: Mode) -> Verdict:
    """The end-to-end check of one result: the class count, then the classes the answer lists."""
    if not isinstance(state, list) or len(state) != len(expected):
        return Verdict(False, "wrong number of class", f"expected {len(expected)} classes")
    if mode == "strict":
        refused = _strict_classes(state)
        if refused is not None:
            return refused
    comparison = compare_states(expected, state, mode="acebench", misspelled="skip" if mode == "compat" else "match")
    if comparison.equal:
        return PASS if mode == "compat" else _strict_values(expected, state)
    # A state unequal with no differing field (an entry that is not an object) says why in its notes.
    detail = comparison.diff.text(500) if comparison.diff else "; ".join(comparison.notes)[:500]
    return Verdict(False, "end_state", detail)


def _strict_classes(state: list[Any]) -> Verdict | None:
    """strict: the result names real classes (a misspelled one in a result is not the world's), each once."""
    seen: set[Any] = set()
    for entry in state:
        if not isinstance(entry, Mapping):
            continue  # the comparison fails it, naming the entry
        for name in entry:
            if name not in ALL_CLASSES:
                return Verdict(False, "unknown_class", f"the result names a class {name!r} no world has")
            if name in seen:
                return Verdict(False, "repeated_class", f"the result lists class {name!r} twice")
            seen.add(name)
    return None


def _strict_values(expected: list[Any], state: list[Any]) -> Verdict:
    """strict, after the benchmark's comparison says equal: every compared value equals the gold's
    exactly. The benchmark reads an object attribute as gold ⊆ result (an extra message passes) and
    compares values with `==` (True equals 1); the gold end states of every reproduced task list
    their objects whole, so strict compares them whole and by type."""
    actual = {name: attributes for entry in state if isinstance(entry, Mapping) for name, attributes in entry.items()}
    for entry in expected:
        for written, attributes in (entry.items() if isinstance(entry, Mapping) else ()):
            name = written if written in actual else closest_class(str(written), list(actual))
            got = actual.get(name) if name is not None else None
            if not isinstance(attributes, Mapping) or not isinstance(got, Mapping):
                continue  # the comparison has already judged these
            for attribute, want in attributes.items():
                problem = _difference(want, got.get(attribute), f"{name}.{attribute}")
                if problem:
                    return Verdict(False, "end_state", problem)
    return PASS


def _difference(want: Any, have: Any, path: str) -> str:
    """Where `have` differs from `want` by strict equality ("" when equal)."""
    if isinstance(want, Mapping):
        if not isinstance(have, Mapping) or set(want) != set(have):
            extra = sorted(map(str, set(have) - set(want))) if isinstance(have, Mapping) else []
            return f"{path}: keys differ" + (f" (not in the gold: {', '.join(extra[:5])})" if extra else "")
        return next((p for k in want if (p := _difference(want[k], have[k], f"{path}.{k}"))), "")
    if isinstance(want, (list, tuple)):
        if not isinstance(have, (list, tuple)) or len(have) != len(want):
            return f"{path}: expected {len(want)} elements"
        return next((p for i, (w, h) in enumerate(zip(want, have, strict=True))
                     if (p := _difference(w, h, f"{path}[{i}]"))), "")
    if isinstance(want, bool) or isinstance(have, bool):
        return "" if want is have else f"{path}: expected {want!r}, got {have!r}"
    if is_number(want):
        return "" if is_number(have) and same_number(want, have) else f"{path}: expected {want!r}, got {have!r}"
    return "" if type(want) is type(have) and want == have else f"{path}: expected {want!r}, got {have!r}"
