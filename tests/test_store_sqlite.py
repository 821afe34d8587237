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


def test_an_episode_said_to_be_new_that_is_stored_after_all_replaces_it(tmp_path: Path) -> None:
    store = RunStore(f"sqlite:///{tmp_path / 'runs.db'}")
    store.start_run("r", "oracle", {})
    row = episode("t1", False).model_dump(exclude={"id"})
    store.store_episode(row, [c.model_dump(exclude={"id", "episode_id"}) for c in calls("old", 3)], new=True)
    # Another process stored it meanwhile: the unique key refuses the insert, and the episode replaces it.
    store.store_episode({**row, "success": True}, [c.model_dump(exclude={"id", "episode_id"}) for c in calls("n", 1)],
                        new=True)
    (stored,) = store.episodes("r")
    assert stored.success and [c.tool for c in store.calls(stored.id)] == ["n0"]  # type: ignore[arg-type]
    with store.engine.connect() as connection:
        assert connection.exec_driver_sql("select count(*) from calls").scalar() == 1


def test_tools_are_kept_once_per_store_and_read_back_per_episode(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'runs.db'}"
    store = RunStore(url)
    store.start_run("r", "oracle", {})
    tools = '[{"type": "function", "function": {"name": "f"}}]'
    for task_id, offered in (("t1", tools), ("t2", tools), ("t3", "[]")):
        store.store_episode({**episode(task_id, True).model_dump(exclude={"id"}), "tools": offered}, new=True)
    store.close()
    store = RunStore(url)  # a new handle knows nothing of what the file holds: it reads it
    store.store_episode({**episode("t4", True).model_dump(exclude={"id"}), "tools": tools}, new=True)
    assert [store.tools(e) for e in store.episodes("r")] == [tools, tools, "[]", tools]
    with store.engine.connect() as connection:
        assert connection.exec_driver_sql("select count(*) from toolsets").scalar() == 2
        # A database from before `toolsets` holds the text in the episode itself, and reads it from there.
        connection.exec_driver_sql("update episodes set tools = 'old', tools_hash = NULL where task_id = 't1'")
        connection.commit()
    assert store.tools(store.episodes("r")[0]) == "old"
