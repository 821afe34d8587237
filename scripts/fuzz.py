"""Fuzz a bundled world: seeded valid, boundary and hostile calls, every one checked.

    python scripts/fuzz.py WORLD --calls N --seed S [--episode E]     (WORLD: todo, acebench-en, acebench-zh,
                                                          banking-en, banking-zh, apibank, apibank-l3, all)

Prints the counts (see `sandbox.testing.fuzzing.FuzzReport`) and the first examples of anything
found; exits 1 when an exception escaped, a failed call changed the world, a replay
differed, a record could not be stored or a tool crashed.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console
from rich.status import Status
from rich.table import Table

from sandbox.testing.fuzzing import EPISODE_CALLS, FuzzReport, fuzz_world
from scenarios.fuzz_targets import TARGETS


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("world", choices=[*TARGETS, "all"])
    parser.add_argument("--calls", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--episode", type=int, default=EPISODE_CALLS,
                        help="operations per fresh pair of worlds (default %(default)s)")
    args = parser.parse_args(argv)
    console = Console(width=220)
    names = list(TARGETS) if args.world == "all" else [args.world]
    reports: list[FuzzReport] = []
    for name in names:
        started = time.perf_counter()
        with console.status(f"fuzzing {name}") as status:
            def show(done: int, status: Status = status, name: str = name) -> None:
                status.update(f"fuzzing {name}: {done:,} calls")

            report = fuzz_world(TARGETS[name], args.calls, args.seed, name=name, progress=show,
                                    episode=args.episode)
        reports.append(report)
        console.print(f"{name}: {args.calls:,} operations in {time.perf_counter() - started:.0f} s", highlight=False)
        for example in report.examples:
            console.print(f"  {example}", highlight=False, markup=False)
    table = Table(title=f"fuzz: {args.calls:,} operations per world, seed {args.seed}")
    table.add_column("")
    for report in reports:
        table.add_column(report.world, justify="right")
    for index, (label, _) in enumerate(reports[0].rows()[2:]):
        table.add_row(label, *(r.rows()[2:][index][1] for r in reports))
    console.print(table)
    return 0 if all(r.clean for r in reports) else 1


if __name__ == "__main__":
    sys.exit(main())
