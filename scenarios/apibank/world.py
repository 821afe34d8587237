"""Building API-Bank worlds from an init_database folder or from the bundled default data."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from sandbox import App, World

from ..jsonlines import JsonTextError, file_text, json_value
from .accounts import Accounts, Bank
from .knowledge import Cassette, Knowledge, Utilities
from .personal import Agenda, Alarm, Meeting, Reminder
from .services import Health, Hospital, Hotel, SmartHome, Stock
from .toolsearch import Bm25Ranker, ToolRanker, record_names

TODAY = dt.datetime(2023, 3, 31, 9, 0, 0)  # the date API-Bank's GetToday is pinned to
DEFAULT_DATA = Path(__file__).with_name("default_data.json")

# init_database file -> (app, state field)
FILES = (
    ("Account", "Accounts", "accounts"), ("Bank", "BankAccounts", "balances"), ("Agenda", "Agenda", "records"),
    ("Alarm", "Alarm", "records"), ("Reminder", "Reminder", "records"), ("Meeting", "Meeting", "records"),
    ("Appointments", "Hospital", "records"), ("HealthData", "Health", "health"), ("Symptom", "Health", "symptoms"),
    ("Scenes", "SmartHome", "scenes"), ("TimeSwitch", "SmartHome", "switches"), ("Hotel", "Hotel", "orders"),
    ("Stock", "Stock", "prices"), ("History", "Knowledge", "history"), ("Wiki", "Knowledge", "wiki"),
    ("SearchEngine", "Knowledge", "search"), ("ImageCaptioning", "Knowledge", "images"),
    ("SpeechRecognition", "Knowledge", "speech"), ("QuestionAnswering", "Knowledge", "documents"),
)


def read_database(folder: Path | None) -> dict[str, dict[str, Any]]:
    """Per app, the state fields an init_database folder (or the bundled data) fills; `ValueError`
    naming the file (and line) that cannot be read as JSON."""
    if folder is None:
        raw: dict[str, Any] = json.loads(DEFAULT_DATA.read_text(encoding="utf-8"))
    else:
        raw = {name: _database_file(folder / f"{name}.json")
               for name, _, _ in FILES if (folder / f"{name}.json").is_file()}
    config: dict[str, dict[str, Any]] = {}
    for name, app, field in FILES:
        if name in raw:
            config.setdefault(app, {})[field] = raw[name]
    return config


def _database_file(path: Path) -> Any:
    """One init_database file's JSON, or `ValueError` naming it (`init_database/Bank.json: ...`)."""
    label = f"{path.parent.name}/{path.name}"
    try:
        return json_value(file_text(path, label))
    except JsonTextError as exc:
        raise ValueError(f"{label}: {exc.reason}") from None


def load_database(world: World, config: dict[str, dict[str, Any]], folder: Path | None) -> None:
    """`world.load(config)`, one app at a time, so that data an app's state refuses is a `ValueError`
    naming the init_database file and field, not a validation error naming a model."""
    for app, fields in config.items():
        try:
            world.load({app: fields})
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{_database_where(app, exc, folder)}: {_first_error(exc)}") from None


def _database_where(app: str, exc: Exception, folder: Path | None) -> str:
    """The file (and the field path inside it) a load error of `app` comes from."""
    errors = exc.errors() if isinstance(exc, ValidationError) else []
    location = [str(part) for part in errors[0]["loc"]] if errors else []
    names = [name for name, owner, field in FILES if owner == app and (not location or field == location[0])]
    where = f"{folder.name if folder is not None else 'default data'}/{names[0] if names else app}.json"
    return f"{where} at {'.'.join(location[1:])}" if len(location) > 1 else where


def _first_error(exc: Exception) -> str:
    """What is wrong, in one line (a validation error's first message; the count when there are more)."""
    if isinstance(exc, ValidationError):
        errors = exc.errors()
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        return f"{errors[0]['msg']}{more}"
    return " ".join(str(exc).split())[:300]


def apibank_world(init_database: str | Path | None = None, *, seed: int = 0, cassette: Cassette | None = None,
                  today: dt.datetime = TODAY, level: int = 1, ranker: ToolRanker | None = None) -> World:
    """A world with API-Bank's APIs: the 53 of `apis/` (level 1, what the level-1 and -2
    dialogues use), or the 22 of `lv3_apis/` (level 3). Together the 73 of the paper's count.

    `init_database`: API-Bank's init_database folder, or None for the bundled default data
    (level 3 keeps its own tables). `cassette`: recorded responses for the APIs that the
    reference answers from the network or a model (ToolSearcher, Dictionary, Translate,
    SearchEngine). `ranker`: how ToolSearcher ranks the APIs when no recording answers
    (default BM25; `toolsearch.EmbeddingRanker` or `toolsearch.OnnxRanker` with a model on disk).
    """
    if level == 3:
        from .level3 import Level3

        return World([Level3(ranker=ranker)], seed=seed, start=today)
    if level != 1:
        raise ValueError("level must be 1 (apis/) or 3 (lv3_apis/)")
    folder = None if init_database is None else Path(init_database)
    database = read_database(folder)
    if ranker is None:  # the default ranking also finds an API by the record names of the data loaded
        ranker = Bm25Ranker(record_names({name: database.get(app, {}).get(field) for name, app, field in FILES}))
        ranker.prepare(1)
    apps: list[App[Any]] = [Accounts(), Bank(), Agenda(), Alarm(), Reminder(), Meeting(), Hospital(), Health(),
                            SmartHome(), Hotel(), Stock(), Knowledge(cassette=cassette),
                            Utilities(cassette=cassette, ranker=ranker)]
    world = World(apps, seed=seed, start=today)
    load_database(world, database, folder)
    return world
