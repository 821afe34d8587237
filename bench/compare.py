"""End-state comparison benchmark: `compare_states` against deepdiff over the whole state and
against one `copy.deepcopy` of the same state.

Run: python bench/compare.py [--sizes 1.8,10.7,100,1000] [--rounds 9]

The states are to-do worlds' dumps, at each size in KB: the expected state, and the end
state of a fork that changed one field (dumped separately, so the two share no objects,
the worst case for the walk). Targets (issue 41, replacing issue 12's): one differing field at
10 KB >= 3x faster than one `copy.deepcopy` of that state; equal states <= 2x Python `==` on the
same two dumps, from 10 KB to 1 MB. Ours, deepcopy and `==` are timed in CPU time, taking turns
(`interleaved_cpu_us`). The "deepdiff" column
is what `compare_states` cost before it walked (deepdiff over everything); at 1 MB it takes
seconds, so it is measured in fewer rounds (`--no-deepdiff` leaves it out).
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console
from rich.table import Table
from timing import interleaved_cpu_us, per_op_us

import sandbox.comparison as comparison
from sandbox.comparison import compare_states
from sandbox.diffing import deep_diff_states
from scenarios.todo import todo_world

BYTES_PER_TASK = 93  # one seeded to-do task in a JSON dump


def states(kb: float) -> tuple[dict, dict, dict]:
    """Expected state, an equal one dumped separately, and one with one field changed."""
    world = todo_world(tasks=max(1, round(kb * 1024 / BYTES_PER_TASK)))
    fork = world.fork()
    fork.call("complete_task", {"task_id": 1})
    return world.state(), world.state(), fork.state()


def old_compare(expected: dict, actual: dict) -> object:
    saved = comparison.diff_states
    comparison.diff_states = deep_diff_states
    try:
        return compare_states(expected, actual)
    finally:
        comparison.diff_states = saved


def show(us: float) -> str:
    return f"{us / 1000:.2f} ms" if us >= 1000 else f"{us:.1f} us"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="1.8,10.7,100,1000", help="state sizes in KB")
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--no-deepdiff", action="store_true")
    args = parser.parse_args()
    table = Table(title="compare_states: one differing field, and equal states")
    for column in ("state", "ours (1 field)", "deepdiff (before)", "ratio", "copy.deepcopy", "ratio",
                   "ours (equal)", "== on the dumps", "ours / ==", "target"):
        table.add_column(column)
    for kb in (float(s) for s in args.sizes.split(",")):
        table.add_row(*measure(kb, args))
    Console(width=200).print(table)
    print("ratio = other / ours (> 1: ours is faster); ours / == is the other way round (<= 2x: the target); "
          "CPU time, medians of interleaved batches")


def measure(kb: float, args: argparse.Namespace) -> tuple[str, ...]:
    expected, same, changed = states(kb)
    size = len(json.dumps(expected))
    new = compare_states(expected, changed)
    old = old_compare(expected, changed)
    assert (new.equal, new.fraction, new.diff) == (old.equal, old.fraction, old.diff), "results differ"
    batch = max(1, min(200, 20_000 // max(size // 1024, 1)))  # a sample lasts about a millisecond or more
    cpu = interleaved_cpu_us({
        "ours": (lambda: compare_states(expected, changed), batch),
        "deepcopy": (lambda: copy.deepcopy(expected), max(1, batch // 4)),
        "equal": (lambda: compare_states(expected, same), batch),
        "==": (lambda: expected == same, batch),
    }, rounds=args.rounds)
    ours, deep, equal, plain_eq = cpu["ours"], cpu["deepcopy"], cpu["equal"], cpu["=="]
    if args.no_deepdiff:
        before, before_ratio = "-", "-"
    else:
        slow = per_op_us(lambda: old_compare(expected, changed), batch=1, rounds=3 if size > 200_000 else 7)[0]
        before, before_ratio = show(slow), f"{slow / ours:.0f}x"
    targets = []
    if 8_000 <= size <= 14_000:
        targets.append("1 field >= 3x faster than deepcopy: " + ("met" if deep >= 3 * ours else "NOT met"))
    if size >= 8_000:
        targets.append("equal <= 2x ==: " + ("met" if equal <= 2 * plain_eq else "NOT met"))
    return (f"{size / 1024:.1f} KB", show(ours), before, before_ratio, show(deep), f"{deep / ours:.1f}x",
            show(equal), show(plain_eq), f"{equal / plain_eq:.1f}x", "; ".join(targets))


if __name__ == "__main__":
    main()
