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
import hashlib
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console
from rich.table import Table
from sqlalchemy import event, insert, select
from sqlmodel import Session

from scenarios.banking.family import load_tasks
from toolworlds.runner import AgentSpec, Outcome, _store_outcomes, run_one
from toolworlds.store import CallRow, EpisodeRow, MessageRow, RunStore

Rows = tuple[EpisodeRow, list[CallRow], list[MessageRow]]


def rows(outcome: Outcome) -> Rows:
    """The ORM objects the runner made of an outcome before `store_episode`."""
    episode = EpisodeRow(run_id="bench", finished_at=dt.datetime.now(dt.UTC), **outcome.episode)
    return (episode, [CallRow(episode_id=0, **call) for call in outcome.calls],
            [MessageRow(episode_id=0, **message) for message in outcome.messages])


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


def earliest_save(store: RunStore, outcome: Outcome) -> None:
    """The store's earliest `save_episode`: one ORM object (and unit-of-work entry) per call and message."""
    episode, calls, messages = rows(outcome)
    with Session(store.engine) as session:
        session.add(episode)
        session.flush()
        for row in (*calls, *messages):
            row.episode_id = episode.id  # type: ignore[assignment]
            session.add(row)
        session.commit()


def earlier_save(store: RunStore, outcome: Outcome) -> None:
    """The store's `save_episode` before `store_episode`: ORM objects made, the episode added through a
    session, its calls and messages dumped from theirs into one insert per table."""
    episode, calls, messages = rows(outcome)
    with Session(store.engine) as session:
        old = session.execute(select(EpisodeRow.id).where(
            EpisodeRow.run_id == episode.run_id, EpisodeRow.task_set == episode.task_set,
            EpisodeRow.task_id == episode.task_id, EpisodeRow.trial == (episode.trial or 0))).all()
        assert not old
        session.add(episode)
        session.flush()
        for model, items in ((CallRow, calls), (MessageRow, messages)):
            values = [{**row.model_dump(exclude={"id"}), "episode_id": episode.id} for row in items]
            if values:
                session.execute(insert(model), values)
        session.commit()


def runner_save(store: RunStore, outcomes: list[Outcome]) -> None:
    """What `execute_run` does with the outcomes as they arrive."""
    _store_outcomes(store, "bench", outcomes, None, {})


def one_by_one(save: Callable[[RunStore, Outcome], None]) -> Callable[[RunStore, list[Outcome]], None]:
    def each(store: RunStore, outcomes: list[Outcome]) -> None:
        for outcome in outcomes:
            save(store, outcome)
    return each


def sqlite_floor_ms(outcomes: list[Outcome], folder: Path) -> float:
    """The floor under any store on SQLite: the same rows (the tools by hash, once) written with the standard
    library's `sqlite3` alone, one transaction per episode, into the store's own schema (WAL, NORMAL)."""
    path = folder / "floor.db"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    RunStore(f"sqlite:///{path}").close()  # the schema
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA synchronous=NORMAL")
    connection.execute("INSERT INTO runs (run_id, created_at, agent, config) VALUES ('bench', '', 'oracle', '{}')")
    known: set[str] = set()
    start = time.process_time()
    for outcome in outcomes:
        row = {**outcome.episode, "run_id": "bench", "finished_at": dt.datetime.now(dt.UTC).isoformat(" ")}
        tools = row.pop("tools", None)
        connection.execute("BEGIN")
        if tools is not None:
            row["tools_hash"] = key = hashlib.sha256(tools.encode()).hexdigest()[:32]
            if key not in known:
                connection.execute("INSERT OR IGNORE INTO toolsets (hash, tools) VALUES (?, ?)", (key, tools))
                known.add(key)
        names = ", ".join(row)
        episode_id = connection.execute(f"INSERT INTO episodes ({names}) VALUES ({', '.join('?' * len(row))})",
                                        tuple(row.values())).lastrowid
        for table, items in (("calls", outcome.calls), ("messages", outcome.messages)):
            if items:
                columns = [*items[0], "episode_id"]
                connection.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES "
                                       f"({', '.join('?' * len(columns))})",
                                       [(*item.values(), episode_id) for item in items])
        connection.execute("COMMIT")
    elapsed = time.process_time() - start
    connection.close()
    return elapsed / len(outcomes) * 1000


def store_ms(make: Callable[[str], RunStore], save: Callable[[RunStore, list[Outcome]], None],
             outcomes: list[Outcome], folder: Path, name: str, modes: dict[str, str]) -> float:
    """CPU milliseconds per stored episode, into a fresh database file."""
    path = folder / f"{name}.db"
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    store = make(f"sqlite:///{path}")
    store.start_run("bench", "oracle", {})
    modes[name] = pragmas(store)
    start = time.process_time()
    save(store, outcomes)
    elapsed = time.process_time() - start
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
    run, now, before, earliest, floor = [], [], [], [], []
    outcomes: list[Outcome] = []
    modes: dict[str, str] = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for _ in range(args.rounds):
            start = time.process_time()
            outcomes = [run_one("banking/en", task, spec) for task in tasks]
            run.append((time.process_time() - start) / len(tasks) * 1000)
            assert all(o.episode["success"] for o in outcomes), "the oracle failed: the figures would be of else"
            now.append(store_ms(RunStore, runner_save, outcomes, folder, "now", modes))
            before.append(store_ms(RunStore, one_by_one(earlier_save), outcomes, folder, "before", modes))
            earliest.append(store_ms(earlier_store, one_by_one(earliest_save), outcomes, folder, "earliest", modes))
            floor.append(sqlite_floor_ms(outcomes, folder))
    calls = sum(len(o.calls) for o in outcomes) / len(outcomes)
    messages = sum(len(o.messages) for o in outcomes) / len(outcomes)
    run_ms, now_ms, before_ms, earliest_ms, floor_ms = (statistics.median(samples)
                                                        for samples in (run, now, before, earliest, floor))
    table = Table(title=f"Run store: {len(tasks)} banking episodes ({calls:.1f} calls, {messages:.1f} messages "
                        f"each), CPU time, medians of {args.rounds} interleaved rounds, load {os.getloadavg()[0]:.2f}")
    for column in ("measure", "CPU ms per episode", "÷ running it"):
        table.add_column(column)
    table.add_row("run the episode (oracle agent, scored)", f"{run_ms:.2f}", "1.00")
    table.add_row(f"store it: earliest way ({modes['earliest']}, ORM object per row)",
                  f"{earliest_ms:.2f}", f"{earliest_ms / run_ms:.2f}")
    table.add_row(f"store it: baseline, the earlier way ({modes['before']}, ORM objects, rows dumped)",
                  f"{before_ms:.2f}", f"{before_ms / run_ms:.2f}")
    table.add_row(f"store it: ours, as the runner does ({modes['now']}, Core statements built once)",
                  f"{now_ms:.2f}", f"{now_ms / run_ms:.2f}")
    table.add_row("floor: the same rows through sqlite3 alone (no SQLAlchemy), one transaction each",
                  f"{floor_ms:.2f}", f"{floor_ms / run_ms:.2f}")
    table.add_row("baseline ÷ ours", f"{before_ms / now_ms:.2f}x", "")
    Console().print(table)


if __name__ == "__main__":
    main()
