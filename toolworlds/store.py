"""The run store: runs, episodes, their calls and scores, in any SQL database SQLAlchemy speaks.

SQLite (`toolworlds.db`) by default; PostgreSQL or anything else via a URL. Each finished
episode is written in one transaction together with its calls, so a run killed at any
moment keeps every episode it finished and loses only the one in flight; `--resume`
skips what is already stored, failed episodes included (`--retry-failed` runs those again,
replacing each in one transaction, so a crash mid-retry still keeps the failure on record).
SQLite files use the write-ahead log (`-wal` and `-shm` files sit beside the database while
it is open) and an episode's calls go in as one statement: storing an episode costs less
than running it (bench/store.py).

Databases written by an older toolworlds lack columns added since (such as `episodes.error`);
opening one adds each missing column, all of them nullable, so old runs keep working.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import UniqueConstraint, event, insert, inspect, text
from sqlalchemy.engine import Engine
from sqlalchemy.schema import CreateColumn
from sqlmodel import Field, Session, SQLModel, col, create_engine, delete, select

DEFAULT_URL = "sqlite:///toolworlds.db"


class RunRow(SQLModel, table=True):
    __tablename__ = "runs"

    run_id: str = Field(primary_key=True)
    created_at: dt.datetime
    agent: str
    config: str = "{}"  # JSON: task sets, seed, noise, limits


class EpisodeRow(SQLModel, table=True):
    __tablename__ = "episodes"
    __table_args__ = (UniqueConstraint("run_id", "task_set", "task_id"),)

    id: int | None = Field(default=None, primary_key=True)
    run_id: str = Field(foreign_key="runs.run_id", index=True)
    task_set: str  # e.g. "banking/en"
    task_id: str
    category: str
    success: bool
    state_fraction: float
    process: float
    steps: int
    calls: int
    errors: int
    error_types: str = "{}"  # JSON: error type -> count
    finished: bool
    stop_reason: str = ""
    diff: str = "[]"  # JSON: field-level differences from the expected end state
    finished_at: dt.datetime
    # Why the episode failed (endpoint, agent, world, scoring or worker), None if it ran to its end.
    # Added after the first release: nullable, so opening an older database can add it.
    error: str | None = None
    # The episode's line of its benchmark's own result file (JSON), for tasks that write one.
    result_record: str | None = None


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


class ScoreRow(SQLModel, table=True):
    __tablename__ = "scores"

    id: int | None = Field(default=None, primary_key=True)
    run_id: str = Field(foreign_key="runs.run_id", index=True)
    task_set: str
    category: str
    metric: str
    value: float


class RunStore:
    """A handle on one database; tables are created on first use."""

    def __init__(self, url: str = DEFAULT_URL) -> None:
        self.url = url
        self.engine: Engine = create_engine(url)
        if self.engine.dialect.name == "sqlite":
            event.listen(self.engine, "connect", _sqlite_pragmas)
        SQLModel.metadata.create_all(self.engine)
        add_missing_columns(self.engine)

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
        with Session(self.engine) as session:
            if session.get(RunRow, run_id) is None:
                session.add(RunRow(run_id=run_id, created_at=dt.datetime.now(dt.timezone.utc), agent=agent,
                                   config=json.dumps(config, sort_keys=True)))
                session.commit()

    def run(self, run_id: str) -> RunRow | None:
        with Session(self.engine) as session:
            return session.get(RunRow, run_id)

    def runs(self) -> list[RunRow]:
        with Session(self.engine) as session:
            return list(session.exec(select(RunRow).order_by(col(RunRow.created_at))).all())

    def finished(self, run_id: str) -> set[tuple[str, str]]:
        """(task set, task id) of the episodes already stored for a run."""
        with Session(self.engine) as session:
            rows = session.exec(select(EpisodeRow.task_set, EpisodeRow.task_id).where(EpisodeRow.run_id == run_id))
            return {(task_set, task_id) for task_set, task_id in rows.all()}

    def failed(self, run_id: str) -> set[tuple[str, str]]:
        """(task set, task id) of the run's stored episodes that failed."""
        with Session(self.engine) as session:
            rows = session.exec(select(EpisodeRow.task_set, EpisodeRow.task_id)
                                .where(EpisodeRow.run_id == run_id, col(EpisodeRow.error).is_not(None)))
            return {(task_set, task_id) for task_set, task_id in rows.all()}

    def save_episode(self, episode: EpisodeRow, calls: Iterable[CallRow]) -> None:
        """Write an episode and its calls in one transaction, replacing a stored episode of the same
        task (a failed one being retried) in that same transaction."""
        with Session(self.engine) as session:
            old = session.exec(select(EpisodeRow.id).where(
                EpisodeRow.run_id == episode.run_id, EpisodeRow.task_set == episode.task_set,
                EpisodeRow.task_id == episode.task_id)).all()
            if old:
                session.exec(delete(CallRow).where(col(CallRow.episode_id).in_(old)))
                session.exec(delete(EpisodeRow).where(col(EpisodeRow.id).in_(old)))
                session.flush()
            session.add(episode)
            session.flush()
            # One executemany for all the calls, without a unit-of-work entry per call.
            values = [{**call.model_dump(exclude={"id"}), "episode_id": episode.id} for call in calls]
            if values:
                session.execute(insert(CallRow), values)
            session.commit()

    def episodes(self, run_id: str) -> list[EpisodeRow]:
        with Session(self.engine) as session:
            query = select(EpisodeRow).where(EpisodeRow.run_id == run_id).order_by(EpisodeRow.id)
            return list(session.exec(query).all())

    def calls(self, episode_id: int) -> list[CallRow]:
        with Session(self.engine) as session:
            query = select(CallRow).where(CallRow.episode_id == episode_id).order_by(CallRow.seq)
            return list(session.exec(query).all())

    def save_scores(self, run_id: str, scores: Sequence[ScoreRow]) -> None:
        """Replace a run's summary scores (recomputed whenever a run or resume ends)."""
        with Session(self.engine) as session:
            for old in session.exec(select(ScoreRow).where(ScoreRow.run_id == run_id)).all():
                session.delete(old)
            session.add_all(scores)
            session.commit()

    def scores(self, run_id: str) -> list[ScoreRow]:
        with Session(self.engine) as session:
            return list(session.exec(select(ScoreRow).where(ScoreRow.run_id == run_id)).all())


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


def add_missing_columns(engine: Engine) -> list[str]:
    """Add to existing tables the nullable columns the models have and the database lacks.

    `create_all` creates missing tables but never alters existing ones; a database from an
    older release would then fail on the first query naming a new column. Only nullable
    columns are ever added (so no existing row needs a value); returns "table.column" of each.
    """
    inspector = inspect(engine)
    added: list[str] = []
    with engine.begin() as connection:
        for table in SQLModel.metadata.sorted_tables:
            if not inspector.has_table(table.name):
                continue
            present = {column["name"] for column in inspector.get_columns(table.name)}
            for column in table.columns:
                if column.name in present or not column.nullable:
                    continue
                definition = CreateColumn(column).compile(dialect=engine.dialect)
                name = engine.dialect.identifier_preparer.format_table(table)
                connection.execute(text(f"ALTER TABLE {name} ADD COLUMN {definition}"))
                added.append(f"{table.name}.{column.name}")
    return added
