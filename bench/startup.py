"""Start-up benchmark: cold processes, timed whole (interpreter start included), interleaved rounds.

Run: python bench/startup.py [--rounds 7] [--no-replay] [--acebench /tmp/acebench-ref]

Targets (issue 41, in CPU time: each child's user + system time): `toolworlds replay acebench`
<= 1.6x the floor process (`import typer, rich, pydantic` and one model built: what any replay of
ours with a command line loads), and `from sandbox import World` <= 1.3x the "pydantic + one model"
process (`import sandbox` imports nothing heavy, and is shown for information). The reference's
replay process stays in the table as information: one pydantic model alone costs more than it
does. With `--acebench`
(an extracted ACEBench repository; or ACEBENCH_REF) that process runs in the same rounds:
`bench/reference_replay.py`, the reference's execution role and end-state checker over the
same gold paths, importing nothing of ours. Without it the row compares with the 0.57 s the
issue quotes for this machine. Which modules cost what: `python -X importtime -c "import sandbox"`.

The rows between python and the replay are the pieces a replay is made of, each a cold
process of its own: pydantic imported and its first model built (its schema machinery and
plugin lookup load lazily, at the first model), the command-line toolkit (typer, rich), the
engine, the ACEBench family, and the replay without the command line (no typer, no table).

Every process runs as it would for an installed package: with its bytecode cached. One
untimed round writes the caches first, and PYTHONDONTWRITEBYTECODE is dropped for the
children (with it set, each process recompiles every module of ours and of the
reference's, which adds over 100 ms to a replay and measures the compiler, not the code).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scenarios.datasets import dataset_dir  # noqa: E402  (after the path; imports nothing heavy)

REFERENCE = "reference replay (ACEBench's own)"
MODEL = "one pydantic model built"
FLOOR = "typer, rich, pydantic + one model (the replay's floor)"

# The replay's work without the command line: its family's gold paths replayed, no table printed.
_BARE_REPLAY = ("from scenarios.registry import family\n"
                "acebench = family('acebench')\n"
                "acebench.replay(acebench.data_source(None), 'en', {})\n")
PROCESSES = {
    "python (nothing imported)": [sys.executable, "-c", "pass"],
    "import pydantic": [sys.executable, "-c", "import pydantic"],
    MODEL: [sys.executable, "-c", "from pydantic import BaseModel\nclass M(BaseModel):\n a: int"],
    "import typer, rich (console, table)": [sys.executable, "-c", "import typer, rich.console, rich.table"],
    FLOOR: [sys.executable, "-c", "import typer, rich.console, rich.table\nfrom pydantic import BaseModel\n"
                                  "class M(BaseModel):\n a: int"],
    "import sandbox": [sys.executable, "-c", "import sandbox"],
    "from sandbox import parse_message": [sys.executable, "-c", "from sandbox import parse_message"],
    "from sandbox import World": [sys.executable, "-c", "from sandbox import World"],
    "ACEBench family loaded": [sys.executable, "-c", "from scenarios.registry import family\nfamily('acebench')"],
    "ACEBench replay, no CLI": [sys.executable, "-c", _BARE_REPLAY],
    "import toolworlds.cli (its commands)": [sys.executable, "-c", "from toolworlds.cli import app"],
    "toolworlds replay acebench": [sys.executable, "-m", "toolworlds.cli", "replay", "acebench"],
}
# Rows that need the ACEBench data.
_NEEDS_DATA = ("ACEBench replay, no CLI", "toolworlds replay acebench")


def _chosen(args: argparse.Namespace) -> dict[str, list[str]]:
    """The processes this run times: the replay rows only with the data, the reference's with `--acebench`."""
    data = dataset_dir("acebench")
    chosen = {k: v for k, v in PROCESSES.items() if not ((args.no_replay or data is None) and k in _NEEDS_DATA)}
    if args.acebench is not None and not args.no_replay:
        if data is None:
            sys.exit("--acebench needs the ACEBench data (TOOLWORLDS_DATA) for the reference's replay")
        folder = data / "data_en" if (data / "data_en").is_dir() else data
        chosen[REFERENCE] = [sys.executable, str(ROOT / "bench" / "reference_replay.py"), str(args.acebench),
                             str(folder)]
    return chosen


def _measure(chosen: dict[str, list[str]], rounds: int) -> tuple[dict[str, float], dict[str, float]]:
    """Each process's median wall and CPU time (seconds) over `rounds` interleaved rounds, after one
    untimed round that writes the bytecode caches."""
    environment = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    samples: dict[str, list[float]] = {name: [] for name in chosen}
    cpu_samples: dict[str, list[float]] = {name: [] for name in chosen}
    for round_ in range(rounds + 1):  # interleaved, so load drifting during the run hits every row alike
        for name, command in chosen.items():
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            subprocess.run(command, cwd=ROOT, env=environment, check=True, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
            wall = time.perf_counter() - start
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            if round_:  # round 0 only writes the bytecode caches
                samples[name].append(wall)
                cpu_samples[name].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    medians = {name: statistics.median(values) for name, values in samples.items()}
    cpu = {name: statistics.median(values) for name, values in cpu_samples.items()}
    return medians, cpu


_TARGETS = {"from sandbox import World": (MODEL, 1.3), "toolworlds replay acebench": (FLOOR, 1.6)}


def _target(name: str, cpu: dict[str, float]) -> str:
    """The target column of one row: its ratio to its floor and whether it is met, or what it informs."""
    reference = cpu.get(REFERENCE)
    if name in _TARGETS:
        floor, limit = _TARGETS[name]
        against = cpu.get(floor)
        target = ""
        if against is not None:
            target = (f"<= {limit}x {floor.split(' (')[0]!r}: {cpu[name] / against:.2f}x, "
                      + ("met" if cpu[name] <= limit * against else "NOT met"))
        if name == "toolworlds replay acebench" and reference is not None:
            target += f"; the reference's replay / ours: {reference / cpu[name]:.2f}x (information)"
        return target
    if name == "from sandbox import parse_message":
        return "reading a message loads no pydantic"
    if name == MODEL and reference is not None:
        # Every world is pydantic models: no replay of ours can start faster than this process.
        return f"information: {cpu[name] / reference:.2f}x the reference's whole replay"
    return ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--no-replay", action="store_true")
    parser.add_argument("--acebench", type=Path, default=os.environ.get("ACEBENCH_REF"),
                        help="an extracted ACEBench repository: time its replay process side by side")
    args = parser.parse_args()
    medians, cpu = _measure(_chosen(args), args.rounds)
    table = Table(title=f"cold processes, median of {args.rounds} interleaved rounds")
    for column in ("process", "wall", "CPU", "CPU vs import pydantic", "target (CPU time)"):
        table.add_column(column)
    for name, value in medians.items():
        ratio = cpu[name] / cpu["import pydantic"]
        table.add_row(name, f"{value * 1000:.0f} ms", f"{cpu[name] * 1000:.0f} ms", f"{ratio:.2f}x",
                      _target(name, cpu))
    Console(width=160).print(table)

if __name__ == "__main__":
    main()
