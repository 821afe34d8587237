"""Start-up benchmark: cold processes, timed whole (interpreter start included), interleaved rounds.

Run: python bench/startup.py [--rounds 7] [--no-replay]

Targets (issue 12): `import sandbox` within 1.5x of `import pydantic`; `toolworlds replay
acebench` as a cold process no slower than the reference's replay process (0.57 s on this
machine when the issue was written; that process is not rebuilt here). Which modules cost
what: `python -X importtime -c "import sandbox"`.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]

PROCESSES = {
    "python (nothing imported)": [sys.executable, "-c", "pass"],
    "import pydantic": [sys.executable, "-c", "import pydantic"],
    "import sandbox": [sys.executable, "-c", "import sandbox"],
    "from sandbox import World": [sys.executable, "-c", "from sandbox import World"],
    "import toolworlds.cli": [sys.executable, "-c", "import toolworlds.cli"],
    "toolworlds replay acebench": [sys.executable, "-m", "toolworlds.cli", "replay", "acebench"],
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--no-replay", action="store_true")
    args = parser.parse_args()
    chosen = {k: v for k, v in PROCESSES.items() if not (args.no_replay and "replay" in k)}
    samples: dict[str, list[float]] = {name: [] for name in chosen}
    for _ in range(args.rounds):  # interleaved, so load drifting during the run hits every row alike
        for name, command in chosen.items():
            start = time.perf_counter()
            subprocess.run(command, cwd=ROOT, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            samples[name].append(time.perf_counter() - start)
    medians = {name: statistics.median(values) for name, values in samples.items()}
    table = Table(title=f"cold processes, median of {args.rounds} interleaved rounds")
    for column in ("process", "wall", "vs import pydantic", "target"):
        table.add_column(column)
    targets = {"import sandbox": "<= 1.5x of import pydantic", "toolworlds replay acebench": "<= 0.57 s (reference)"}
    for name, value in medians.items():
        ratio = value / medians["import pydantic"]
        target = targets.get(name, "")
        if name == "import sandbox":
            target += ": " + ("met" if ratio <= 1.5 else "NOT met")
        elif name == "toolworlds replay acebench":
            target += ": " + ("met" if value <= 0.57 else "NOT met")
        table.add_row(name, f"{value * 1000:.0f} ms", f"{ratio:.2f}x", target)
    Console(width=160).print(table)


if __name__ == "__main__":
    main()
