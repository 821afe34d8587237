"""Run store benchmark: storing one finished episode beside running it, and beside the store's old way.

Run: python bench/store.py [--episodes 72] [--rounds 5]
Each bundled banking task (en) is run once by the oracle agent (`run_one`, scored, as a
worker does); then the outcomes are stored into a fresh SQLite file, one transaction per
episode exactly as `execute_run` does, by
- the store as it is (WAL journal, synchronous=NORMAL, calls inserted in one statement), and
- the store's earlier way (rollback journal, synchronous=FULL, one ORM object per call),
interleaved over rounds; medians are printed with the ratio to running the episode. The
issue this answers: "writing one episode to SQLite costs 2-4x running it". The machine load
is printed with the figures, since other processes share the cores.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console
from rich.table import Table
from sqlalchemy import event
from sqlmodel import Session

from scenarios.banking.family import load_tasks
from toolworlds.runner import AgentSpec, Outcome, run_one
from toolworlds.store import CallRow, EpisodeRow, RunStore


def rows(outcome: Outcome) -> tuple[EpisodeRow, list[CallRow]]:
    episode = EpisodeRow(run_id="bench", finished_at=dt.datetime.now(dt.UTC), **outcome.episode)
    return episode, [CallRow(episode_id=0, **call) for call in outcome.calls]


def earlier_store(url: str) -> RunStore:
    """A store whose connections use SQLite's defaults (rollback journal, synchronous=FULL)."""
    store = RunStore(url)

    @event.listens_for(store.engine, "connect")
    def defaults(connection, _record):  # type: ignore[no-untyped-def]  # runs after the store's own pragmas
        cursor = connection.cursor()
        cursor.execute("PRAGMA journal_mode=DELETE")
        cursor.execute("PRAGMA synchronous=FULL")
        cursor.close()

    store.engine.dispose()
    return store


def pragmas(store: RunStore) -> str:
    with store.engine.connect() as connection:
        journal = connection.exec_driver_sql("PRAGMA journal_mode").scalar()
        synchronous = connection.exec_driver_sql("PRAGMA synchronous").scalar()
    return f"{journal}, synchronous={ {0: 'OFF', 1: 'NORMAL', 2: 'FULL', 3: 'EXTRA'}[synchronous]}"


def earlier_save(store: RunStore, episode: EpisodeRow, calls: list[CallRow]) -> None:
    """The store's earlier `save_episode`: one ORM object (and unit-of-work entry) per call."""
    with Session(store.engine) as session:
        session.add(episode)
        session.flush()
        for call in calls:
            call.episode_id = episode.id  # type: ignore[assignment]
            session.add(call)
        session.commit()


def store_ms(make: Callable[[str], RunStore], save: Callable[[RunStore, EpisodeRow, list[CallRow]], None],
             outcomes: list[Outcome], folder: Path, name: str, modes: dict[str, str]) -> float:
    """Milliseconds per stored episode, into a fresh database file."""
    path = folder / f"{name}.db"
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    store = make(f"sqlite:///{path}")
    store.start_run("bench", "oracle", {})
    modes[name] = pragmas(store)
    prepared = [rows(outcome) for outcome in outcomes]
    start = time.perf_counter()
    for episode, calls in prepared:
        save(store, episode, calls)
    elapsed = time.perf_counter() - start
    store.close()
    return elapsed / len(outcomes) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--episodes", type=int, default=72)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    tasks = load_tasks("en")
    tasks = [tasks[i % len(tasks)].model_copy(update={"id": f"{tasks[i % len(tasks)].id}~{i}"})
             for i in range(args.episodes)]
    spec = AgentSpec()
    run, now, before = [], [], []
    outcomes: list[Outcome] = []
    modes: dict[str, str] = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for _ in range(args.rounds):
            start = time.perf_counter()
            outcomes = [run_one("banking/en", task, spec) for task in tasks]
            run.append((time.perf_counter() - start) / len(tasks) * 1000)
            assert all(o.episode["success"] for o in outcomes), "the oracle failed: the figures would be of else"
            now.append(store_ms(RunStore, RunStore.save_episode, outcomes, folder, "now", modes))
            before.append(store_ms(earlier_store, earlier_save, outcomes, folder, "before", modes))
    calls = sum(len(o.calls) for o in outcomes) / len(outcomes)
    run_ms, now_ms, before_ms = (statistics.median(samples) for samples in (run, now, before))
    table = Table(title=f"Run store: {len(tasks)} banking episodes ({calls:.1f} calls each), medians of "
                        f"{args.rounds} interleaved rounds, load {os.getloadavg()[0]:.2f}")
    for column in ("measure", "ms per episode", "÷ running it"):
        table.add_column(column)
    table.add_row("run the episode (oracle agent, scored)", f"{run_ms:.2f}", "1.00")
    table.add_row(f"store it: earlier way ({modes['before']}, ORM object per call)",
                  f"{before_ms:.2f}", f"{before_ms / run_ms:.2f}")
    table.add_row(f"store it: now ({modes['now']}, calls in one insert)", f"{now_ms:.2f}", f"{now_ms / run_ms:.2f}")
    table.add_row("earlier ÷ now", f"{before_ms / now_ms:.2f}x", "")
    Console().print(table)


if __name__ == "__main__":
    main()
