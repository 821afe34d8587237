"""The run store on SQLite: write-ahead log, and an episode's calls written in one statement."""

from __future__ import annotations

import datetime as dt
import sqlite3
from pathlib import Path

import pytest
from sqlalchemy.exc import InvalidRequestError

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


def _table_bytes(path: Path) -> dict[str, list[tuple[object, ...]]]:
    """Every row of every table, each value with its SQLite storage class (1 and 1.0 differ on disk); of the
    times (when a run started, when an episode was stored), which differ from one run to the next, their form."""
    with sqlite3.connect(path) as connection:
        tables = [name for (name,) in connection.execute("select name from sqlite_master where type = 'table'")]
        rows = {}
        for table in sorted(tables):
            columns = [row[1] for row in connection.execute(f"pragma table_info({table})")]
            typed = ", ".join(f"typeof({c}), {_form(c)}" for c in columns)
            rows[table] = connection.execute(f"select {typed} from {table} order by rowid").fetchall()
        return rows


def _form(column: str) -> str:
    """The column, or for a time its form (every digit a 0: '2026-01-02 03:04:05.000678' -> '0000-00-00 ...')."""
    if column not in ("created_at", "finished_at"):
        return column
    digits = column
    for digit in "123456789":
        digits = f"replace({digits}, '{digit}', '0')"
    return digits


def test_the_sqlite_lane_stores_the_rows_the_core_path_stores(tmp_path: Path) -> None:
    """The SQLite lane (the sqlite3 connection itself) against SQLAlchemy Core, through a real run: an oracle and
    a noisy agent's banking episodes (calls with errors, transcripts, tools, failed episodes) stored by each."""
    from scenarios.banking.family import load_tasks
    from toolworlds.runner import AgentSpec, TaskSet, execute_run

    tasks = load_tasks("en")[:12]
    stored = {}
    for lane in (False, True):
        path = tmp_path / f"lane-{lane}.db"
        store = RunStore(f"sqlite:///{path}", sqlite_lane=lane)
        assert (store._lane is not None) is lane
        for agent in (AgentSpec(), AgentSpec(kind="noisy", noise=0.5, seed=3)):
            execute_run(store, agent.kind, [TaskSet("banking", "en", tasks)], agent, workers=0)
        store.store_episode({**episode("t1", True).model_dump(exclude={"id"}), "tools": "[]", "trial": None},
                            [c.model_dump(exclude={"id", "episode_id"}) for c in calls("x", 2)], new=True)
        # Rows the lane cannot read in one step (columns missing: their defaults), rows it must convert (an integer
        # latency is stored as a real number), and rows naming an episode id of their own (the episode's wins).
        message = {"role": "user", "source": "user", "content": "x", "tool_calls": None, "call_text": None,
                   "tool_call_id": None, "prompt_tokens": 3, "completion_tokens": None, "episode_id": 99}
        bare_calls = [{"seq": seq, "arguments": "{}", "result": "1"} for seq in (0, 1)]
        store.store_episode({**episode("t2", True).model_dump(exclude={"id"})}, bare_calls,
                            [{**message, "seq": 0, "latency_ms": 12}, {**message, "seq": 1, "latency_ms": None},
                             {**message, "seq": 2, "latency_ms": 1.5}], new=True)
        without_content = {key: value for key, value in message.items() if key != "content"}
        store.store_episode({**episode("t3", True).model_dump(exclude={"id"})}, [], [{"seq": 0, **without_content}],
                            new=True)
        store.close()
        stored[lane] = _table_bytes(path)
    lane_rows, core_rows = stored[True], stored[False]
    assert len(core_rows["episodes"]) == 27 and len(core_rows["calls"]) > 50 and len(core_rows["messages"]) > 50
    assert lane_rows == core_rows



def test_a_records_columns_are_its_dump() -> None:
    """`record_columns` reads an `EpisodeRecord`'s own fields where the store used to dump it: the same dict, in
    the same order, for a run's record and a failed one; a subclass (an `EpisodeRow`) is dumped."""
    from toolworlds.episode_record import EpisodeRecord, record_columns

    ran = EpisodeRecord(task_set="banking/en", task_id="t", category="c", success=1, state_fraction=1, process=0,
                        steps=2, calls=1, errors=0, finished=True, tools="[]", trial=2, reason="r")
    for record in (ran, EpisodeRecord.failed("banking/en", "t\x00", "c", "boom \ud800", 1), episode("t3", True)):
        columns = record_columns(record)
        assert list(columns.items()) == list(record.model_dump().items())
        assert all(type(columns[name]) is type(value) for name, value in record.model_dump().items())
        columns["task_id"] = "changed"  # a fresh dict: the record keeps its own
        assert record.task_id != "changed"


def test_a_connection_with_a_transaction_open_is_refused_by_the_lane_as_by_the_core_path(tmp_path: Path) -> None:
    """The SQLite lane commits through the sqlite3 connection itself: never under a transaction SQLAlchemy holds
    open on it (a caller's), which the Core path refuses, and so does the lane; the store stays usable."""
    for lane in (False, True):
        store = RunStore(f"sqlite:///{tmp_path / f'lane-{lane}.db'}", sqlite_lane=lane)
        store.start_run("r", "oracle", {})
        with store.engine.connect() as connection:
            connection.exec_driver_sql("select 1")  # SQLAlchemy begins a transaction of its own
            with pytest.raises(InvalidRequestError):
                store.store_episode(episode("t1", True).model_dump(exclude={"id"}), new=True, connection=connection)
            connection.rollback()
            store.store_episode(episode("t1", True).model_dump(exclude={"id"}), new=True, connection=connection)
        assert [e.task_id for e in store.episodes("r")] == ["t1"]
        store.close()
