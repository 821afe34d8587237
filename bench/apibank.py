"""API-Bank benchmark: whole recorded-call replay, world build, fork.

Run: python bench/apibank.py [--data DIR]
Targets (issue #4): <= 0.25 s for the whole replay, <= 0.5 ms per fresh world. The
reference needs about 22 ms to build a ToolManager and about 6 s for the whole replay.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console
from rich.table import Table
from timing import per_op_us

from scenarios.apibank import apibank_world
from scenarios.apibank.replay import replay
from scenarios.datasets import dataset_dir


def timed(op, repeat: int) -> float:
    """Median seconds of one run of `op`."""
    return per_op_us(op, batch=1, rounds=repeat, collect=True)[0] / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=None)
    args = parser.parse_args()
    data = args.data or dataset_dir("api-bank")
    if data is None:
        sys.exit("no API-Bank data: pass --data or set TOOLWORLDS_DATA")
    rows = replay(data)
    whole = timed(lambda: replay(data), 5)
    from_disk = timed(lambda: apibank_world(data / "init_database"), 5)
    bundled = timed(lambda: apibank_world(), 50)
    prototype = apibank_world(data / "init_database")
    fork = timed(lambda: [prototype.fork() for _ in range(1000)], 5) / 1000
    table = Table(title=f"API-Bank: {len(rows)} recorded calls")
    for column in ("measure", "value", "target / reference"):
        table.add_column(column)
    table.add_row(
        "exact / passing the check",
        f"{sum(r.exact for r in rows)} / {sum(r.check for r in rows)}",
        ">= 480 / 508; reference 380 / 399",
    )
    offline = replay(data, cassette=False, recorded_data=False)
    table.add_row(
        "  the same without recordings (no cassette, shipped data)",
        f"{sum(r.exact for r in offline)} / {sum(r.check for r in offline)}",
        "-",
    )
    table.add_row(
        "whole replay (load, fork per dialogue, call, compare)", f"{whole * 1000:.1f} ms", "<= 250 ms; reference ~6 s"
    )
    table.add_row("fresh world per dialogue (fork of the loaded world)", f"{fork * 1e6:.1f} us", "<= 0.5 ms")
    table.add_row(
        "world from init_database (2.5 MB of JSON, once)",
        f"{from_disk * 1000:.1f} ms",
        "reference ~22 ms per ToolManager",
    )
    table.add_row("world from the bundled default data", f"{bundled * 1000:.2f} ms", "-")
    Console().print(table)


if __name__ == "__main__":
    main()
