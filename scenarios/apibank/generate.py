"""Generated API-Bank tasks on its stateful APIs: a user's agenda, alarms, reminders, meetings and password.

Every request needs the user's token, which only `GetUserToken` (username and password, as the user
knows them) gives: each task starts with that dependency. Levels (`scenarios.generation.LEVELS`): the
number of state-changing requests is the level (a password change, when drawn, comes last: nothing
after it needs the old password); from 4 on, the tools of unrelated API-Bank services are offered too.
English only, as API-Bank is. No special cases: API-Bank's episodes are not scored by ACEBench's
special checker, so a special case here would be scored by end state, which says nothing.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from sandbox import Call, World

from ..generation import Candidate
from ..world_tasks import WorldTask, end_state, world_task
from .world import apibank_world

VERSION = "1"
USERS: Mapping[str, str] = MappingProxyType({"alice": "wonderland", "bob": "builder42", "carol": "carol-pw"})
TOKENS: Mapping[str, str] = MappingProxyType({"alice": "tok-alice-7f3a9c", "bob": "tok-bob-19d2e4",
                                              "carol": "tok-carol-5b8e11"})
# The next record key of each app in the bundled data (Agenda and Alarm count records, the others take the max).
FIRST_KEY: Mapping[str, int] = MappingProxyType({"Agenda": 3, "Alarm": 3, "Reminder": 3, "Meeting": 2})
DISTRACTORS = ("Hotel", "Stock", "SmartHome", "Health")
AGENDA = (("Dentist check-up", "Main Street Clinic"), ("Book club", "City Library"), ("Piano lesson", "Music School"),
          ("Car inspection", "North Garage"), ("Parents' evening", "Greenfield School"), ("Yoga class", "Studio 5"))
REMINDERS = ("Pay the electricity bill", "Call the bank", "Buy a birthday card", "Take the medicine",
             "Send the report", "Feed the cat")
TOPICS = ("Quarterly planning", "Design review", "Hiring sync", "Budget review 2", "Customer call", "Offsite prep")
ROOMS = ("Room 1", "Room 2", "Room 3", "Board room")
SAY: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "identity": ("My username is {user} and my password is {pw}.", "I'm {user} (password {pw}).",
                 "Log in as {user}, password {pw}."),
    "agenda": ("put '{content}' at {location} on my agenda for {when}", "add {content} ({location}) to my agenda, "
               "on {when}", "schedule '{content}' at {location} on {when} in my agenda"),
    "alarm": ("set an alarm for {when}", "wake me up on {when}", "I need an alarm on {when}"),
    "reminder": ("remind me to {content_lower} on {when}", "add a reminder '{content}' for {when}",
                 "set a reminder, '{content}', on {when}"),
    "meeting": ("book a meeting '{topic}' in {room} on {when} until {end} with {people}",
                "set up '{topic}' with {people} in {room}, on {when} to {end}"),
    "password": ("change my password to {new}", "I'd like a new password: {new}", "update my password to {new}"),
    "then": ("Then", "Also", "After that", "Next"),
})


def _moment(rng: random.Random) -> tuple[str, str, str]:
    """A time in April 2023 as the user says it, as the API takes it, and an hour later."""
    day, hour = rng.randrange(1, 29), rng.randrange(8, 20)
    minute = rng.choice((0, 30))
    said = f"April {day} at {hour:02d}:{minute:02d}"
    return said, f"2023-04-{day:02d} {hour:02d}:{minute:02d}:00", f"2023-04-{day:02d} {hour + 1:02d}:{minute:02d}:00"


@dataclass
class _Draft:
    rng: random.Random
    difficulty: int
    user: str = ""
    calls: list[Call] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    apps: list[str] = field(default_factory=lambda: ["Accounts"])
    expect: dict[str, Any] = field(default_factory=dict)
    added: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.user = self.rng.choice(sorted(USERS))
        self.token = TOKENS[self.user]

    def say(self, key: str, **values: Any) -> str:
        return self.rng.choice(SAY[key]).format(**values)

    def record(self, app: str, **fields: Any) -> None:
        key = FIRST_KEY[app] + self.added.get(app, 0)
        self.added[app] = self.added.get(app, 0) + 1
        for name, value in fields.items():
            self.expect[f"{app}.records.{key}.{name}"] = value
        if app not in self.apps:
            self.apps.append(app)

    def agenda(self) -> bool:
        content, location = self.rng.choice(AGENDA)
        said, time, _ = _moment(self.rng)
        self.calls.append(Call("AddAgenda", {"token": self.token, "content": content, "time": time,
                                             "location": location}))
        self.record("Agenda", content=content, time=time, location=location, username=self.user)
        self.requests.append(self.say("agenda", content=content, location=location, when=said))
        return True

    def alarm(self) -> bool:
        said, time, _ = _moment(self.rng)
        self.calls.append(Call("AddAlarm", {"token": self.token, "time": time}))
        self.record("Alarm", time=time, username=self.user)
        self.requests.append(self.say("alarm", when=said))
        return True

    def reminder(self) -> bool:
        content = self.rng.choice(REMINDERS)
        said, time, _ = _moment(self.rng)
        self.calls.append(Call("AddReminder", {"token": self.token, "content": content, "time": time}))
        self.record("Reminder", content=content, time=time, username=self.user)
        self.requests.append(self.say("reminder", content=content, content_lower=content[0].lower() + content[1:],
                                      when=said))
        return True

    def meeting(self) -> bool:
        topic, room = self.rng.choice(TOPICS), self.rng.choice(ROOMS)
        said, start, end = _moment(self.rng)
        if int(end[11:13]) > 23:
            return False
        people = sorted(self.rng.sample([u for u in USERS if u != self.user], self.rng.choice((1, 2))))
        self.calls.append(Call("AddMeeting", {"token": self.token, "meeting_topic": topic, "start_time": start,
                                              "end_time": end, "location": room, "attendees": people}))
        self.record("Meeting", meeting_topic=topic, start_time=start, end_time=end, location=room, attendees=people)
        self.requests.append(self.say("meeting", topic=topic, room=room, when=said, end=end[11:16],
                                      people=" and ".join(people)))
        return True

    def write(self) -> Candidate | None:
        actions: list[Callable[[], bool]] = [self.agenda, self.alarm, self.reminder, self.meeting]
        change = self.difficulty >= 2 and self.rng.random() < 0.3  # a password change comes last
        for _ in range(self.difficulty - change):
            if not self.rng.choice(actions)():
                return None
        if change:
            new = f"{self.rng.choice(('blue', 'sun', 'oak', 'jazz'))}-{self.rng.randrange(100, 1000)}"
            self.calls.append(Call("ModifyPassword", {"token": self.token, "old_password": USERS[self.user],
                                                      "new_password": new}))
            self.expect[f"Accounts.accounts.{self.user}.password"] = new
            self.requests.append(self.say("password", new=new))
        classes = list(dict.fromkeys(["Accounts", *self._apps_used()]))
        if self.difficulty >= 4:
            classes.append(self.rng.choice(DISTRACTORS))
        login = Call("GetUserToken", {"username": self.user, "password": USERS[self.user]})
        question = self.say("identity", user=self.user, pw=USERS[self.user]) + " " + " ".join(
            (self.rng.choice(SAY["then"]) + ", " if n else "") + (r[0] if n else r[0].upper()) + r[1:] + "."
            for n, r in enumerate(self.requests))
        return Candidate("multi_step", question, tuple(classes), {}, tuple((c,) for c in [login, *self.calls]),
                         self.expect)

    def _apps_used(self) -> list[str]:
        apps = {"AddAgenda": "Agenda", "AddAlarm": "Alarm", "AddReminder": "Reminder", "AddMeeting": "Meeting"}
        return list(dict.fromkeys(apps[c.name] for c in self.calls if c.name in apps))


@dataclass(frozen=True)
class ApiBankGenerator:
    """API-Bank's `scenarios.generation.TaskGenerator` (its stateful personal APIs)."""

    family: str = "apibank"
    version: str = VERSION
    languages: tuple[str, ...] = ("en",)

    def propose(self, rng: random.Random, difficulty: int, lang: str) -> Candidate:
        while True:
            candidate = _Draft(rng, difficulty).write()
            if candidate is not None:
                return candidate

    def world(self, candidate: Candidate, lang: str) -> World:
        return apibank_world()

    def end_state(self, world: World, candidate: Candidate) -> Any:
        return end_state(world, candidate.classes)

    def task(self, record: Mapping[str, Any], functions: list[dict[str, Any]], lang: str) -> WorldTask:
        return world_task(record, functions, lang, "apibank", apibank_world)


GENERATOR = ApiBankGenerator()
