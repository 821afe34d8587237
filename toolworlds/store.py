"""The run store: runs, episodes, their calls and scores, in any SQL database SQLAlchemy speaks.

SQLite (`toolworlds.db`) by default; PostgreSQL or anything else via a URL. Each finished
episode is written in one transaction together with its calls, so a run killed at any
moment keeps every episode it finished and loses only the one in flight; `--resume`
skips what is already stored, failed episodes included (`--retry-failed` runs those again,
replacing each in one transaction, so a crash mid-retry still keeps the failure on record).
SQLite files use the write-ahead log (`-wal` and `-shm` files sit beside the database while
it is open); an episode goes in as SQLAlchemy Core statements built once (no ORM object per
row, its calls and transcript one statement each) and the tools it offered are kept once per
store (`toolsets`): storing an episode costs a third of running it (bench/store.py). On SQLite, a new
episode's statements go through the sqlite3 connection itself (the SQLite lane, `RunStore(sqlite_lane=)`,
on with the speed lanes): the same rows, at near sqlite3's own cost.

Databases written by an older toolworlds lack columns and tables added since (such as
`episodes.error`, `episodes.trial`, `episodes.scorer_version`, the `messages` of transcripts); opening one adds each
missing column, all of them nullable, and each missing table, so old runs keep working. Such a
database's unique key of episodes has no trial: it holds one trial per task (`--trials 1`).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import operator
import sqlite3
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import UniqueConstraint, bindparam, event, func, insert, inspect, text
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.schema import CreateColumn, Table
from sqlmodel import Field, Session, SQLModel, col, create_engine, delete, select, update

from sandbox.lanes import LANES_ON

from .episode_record import EpisodeRecord, record_columns

DEFAULT_URL = "sqlite:///toolworlds.db"


class RunRow(SQLModel, table=True):
    __tablename__ = "runs"

    run_id: str = Field(primary_key=True)
    created_at: dt.datetime
    agent: str
    config: str = "{}"  # JSON: task sets, seed, noise, limits


class EpisodeRow(EpisodeRecord, table=True):
    """A stored episode: its record (`EpisodeRecord`, the one list of an episode's columns) and what only the
    driver knows of it: its run, when it was stored, its task data's hash."""

    __tablename__ = "episodes"
    __table_args__ = (UniqueConstraint("run_id", "task_set", "task_id", "trial"),)

    id: int | None = Field(default=None, primary_key=True)
    run_id: str = Field(foreign_key="runs.run_id", index=True)
    finished_at: dt.datetime
    # The hash of the task data the verdicts were given (`scenarios.taskhash`); NULL in older databases and
    # for episodes that could not be run or scored at all.
    task_hash: str | None = None
    tools_hash: str | None = None  # the key in `toolsets` of the tools the agent was given (`EpisodeRecord.tools`)


class ToolSetRow(SQLModel, table=True):
    """One set of tools offered to agents, as OpenAI tool schemas (JSON), by the hash of that text."""

    __tablename__ = "toolsets"

    hash: str = Field(primary_key=True)
    tools: str


class CallRow(SQLModel, table=True):
    __tablename__ = "calls"

    id: int | None = Field(default=None, primary_key=True)
    episode_id: int = Field(foreign_key="episodes.id", index=True)
    seq: int
    tool: str | None
    arguments: str
    result: str
    error_type: str | None = None
    error_message: str | None = None


class MessageRow(SQLModel, table=True):
    """One message of an episode's transcript, in the order it was said.

    `source` says who wrote it: "agent" (its system prompt and replies), "task" (the
    instruction of a single-turn task), "user" (the user simulator, its prompt included) or
    "world" (tool results). An assistant message's `tool_calls` are JSON
    `[{"id", "name", "arguments"}]`; when the world read the calls from text instead,
    `call_text` is that text, so replaying the transcript feeds the world the same input.
    """

    __tablename__ = "messages"

    id: int | None = Field(default=None, primary_key=True)
    episode_id: int = Field(foreign_key="episodes.id", index=True)
    seq: int
    role: str  # system | user | assistant | tool
    source: str
    content: str = ""
    tool_calls: str | None = None
    call_text: str | None = None
    tool_call_id: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    latency_ms: float | None = None


class ScoreRow(SQLModel, table=True):
    __tablename__ = "scores"

    id: int | None = Field(default=None, primary_key=True)
    run_id: str = Field(foreign_key="runs.run_id", index=True)
    task_set: str
    category: str
    metric: str
    value: float
    # The scorer versions of the group's episodes (", "-joined when they differ) and one hash over their
    # tasks' hashes; NULL in older databases.
    scorer_version: str | None = None
    data_hash: str | None = None


class RunStore:
    """A handle on one database; tables are created on first use.

    `sqlite_lane` (default: the speed lanes' switch, `sandbox.lanes.LANES_ON`) writes a new episode of a
    SQLite store through the sqlite3 connection itself (`_SqliteInserts`) instead of SQLAlchemy Core
    statements: the same rows, byte for byte (tests/test_store_sqlite.py holds the two to each other), at
    a fraction of the CPU. Other databases, and replacing a stored episode, always take the Core path."""

    def __init__(self, url: str = DEFAULT_URL, *, sqlite_lane: bool = LANES_ON) -> None:
        self.url = url
        self.engine: Engine = create_engine(url)
        if self.engine.dialect.name == "sqlite":
            event.listen(self.engine, "connect", _sqlite_pragmas)
        # One connection and one look at the tables there: those missing are created (with every column), those
        # there are given the columns they lack. Looking at each table by itself, twice, was a fixed 2 ms a run.
        with self.engine.begin() as connection:
            present = set(inspect(connection).get_table_names())
            missing = [table for table in SQLModel.metadata.sorted_tables if table.name not in present]
            if missing:
                SQLModel.metadata.create_all(connection, tables=missing)
            add_missing_columns(connection, [table.name for table in SQLModel.metadata.sorted_tables
                                             if table.name in present])
            self.one_trial_per_task = not _trial_in_unique_key(connection)
        self._tool_sets: set[str] = set()  # hashes this handle knows `toolsets` holds
        self._tool_keys: dict[str, str] = {}  # the hash of each tools text met lately (a run's episodes share a few)
        self._lane = _SqliteInserts.of(self.engine) if sqlite_lane and self.engine.dialect.name == "sqlite" else None

    def close(self) -> None:
        self.engine.dispose()

    def new_run_id(self) -> str:
        """The first free name of the form run-N (names given with --run-id are skipped over)."""
        with Session(self.engine) as session:
            taken = set(session.exec(select(RunRow.run_id)).all())
        number = len(taken) + 1
        while f"run-{number}" in taken:
            number += 1
        return f"run-{number}"

    def start_run(self, run_id: str, agent: str, config: dict[str, Any]) -> None:
        with self.engine.begin() as connection:  # Core statements: an ORM session cost a run ~0.5 ms each
            if connection.execute(_RUN_CONFIG, {"run": run_id}).first() is None:
                connection.execute(_RUN_INSERT, {"run_id": run_id, "created_at": dt.datetime.now(dt.UTC),
                                                 "agent": agent, "config": json.dumps(config, sort_keys=True)})

    def run(self, run_id: str) -> RunRow | None:
        with Session(self.engine) as session:
            return session.get(RunRow, run_id)

    def config_text(self, run_id: str) -> str | None:
        """A run's stored configuration as its JSON text ("{}" when empty), None when there is no such run:
        `run(run_id).config` without loading the run."""
        with self.engine.connect() as connection:
            row = connection.execute(_RUN_CONFIG, {"run": run_id}).first()
        return None if row is None else row[0] or "{}"

    def runs(self) -> list[RunRow]:
        with Session(self.engine) as session:
            return list(session.exec(select(RunRow).order_by(col(RunRow.created_at))).all())

    def set_config(self, run_id: str, config: dict[str, Any]) -> None:
        """Replace a run's stored configuration (a forced resume records itself there)."""
        with self.engine.begin() as connection:
            changed = connection.execute(_RUN_SET_CONFIG, {"run": run_id, "config": json.dumps(config, sort_keys=True)})
            if changed.rowcount == 0:
                raise KeyError(f"no run {run_id!r}")

    def finished(self, run_id: str) -> set[tuple[str, str, int]]:
        """(task set, task id, trial) of the episodes already stored for a run."""
        with self.engine.connect() as connection:
            return {(task_set, task_id, trial) for task_set, task_id, trial in
                    connection.execute(_FINISHED, {"run": run_id})}

    def failed(self, run_id: str) -> set[tuple[str, str, int]]:
        """(task set, task id, trial) of the run's stored episodes that failed."""
        with self.engine.connect() as connection:
            return {(task_set, task_id, trial) for task_set, task_id, trial in
                    connection.execute(_FAILED, {"run": run_id})}

    def save_episode(self, episode: EpisodeRow, calls: Iterable[CallRow], messages: Iterable[MessageRow] = ()
                     ) -> None:
        """Write an episode with its calls and transcript in one transaction, replacing a stored
        episode of the same task and trial (a failed one being retried) in that same transaction;
        `episode.id` is set to its new id."""
        row = episode.model_dump(exclude={"id"})
        episode.id = self.store_episode(row, [call.model_dump(exclude={"id", "episode_id"}) for call in calls],
                                        [message.model_dump(exclude={"id", "episode_id"}) for message in messages])

    def writer(self) -> AbstractContextManager[Connection]:
        """One connection held for many `store_episode(..., connection=)` calls (a run's outcomes): each
        episode is still its own transaction, without a checkout from the pool per episode."""
        return self.engine.connect()

    def store_episode(self, episode: Mapping[str, Any], calls: Sequence[Mapping[str, Any]] = (),
                      messages: Sequence[Mapping[str, Any]] = (), *, new: bool = False,
                      connection: Connection | None = None) -> int:
        """`save_episode` for rows as plain data (the columns of `EpisodeRow`, `CallRow` and `MessageRow`
        without ids), as a run's outcomes arrive: one transaction of SQLAlchemy Core statements, no ORM
        object per row. An episode's `tools` text goes to `toolsets` once per store; the episode keeps
        its hash. `new` says the caller knows no episode of this task and trial is stored, so none is
        looked for (should one be there after all, the insert is refused and the episode replaces it).
        `connection` (from `writer()`) is used instead of one from the pool. Returns the episode's id."""
        if connection is None:
            with self.engine.connect() as own:
                return self.store_episode(episode, calls, messages, new=new, connection=own)
        if new:
            try:
                if self._lane is not None and not connection.in_transaction():
                    return self._store_new_episode(connection, self._lane, episode, calls, messages)
                return self._store_episode(connection, episode, calls, messages, False)
            except (IntegrityError, sqlite3.IntegrityError):  # stored meanwhile (another process on this run):
                pass  # replace it after all
        return self._store_episode(connection, episode, calls, messages, True)

    def store_record(self, run_id: str, record: EpisodeRecord, calls: Sequence[Mapping[str, Any]] = (),
                     messages: Sequence[Mapping[str, Any]] = (), *, finished_at: dt.datetime,
                     task_hash: str | None = None, new: bool = False, connection: Connection | None = None) -> int:
        """`store_episode` for a worker's record: the row is the record's fields (`EpisodeRecord`) and the
        columns only the driver knows (its run, when it was stored, its task data's hash)."""
        row = record_columns(record)
        row.update(run_id=run_id, finished_at=finished_at, task_hash=task_hash)
        return self.store_episode(row, calls, messages, new=new, connection=connection)

    def _store_episode(self, connection: Connection, episode: Mapping[str, Any], calls: Sequence[Mapping[str, Any]],
                       messages: Sequence[Mapping[str, Any]], replace: bool) -> int:
        row = dict(episode)
        tools = row.pop("tools", None)
        key = None if tools is None else self._tools_key(tools)
        with connection.begin():
            if key is not None and tools is not None:
                if key not in self._tool_sets and connection.execute(_TOOLSET_KNOWN, {"key": key}).first() is None:
                    connection.execute(_TOOLSET_INSERT, {"hash": key, "tools": tools})
                row["tools_hash"] = key
            old = connection.execute(_STORED, {"run": row["run_id"], "set": row["task_set"], "task": row["task_id"],
                                               "trial": row.get("trial") or 0}).scalars().all() if replace else ()
            if old:
                connection.execute(delete(CallRow).where(col(CallRow.episode_id).in_(old)))
                connection.execute(delete(MessageRow).where(col(MessageRow.episode_id).in_(old)))
                connection.execute(delete(EpisodeRow).where(col(EpisodeRow.id).in_(old)))
            key_of_row: Any = connection.execute(_EPISODE_INSERT, row).inserted_primary_key
            episode_id = int(key_of_row[0])
            # One executemany per table.
            for statement, rows in ((_CALL_INSERT, calls), (_MESSAGE_INSERT, messages)):
                if rows:
                    connection.execute(statement, [{**item, "episode_id": episode_id} for item in rows])
        if key is not None:  # known only once committed: a rolled-back episode leaves no hash behind
            self._tool_sets.add(key)
        return episode_id

    def _tools_key(self, tools: str) -> str:
        """The `toolsets` key of a tools text: its hash, kept for the texts met lately. A run's episodes share a
        few texts of 10 KB, mostly the very same objects (`worker.offered_tools`), which a dict finds by
        identity and the hash Python keeps with each text: hashing 10 KB again was a tenth of storing one."""
        key = self._tool_keys.get(tools)
        if key is None:
            key = hashlib.sha256(tools.encode("utf-8", "surrogatepass")).hexdigest()[:32]
            if len(self._tool_keys) >= 64:
                self._tool_keys.clear()
            self._tool_keys[tools] = key
        return key

    def _store_new_episode(self, connection: Connection, lane: _SqliteInserts, episode: Mapping[str, Any],
                           calls: Sequence[Mapping[str, Any]], messages: Sequence[Mapping[str, Any]]) -> int:
        """`_store_episode` of an episode none is stored for, through the sqlite3 connection (the SQLite lane):
        the same statements in one transaction, the sqlite3 connection's own (`store_episode` takes it only on a
        connection with no SQLAlchemy transaction open)."""
        row = dict(episode)
        tools = row.pop("tools", None)
        key = None if tools is None else self._tools_key(tools)
        # The transaction is the sqlite3 connection's own (its implicit BEGIN, then commit or rollback here):
        # SQLAlchemy's begin and commit around it cost as much again as the inserts of a small episode.
        # Nothing of SQLAlchemy's is open on the connection meanwhile; the Core path begins its own.
        sqlite = connection.connection.driver_connection
        cursor = sqlite.cursor()  # type: ignore[union-attr]
        try:
            if key is not None and tools is not None:
                if key not in self._tool_sets and cursor.execute(
                        "SELECT 1 FROM toolsets WHERE hash = ?", (key,)).fetchone() is None:
                    cursor.execute(lane.toolset.sql, lane.toolset.values({"hash": key, "tools": tools}))
                row["tools_hash"] = key
            cursor.execute(lane.episode.sql, lane.episode.values(row))
            episode_id = int(cursor.lastrowid or 0)
            for insert_of, rows in ((lane.call, calls), (lane.message, messages)):
                if rows:
                    cursor.executemany(insert_of.sql, insert_of.episode_rows(rows, episode_id))
            sqlite.commit()  # type: ignore[union-attr]
        except BaseException:
            sqlite.rollback()  # type: ignore[union-attr]
            raise
        finally:
            cursor.close()
        if key is not None:
            self._tool_sets.add(key)
        return episode_id

    def tools(self, episode: EpisodeRow) -> str | None:
        """The tools an episode's agent was given, as JSON text (None when not stored)."""
        if episode.tools is not None or episode.tools_hash is None:
            return episode.tools
        with Session(self.engine) as session:
            row = session.get(ToolSetRow, episode.tools_hash)
            return None if row is None else row.tools

    def episodes(self, run_id: str) -> list[EpisodeRow]:
        with Session(self.engine) as session:
            query = select(EpisodeRow).where(EpisodeRow.run_id == run_id).order_by(col(EpisodeRow.id))
            return list(session.exec(query).all())

    def episode(self, episode_id: int) -> EpisodeRow | None:
        with Session(self.engine) as session:
            return session.get(EpisodeRow, episode_id)

    def calls(self, episode_id: int) -> list[CallRow]:
        with Session(self.engine) as session:
            query = select(CallRow).where(CallRow.episode_id == episode_id).order_by(col(CallRow.seq))
            return list(session.exec(query).all())

    def messages(self, episode_id: int) -> list[MessageRow]:
        """An episode's transcript in order (empty for episodes stored before transcripts were)."""
        with Session(self.engine) as session:
            query = select(MessageRow).where(MessageRow.episode_id == episode_id).order_by(col(MessageRow.seq))
            return list(session.exec(query).all())

    def save_scores(self, run_id: str, scores: Sequence[ScoreRow]) -> None:
        """Replace a run's summary scores (recomputed whenever a run or resume ends)."""
        self.save_score_rows(run_id, [score.model_dump(exclude={"id"}) for score in scores])

    def save_score_rows(self, run_id: str, rows: Sequence[Mapping[str, Any]]) -> None:
        """`save_scores` for rows as plain data (the columns of `ScoreRow` without its id)."""
        with self.engine.begin() as connection:  # Core statements: no ORM object loaded to be deleted
            connection.execute(delete(ScoreRow).where(col(ScoreRow.run_id) == run_id))
            if rows:
                connection.execute(_SCORE_INSERT, rows)

    def scores(self, run_id: str) -> list[ScoreRow]:
        with Session(self.engine) as session:
            return list(session.exec(select(ScoreRow).where(ScoreRow.run_id == run_id)).all())


# The statements storing an episode, built once: building one per episode was a third of storing it.
_EPISODE_INSERT = insert(EpisodeRow)
_CALL_INSERT = insert(CallRow)
_MESSAGE_INSERT = insert(MessageRow)
_TOOLSET_INSERT = insert(ToolSetRow)
_SCORE_INSERT = insert(ScoreRow)
_RUN_INSERT = insert(RunRow)
_RUN_CONFIG = select(RunRow.config).where(RunRow.run_id == bindparam("run"))
_RUN_SET_CONFIG = update(RunRow).where(col(RunRow.run_id) == bindparam("run")).values(config=bindparam("config"))
_FINISHED = select(EpisodeRow.task_set, EpisodeRow.task_id, func.coalesce(EpisodeRow.trial, 0)).where(
    EpisodeRow.run_id == bindparam("run"))
_FAILED = _FINISHED.where(col(EpisodeRow.error).is_not(None))
_TOOLSET_KNOWN = select(ToolSetRow.hash).where(ToolSetRow.hash == bindparam("key"))
_STORED = select(EpisodeRow.id).where(
    EpisodeRow.run_id == bindparam("run"), EpisodeRow.task_set == bindparam("set"),
    EpisodeRow.task_id == bindparam("task"), func.coalesce(EpisodeRow.trial, 0) == bindparam("trial"))


@dataclass(frozen=True)
class _TableInsert:
    """An INSERT of every column of one table but its id, as sqlite3 takes it: the SQL, and per column its
    name, the default SQLAlchemy would give it when a row lacks it, and SQLAlchemy's own conversion of its
    values for this dialect (booleans to 0/1, datetimes to text), so the stored bytes are the Core path's."""

    sql: str
    columns: tuple[tuple[str, Any, Callable[[Any], Any] | None], ...]
    processors: tuple[tuple[int, Callable[[Any], Any]], ...]  # (position, conversion) of the columns with one
    # Reads a row's values of every column after the first, in order, where the first is `episode_id`.
    rest: Callable[[Mapping[str, Any]], tuple[Any, ...]] | None = None

    @classmethod
    def of(cls, table: Table, engine: Engine) -> _TableInsert:
        dialect = engine.dialect
        columns = []
        for column in table.columns:
            if column.primary_key and column.autoincrement in (True, "auto") and column.name == "id":
                continue
            default = column.default
            if default is not None and not getattr(default, "is_scalar", False):
                raise ValueError(f"{table.name}.{column.name}: only scalar defaults are written by the SQLite lane")
            columns.append((column.name, None if default is None else getattr(default, "arg", None),
                            column.type.dialect_impl(dialect).bind_processor(dialect)))
        names = ", ".join(dialect.identifier_preparer.quote(name) for name, _, _ in columns)
        marks = ", ".join("?" for _ in columns)
        after = [name for name, _, _ in columns[1:]]
        rest = operator.itemgetter(*after) if columns[0][0] == "episode_id" and len(after) > 1 else None
        return cls(f"INSERT INTO {dialect.identifier_preparer.format_table(table)} ({names}) VALUES ({marks})",
                   tuple(columns), tuple((at, process) for at, (_, _, process) in enumerate(columns) if process), rest)

    def episode_rows(self, rows: Sequence[Mapping[str, Any]], episode_id: int) -> list[tuple[Any, ...]]:
        """`values` of each of an episode's rows (calls, messages) with its id as their `episode_id`, the table's
        first column. A row holding every other column (as a worker's do) is read in one step, not by name: naming
        each column of each row was a tenth of storing an episode."""
        if self.rest is None:
            return [self.values({**item, "episode_id": episode_id}) for item in rows]
        try:
            made = [(episode_id, *self.rest(item)) for item in rows]
        except KeyError:  # a row without some column: each by name, with the column's default
            return [self.values({**item, "episode_id": episode_id}) for item in rows]
        return [self._processed(values) for values in made] if self.processors else made

    def _processed(self, values: tuple[Any, ...]) -> tuple[Any, ...]:
        """`values` with SQLAlchemy's conversion applied to each converted column that is not NULL."""
        if all(values[at] is None for at, _ in self.processors):
            return values
        converted = list(values)
        for at, process in self.processors:
            if converted[at] is not None:
                converted[at] = process(converted[at])
        return tuple(converted)

    def values(self, row: Mapping[str, Any]) -> tuple[Any, ...]:
        """The row's values in column order (a name that is no column is passed over, as Core does)."""
        values = [row.get(name, default) for name, default, _ in self.columns]
        for at, process in self.processors:
            if values[at] is not None:
                values[at] = process(values[at])
        return tuple(values)


@dataclass(frozen=True)
class _SqliteInserts:
    """The SQLite lane's statements, built once per store."""

    episode: _TableInsert
    call: _TableInsert
    message: _TableInsert
    toolset: _TableInsert

    @classmethod
    def of(cls, engine: Engine) -> _SqliteInserts:
        return cls(*(_TableInsert.of(model.__table__, engine)  # type: ignore[union-attr]
                     for model in (EpisodeRow, CallRow, MessageRow, ToolSetRow)))


def _sqlite_pragmas(connection: Any, _record: Any) -> None:
    """Write-ahead log, synced at checkpoints rather than at every commit.

    A commit in WAL mode is one append to the log; with synchronous=NORMAL it is durable
    against the process dying (kill -9 included: the log is in the OS's hands the moment the
    commit returns) and may lose only the last commits to a power cut or kernel crash, never
    corrupting the file. Readers (`toolworlds show`, reports) no longer block the writer.
    """
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def _trial_in_unique_key(engine: Engine | Connection) -> bool:
    """Whether the episodes table's unique key includes the trial (databases from before trials lack it,
    and can then hold only one trial of each task)."""
    keys = inspect(engine).get_unique_constraints("episodes")
    return any("trial" in key["column_names"] for key in keys)


def add_missing_columns(engine: Engine | Connection, tables: Sequence[str] | None = None) -> list[str]:
    """Add to existing tables the nullable columns the models have and the database lacks.

    `create_all` creates missing tables but never alters existing ones; a database from an
    older release would then fail on the first query naming a new column. Only nullable
    columns are ever added (so no existing row needs a value); returns "table.column" of each.
    Given a connection, its own transaction holds the changes (and the look at what is there); given
    `tables`, the names of the tables the database is known to hold, only those are looked at.
    """
    if not isinstance(engine, Connection):
        with engine.begin() as connection:
            return add_missing_columns(connection, tables)
    connection = engine
    inspector = inspect(connection)
    dialect = connection.dialect
    added: list[str] = []
    for table in SQLModel.metadata.sorted_tables:
        if (table.name not in tables) if tables is not None else not inspector.has_table(table.name):
            continue
        present = {column["name"] for column in inspector.get_columns(table.name)}
        for column in table.columns:
            if column.name in present or not column.nullable:
                continue
            definition = CreateColumn(column).compile(dialect=dialect)
            name = dialect.identifier_preparer.format_table(table)
            connection.execute(text(f"ALTER TABLE {name} ADD COLUMN {definition}"))
            added.append(f"{table.name}.{column.name}")
    return added
