"""Verified task generation per family and difficulty: CPU time, drops, duplicates, noisy agent's success.

Run: python bench/generation.py [--n 10000] [--sample 300] [--families banking acebench todo ...] [--lang en]

`world:package.module:factory` names a user's world (the generic generator).

For each family with a generator and each difficulty level: the CPU seconds to generate `--n`
verified tasks on one core (target: 10,000 in at most 60 s; the ratio is ours over that budget),
the share of candidates dropped (and the commonest reason), the duplicate (instruction, end state)
pairs found again in the written file (must be 0), the share of a sample the oracle agent solves
as a run scores it (must be 100%), and the noisy agent's success (noise 0.2) on the same sample,
which should fall as the level rises. Seeded: the same code prints the same counts.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console
from rich.table import Table

from evaluators.task_score import episode_scorer
from scenarios.generation import LEVELS, GeneratedSet, GenerationError, generate
from toolworlds.agents import NoisyAgent, OracleAgent
from toolworlds.episodes import run_episode
from toolworlds.generation import family_of as family

BUDGET_SECONDS = 60.0
BUDGET_TASKS = 10_000


def duplicates(made: GeneratedSet) -> int:
    keys = [hashlib.blake2b(json.dumps([r["question"], r["ground_truth"]], sort_keys=True, ensure_ascii=False)
                            .encode(), digest_size=16).digest() for r in made.records]
    return len(keys) - len(set(keys))


def success(name: str, made: GeneratedSet, sample: int, agent: str) -> float:
    entry = family(name)
    generator = entry.generator() if entry.generator else None
    assert generator is not None
    scorer = episode_scorer(name)
    records = made.records[:sample]
    wins = 0
    for record in records:
        task = generator.task(record, made.header["toolsets"][record["toolset"]], made.header["lang"])
        player: Any = OracleAgent(task) if agent == "oracle" else NoisyAgent(task, noise=0.2, seed=0)
        world, episode = run_episode(task, player)
        wins += bool(scorer(task, world, episode.process, entry.end_state_mode).success)  # type: ignore[arg-type]
    return wins / len(records)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=BUDGET_TASKS, help="tasks generated per family and level")
    parser.add_argument("--sample", type=int, default=300, help="tasks played by the oracle and the noisy agent")
    parser.add_argument("--families", nargs="+",
                        default=["banking", "acebench", "todo", "apibank", "world:scenarios.todo.app:todo_world"])
    parser.add_argument("--lang", default="en")
    parser.add_argument("--seed", type=int, default=0)
    options = parser.parse_args(argv)

    table = Table(title=f"Verified task generation: {options.n} tasks per row ({options.lang}, seed {options.seed})")
    for column in ("family", "level", "CPU s", f"CPU s per {BUDGET_TASKS:,}", "budget s", "ratio", "candidates",
                   "dropped", "commonest drop", "duplicates", "oracle", "noisy"):
        table.add_column(column, justify="left" if column in ("family", "commonest drop") else "right")
    for name in options.families:
        entry = family(name)
        if entry.generator is None or options.lang not in entry.generator().languages:
            continue
        generator = entry.generator()
        for level in sorted(LEVELS):
            started = time.process_time()
            try:
                made = generate(generator, options.n, seed=options.seed, difficulty=level, lang=options.lang)
            except GenerationError as exc:  # fewer distinct tasks than asked: say so in the row
                table.add_row(name, str(level), f"{time.process_time() - started:.2f}", "-", f"{BUDGET_SECONDS:.0f}",
                              "-", "-", "-", str(exc)[:60], "-", "-", "-")
                continue
            took = time.process_time() - started
            per_budget = took * BUDGET_TASKS / options.n
            tried = made.header["candidates"]
            dropped = made.header["dropped"]
            commonest = max(dropped.items(), key=lambda kv: kv[1])[0] if dropped else "-"
            table.add_row(name, str(level), f"{took:.2f}", f"{per_budget:.1f}", f"{BUDGET_SECONDS:.0f}",
                          f"{per_budget / BUDGET_SECONDS:.2f}", str(tried), f"{(tried - options.n) / tried:.1%}",
                          commonest, str(duplicates(made)), f"{success(name, made, options.sample, 'oracle'):.1%}",
                          f"{success(name, made, options.sample, 'noisy'):.1%}")
            print(f"done: {name} level {level} ({took:.1f} s)", file=sys.stderr, flush=True)
    Console(width=200).print(table)


if __name__ == "__main__":
    main()
