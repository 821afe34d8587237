"""LLM episodes against a fast local endpoint: what a worker pays per episode for its SDK client and requests.

Run: python bench/llm_episodes.py [--episodes 40] [--rounds 5]

Each episode is a banking multi-step task run by the LLM agent (`run_one`, as every backend runs
one) against an in-process chat endpoint that answers at once, so what is left is the client
side's cost per episode. Three ways, interleaved round by round:
- before: a new OpenAI SDK client per episode, each request through `chat.completions.create`
  (which first walks the messages and tool schemas against the SDK's typed parameters);
- a worker's SDK client shared by its episodes (`SdkClients`), requests still through `create`;
- ours: the shared client, each request's body sent as it is (the SDK's `post`).
The endpoint keeps connections open (HTTP/1.1), as real ones do, and counts them. Figures are
medians over rounds of the mean per episode, wall and CPU; ratio = before / ours (> 1: ours is
faster). The machine load is printed with them.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import openai
from rich.console import Console
from rich.table import Table

from scenarios.banking.family import load_tasks
from tests.fake_chat import Response, say, serve
from toolworlds.llm import SdkClients
from toolworlds.runner import AgentSpec, run_one


class ThroughCreate:
    """An SDK client as `ChatClient` used it before: requests through `chat.completions.create`."""

    def __init__(self, sdk: Any) -> None:
        self.sdk = sdk

    def post(self, path: str, *, content: bytes, **_: Any) -> Any:
        """The request `ChatClient` sends as bytes, made through `create` again; its raw reply, already read,
        is what `ChatClient` reads the body from."""
        raw = self.sdk.chat.completions.with_raw_response.create(**json.loads(content))
        return SimpleNamespace(response=raw.http_response)


class Before:
    """Stands in for a worker's `SdkClients`: a new SDK client for every `ChatClient` (every episode), as before."""

    def client(self, base_url: str, api_key: str, timeout: float, retries: int) -> Any:
        return ThroughCreate(openai.OpenAI(base_url=base_url, api_key=api_key, timeout=timeout, max_retries=retries))

    def close(self) -> None:
        pass


class SharedThroughCreate(SdkClients):
    """A worker's shared SDK clients, requests still through `create`."""

    def client(self, base_url: str, api_key: str, timeout: float, retries: int) -> Any:
        return ThroughCreate(super().client(base_url, api_key, timeout, retries))


WAYS = {"before": Before, "shared client, create": SharedThroughCreate, "ours": SdkClients}


def done(body: dict[str, Any]) -> Response:
    return say("Done.")


def one_round(spec: AgentSpec, tasks: list[Any], way: str) -> tuple[float, float]:
    """(wall ms, CPU ms) per episode over `tasks`, the SDK clients made and used the `way` named."""
    clients = WAYS[way]()
    wall, cpu = time.perf_counter(), time.process_time()
    for task in tasks:
        outcome = run_one("banking/en", task, spec, clients=clients)  # type: ignore[arg-type]
        if outcome.episode["error"] is not None:
            raise SystemExit(f"episode failed: {outcome.episode['error']}")
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    clients.close()
    return wall / len(tasks) * 1000, cpu / len(tasks) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--episodes", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    steps = [t for t in load_tasks("en") if t.category == "multi_step"]
    tasks = [steps[i % len(steps)] for i in range(args.episodes)]
    figures: dict[str, list[tuple[float, float]]] = {way: [] for way in WAYS}
    counts: dict[str, list[int]] = {way: [] for way in WAYS}
    for _ in range(args.rounds):
        for way in WAYS:
            connections: list[tuple[str, int]] = []
            with serve(done, connections) as url:
                spec = AgentSpec("llm", model="m", base_url=url + "/v1", timeout=30)
                figures[way].append(one_round(spec, tasks, way))
            counts[way].append(len(connections))
    table = Table(title=f"LLM episodes against a local endpoint ({args.episodes} per round, {args.rounds} rounds, "
                        f"load {os.getloadavg()[0]:.2f})")
    table.add_column("per episode")
    for way in WAYS:
        table.add_column(way)
    table.add_column("ratio")
    for index, what in enumerate(("wall ms", "CPU ms")):
        medians = [statistics.median(f[index] for f in figures[way]) for way in WAYS]
        table.add_row(what, *(f"{m:.2f}" for m in medians), f"{medians[0] / medians[-1]:.2f}x")
    table.add_row("connections opened per round", *(f"{statistics.median(counts[way]):g}" for way in WAYS), "-")
    Console(width=160).print(table)


if __name__ == "__main__":
    main()
