"""The state of a generated API-Bank task while it is written: its small world, and the words for it.

`Draft` holds what every request of `scenarios.apibank.generate` reads and changes: the users (three,
with passwords, tokens and e-mail addresses), each app's tables (drawn on first use and kept as the
task's starting configuration), the gold messages, the requests in words, and which records a
request has handled already. Its tables are changed by the generator's reading of the APIs (ids by
count or by maximum, tokens and appointment ids from the world's seeded draws, `world_draw`), never
by running them: `scenarios.generation.verify` runs them and compares.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any

from sandbox import Call

from .phrases import AGENDA, PASSWORD_WORDS, PHRASES, REMINDERS, ROOMS, TOPICS, USERS

WORLD_SEED = 0  # a task's world is built with this seed: tokens and appointment ids are its draws
Table = dict[str, Any]


def world_draw(draw: int) -> random.Random:
    """The generator the world hands out at its `draw`-th draw (`sandbox.rng`)."""
    return random.Random(f"toolworlds:{WORLD_SEED}:{draw}")


class Draft:
    """One candidate being written: the simulated tables, the gold messages, the words, the facts."""

    def __init__(self, rng: random.Random, lang: str, difficulty: int) -> None:
        self.rng, self.lang, self.difficulty = rng, lang, difficulty
        self.phrases = PHRASES[lang]
        self.by_name = difficulty >= 2  # records named as the user knows them: a lookup first
        self.used_times: set[str] = set()
        self.draws = 0  # the world's seeded draws so far
        names = rng.sample(USERS[lang], 3)
        self.accounts: Table = {
            name: {"password": self.password(), "token": "tok-" + "".join(rng.choices("0123456789abcdef", k=10)),
                   "email": f"{name}@example.org"} for name in names}
        self.me = names[0]
        self.others = names[1:]
        self.initial: dict[str, Table] = {"Accounts": {"accounts": copy.deepcopy(self.accounts)}}
        self.tables: dict[str, Table] = {"Accounts": {"accounts": self.accounts}}
        self.touched: set[tuple[str, str]] = set()
        self.apps: list[str] = []
        self.messages: list[tuple[Call, ...]] = []
        self.requests: list[str] = []
        self.mode = "login"  # "newcomer": registers first; "forgot": resets the password first
        self.token_used = False
        self.ended = False  # a password change or the account's deletion: nothing token-gated after it
        self.opening_password = ""  # the password `GetUserToken` is called with
        self.handled: set[tuple[str, str]] = set()  # (app, key) of records a request added, changed or removed

    # -- words ---------------------------------------------------------------------------------

    def say(self, key: str, **values: Any) -> str:
        return self.rng.choice(self.phrases[key]).format(**values)

    def password(self) -> str:
        return f"{self.rng.choice(PASSWORD_WORDS)}{self.rng.randrange(100, 1000)}"

    def moment(self, bare: bool = False) -> tuple[str, str]:
        """A new time in April 2023: as the API takes it, and as the user says it (`said`)."""
        while True:
            day, hour, minute = self.rng.randrange(1, 29), self.rng.randrange(7, 21), self.rng.choice((0, 15, 30, 45))
            value = f"2023-04-{day:02d} {hour:02d}:{minute:02d}:00"
            if value not in self.used_times:
                self.used_times.add(value)
                return value, self.said(value, bare)

    def said(self, value: str, bare: bool = False) -> str:
        """A time as the user says it: in English with its preposition ("on April 3 at 07:00", "at 07:00 on
        April 3") unless `bare`, for a time something is moved to ("to April 3 at 07:00")."""
        day, clock = int(value[8:10]), value[11:16]
        if self.lang == "zh":
            return f"4月{day}{self.rng.choice(('日', '号'))}{clock}"
        first = self.rng.random() < 0.5
        if bare:
            return f"April {day} at {clock}" if first else f"{clock} on April {day}"
        return f"on April {day} at {clock}" if first else f"at {clock} on April {day}"

    def said_day(self, value: str) -> str:
        day = int(value[8:10])
        return f"4月{day}日" if self.lang == "zh" else f"April {day}"

    # -- the simulated tables ------------------------------------------------------------------

    def table(self, app: str, field: str, draw: Callable[[], Any]) -> Any:
        """The app's table `field`, drawn (and recorded as the starting state) on first use."""
        tables = self.tables.setdefault(app, {})
        if field not in tables:
            tables[field] = draw()
            self.initial.setdefault(app, {})[field] = copy.deepcopy(tables[field])
        return tables[field]

    def change(self, app: str, field: str) -> None:
        self.touched.add((app, field))
        if app not in self.apps:
            self.apps.append(app)

    def records(self, app: str) -> Table:
        return self.table(app, "records", lambda: self._records(app))

    def _records(self, app: str) -> Table:
        records: Table = {}
        known = list(self.initial["Accounts"]["accounts"])  # a newcomer has no records yet
        owners = [self.me, self.me, *known] if self.me in known else known
        for owner in owners:
            if self.rng.random() < 0.3 and owner != self.me:
                continue
            record = self._record(app, owner, {r.get("content", r.get("meeting_topic")) for r in records.values()
                                               if r["username"] == owner})
            if record is not None:
                records[str(len(records) + 1)] = record
        return records

    def _record(self, app: str, owner: str, taken: set[Any]) -> dict[str, Any] | None:
        time, _ = self.moment()
        if app == "Agenda":
            content, location = self.rng.choice(AGENDA[self.lang])
            return None if content in taken else {"content": content, "time": time, "location": location,
                                                  "username": owner}
        if app == "Alarm":
            return {"time": time, "username": owner}
        if app == "Reminder":
            content = self.rng.choice(REMINDERS[self.lang])
            return None if content in taken else {"content": content, "time": time, "username": owner}
        topic = self.rng.choice(TOPICS[self.lang])
        if topic in taken or int(time[11:13]) > 19:
            return None
        known = [user for user in self.initial["Accounts"]["accounts"] if user != owner]
        people = sorted(self.rng.sample(known, self.rng.choice((1, 2))))
        return {"meeting_topic": topic, "start_time": time, "end_time": hour_later(time),
                "location": self.rng.choice(ROOMS[self.lang]), "attendees": people, "username": owner}

    def fresh(self, app: str) -> list[tuple[str, dict[str, Any]]]:
        """The user's records of `app` no earlier request of this task added, changed or removed (a request
        list that adds a record and then moves it reads like a slip)."""
        return [(key, record) for key, record in self.mine(app) if (app, key) not in self.handled]

    def take(self, records: list[tuple[str, Any]], app: str) -> tuple[str, Any]:
        """One of `records` (key, record) of `app`, drawn and marked handled."""
        key, record = self.rng.choice(records)
        self.handled.add((app, key))
        return key, record

    def pick_own(self, app: str) -> tuple[str, dict[str, Any]] | None:
        """One of the user's records of `app` no earlier request handled (`fresh`), drawn and marked handled;
        None when there is none, or the user is a newcomer (registering in this task, with no records yet)."""
        mine = self.fresh(app)
        if not mine or self.mode == "newcomer":
            return None
        return self.take(mine, app)

    def new_key(self, app: str, key: str) -> str:
        """`key`, a record this request adds, marked handled."""
        self.handled.add((app, key))
        return key

    def mine(self, app: str) -> list[tuple[str, dict[str, Any]]]:
        return [(key, r) for key, r in self.records(app).items() if r.get("username") == self.me]

    def token(self) -> str:
        self.token_used = True
        return str(self.accounts[self.me]["token"])

    def call(self, api: str, /, **arguments: Any) -> None:
        self.messages.append((Call(api, arguments),))

    def gated(self, api: str, /, **arguments: Any) -> None:
        self.call(api, token=self.token(), **arguments)


def key_by_count(records: Table) -> str:
    number = len(records) + 1
    while str(number) in records:
        number += 1
    return str(number)


def key_by_max(records: Table) -> str:
    numbers = [int(key) for key in records if str(key).lstrip("-").isdigit()]
    return str(max(numbers) + 1) if numbers else "0"


def hour_later(time: str) -> str:
    return f"{time[:11]}{int(time[11:13]) + 1:02d}{time[13:]}"


def lower_first(text: str) -> str:
    return text[0].lower() + text[1:]
