"""Structured process evaluation: milestones as a DAG, minefields, per-milestone similarity.

A milestone is a call the agent should make (a tool and the arguments that matter), with
the milestones that must come before it. The call log is matched against the milestones
by the assignment of calls to milestones that respects the DAG's order, uses each call at
most once, and gives the highest total similarity. A minefield is a call (or an end-state
fact) that must not happen; touching one zeroes the score. The report says, for every
milestone, which call matched it and how well. With no milestone there is nothing to match:
the report is `unscorable` (score None, with the reason), never a perfect 1.0.
"""

from __future__ import annotations

import graphlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from sandbox.calllog import CallRecord

from .acebench.normalise import fold_text
from .matching import min_cost_matching

Match = Literal["exact", "subset"]


@dataclass(frozen=True)
class Milestone:
    """A call that should happen.

    `match="subset"` scores only the listed arguments; `"exact"` also penalises extra
    ones. Numbers match within `tolerance` (relative); strings after `fold_text` (NFKC, case
    and whitespace folded); a boolean is never a number.
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
    score: float | None  # None when unscorable
    milestones: tuple[MilestoneResult, ...]
    minefields_hit: tuple[str, ...] = ()
    unscorable: str = ""  # why there is no score (no milestones), else ""

    def to_dict(self) -> dict[str, Any]:
        return {"score": self.score, "unscorable": self.unscorable, "minefields_hit": list(self.minefields_hit),
                "milestones": [{"id": m.id, "similarity": m.similarity, "call": m.call_seq} for m in self.milestones]}


def value_similarity(expected: Any, actual: Any, tolerance: float = 0.0) -> float:
    """1.0 for a match, 0.0 for none; containers score the mean of their parts."""
    kind = type(expected)
    # Two values of one common type are read without the abstract-class tests below (a long log asks this
    # of every call); the readings are theirs.
    if kind is type(actual):
        if kind is str:
            return 1.0 if expected == actual or fold_text(expected) == fold_text(actual) else 0.0
        if kind is int:
            return _number_similarity(expected, actual, tolerance)
        if kind is dict:
            return _mapping_similarity(expected, actual, tolerance)
    if isinstance(expected, bool) or isinstance(actual, bool):
        return 1.0 if expected is actual else 0.0
    if isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
        return _number_similarity(expected, actual, tolerance)
    if isinstance(expected, str) and isinstance(actual, str):
        return 1.0 if fold_text(expected) == fold_text(actual) else 0.0
    if isinstance(expected, Mapping) and isinstance(actual, Mapping):
        return _mapping_similarity(expected, actual, tolerance)
    if isinstance(expected, (list, tuple)) and isinstance(actual, (list, tuple)):
        if len(expected) != len(actual):
            return 0.0
        if not expected:
            return 1.0
        return sum(value_similarity(e, a, tolerance) for e, a in zip(expected, actual, strict=True)) / len(expected)
    return 1.0 if expected == actual else 0.0


def _number_similarity(expected: float, actual: float, tolerance: float) -> float:
    if expected == actual:
        return 1.0
    return 1.0 if tolerance and abs(actual - expected) <= tolerance * max(abs(expected), 1e-12) else 0.0


def _mapping_similarity(expected: Mapping[Any, Any], actual: Mapping[Any, Any], tolerance: float) -> float:
    if not expected:
        return 1.0 if not actual else 0.0
    return sum(value_similarity(v, actual[k], tolerance) if k in actual else 0.0
               for k, v in expected.items()) / len(expected)


def call_similarity(milestone: Milestone, record: CallRecord) -> float:
    if record.error is not None or record.tool != milestone.tool:
        return 0.0
    arguments = record.arguments if isinstance(record.arguments, Mapping) else {}
    score = value_similarity(milestone.arguments, arguments, milestone.tolerance)
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
    """Match milestones against a call log; the score is the mean milestone similarity (0.0 when a
    minefield was hit; None, `unscorable`, when there is no milestone and no minefield was hit)."""
    ids = {m.id for m in milestones}
    for milestone in milestones:
        unknown = set(milestone.after) - ids
        if unknown:
            raise ValueError(f"milestone {milestone.id!r} comes after unknown milestones {sorted(unknown)}")
    graph = graphlib.TopologicalSorter({m.id: set(m.after) for m in milestones})
    order = list(graph.static_order())  # raises CycleError for a cycle
    by_id = {m.id: m for m in milestones}
    # Only a call to a milestone's tool that did not fail can resemble it: each milestone reads those alone.
    calls_to: dict[Any, list[int]] = {}
    for index, record in enumerate(log):
        if record.error is None:
            calls_to.setdefault(record.tool, []).append(index)
    similarities = {m.id: _similarities(m, log, calls_to.get(m.tool, ())) for m in milestones}
    assignment = _best_assignment(order, by_id, similarities, len(log))
    results = tuple(_milestone_result(m.id, similarities[m.id], assignment.get(m.id), log) for m in milestones)
    hit = tuple(mine.id for mine in minefields if _triggered(mine, log, end_state))
    if hit:
        return ProcessReport(0.0, results, hit)
    if not milestones:
        return ProcessReport(None, results, hit, "no milestones to match")
    return ProcessReport(round(sum(r.similarity for r in results) / len(milestones), 4), results, hit)


def _similarities(milestone: Milestone, log: Sequence[CallRecord], candidates: Sequence[int]) -> dict[int, float]:
    """The milestone's similarity to each call that resembles it at all, by the call's index in the log."""
    row = {}
    for index in candidates:
        similarity = call_similarity(milestone, log[index])
        if similarity > 0:
            row[index] = similarity
    return row


def _milestone_result(name: str, row: Mapping[int, float], call: int | None, log: Sequence[CallRecord]
                      ) -> MilestoneResult:
    if call is None:
        return MilestoneResult(name, 0.0, None)
    return MilestoneResult(name, row[call], log[call].seq)


# Similarities are rounded to 6 places (`call_similarity`), so millionths add up exactly.
_UNITS = 10**6


# One step of a partial assignment: (total gain so far, milestone position, call index, the step before).
# A plain tuple: the pass over a long log makes one for every better way it finds to reach a set.
_Step = tuple[int, int, int, "_Step | None"]


def _best_assignment(order: Sequence[str], by_id: Mapping[str, Milestone],
                     similarities: Mapping[str, Mapping[int, float]], calls: int) -> dict[str, int]:
    """The call each matched milestone is given (unmatched ones are absent): the assignment of
    greatest total similarity that uses each call once, gives a milestone a call only if every
    milestone it comes `after` has an earlier one, and never uses a call of similarity 0.

    Among assignments of equal total, the one chosen is the first in this order: milestones in
    `order` (topological), each preferring its calls by similarity, then by later position, and
    no call last. Both are folded into one exact integer gain per (milestone, call), so any exact
    maximiser finds that same assignment: with no order between milestones the problem is an
    assignment problem (`_assign_freely`, polynomial); with order it is a dynamic programme over
    the call log (`_assign_in_order`), linear in the log and exponential only in how many
    milestones may be matched in either order (the general problem is NP-hard: it contains
    deciding whether a sequence interleaves several given sequences).
    """
    gains = _gains([similarities[name] for name in order], calls)
    if not any(by_id[name].after for name in order):
        chosen = _assign_freely(gains)
    else:
        position = {name: index for index, name in enumerate(order)}
        prerequisites = [sum(1 << position[before] for before in set(by_id[name].after)) for name in order]
        chosen = _assign_in_order(gains, prerequisites)
    return {order[milestone]: call for milestone, call in chosen.items()}


def _gains(rows: Sequence[Mapping[int, float]], calls: int) -> list[dict[int, int]]:
    """For each milestone, what matching each call of positive similarity (`rows`, by call) gains over no match.

    The gain is `similarity units * B**n` plus a tie-break below that: the milestone's preference
    rank of the call, counted from the bottom, times `B**(n-1-k)` for the k-th milestone (B exceeds
    every rank). Totals then compare first by similarity, exactly, then by the ranks in milestone
    order, and no two assignments tie.
    """
    base = calls + 2
    count = len(rows)
    unit = base**count
    gains = []
    for k, row in enumerate(rows):
        options = sorted(((similarity, index) for index, similarity in row.items() if similarity > 0),
                         reverse=True)
        place = base ** (count - 1 - k)
        gains.append({index: round(similarity * _UNITS) * unit + (len(options) - rank) * place
                      for rank, (similarity, index) in enumerate(options)})
    return gains


def _assign_freely(gains: Sequence[Mapping[int, int]]) -> dict[int, int]:
    """Milestones with no order between them: a maximum-gain matching of milestones to calls.

    Each milestone keeps only its `n` best calls (n milestones): a milestone matched outside them
    would leave one of them free, and taking it gains more. Every milestone also gets a column of
    its own standing for "no call", so a matching of every milestone always exists.
    """
    count = len(gains)
    shortlists = [sorted(row, key=row.__getitem__, reverse=True)[:count] for row in gains]
    calls = sorted({call for shortlist in shortlists for call in shortlist})
    column = {call: index for index, call in enumerate(calls)}
    ceiling = max((gain for row in gains for gain in row.values()), default=0) + 1
    costs = [{column[call]: ceiling - row[call] for call in shortlist} | {len(calls) + k: ceiling}
             for k, (row, shortlist) in enumerate(zip(gains, shortlists, strict=True))]
    owners = min_cost_matching(costs, len(calls) + count)
    return {row: calls[j] for j, row in enumerate(owners) if row is not None and j < len(calls)}


def _assign_in_order(gains: Sequence[Mapping[int, int]], prerequisites: Sequence[int]) -> dict[int, int]:
    """Milestones with an order: the best assignment, by one pass over the calls.

    The state is the set of milestones matched so far (a bit mask; always closed under `after`),
    with the best gain that reaches it and how. A call may match a milestone whose prerequisites
    are all in the set already, so they have earlier calls. Gains never tie (`_gains`), so the
    best of each set is unique and the best overall is the assignment the order defines.
    """
    by_call: dict[int, list[int]] = {}
    for milestone, row in enumerate(gains):
        for call in row:
            by_call.setdefault(call, []).append(milestone)
    best: dict[int, _Step] = {0: (0, -1, -1, None)}
    for call in sorted(by_call):
        reached: dict[int, _Step] = {}
        for milestone in by_call[call]:
            bit, wanted = 1 << milestone, prerequisites[milestone]
            # A set can take the milestone when it holds all the milestone's prerequisites and not itself.
            tested, gain = bit | wanted, gains[milestone][call]
            for matched, step in best.items():
                if matched & tested != wanted:
                    continue
                total = step[0] + gain
                known = reached.get(matched | bit)
                if known is None or total > known[0]:
                    reached[matched | bit] = (total, milestone, call, step)
        for matched, step in reached.items():
            known = best.get(matched)
            if known is None or step[0] > known[0]:
                best[matched] = step
    chosen: dict[int, int] = {}
    last: _Step | None = max(best.values(), key=lambda step: step[0])
    while last is not None and last[3] is not None:
        chosen[last[1]] = last[2]
        last = last[3]
    return chosen


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
