"""Process accuracy: did the agent take the expected steps, in order?

`acebench_process` is ACEBench's metric as the reference computes it: walk the agent's
messages once; each milestone must appear (as the same string, stripped) after the previous
match; scoring stops at the first milestone not found. The score is the matched fraction,
best over alternative paths, and an empty path scores 1.0 (the reference's
`if milestone_len == 0: accuracy = 1.00`). `canonical=True` compares calls instead of raw
text (parsed and re-rendered), so quote style and spacing do not matter; the agent's messages are read
as runs read replies, so a `<think>` block or a `<tool_call>` tag around the calls costs nothing.

`process_score` is the same walk for scores that must not be gamed: a task with no path,
an empty path, or (canonically) a milestone that does not parse is `unscorable`, reported
with its reason and scored 0.0, never 1.0 (modelscope/evalscope#1538: an unparsable
milestone list scored as perfect).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sandbox import ParseError, parse_message, read_reply
from sandbox.parsing import render_calls


@dataclass(frozen=True)
class ProcessScore:
    """The best matched share of a gold path, or why there is none to give (`unscorable`, score 0.0)."""

    score: float
    unscorable: str = ""


def matched_prefix(milestones: Sequence[str], process: Sequence[str]) -> int:
    position, matched = 0, 0
    for milestone in milestones:
        target = milestone.strip()
        while position < len(process) and process[position].strip() != target:
            position += 1
        if position == len(process):
            break
        matched += 1
        position += 1
    return matched


def acebench_process(paths: Sequence[Sequence[str]], process: Sequence[str], *, canonical: bool = False) -> float:
    """The reference's reading: the best matched fraction over the alternative milestone paths, 1.0
    for an empty path (compat mode; `process_score` is the reading that never gives that 1.0)."""
    if canonical:
        paths = [[_canonical(m) for m in path] for path in paths]
        process = [_canonical_reply(m) for m in process]
    best = 0.0
    for path in paths:
        if not path:
            return 1.0
        best = max(best, round(matched_prefix(path, process) / len(path), 3))
    return best


def process_score(paths: Sequence[Sequence[str]], process: Sequence[str], *, canonical: bool = False
                  ) -> ProcessScore:
    """The best matched fraction, or `unscorable` when the gold gives nothing to match: no path, an
    empty path or an empty milestone, or (with `canonical`) a milestone that does not read as calls."""
    if not paths:
        return ProcessScore(0.0, "no milestone path")
    for number, path in enumerate(paths, 1):
        if not path:
            return ProcessScore(0.0, f"milestone path {number} is empty")
        for step, milestone in enumerate(path, 1):
            if not isinstance(milestone, str) or not milestone.strip():
                return ProcessScore(0.0, f"milestone {step} of path {number} is empty")
            if canonical:
                try:
                    calls = parse_message(milestone).calls
                except ParseError as exc:
                    return ProcessScore(0.0, f"milestone {step} of path {number} does not parse: {exc.message}")
                if not calls:
                    return ProcessScore(0.0, f"milestone {step} of path {number} holds no call")
    return ProcessScore(acebench_process(paths, process, canonical=canonical))


def _canonical_reply(message: str) -> str:
    """An agent's message as the calls it made, read as a run reads replies (`read_reply`: thinking set
    aside, `<tool_call>` tags and JSON calls read), so the steps a world ran are the steps scored; a
    message whose calls do not all read is compared as written."""
    reply = read_reply(message)
    if reply.found and reply.readable:
        return render_calls(reply.calls, sort_arguments=True)
    return message.strip()


def _canonical(message: str) -> str:
    try:
        calls = parse_message(message).calls
    except ParseError:
        return message.strip()
    return render_calls(calls, sort_arguments=True)
