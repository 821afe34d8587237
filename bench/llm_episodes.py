"""LLM episodes against a fast local endpoint: what a worker pays per episode for its SDK client.

Run: python bench/llm_episodes.py [--episodes 40] [--rounds 5]

Each episode is a banking multi-step task run by the LLM agent (`run_one`, as every backend runs
one) against an in-process chat endpoint that answers at once, so what is left is toolworlds'
own cost per episode. Two ways, interleaved round by round: the baseline makes an OpenAI SDK
client per episode (what every backend did before `SdkClients`), ours shares the worker's client
between its episodes. The endpoint keeps connections open (HTTP/1.1), as real ones do, and counts
them. Figures are medians over rounds of the mean per episode, wall and CPU; ratio = baseline /
ours (> 1: ours is faster). The machine load is printed with them.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console
from rich.table import Table

from scenarios.banking.family import load_tasks
from tests.fake_chat import Response, completion, serve
from toolworlds.llm import SdkClients
from toolworlds.runner import AgentSpec, run_one


def done(body: dict[str, Any]) -> Response:
    return Response(json.dumps(completion({"role": "assistant", "content": "Done."}, body["model"])).encode())


def one_round(spec: AgentSpec, tasks: list[Any], shared: bool) -> tuple[float, float]:
    """(wall ms, CPU ms) per episode over `tasks`, with one worker's shared clients or a client each."""
    clients = SdkClients() if shared else None
    wall, cpu = time.perf_counter(), time.process_time()
    for task in tasks:
        outcome = run_one("banking/en", task, spec, clients=clients)
        if outcome.episode["error"] is not None:
            raise SystemExit(f"episode failed: {outcome.episode['error']}")
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    if clients is not None:
        clients.close()
    return wall / len(tasks) * 1000, cpu / len(tasks) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--episodes", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    steps = [t for t in load_tasks("en") if t.category == "multi_step"]
    tasks = [steps[i % len(steps)] for i in range(args.episodes)]
    figures: dict[bool, list[tuple[float, float]]] = {False: [], True: []}
    counts: dict[bool, list[int]] = {False: [], True: []}
    for _ in range(args.rounds):
        for shared in (False, True):
            connections: list[tuple[str, int]] = []
            with serve(done, connections) as url:
                spec = AgentSpec("llm", model="m", base_url=url + "/v1", timeout=30)
                figures[shared].append(one_round(spec, tasks, shared))
            counts[shared].append(len(connections))
    table = Table(title=f"LLM episodes against a local endpoint ({args.episodes} per round, {args.rounds} rounds, "
                        f"load {os.getloadavg()[0]:.2f})")
    for column in ("per episode", "SDK client per episode (baseline)", "shared per worker (ours)", "ratio"):
        table.add_column(column)
    for index, what in enumerate(("wall", "CPU")):
        base = statistics.median(f[index] for f in figures[False])
        ours = statistics.median(f[index] for f in figures[True])
        table.add_row(f"{what} ms", f"{base:.2f}", f"{ours:.2f}", f"{base / ours:.2f}x")
    table.add_row("connections opened per round", str(statistics.median(counts[False])),
                  str(statistics.median(counts[True])), "-")
    Console(width=160).print(table)


if __name__ == "__main__":
    main()
