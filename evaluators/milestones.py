"""Structured process evaluation: milestones as a DAG, minefields, per-milestone similarity.

A milestone is a call the agent should make (a tool and the arguments that matter), with
the milestones that must come before it. The call log is matched against the milestones
by the assignment of calls to milestones that respects the DAG's order, uses each call at
most once, and gives the highest total similarity. A minefield is a call (or an end-state
fact) that must not happen; touching one zeroes the score. The report says, for every
milestone, which call matched it and how well.
"""

from __future__ import annotations

import graphlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from sandbox.calllog import CallRecord

from .acebench import standardize

Match = Literal["exact", "subset"]


@dataclass(frozen=True)
class Milestone:
    """A call that should happen.

    `match="subset"` scores only the listed arguments; `"exact"` also penalises extra
    ones. Numbers match within `tolerance` (relative); strings after normalisation.
    """

    id: str
    tool: str
    arguments: Mapping[str, Any] = field(default_factory=dict)
    after: tuple[str, ...] = ()
    match: Match = "subset"
    tolerance: float = 0.0


@dataclass(frozen=True)
class Minefield:
    """Something that must not happen: a call to `tool` (with these arguments, if given), or
    an end-state value at a dotted `path` equal to `value`."""

    id: str
    tool: str | None = None
    arguments: Mapping[str, Any] = field(default_factory=dict)
    path: str | None = None
    value: Any = None


@dataclass(frozen=True)
class MilestoneResult:
    id: str
    similarity: float
    call_seq: int | None


@dataclass(frozen=True)
class ProcessReport:
    score: float
    milestones: tuple[MilestoneResult, ...]
    minefields_hit: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"score": self.score, "minefields_hit": list(self.minefields_hit),
                "milestones": [{"id": m.id, "similarity": m.similarity, "call": m.call_seq} for m in self.milestones]}


def value_similarity(expected: Any, actual: Any, tolerance: float = 0.0) -> float:
    """1.0 for a match, 0.0 for none; containers score the mean of their parts."""
    if isinstance(expected, bool) or isinstance(actual, bool):
        return 1.0 if expected is actual else 0.0
    if isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
        if expected == actual:
            return 1.0
        return 1.0 if tolerance and abs(actual - expected) <= tolerance * max(abs(expected), 1e-12) else 0.0
    if isinstance(expected, str) and isinstance(actual, str):
        return 1.0 if standardize(expected) == standardize(actual) else 0.0
    if isinstance(expected, Mapping) and isinstance(actual, Mapping):
        if not expected:
            return 1.0 if not actual else 0.0
        return sum(value_similarity(v, actual[k], tolerance) if k in actual else 0.0
                   for k, v in expected.items()) / len(expected)
    if isinstance(expected, (list, tuple)) and isinstance(actual, (list, tuple)):
        if len(expected) != len(actual):
            return 0.0
        if not expected:
            return 1.0
        return sum(value_similarity(e, a, tolerance) for e, a in zip(expected, actual, strict=True)) / len(expected)
    return 1.0 if expected == actual else 0.0


def call_similarity(milestone: Milestone, record: CallRecord) -> float:
    if record.error is not None or record.tool != milestone.tool:
        return 0.0
    arguments = record.arguments if isinstance(record.arguments, Mapping) else {}
    score = value_similarity(dict(milestone.arguments), dict(arguments), milestone.tolerance)
    if milestone.match == "exact" and arguments:
        extra = set(arguments) - set(milestone.arguments)
        score *= len(milestone.arguments) / max(len(milestone.arguments) + len(extra), 1) if extra else 1.0
    return round(score, 6)


def evaluate_process(
    milestones: Sequence[Milestone],
    log: Sequence[CallRecord],
    *,
    minefields: Sequence[Minefield] = (),
    end_state: Mapping[str, Any] | None = None,
) -> ProcessReport:
    """Match milestones against a call log; the score is the mean milestone similarity."""
    ids = {m.id for m in milestones}
    for milestone in milestones:
        unknown = set(milestone.after) - ids
        if unknown:
            raise ValueError(f"milestone {milestone.id!r} comes after unknown milestones {sorted(unknown)}")
    graph = graphlib.TopologicalSorter({m.id: set(m.after) for m in milestones})
    order = list(graph.static_order())  # raises CycleError for a cycle
    by_id = {m.id: m for m in milestones}
    similarities = {m.id: [call_similarity(m, r) for r in log] for m in milestones}
    best: dict[str, Any] = {"total": -1.0, "assignment": {}}

    def search(position: int, assignment: dict[str, int | None], used: set[int], total: float) -> None:
        remaining = len(order) - position
        if total + remaining <= best["total"]:
            return  # cannot beat the best found
        if position == len(order):
            best["total"], best["assignment"] = total, dict(assignment)
            return
        milestone = by_id[order[position]]
        earliest = max((index for p in milestone.after if (index := assignment.get(p)) is not None), default=-1)
        if any(assignment.get(p) is None for p in milestone.after):
            earliest = len(log)  # a prerequisite never happened: nothing can follow it
        options = sorted(((s, i) for i, s in enumerate(similarities[milestone.id]) if s > 0 and i > earliest
                          and i not in used), reverse=True)
        for similarity, index in options:
            assignment[milestone.id] = index
            used.add(index)
            search(position + 1, assignment, used, total + similarity)
            used.discard(index)
        assignment[milestone.id] = None
        search(position + 1, assignment, used, total)
        del assignment[milestone.id]

    search(0, {}, set(), 0.0)
    assignment = best["assignment"]
    results = tuple(
        MilestoneResult(m.id, similarities[m.id][assignment[m.id]] if assignment.get(m.id) is not None else 0.0,
                        log[assignment[m.id]].seq if assignment.get(m.id) is not None else None)
        for m in milestones
    )
    hit = tuple(mine.id for mine in minefields if _triggered(mine, log, end_state))
    if hit:
        score = 0.0
    elif not milestones:
        score = 1.0
    else:
        score = round(sum(r.similarity for r in results) / len(milestones), 4)
    return ProcessReport(score, results, hit)


def _triggered(mine: Minefield, log: Sequence[CallRecord], end_state: Mapping[str, Any] | None) -> bool:
    if mine.tool is not None:
        probe = Milestone(mine.id, mine.tool, mine.arguments)
        if any(call_similarity(probe, record) == 1.0 for record in log):
            return True
    if mine.path is not None and end_state is not None:
        node: Any = end_state
        for part in mine.path.split("."):
            if isinstance(node, Mapping) and part in node:
                node = node[part]
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                return False
        return bool(node == mine.value)
    return False
