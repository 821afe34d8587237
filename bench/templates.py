"""Worlds from templates: a banking episode's world forked from its template against built from scratch.

Run: python bench/templates.py [--rounds 30] [--batch 200]
For every bundled banking task (en and zh), its world as an episode gets it (`task.world()`: a fork
of the template built once per configuration) against the same world built from scratch (the
apps' default data validated, the configuration applied: what `banking_world` did per episode
before templates). CPU time per world (`time.process_time`), batches of `--batch` worlds cycling
through the tasks, interleaved over `--rounds`; medians printed with the ratio. The machine
load is printed with the figures, since other processes share the cores.
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console
from rich.table import Table
from timing import interleaved_pair_cpu_us

from scenarios.banking.family import load_tasks
from scenarios.banking.world import _build


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--batch", type=int, default=200)
    args = parser.parse_args()
    tasks = [*load_tasks("en"), *load_tasks("zh")]
    ours_cycle, fresh_cycle = itertools.cycle(tasks), itertools.cycle(tasks)

    def ours() -> object:
        return next(ours_cycle).world()

    def fresh() -> object:
        task = next(fresh_cycle)
        return _build(dict.fromkeys(["BaseApi", *task.involved_classes]), task.lang, task.initial_config, 0)

    for task in tasks:  # templates built before timing: a run builds each once
        task.world()
    ours_m, fresh_m = interleaved_pair_cpu_us(ours, fresh, rounds=args.rounds, batch=args.batch)
    table = Table(title=f"banking world per episode ({len(tasks)} tasks' configurations), CPU time, medians of "
                        f"{args.rounds} interleaved rounds of {args.batch}, load {os.getloadavg()[0]:.2f}")
    for column in ("measure", "us per world", "ratio"):
        table.add_column(column)
    table.add_row("baseline: built from scratch", f"{fresh_m:.1f}", "1.00")
    table.add_row("ours: forked from its template (task.world())", f"{ours_m:.1f}", f"{ours_m / fresh_m:.3f}")
    Console().print(table)


if __name__ == "__main__":
    main()
