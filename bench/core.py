"""Engine benchmark: per-call cost, fork and restore time, memory per forked world.

Run: python bench/core.py [--forks 10000] [--tasks 110]

Targets (issue #2, tightened for calls by issue 12): read call <= 5 us, mutating call <= 8 us,
fork <= 15 us, <= 20 KB per idle forked world. Timed batches run with the garbage collector off, as
`timeit` does; one extra row shows a read call with it on. Every measure starts from
a fresh world so history left by earlier measures does not weigh on later ones.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console
from rich.table import Table
from timing import per_op_us

from scenarios.todo import todo_world


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE")


def fmt(pair: tuple[float, float]) -> tuple[str, str]:
    return f"{pair[0]:.2f} us", f"{pair[1]:.2f} us"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--forks", type=int, default=10_000)
    parser.add_argument("--tasks", type=int, default=110, help="tasks in the world (~10 KB of state at 110)")
    args = parser.parse_args()
    rows: list[tuple[str, str, str, str]] = []

    # Memory first, on a heap that earlier measures have not filled with reusable blocks.
    world = todo_world(tasks=args.tasks)
    state_bytes = len(json.dumps(world.state()))
    gc.collect()
    before = rss_bytes()
    forks = [world.fork() for _ in range(args.forks)]
    gc.collect()
    per_world = (rss_bytes() - before) / len(forks)
    del forks

    world = todo_world(tasks=args.tasks)
    rows.append(("read call (get_task)", *fmt(per_op_us(lambda: world.call("get_task", {"task_id": 7}))), "<= 5 us"))

    world = todo_world(tasks=args.tasks)
    rows.append(
        (
            "read call, garbage collector on",
            *fmt(per_op_us(lambda: world.call("get_task", {"task_id": 7}), collect=True)),
            "-",
        )
    )

    world = todo_world(tasks=args.tasks)
    flip = [0]

    def mutate() -> None:
        flip[0] ^= 1
        world.call("complete_task" if flip[0] else "reopen_task", {"task_id": 7})

    rows.append(("mutating call (complete/reopen)", *fmt(per_op_us(mutate)), "<= 8 us"))

    world = todo_world(tasks=args.tasks)
    rows.append(
        (
            "failing call, rolled back",
            *fmt(per_op_us(lambda: world.call("tag_tasks", {"task_ids": [1, 2, 3, 999], "tag": "x"}))),
            "-",
        )
    )

    world = todo_world(tasks=args.tasks)
    rows.append(
        (
            "execute(text), 2 calls",
            *fmt(per_op_us(lambda: world.execute("[get_task(task_id=7), list_tasks(status='done')]"))),
            "-",
        )
    )

    world = todo_world(tasks=args.tasks)
    rows.append(("fork", *fmt(per_op_us(world.fork)), "<= 15 us"))
    snapshot = world.snapshot()
    rows.append(("restore", *fmt(per_op_us(lambda: world.restore(snapshot))), "-"))

    def fork_then_write() -> None:
        world.fork().call("complete_task", {"task_id": 9})

    rows.append(("fork + first write (copy-on-write)", *fmt(per_op_us(fork_then_write, batch=20, rounds=20)), "-"))
    rows.append((f"RSS per idle forked world ({args.forks:,})", f"{per_world / 1024:.2f} KB", "", "<= 20 KB"))

    table = Table(title=f"toolworlds core: state {state_bytes / 1024:.1f} KB ({args.tasks} tasks)")
    for column in ("measure", "p50", "p90", "target"):
        table.add_column(column)
    for row in rows:
        table.add_row(*row)
    Console().print(table)


if __name__ == "__main__":
    main()
