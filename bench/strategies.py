"""How well the property-testing kit's drawn calls serve each bundled world.

Run: python bench/strategies.py [--sequences 50] [--steps 50]

For every bundled world, in its default state and in a configured one (see
tests/worlds.py), and for the library world of docs/testing.md: how many drawn calls
pass validation and how many the world carries out (neither refused nor crashed), with
`calls(world)` as it is and, for comparison, drawing from the parameters' types alone
(no references). Draws are derandomized: the same code gives the same figures. The
target (issue: property-testing kit) is >= 95% valid and >= 50% succeeded with references.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console
from rich.table import Table

from sandbox.testing import Survey, survey
from tests.worlds import bundled, docs_example


def percent(share: float) -> str:
    return f"{share:.1%}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sequences", type=int, default=50, help="call sequences per world (fresh world each)")
    parser.add_argument("--steps", type=int, default=50, help="calls per sequence")
    options = parser.parse_args()

    rows = []
    for entry in bundled():
        rows.append((entry.name, "default", entry.default))
        if entry.configured is not entry.default:
            rows.append((entry.name, f"configured: {entry.configuration}", entry.configured))
    rows.append(("docs: library", "default", docs_example().library_world))

    table = Table(title=f"Drawn calls per world ({options.sequences} sequences x {options.steps} calls)")
    for column in ("world", "state", "calls", "valid", "succeeded", "crashed", "types only: valid",
                   "types only: succeeded"):
        table.add_column(column, justify="left" if column in ("world", "state") else "right")
    start = time.perf_counter()
    for name, state, factory in rows:
        found: Survey = survey(factory, sequences=options.sequences, steps=options.steps)
        bare = survey(factory, sequences=options.sequences, steps=options.steps, references=False)
        table.add_row(name, state, str(found.calls), percent(found.valid), percent(found.succeeded),
                      str(found.outcomes["crashed"]), percent(bare.valid), percent(bare.succeeded))
    console = Console(width=160)
    console.print(table)
    console.print(f"{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
