"""Where a cold `toolworlds replay acebench` spends its time: the process split into phases.

Run: python bench/startup_split.py [--rounds 9]

Each round is a fresh process running the real command (`toolworlds.cli.main`), with time
marks around its steps: importing the command line (typer, rich and the registry's names),
pydantic's own start (imported and its first model built: typer's parameter adapters and
our models would each pay it first, so it is taken apart here), typer building the command
group and parsing the arguments, loading the ACEBench family (the engine, its apps, their
models and tools), the replay itself, and printing the table. What the process takes besides
(interpreter start-up, exit) is the process's wall time less the phases. Medians per phase;
bytecode cached as in `bench/startup.py`.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]

# The phases, in the order the process runs them; the driver below reports each one's duration.
PHASES = (
    "import the CLI (typer, rich, registry names)",
    "pydantic imported, first model built",
    "typer builds the commands, parses the arguments",
    "ACEBench family loaded (engine, apps, models, tools)",
    "replay: 50 tasks' gold paths in fresh worlds",
    "table printed",
)
_DRIVER = """
import json, sys, time
start = time.perf_counter()
import toolworlds.cli as cli
from toolworlds.cli.collector import collector_paused
with collector_paused(freeze=True):  # as `main` imports the command line
    import toolworlds.cli.worlds as commands
after_cli = time.perf_counter()
from pydantic import BaseModel
class Probe(BaseModel):
    value: int = 0
after_pydantic = time.perf_counter()
marks = {}
find_family, make_report = commands.family_named, commands._replay_report
def timed_family(name):
    marks['family'] = time.perf_counter()
    try:
        return find_family(name)
    finally:
        marks['loaded'] = time.perf_counter()
def timed_report(*args):
    try:
        return make_report(*args)
    finally:
        marks['replayed'] = time.perf_counter()
commands.family_named, commands._replay_report = timed_family, timed_report
sys.argv = ['toolworlds', 'replay', 'acebench']
try:
    cli.main()
except SystemExit as done:
    assert not done.code, done.code
end = time.perf_counter()
points = [start, after_cli, after_pydantic, marks['family'], marks['loaded'], marks['replayed'], end]
print(json.dumps([later - earlier for earlier, later in zip(points, points[1:])]), file=sys.stderr)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    environment = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    walls: list[float] = []
    phases: list[list[float]] = []
    for round_ in range(args.rounds + 1):  # round 0 only writes the bytecode caches
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-c", _DRIVER], cwd=ROOT, env=environment, check=True,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if round_:
            walls.append(time.perf_counter() - start)
            phases.append(json.loads(done.stderr.strip().splitlines()[-1]))
    wall = statistics.median(walls)
    medians = [statistics.median(column) for column in zip(*phases, strict=True)]
    table = Table(title=f"toolworlds replay acebench, one cold process: median of {args.rounds} rounds")
    for column in ("phase", "ms", "share"):
        table.add_column(column)
    for name, value in zip(PHASES, medians, strict=True):
        table.add_row(name, f"{value * 1000:.0f}", f"{value / wall:.0%}")
    rest = wall - sum(medians)
    table.add_row("interpreter start-up, exit (wall less the phases)", f"{rest * 1000:.0f}", f"{rest / wall:.0%}")
    table.add_row("whole process (wall)", f"{wall * 1000:.0f}", "100%")
    Console(width=120).print(table)


if __name__ == "__main__":
    main()
