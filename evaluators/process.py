"""Process accuracy: did the agent take the expected steps, in order?

`acebench_process` is ACEBench's metric: walk the agent's messages once; each milestone
must appear (as the same string, stripped) after the previous match; scoring stops at the
first milestone not found. The score is the matched fraction, best over alternative paths.
`canonical=True` compares calls instead of raw text (parsed and re-rendered), so quote
style and spacing do not matter.
"""

from __future__ import annotations

from collections.abc import Sequence

from sandbox import ParseError, parse_message
from sandbox.parsing import render_calls


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
    """The best matched fraction over the alternative milestone paths (1.0 for an empty path)."""
    if canonical:
        paths = [[_canonical(m) for m in path] for path in paths]
        process = [_canonical(m) for m in process]
    best = 0.0
    for path in paths:
        if not path:
            return 1.0
        best = max(best, round(matched_prefix(path, process) / len(path), 3))
    return best


def _canonical(message: str) -> str:
    try:
        calls = parse_message(message).calls
    except ParseError:
        return message.strip()
    return render_calls(calls, sort_arguments=True)
