"""Engine benchmark: per-call cost, fork and restore time, memory per forked world.

Run: python bench/core.py [--forks 10000] [--tasks 110]

Targets (issue #2, tightened for calls by issue 12): read call <= 5 us, mutating call <= 8 us,
fork <= 15 us, <= 20 KB per idle forked world. Timed batches run with the garbage collector off, as
`timeit` does; one extra row shows a read call with it on. Every measure has a fresh world of its
own so history left by earlier measures does not weigh on later ones. Wall time (p50, p90) and CPU
time (the measures taking turns, median) are printed side by side; the targets are in CPU time
(issue 41).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console
from rich.table import Table
from timing import interleaved_cpu_us, per_op_us

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
    rows: list[tuple[str, ...]] = []

    # Memory first, on a heap that earlier measures have not filled with reusable blocks.
    world = todo_world(tasks=args.tasks)
    state_bytes = len(json.dumps(world.state()))
    gc.collect()
    before = rss_bytes()
    forks = [world.fork() for _ in range(args.forks)]
    gc.collect()
    per_world = (rss_bytes() - before) / len(forks)
    del forks

    # Each measure on a fresh world of its own, timed in wall time (p50, p90), then all of them again
    # in CPU time, taking turns (`interleaved_cpu_us`): the CPU median is what the targets hold.
    reader, gc_reader, writer, failer, executor, forker = (todo_world(tasks=args.tasks) for _ in range(6))
    flip = [0]

    def mutate() -> None:
        flip[0] ^= 1
        writer.call("complete_task" if flip[0] else "reopen_task", {"task_id": 7})

    snapshot = forker.snapshot()

    def fork_then_write() -> None:
        forker.fork().call("complete_task", {"task_id": 9})

    measures: list[tuple[str, Callable[[], object], int, str]] = [
        ("read call (get_task)", lambda: reader.call("get_task", {"task_id": 7}), 200, "<= 5 us"),
        ("mutating call (complete/reopen)", mutate, 200, "<= 8 us"),
        ("failing call, rolled back",
         lambda: failer.call("tag_tasks", {"task_ids": [1, 2, 3, 999], "tag": "x"}), 200, "-"),
        ("execute(text), 2 calls",
         lambda: executor.execute("[get_task(task_id=7), list_tasks(status='done')]"), 200, "-"),
        ("fork", forker.fork, 200, "<= 15 us"),
        ("restore", lambda: forker.restore(snapshot), 200, "-"),
        ("fork + first write (copy-on-write)", fork_then_write, 20, "-"),
    ]
    wall = {name: per_op_us(op, batch=batch, rounds=60 if batch > 20 else 20) for name, op, batch, _ in measures}
    wall_gc = per_op_us(lambda: gc_reader.call("get_task", {"task_id": 7}), collect=True)
    cpu = interleaved_cpu_us({name: (op, batch) for name, op, batch, _ in measures}, rounds=31)
    cpu_gc = interleaved_cpu_us({"read": (lambda: gc_reader.call("get_task", {"task_id": 7}), 200)}, rounds=31,
                                collect=True)["read"]
    for name, _, _, target in measures:
        rows.append((name, *fmt(wall[name]), f"{cpu[name]:.2f} us", target))
        if name == "read call (get_task)":
            rows.append(("read call, garbage collector on", *fmt(wall_gc), f"{cpu_gc:.2f} us", "-"))
    rows.append((f"RSS per idle forked world ({args.forks:,})", f"{per_world / 1024:.2f} KB", "", "", "<= 20 KB"))

    table = Table(title=f"toolworlds core: state {state_bytes / 1024:.1f} KB ({args.tasks} tasks)")
    for column in ("measure", "p50 (wall)", "p90 (wall)", "CPU (median)", "target"):
        table.add_column(column)
    for row in rows:
        table.add_row(*row)
    Console(width=120).print(table)


if __name__ == "__main__":
    main()
