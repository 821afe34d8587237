"""API-Bank tasks: what an episode pays for its world, with the shared base and without it.

Run: python bench/apibank_tasks.py [--data DIR]
A call sample's world is the recording-era world with the dialogue's gold prefix replayed;
a scene's is init_database with its Key Info accounts. Baseline: building that world from the
data folder for every episode. Toolworlds: forking the task set's one built world
(`scenarios.apibank.world_base.WorldBase`), then the prefix or the accounts.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console
from rich.table import Table
from timing import per_op_us

from scenarios.apibank.replay import replay_calls
from scenarios.apibank.samples import read_samples, recording_base
from scenarios.apibank.scenes import init_database_world, read_scenes, scene_world
from scenarios.apibank.world_base import WorldBase
from scenarios.datasets import dataset_dir


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=None)
    args = parser.parse_args()
    data = args.data or dataset_dir("api-bank")
    if data is None:
        sys.exit("no API-Bank data: pass --data or set TOOLWORLDS_DATA")
    samples = [s for s in read_samples(data, (1, 2)) if s.kind == "api"]
    deepest = max(samples, key=lambda s: len(s.prefix_calls()))
    scene = read_scenes(data).tasks[0]
    scene_base = WorldBase(data, init_database_world)
    scene_base.fork()

    def built_sample() -> object:
        return replay_calls(WorldBase(data, recording_base).fork(), deepest.prefix_calls())

    rows = [
        (f"call sample (prefix of {len(deepest.prefix_calls())} calls)",
         per_op_us(built_sample, batch=1, rounds=10, collect=True)[0],
         per_op_us(deepest.world, batch=20, rounds=20, collect=True)[0]),
        ("level-3 scene",
         per_op_us(lambda: scene_world(WorldBase(data, init_database_world), scene.scene), batch=1, rounds=10,
                   collect=True)[0],
         per_op_us(lambda: scene_world(scene_base, scene.scene), batch=20, rounds=20, collect=True)[0]),
    ]
    table = Table(title=f"API-Bank: a task's world per episode ({len(samples)} call samples, median)")
    for column in ("world", "built per episode (ms)", "forked from the task set's (ms)", "ratio"):
        table.add_column(column)
    for name, built, forked in rows:
        table.add_row(name, f"{built / 1000:.2f}", f"{forked / 1000:.3f}", f"{built / forked:.0f}x")
    Console().print(table)


if __name__ == "__main__":
    main()
