"""Which episodes flipped between two runs: solved in one and missed in the other.

Episodes pair by task set, task id and trial. Each flip says what differs beside the verdict:
the scorer's version (a scorer fix, or `rescore --mode strict`), the task data's hash (an
erratum, a new data release), or neither (two runs of agents: the agent did something else).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.table import Table
from rich.text import Text

from .store import EpisodeRow
from .visible import visible_line

Key = tuple[str, str, int]


@dataclass(frozen=True)
class Flip:
    task_set: str
    task_id: str
    trial: int
    before: bool
    after: bool
    why: str  # "scorer", "data", "scorer, data", or "" (neither differs, or an older run did not record them)

    @property
    def direction(self) -> str:
        return "pass->fail" if self.before else "fail->pass"


@dataclass(frozen=True)
class Comparison:
    first: str
    second: str
    flips: list[Flip]
    paired: int  # episodes in both runs
    only_first: int
    only_second: int

    def count(self, direction: str) -> int:
        return sum(flip.direction == direction for flip in self.flips)


def compare_runs(first: str, before: Sequence[EpisodeRow], second: str, after: Sequence[EpisodeRow]) -> Comparison:
    """The flips from run `first`'s episodes to run `second`'s, in the order `first` stored them."""
    later = {_key(e): e for e in after}
    earlier = {_key(e): e for e in before}
    flips = []
    for key, old in earlier.items():
        new = later.get(key)
        if new is None or bool(old.success) == bool(new.success):
            continue
        flips.append(Flip(*key, bool(old.success), bool(new.success), _why(old, new)))
    paired = len(earlier.keys() & later.keys())
    return Comparison(first, second, flips, paired, len(earlier) - paired, len(later) - paired)


def _key(episode: EpisodeRow) -> Key:
    return episode.task_set, episode.task_id, episode.trial or 0


def _why(old: EpisodeRow, new: EpisodeRow) -> str:
    reasons = [name for name, a, b in (("scorer", old.scorer_version, new.scorer_version),
                                       ("data", old.task_hash, new.task_hash)) if a and b and a != b]
    return ", ".join(reasons)


def flips_summary(comparison: Comparison) -> str:
    """One line: how many paired episodes flipped each way, and how many are in one run only."""
    line = (f"{comparison.first} -> {comparison.second}: {len(comparison.flips)} of {comparison.paired} episodes "
            f"flipped ({comparison.count('pass->fail')} pass->fail, {comparison.count('fail->pass')} fail->pass)")
    if comparison.only_first or comparison.only_second:
        line += (f"; only in {comparison.first}: {comparison.only_first}, only in {comparison.second}: "
                 f"{comparison.only_second}")
    return line


def flips_table(comparison: Comparison) -> Table:
    """The flips as a terminal table, one row each."""
    table = Table()
    for column in ("task set", "task id", "trial", "flip", "changed"):
        table.add_column(column, overflow="fold")
    for flip in comparison.flips:
        cells = (flip.task_set, flip.task_id, str(flip.trial), flip.direction, flip.why or "-")
        table.add_row(*(Text(visible_line(cell)) for cell in cells))  # ids are data, never markup
    return table
