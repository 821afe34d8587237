"""The run store on SQLite: write-ahead log, and an episode's calls written in one statement."""

from __future__ import annotations

import datetime as dt
import sqlite3
from pathlib import Path

from toolworlds.store import CallRow, EpisodeRow, RunStore


def episode(task_id: str, success: bool) -> EpisodeRow:
    return EpisodeRow(run_id="r", task_set="banking/en", task_id=task_id, category="c", success=success,
                      state_fraction=1.0, process=1.0, steps=1, calls=2, errors=0, finished=True,
                      finished_at=dt.datetime(2026, 1, 1, tzinfo=dt.UTC))


def calls(tag: str, count: int) -> list[CallRow]:
    return [CallRow(episode_id=0, seq=i, tool=f"{tag}{i}", arguments='{"a": 1}', result='"ok"',
                    error_type="E" if i else None, error_message="m" if i else None) for i in range(count)]


def test_sqlite_store_uses_the_write_ahead_log(tmp_path: Path) -> None:
    store = RunStore(f"sqlite:///{tmp_path / 'runs.db'}")
    with store.engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert connection.exec_driver_sql("PRAGMA synchronous").scalar() == 1  # NORMAL
    store.start_run("r", "oracle", {})
    store.save_episode(episode("t1", True), calls("a", 2))
    store.close()
    with sqlite3.connect(tmp_path / "runs.db") as connection:  # a plain reader sees the committed episode
        assert connection.execute("select count(*) from episodes").fetchone()[0] == 1


def test_an_episodes_calls_are_stored_whole_and_replaced_whole(tmp_path: Path) -> None:
    store = RunStore(f"sqlite:///{tmp_path / 'runs.db'}")
    store.start_run("r", "oracle", {})
    store.save_episode(episode("t1", False), calls("old", 3))
    store.save_episode(episode("t2", True), [])
    store.save_episode(episode("t1", True), calls("new", 2))  # a retry replaces the episode and its calls
    first, second = sorted(store.episodes("r"), key=lambda e: e.task_id)
    stored = [(c.seq, c.tool, c.arguments, c.result, c.error_type, c.error_message, c.episode_id)
              for c in store.calls(first.id)]  # type: ignore[arg-type]
    assert first.success and stored == [(0, "new0", '{"a": 1}', '"ok"', None, None, first.id),
                                        (1, "new1", '{"a": 1}', '"ok"', "E", "m", first.id)]
    assert store.calls(second.id) == []  # type: ignore[arg-type]
    with store.engine.connect() as connection:
        assert connection.exec_driver_sql("select count(*) from calls").scalar() == 2
