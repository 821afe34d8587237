"""A run's machinery against the episodes it runs: `execute_run` beside a bare library loop, in CPU time.

Run: python bench/runs.py [--episodes 72] [--rounds 5] [--workers 1]
The bundled banking tasks (en and zh, 72) are repeated under new ids to make up `--episodes`.
- baseline, the bare library loop: for each task, its world (`task.world()`), its gold path
  sent to it (`world.execute`), the episode scored (`episode_scorer`); nothing stored.
- ours: `execute_run` with the oracle agent into a fresh SQLite file, as `toolworlds run` runs
  it (`--workers 0`: in this process; 1 or more: a pool of worker processes), the run's
  known-defective tasks included (cached per data set after the first run).
CPU time is this process's plus its children's (the worker processes, reaped at the end of the
run), so a pool's work counts wherever it ran. Rounds are interleaved; medians are printed:
episodes per CPU-second each, the ratio (ours ÷ baseline, higher is better), the machinery's share
of the run's CPU (1 - baseline ÷ ours) and the bytes on disk per stored episode. A last row times
the defective-task replay a run needs: the gold replay of each task set, against reading it back
from its cache; a row the floor of any stored run (each episode of the bare loop followed by its rows
written by sqlite3 alone and committed, as a run stores an episode when it ends) and the best ratio it
leaves, one with each task's data hash added at today's cost, and one timing the bare loop and the rows'
writing apart, which misses what the two cost each other when they take turns; with workers, a last row
the process pool's own floor (each task sent to a pebble pool and an outcome sent back, nothing run) and
the best ratio a run on such a pool could reach.
The machine load is printed with the figures, since other processes share the cores.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console
from rich.table import Table

from evaluators.task_score import episode_scorer
from scenarios.banking.family import load_tasks
from scenarios.taskhash import TaskHasher
from toolworlds.defects import known_defects
from toolworlds.process_backend import ProcessBackend
from toolworlds.runner import AgentSpec, Outcome, TaskSet, execute_run, run_one
from toolworlds.store import RunStore


def task_sets(episodes: int) -> list[TaskSet]:
    """`episodes` banking tasks, half en and half zh, the bundled ones repeated under new ids."""
    sets = []
    for lang, count in (("en", episodes - episodes // 2), ("zh", episodes // 2)):
        bundled = load_tasks(lang)
        tasks = [bundled[i % len(bundled)] if i < len(bundled) else
                 bundled[i % len(bundled)].model_copy(update={"id": f"{bundled[i % len(bundled)].id}~{i}"})
                 for i in range(count)]
        sets.append(TaskSet("banking", lang, tasks))
    return sets


def cpu() -> float:
    """CPU seconds of this process and of its children that have ended."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def bare(sets: list[TaskSet]) -> None:
    """The library loop a user would write: build, replay the gold path, score."""
    for task_set in sets:
        score = episode_scorer(task_set.family)
        for task in task_set.tasks:
            bare_episode(task, score, task_set.end_state_mode)


def bare_episode(task: Any, score: Callable[..., Any], mode: str) -> None:
    """One episode of the bare loop: its world built, its gold path sent to it, the episode scored."""
    world = task.world()
    process = list(task.paths[0]) if task.paths else []
    for message in process:
        world.execute(message)
    assert score(task, world, process, mode).success, "the gold path failed"


def run(sets: list[TaskSet], workers: int, folder: Path, name: str) -> int:
    """`execute_run` into a fresh database; its size in bytes once closed."""
    path = folder / f"{name}.db"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    store = RunStore(f"sqlite:///{path}")
    episodes = execute_run(store, "bench", sets, AgentSpec(), backend=ProcessBackend(workers))
    assert all(e.success for e in episodes), "the oracle failed an episode: the figures would be of something else"
    store.close()
    return sum(Path(f"{path}{suffix}").stat().st_size for suffix in ("", "-wal") if Path(f"{path}{suffix}").exists())


Row = tuple[object, ...]
FloorRows = list[tuple[Row, list[Row], list[Row]]]  # each episode's row, its calls' and its messages'


class FloorWriter:
    """What any stored run does beyond the bare loop, at its cheapest: each episode's rows (made beforehand,
    untimed) written by sqlite3 alone into the store's tables, prebuilt statements, one commit per episode (an
    episode finished is an episode kept)."""

    def __init__(self, path: Path, columns: int) -> None:
        self.connection = sqlite3.connect(path)
        self.connection.execute("PRAGMA journal_mode=WAL")
        self.connection.execute("PRAGMA synchronous=NORMAL")
        self.episode_sql = f"INSERT INTO episodes VALUES ({', '.join('?' * columns)})"
        self.call_sql = "INSERT INTO calls (episode_id, seq, tool, arguments, result, error_type, error_message) " \
                        "VALUES (?, ?, ?, ?, ?, ?, ?)"
        self.message_sql = "INSERT INTO messages (episode_id, seq, role, source, content, tool_calls, call_text, " \
                           "tool_call_id, prompt_tokens, completion_tokens, latency_ms) " \
                           "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"

    def store(self, episode: Row, calls: list[Row], messages: list[Row]) -> None:
        connection = self.connection
        number = connection.execute(self.episode_sql, episode).lastrowid
        connection.executemany(self.call_sql, [(number, *call) for call in calls])
        connection.executemany(self.message_sql, [(number, *message) for message in messages])
        connection.commit()

    def close(self) -> None:
        self.connection.close()


def stored_floor(rows: FloorRows, path: Path) -> None:
    """The rows of every episode written one episode after another (`FloorWriter`), nothing else in between."""
    writer = FloorWriter(path, len(rows[0][0]))
    for episode, calls, messages in rows:
        writer.store(episode, calls, messages)
    writer.close()


def interleaved_floor(sets: list[TaskSet], rows: FloorRows, path: Path) -> None:
    """The floor as a run meets it: each episode of the bare loop, then its rows written and committed
    (`FloorWriter`) before the next one starts, as a run stores an episode when it finishes. Timing the two
    loops apart leaves out what each costs the other when they take turns on one core (the database's writes
    and caches against the episodes' own data): 20-35% of the pair, measured on this machine."""
    writer = FloorWriter(path, len(rows[0][0]))
    stored = iter(rows)
    for task_set in sets:
        score = episode_scorer(task_set.family)
        for task in task_set.tasks:
            bare_episode(task, score, task_set.end_state_mode)
            writer.store(*next(stored))
    writer.close()


def hash_tasks(sets: list[TaskSet]) -> None:
    """Each task's data hash, a stored column (`scenarios.taskhash`), as a run makes it: once per task."""
    hasher = TaskHasher()
    for task_set in sets:
        for task in task_set.tasks:
            hasher.hash(task)


def floor_rows(sets: list[TaskSet], folder: Path) -> tuple[Path, FloorRows]:
    """An empty store of the run's tables and each episode's rows as `stored_floor` writes them."""
    path = folder / "floor.db"
    store = RunStore(f"sqlite:///{path}")
    store.start_run("floor", "oracle", {})
    store.close()
    with contextlib.closing(sqlite3.connect(path)) as connection:
        names = [row[1] for row in connection.execute("PRAGMA table_info(episodes)")]
    rows: FloorRows = []
    for task_set in sets:
        for task in task_set.tasks:
            outcome = run_one(task_set.name, task, AgentSpec(), task_set.end_state_mode)
            record = {**outcome.record.model_dump(), "id": None, "run_id": "floor",
                      "finished_at": "2026-01-01 00:00:00.000000", "task_hash": "0" * 16, "tools": None,
                      "tools_hash": "0" * 32}
            rows.append((tuple(record[name] for name in names),
                         [tuple(call[k] for k in ("seq", "tool", "arguments", "result", "error_type", "error_message"))
                          for call in outcome.calls],
                         [tuple(m[k] for k in ("seq", "role", "source", "content", "tool_calls", "call_text",
                                               "tool_call_id", "prompt_tokens", "completion_tokens", "latency_ms"))
                          for m in outcome.messages]))
    return path, rows


def _echo(task: object, outcome: Outcome) -> Outcome:
    return outcome


def pool_floor(sets: list[TaskSet], workers: int, outcome: Outcome) -> None:
    """The process pool's own floor: each task sent to a pebble pool of `workers` processes and an episode's
    outcome sent back, nothing run (the pool started and stopped, as a run does)."""
    from pebble import ProcessPool

    with ProcessPool(max_workers=workers) as pool:
        for future in [pool.schedule(_echo, args=(task, outcome)) for s in sets for task in s.tasks]:
            future.result()


def timed(action: Callable[[], object]) -> tuple[float, object]:
    start = cpu()
    result = action()
    return cpu() - start, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--episodes", type=int, default=72)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--workers", type=int, default=1, help="0: episodes in this process")
    args = parser.parse_args()
    sets = task_sets(args.episodes)
    n = sum(len(s.tasks) for s in sets)
    bare(task_sets(72))  # warm-up: templates, tool models, scorers
    baseline, ours, sizes, replay, cached, floor, stored, hashed, paired = [], [], [], [], [], [], [], [], []
    sample = run_one("banking/en", sets[0].tasks[0], AgentSpec())
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        cache = folder / "cache"
        os.environ["TOOLWORLDS_CACHE"] = str(cache)  # this benchmark's own defect cache, filled by its first run
        run(task_sets(72), args.workers, folder, "warm")
        empty, rows = floor_rows(sets, folder)
        target = folder / "stored-floor.db"
        for _ in range(args.rounds):
            seconds, _ = timed(lambda: bare(sets))
            baseline.append(seconds)
            seconds, size = timed(lambda: run(sets, args.workers, folder, "run"))
            ours.append(seconds)
            sizes.append(int(size))  # type: ignore[call-overload]
            for suffix in ("", "-wal", "-shm"):
                Path(f"{target}{suffix}").unlink(missing_ok=True)
            target.write_bytes(empty.read_bytes())
            seconds, _ = timed(lambda: stored_floor(rows, target))
            stored.append(seconds)
            for suffix in ("", "-wal", "-shm"):
                Path(f"{target}{suffix}").unlink(missing_ok=True)
            target.write_bytes(empty.read_bytes())
            seconds, _ = timed(lambda: interleaved_floor(sets, rows, target))
            paired.append(seconds)
            seconds, _ = timed(lambda: hash_tasks(sets))
            hashed.append(seconds)
            seconds, _ = timed(lambda: [known_defects("banking", lang, None, use_cache=False) for lang in ("en", "zh")])
            replay.append(seconds)
            seconds, _ = timed(lambda: [known_defects("banking", lang, None) for lang in ("en", "zh")])
            cached.append(seconds)
            if args.workers > 0:
                seconds, _ = timed(lambda: pool_floor(sets, args.workers, sample))
                floor.append(seconds)
    base_s, ours_s, replay_s, cached_s = (statistics.median(x) for x in (baseline, ours, replay, cached))
    table = Table(title=f"execute_run vs a bare loop: {n} oracle banking episodes, workers={args.workers}, medians "
                        f"of {args.rounds} interleaved rounds, CPU time, load {os.getloadavg()[0]:.2f}")
    for column in ("measure", "CPU s", "episodes per CPU-s", "ratio"):
        table.add_column(column)
    table.add_row("baseline: bare loop (build, replay gold, score)", f"{base_s:.3f}", f"{n / base_s:,.0f}", "1.00")
    table.add_row("ours: execute_run (stored, SQLite)", f"{ours_s:.3f}", f"{n / ours_s:,.0f}",
                  f"{base_s / ours_s:.2f}x")
    table.add_row("machinery's share of the run's CPU (1 - bare ÷ run)", f"{ours_s - base_s:.3f}",
                  "", f"{max(0.0, 1 - base_s / ours_s):.0%}")
    stored_s, hashed_s, paired_s = statistics.median(stored), statistics.median(hashed), statistics.median(paired)
    table.add_row("floor of a stored run: each episode of the bare loop, then its rows written by sqlite3 alone "
                  "and committed (as a run stores it)", f"{paired_s:.3f}", f"{n / paired_s:,.0f}",
                  f"best ratio {base_s / paired_s:.2f}x")
    floor_total = paired_s + hashed_s
    table.add_row("  + each task's data hash (scenarios.taskhash, a stored column) at today's cost",
                  f"{floor_total:.3f}", f"{n / floor_total:,.0f}",
                  f"best ratio {base_s / floor_total:.2f}x; share outside the bare loop "
                  f"{max(0.0, 1 - base_s / floor_total):.0%}")
    table.add_row("  the same two loops timed apart (the bare loop, then every episode's rows): what taking turns "
                  "costs is missing", f"{base_s + stored_s:.3f}", f"{n / (base_s + stored_s):,.0f}",
                  f"best ratio {base_s / (base_s + stored_s):.2f}x")
    table.add_row("bytes on disk per episode", "", f"{statistics.median(sizes) / n:,.0f}", "")
    table.add_row("defective tasks: gold replay of en and zh (baseline)", f"{replay_s:.4f}", "",
                  f"{replay_s / ours_s:.0%} of the run")
    table.add_row("defective tasks: read from the cache (ours)", f"{cached_s:.4f}", "",
                  f"{cached_s / ours_s:.1%} of the run; {replay_s / max(cached_s, 1e-9):,.0f}x less")
    if floor:
        floor_s = statistics.median(floor)
        table.add_row(f"floor: the process pool alone ({args.workers} worker(s): tasks sent, outcomes back)",
                      f"{floor_s:.3f}", "", f"best ratio over it {base_s / (base_s + floor_s):.2f}x")
    Console().print(table)


if __name__ == "__main__":
    main()
