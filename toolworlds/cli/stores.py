"""The run store as the commands open it: one line saying why not, and its URL never printed with a password."""

from pathlib import Path
from typing import Any

from ..db_urls import hide_secret, shown_url
from .shared import fail

__all__ = ["hide_secret", "open_store", "shown_url"]


def open_store(db: str, *, existing: bool = False) -> Any:
    """The run store at `db`, or one line saying why not (the URL shown without its password).

    `existing`: the command only reads runs, so a SQLite file that is not there is an error rather
    than a new empty database left behind (`report --db sqlite:///typo.db` made one)."""
    from sqlalchemy.engine import make_url

    from sandbox.input_limits import exception_line

    from ..store import RunStore

    try:
        url = make_url(db)
    except Exception:
        hint = f"; for a SQLite file write sqlite:///{db}" if "://" not in db else ""
        raise fail(f"cannot open the run store: {db!r} is not a database URL{hint}") from None
    if existing and url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:") \
            and not Path(url.database).exists():
        raise fail(f"no run store at {url.database}: nothing has been stored there (check --db)")
    try:
        return RunStore(db)
    except Exception as exc:  # a bad URL or an unreachable server: say so in one line
        raise fail(f"cannot open the run store {shown_url(db)}: {hide_secret(db, exception_line(exc))}") from None
