"""Backends benchmark: the oracle agent over 1,000 banking episodes with `--backend process`
(in the driver's own process, one worker process and two) and `--backend ray` (two actors on
a local Ray), side by side.

Run: python bench/backends.py [--episodes 1000] [--workers 2] [--no-ray]
Every run goes through `execute_run`, as `toolworlds run` does: episodes scored and each
stored in its own SQLite transaction by the driver. The 72 bundled banking tasks are
repeated under new ids to make up the count. Ray's own start (`ray.init`) is paid once per
`toolworlds run` and is shown apart; "to first episode" is the backend's start-up inside the
run (process pool, or actors taking the tasks), "steady" the time per episode after it.
Each backend is also timed alone (its outcomes drained, nothing stored), which shows what
the backend itself costs, apart from the driver's SQLite commits. The per-episode overhead
is Ray's steady time per episode minus the process pool's, with as many workers, beside
the round trip of one actor call carrying an episode's outcome. The machine load is
printed with the figures, since other processes share the cores.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console
from rich.table import Table
from timing import p50_p90

from scenarios.banking.family import load_tasks
from toolworlds.process_backend import ProcessBackend
from toolworlds.ray_backend import RayBackend, import_ray
from toolworlds.runner import AgentSpec, Backend, Outcome, TaskSet, execute_run, run_one
from toolworlds.store import RunStore


@dataclass
class Timing:
    name: str
    episodes: int
    wall: float  # seconds, whole run
    first: float  # seconds to the first stored episode

    @property
    def rate(self) -> float:
        return self.episodes / self.wall

    @property
    def steady_ms(self) -> float:
        """Wall milliseconds per episode after the first arrived."""
        return (self.wall - self.first) / max(1, self.episodes - 1) * 1000


def task_sets(episodes: int) -> list[TaskSet]:
    """`episodes` banking tasks, half en and half zh, the bundled ones repeated under new ids."""
    sets = []
    for lang, count in (("en", episodes - episodes // 2), ("zh", episodes // 2)):
        bundled = load_tasks(lang)
        tasks = [bundled[i % len(bundled)].model_copy(update={"id": f"{bundled[i % len(bundled)].id}~{i}"})
                 for i in range(count)]
        sets.append(TaskSet("banking", lang, tasks))
    return sets


def drained(name: str, backend: Backend, sets: list[TaskSet]) -> Timing:
    """The backend alone: every outcome received, none stored."""
    pending = [(s.name, task, s.end_state_mode, 0) for s in sets for task in s.tasks]
    arrivals = []
    start = time.perf_counter()
    for outcome in backend.outcomes(pending, AgentSpec()):
        assert outcome.episode["success"], "the oracle failed an episode: the figures would be of something else"
        arrivals.append(time.perf_counter())
    return Timing(name, len(arrivals), arrivals[-1] - start, arrivals[0] - start)


def timed(name: str, backend: Backend, sets: list[TaskSet], folder: Path) -> Timing:
    store = RunStore(f"sqlite:///{folder / (name.replace(' ', '_') + '.db')}")
    arrivals: list[float] = []
    start = time.perf_counter()
    episodes = execute_run(store, "bench", sets, AgentSpec(), backend=backend,
                           on_done=lambda _: arrivals.append(time.perf_counter()))
    wall = time.perf_counter() - start
    assert all(e.success for e in episodes), "the oracle failed an episode: the figures would be of something else"
    store.close()
    return Timing(name, len(episodes), wall, arrivals[0] - start)


class Echo:
    """An actor that hands back an outcome it holds: one call is Ray's round trip for one episode."""

    def __init__(self, outcome: Outcome) -> None:
        self.outcome = outcome

    def run(self, task_set: str, task_id: str) -> Outcome:
        return self.outcome


def actor_round_trip_us(ray: Any, outcome: Outcome, calls: int = 500) -> tuple[float, float]:
    actor = ray.remote(num_cpus=0)(Echo).remote(outcome)
    ray.get(actor.run.remote("banking/en", "x"))
    samples = []
    for _ in range(calls):
        start = time.perf_counter_ns()
        ray.get(actor.run.remote("banking/en", "x"))
        samples.append((time.perf_counter_ns() - start) / 1000)
    ray.kill(actor)
    return p50_p90(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--episodes", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2, help="processes, and actors (the machine's cores)")
    parser.add_argument("--no-ray", action="store_true", help="the process backend's rows only")
    args = parser.parse_args()
    load_before = os.getloadavg()
    sets = task_sets(args.episodes)
    process = {f"process, {n} worker{'s' if n > 1 else ''}" if n else "process, in the driver (0 workers)":
               ProcessBackend(n) for n in (0, 1, args.workers)}
    drained("warm-up", ProcessBackend(0), task_sets(144))  # templates and caches built before any row is timed
    with tempfile.TemporaryDirectory() as folder:
        stored = [timed(name, backend, sets, Path(folder)) for name, backend in process.items()]
        alone = [drained(name, backend, sets) for name, backend in process.items()]
        if not args.no_ray:
            ray_rows(args, sets, Path(folder), stored, alone)
    load_after = os.getloadavg()

    table = Table(title=f"backends: oracle agent, {args.episodes} banking episodes ({os.cpu_count()} cores)")
    for column in ("backend", "what is timed", "wall", "episodes/s", f"vs process, {args.workers} workers",
                   "to first episode", "steady ms/episode"):
        table.add_column(column)
    for what, timings in (("run, stored", stored), ("backend alone", alone)):
        base = timings[2]
        for timing in timings:
            table.add_row(timing.name, what, f"{timing.wall:.2f} s", f"{timing.rate:,.0f}",
                          f"{timing.rate / base.rate:.2f}x", f"{timing.first:.2f} s", f"{timing.steady_ms:.2f}")
    Console().print(table)
    print(f"load average (1, 5, 15 min) before: {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f}; "
          f"after: {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f}")


def ray_rows(args: argparse.Namespace, sets: list[TaskSet], folder: Path, stored: list[Timing],
             alone: list[Timing]) -> None:
    """Time the Ray backend (appended to `stored` and `alone`) and print what Ray adds per episode."""
    ray = import_ray(local=True)
    start = time.perf_counter()
    ray.init(num_cpus=args.workers, include_dashboard=False, logging_level="WARNING", log_to_driver=False)
    ray_start = time.perf_counter() - start
    try:
        name = f"ray, {args.workers} actors"
        stored.append(timed(name, RayBackend(workers=args.workers), sets, folder))
        alone.append(drained(name, RayBackend(workers=args.workers), sets))
        trip = actor_round_trip_us(ray, run_one("banking/en", sets[0].tasks[0], AgentSpec()))
    finally:
        ray.shutdown()
    print(f"ray.init (a local Ray of {args.workers} CPUs, once per run): {ray_start:.2f} s")
    for what, timings in (("run, stored", stored), ("backend alone", alone)):
        base, ray_timing = timings[2], timings[3]
        extra = ray_timing.steady_ms - base.steady_ms
        print(f"overhead Ray adds per episode vs {base.name} ({what}): steady {extra:+.2f} ms of wall time "
              f"({extra * args.workers:+.2f} ms of worker time); whole run incl. start-up "
              f"{(ray_timing.wall - base.wall) / args.episodes * 1000:+.2f} ms")
    print(f"one actor call returning an episode's outcome (p50, p90): {trip[0]:,.0f} us, {trip[1]:,.0f} us")


if __name__ == "__main__":
    main()
