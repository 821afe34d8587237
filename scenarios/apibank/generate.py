"""Generated API-Bank tasks on every API that changes its world's state, in English and Chinese.

Each candidate draws a small world of its own (three users with passwords, tokens and e-mail
addresses; their agenda, alarms, reminders and meetings; doctor's appointments, health records,
smart-home scenes and timers, hotel bookings) and strings together requests whose number and kind
follow the difficulty level (`scenarios.generation.LEVELS`):

1. one request, everything named as the call needs it (an agenda item by its text, place and time);
2. two requests; records named as the user knows them (an agenda item by its text), so a lookup
   (`QueryAgenda`) comes first;
3. three requests, one of them needing an earlier call's output (an appointment's id from
   `QueryRegistration`, a scene's devices from `QueryScene`, a meeting's room and attendees from
   `QueryMeeting`), or the account first (a newcomer's token from `RegisterUser`, a forgotten
   password reset with the code `ForgotPassword` sends, then `GetUserToken`);
4. four requests, two of them of the kind of 3, and the tools of an unrelated API-Bank service offered too;
   written as one person's message (`scenarios.generation.one_request`: two requests to a sentence now
   and then, connectors drawn without repeating, the username and password said once, first);
5. six requests, as 4; one candidate in twenty is instead one of ACEBench's special cases (an alarm's
   or a reminder's time, a check-out day or an appointment's date missing; a date that does not exist;
   a request no tool serves), a single reply scored as ACEBench scores its special categories.

Token-gated requests need the user's token, which only `GetUserToken` (username and password, as the
user knows them), `RegisterUser` (a newcomer) or a password reset then `GetUserToken` gives; a
password change or the account's deletion, when drawn, comes last. The generator keeps its own copy
of every table it touches and applies each request to it by its reading of the APIs (ids by count or
by maximum, tokens and appointment ids from the world's seeded draws), so each candidate states the
whole tables its end state must show; `scenarios.generation.verify` replays the gold path and checks.
"""

from __future__ import annotations

import copy
import random
import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from sandbox import Call, World

from ..generation import Candidate, draws_special, one_message, one_request
from ..world_tasks import WorldTask, end_state, world_task
from .drafting import WORLD_SEED, hour_later, key_by_count, key_by_max, lower_first, world_draw
from .phrases import (
    AGENDA,
    DOCTORS,
    HOTELS,
    PEOPLE,
    REMINDERS,
    ROOMS,
    TOPICS,
    USERS,
    ZH_COMMA,
    ZH_QUESTION,
    ZH_STOP,
)
from .service_requests import ServiceRequests
from .world import apibank_world

VERSION = "3"  # levels 4 and 5 written as one message; 1 to 3 give version 2's bytes (`STREAM`)
STREAM = "2"
SPECIAL_SHARE = 0.05
VERIFICATION_CODE = 970420  # ForgotPassword's fixed code
DISTRACTORS = ("Hotel", "Stock", "SmartHome", "Health", "Hospital", "BankAccounts")
_TOKEN_ALPHABET = string.ascii_letters + string.digits
# Chinese requests that read right without a leading 请: about oneself, a quote, a time, a person.
# An English request with a clause of its own (", they can't make it", "; I'm Carol Diaz") takes no second
# request after it in one sentence ("..., remove it and then ..." reads as one breathless line).
EN_CLOSED = (", ", "; ")
ZH_DIRECT = ("我", "把", "“", "帮", "定", "彻底", *"123456789", *PEOPLE["zh"])


class _Draft(ServiceRequests):
    """One candidate being written: with the service requests, those of the personal organiser and of the
    account, and the plan a level draws them by."""

    # -- requests on the personal organiser (token-gated) ------------------------------------

    def add_agenda(self) -> bool:
        records = self.records("Agenda")
        content, location = self.rng.choice(AGENDA[self.lang])
        if any(r["content"] == content for _, r in self.mine("Agenda")):
            return False
        time, when = self.moment()
        self.gated("AddAgenda", content=content, time=time, location=location)
        key = self.new_key("Agenda", key_by_count(records))
        records[key] = {"username": self.me, "content": content, "time": time, "location": location}
        self.change("Agenda", "records")
        self.requests.append(self.say("add_agenda", content=content, location=location, when=when))
        return True

    def _agenda_lookup(self, content: str) -> None:
        self.gated("QueryAgenda", content=content, time="", location="")

    def delete_agenda(self) -> bool:
        picked = self.pick_own("Agenda")
        if picked is None:
            return False
        key, record = picked
        if self.by_name:
            self._agenda_lookup(record["content"])
            self.requests.append(self.say("delete_agenda", content=record["content"]))
        else:
            self.requests.append(self.say("delete_agenda_full", content=record["content"],
                                          location=record["location"], when=self.said(record["time"])))
        self.gated("DeleteAgenda", content=record["content"], time=record["time"], location=record["location"])
        del self.records("Agenda")[key]
        self.change("Agenda", "records")
        return True

    def move_agenda(self) -> bool:
        picked = self.pick_own("Agenda")
        if picked is None:
            return False
        key, record = picked
        time, new = self.moment(bare=True)
        if self.by_name:
            self._agenda_lookup(record["content"])
            self.requests.append(self.say("move_agenda", content=record["content"], new=new))
        else:
            self.requests.append(self.say("move_agenda_full", content=record["content"], location=record["location"],
                                          new=new))
        self.gated("ModifyAgenda", content=record["content"], time=time, location=record["location"])
        self.records("Agenda")[key] = {"username": self.me, "content": record["content"], "time": time,
                                       "location": record["location"]}
        self.change("Agenda", "records")
        return True

    def add_alarm(self) -> bool:
        records = self.records("Alarm")
        time, when = self.moment()
        self.gated("AddAlarm", time=time)
        records[self.new_key("Alarm", key_by_count(records))] = {"username": self.me, "time": time}
        self.change("Alarm", "records")
        self.requests.append(self.say("add_alarm", when=when))
        return True

    def delete_alarm(self) -> bool:
        picked = self.pick_own("Alarm")
        if picked is None:
            return False
        key, record = picked
        self.gated("DeleteAlarm", time=record["time"])
        del self.records("Alarm")[key]
        self.change("Alarm", "records")
        self.requests.append(self.say("delete_alarm", when=self.said(record["time"])))
        return True

    def move_alarm(self) -> bool:
        picked = self.pick_own("Alarm")
        if picked is None:
            return False
        key, record = picked
        time, new = self.moment(bare=True)
        self.gated("ModifyAlarm", from_time=record["time"], to_time=time)
        self.records("Alarm")[key] = {"username": self.me, "time": time}
        self.change("Alarm", "records")
        self.requests.append(self.say("move_alarm", when=self.said(record["time"]), new=new))
        return True

    def add_reminder(self) -> bool:
        records = self.records("Reminder")
        content = self.rng.choice(REMINDERS[self.lang])
        if any(r["content"] == content for _, r in self.mine("Reminder")):
            return False
        time, when = self.moment()
        self.gated("AddReminder", content=content, time=time)
        records[self.new_key("Reminder", key_by_max(records))] = {"username": self.me, "content": content,
                                                                   "time": time}
        self.change("Reminder", "records")
        self.requests.append(self.say("add_reminder", content=content, content_lower=lower_first(content), when=when))
        return True

    def delete_reminder(self) -> bool:
        picked = self.pick_own("Reminder")
        if picked is None:
            return False
        key, record = picked
        self.gated("DeleteReminder", content=record["content"], time=record["time"])
        del self.records("Reminder")[key]
        self.change("Reminder", "records")
        self.requests.append(self.say("delete_reminder", content=record["content"],
                                      content_lower=lower_first(record["content"]), when=self.said(record["time"])))
        return True

    def move_reminder(self) -> bool:
        picked = self.pick_own("Reminder")
        if picked is None:
            return False
        _, record = picked
        time, new = self.moment(bare=True)
        self.gated("ModifyReminder", content=record["content"], time=time)
        record["time"] = time
        self.change("Reminder", "records")
        self.requests.append(self.say("move_reminder", content=record["content"],
                                      content_lower=lower_first(record["content"]), new=new))
        return True

    def add_meeting(self) -> bool:
        records = self.records("Meeting")
        topic, room = self.rng.choice(TOPICS[self.lang]), self.rng.choice(ROOMS[self.lang])
        start, when = self.moment()
        if any(r["meeting_topic"] == topic for _, r in self.mine("Meeting")) or int(start[11:13]) > 19:
            return False
        end = hour_later(start)
        people = sorted(self.rng.sample(self.others, self.rng.choice((1, 2))))
        self.gated("AddMeeting", meeting_topic=topic, start_time=start, end_time=end, location=room, attendees=people)
        key = self.new_key("Meeting", key_by_max(records))
        records[key] = {"username": self.me, "meeting_topic": topic, "start_time": start, "end_time": end,
                        "location": room, "attendees": people}
        self.change("Meeting", "records")
        self.requests.append(self.say("add_meeting", topic=topic, room=room, when=when, end=end[11:16],
                                      people=self.phrases["and"][0].join(people)))
        return True

    def _meeting_lookup(self, topic: str) -> None:
        self.gated("QueryMeeting", meeting_topic=topic, start_time="", end_time="", location="", attendees=[])

    def delete_meeting(self) -> bool:
        picked = self.pick_own("Meeting")
        if picked is None:
            return False
        key, record = picked
        self._meeting_lookup(record["meeting_topic"])
        self.gated("DeleteMeeting", meeting_topic=record["meeting_topic"], start_time=record["start_time"],
                   end_time=record["end_time"], location=record["location"], attendees=record["attendees"])
        del self.records("Meeting")[key]
        self.change("Meeting", "records")
        self.requests.append(self.say("delete_meeting", topic=record["meeting_topic"]))
        return True

    def move_meeting(self) -> bool:
        picked = self.pick_own("Meeting")
        if picked is None:
            return False
        _, record = picked
        start, new = self.moment(bare=True)
        if int(start[11:13]) > 19:
            return False
        end = hour_later(start)
        self._meeting_lookup(record["meeting_topic"])
        self.gated("ModifyMeeting", meeting_topic=record["meeting_topic"], start_time=start, end_time=end,
                   location=record["location"], attendees=record["attendees"])
        record["start_time"], record["end_time"] = start, end
        self.change("Meeting", "records")
        self.requests.append(self.say("move_meeting", topic=record["meeting_topic"], new=new, end=end[11:16]))
        return True

    # -- the account itself ----------------------------------------------------------------------

    def change_password(self) -> bool:
        if self.mode != "login":
            return False
        new = self.password()
        self.gated("ModifyPassword", old_password=self.accounts[self.me]["password"], new_password=new)
        self.accounts[self.me]["password"] = new
        self.change("Accounts", "accounts")
        self.requests.append(self.say("password", new=new))
        self.ended = True
        return True

    def delete_account(self) -> bool:
        if self.mode != "login":
            return False
        self.gated("DeleteAccount")
        del self.accounts[self.me]
        self.change("Accounts", "accounts")
        self.requests.append(self.say("delete_account"))
        self.ended = True
        return True

    def open_bank(self) -> bool:
        opened = self.table("BankAccounts", "opened", lambda: {"0": {"account": "test", "password": "test",
                                                                     "name": "yifei"}})
        account = f"{self.me}{self.rng.randrange(10, 100)}"
        if any(entry["account"] == account for entry in opened.values()):
            return False
        password, name = self.password(), self.rng.choice(PEOPLE[self.lang])
        self.call("OpenBankAccount", account=account, password=password, name=name)
        opened[str(len(opened) + 1)] = {"account": account, "password": password, "name": name}
        self.change("BankAccounts", "opened")
        self.requests.append(self.say("open_bank", account=account, pw=password, name=name))
        return True

    # -- the candidate ----------------------------------------------------------------------------

    def opening(self) -> list[tuple[Call, ...]]:
        """The calls before the requests: the token (or the new account, or the reset password)."""
        me = self.me
        if self.mode == "newcomer":
            self.draws += 1
            token = "".join(world_draw(self.draws).choices(_TOKEN_ALPHABET, k=18)).lower()
            self.accounts[me] = {"password": self.password(), "token": token, "email": f"{me}@example.org"}
            self.change("Accounts", "accounts")
            return [(Call("RegisterUser", {"username": me, "password": self.accounts[me]["password"],
                                           "email": self.accounts[me]["email"]}),)]
        if self.mode == "forgot":
            new = self.password()
            self.accounts[me]["password"] = new
            self.opening_password = new
            self.change("Accounts", "accounts")
            self.touched.update({("Accounts", "verification_code"), ("Accounts", "reset_user")})
            self.tables["Accounts"].update({"verification_code": VERIFICATION_CODE, "reset_user": me})
            return [(Call("ForgotPassword", {"status": "Forgot Password", "username": me,
                                             "email": self.accounts[me]["email"]}),),
                    (Call("ForgotPassword", {"status": "Verification Code", "verification_code": VERIFICATION_CODE,
                                             "new_password": new}),)]
        self.opening_password = str(self.accounts[me]["password"])
        return []

    def identity(self) -> str:
        if self.mode == "login":
            return self.say("identity", user=self.me, pw=self.opening_password) if self.token_used else ""
        record = self.accounts[self.me]
        if self.mode == "newcomer":
            return self.say("newcomer", user=self.me, pw=record["password"], email=record["email"])
        return self.say("forgot", user=self.me, email=record["email"], new=record["password"])

    def write(self) -> Candidate | None:
        level = self.difficulty
        gated = [self.add_agenda, self.add_alarm, self.add_reminder, self.add_meeting, self.delete_alarm,
                 self.move_alarm, self.delete_reminder, self.move_reminder, self.delete_agenda, self.move_agenda]
        services = [self.hotel, self.health, self.add_scene, self.delete_scene, self.switch, self.cancel_switch,
                    self.register_appointment, self.open_bank]
        simple = gated + services
        compound = [self.delete_meeting, self.move_meeting, self.cancel_appointment, self.move_appointment,
                    self.extend_scene]
        plan: list[list[Callable[[], bool]]] = {1: [simple], 2: [simple, simple], 3: [compound, simple, simple],
                                                4: [compound, compound, simple, simple],
                                                5: [compound, compound, simple, simple, simple, simple]}[level]
        plan = self.rng.sample(plan, len(plan))
        if compound in plan and self.rng.random() < 0.3:  # the account first: a newcomer, or a forgotten password
            plan.remove(compound)
            self.rng.choice((self.newcomer, self.forgot))()
        if level >= 2 and plan[-1] is simple and self.mode == "login" and self.rng.random() < 0.2:
            plan[-1] = [self.change_password, self.delete_account]  # ends the list: nothing after needs the token
        opening = self.opening()
        for choices in plan:
            if not any(self.rng.choice(choices)() for _ in range(4)):
                return None
        if self.token_used and self.mode != "newcomer":  # the token: with the password known, or just reset
            opening.append((Call("GetUserToken", {"username": self.me,
                                                  "password": self.opening_password}),))
        apps = ["Accounts", *self.apps] if self.token_used or self.mode != "login" else self.apps
        classes = list(dict.fromkeys(apps))
        if level >= 4:
            classes.append(self.rng.choice([app for app in DISTRACTORS if app not in classes]))
        expect = {f"{app}.{field}": self.tables[app][field] for app, field in sorted(self.touched)}
        config = {app: fields for app, fields in self.initial.items() if app in classes}
        return Candidate("multi_step", self.question(), tuple(classes), config, tuple(opening + self.messages),
                         copy.deepcopy(expect))

    def newcomer(self) -> bool:
        """A new user: registers first, and every token-gated request uses the new account's token."""
        self.mode = "newcomer"
        self.me = self.rng.choice([name for name in USERS[self.lang] if name not in self.accounts])
        self.others = list(self.accounts)[:2]
        return True

    def forgot(self) -> bool:
        """The user forgot the password: reset it with the code `ForgotPassword` sends, then log in."""
        self.mode = "forgot"
        return True

    def question(self) -> str:
        identity = self.identity()
        if self.difficulty >= 4:
            return one_request(self.requests, self.lang, self.rng, identity, zh_direct=ZH_DIRECT,
                               polite="please" not in identity.lower(), closed=EN_CLOSED).strip()
        return one_message(identity, self.requests, self.lang, self.rng, self.phrases["then"],
                           zh_direct=ZH_DIRECT, zh_question=ZH_QUESTION, zh_comma=ZH_COMMA,
                           zh_stop=ZH_STOP).strip()


def _special(draft: _Draft) -> Candidate:
    """One of ACEBench's special cases, asked by the draft's user."""
    rng = draft.rng
    roll = rng.random()
    category, classes = "special_irrelevant", ["Accounts", "Agenda", "Alarm", "Reminder"]
    answer: dict[str, list[Any]] = {}
    request = draft.say("irrelevant")
    hotel, doctor, patient = rng.choice(HOTELS), rng.choice(DOCTORS), rng.choice(PEOPLE[draft.lang])
    start = rng.randrange(1, 25)
    day, until = f"2023-04-{start:02d}", f"2023-04-{start + rng.randrange(1, 4):02d}"
    party = draft.party(1, rng.randrange(1, 3))
    if roll < 0.45:
        category = "special_incomplete"
        kind = rng.choice(("alarm", "reminder", "hotel", "appointment"))
        content = rng.choice(REMINDERS[draft.lang])
        request = draft.say(f"incomplete_{kind}", content=content, content_lower=lower_first(content), hotel=hotel,
                            day=draft.said_day(day), doctor=doctor, patient=patient, **party)
        answer, classes = {"alarm": ({"AddAlarm": ["time"]}, ["Accounts", "Alarm"]),
                           "reminder": ({"AddReminder": ["time"]}, ["Accounts", "Reminder"]),
                           "hotel": ({"BookHotel": ["check_out_time"]}, ["Hotel"]),
                           "appointment": ({"AppointmentRegistration": ["date"]}, ["Hospital"])}[kind]
    elif roll < 0.75:
        category = "special_error_param"
        bad = rng.choice(("2023-02-30", "2023-04-31", "2023-06-31", "2023-13-05", "2023-09-31"))
        if rng.random() < 0.5:
            request = draft.say("error_hotel", hotel=hotel, bad=bad, until=draft.said_day(until), **party)
            answer, classes = {"check_in_time": [bad]}, ["Hotel"]
        else:
            request = draft.say("error_appointment", doctor=doctor, patient=patient, bad=bad)
            answer, classes = {"date": [bad]}, ["Hospital"]
    gated = "Accounts" in classes
    draft.token_used = gated
    draft.requests = [request]
    identity = draft.say("identity", user=draft.me, pw=draft.accounts[draft.me]["password"]) if gated else ""
    question = one_message(identity, draft.requests, draft.lang, rng, draft.phrases["then"], zh_direct=ZH_DIRECT,
                           zh_question=ZH_QUESTION, zh_comma=ZH_COMMA, zh_stop=ZH_STOP).strip()
    config = {"Accounts": draft.initial["Accounts"]} if gated else {}
    return Candidate(category, question, tuple(classes), config, special=answer)


@dataclass(frozen=True)
class ApiBankGenerator:
    """API-Bank's `scenarios.generation.TaskGenerator` (every state-changing API of `apis/`)."""

    family: str = "apibank"
    version: str = VERSION
    languages: tuple[str, ...] = ("en", "zh")
    stream: str = STREAM  # the random stream (`scenarios.generation.random_stream`)

    def propose(self, rng: random.Random, difficulty: int, lang: str) -> Candidate:
        special = draws_special(rng, difficulty, SPECIAL_SHARE)
        while True:
            draft = _Draft(rng, lang, difficulty)
            if special:
                return _special(draft)
            candidate = draft.write()
            if candidate is not None:
                return candidate

    def world(self, candidate: Candidate, lang: str) -> World:
        world = apibank_world(seed=WORLD_SEED)
        if candidate.config:
            world.load(dict(candidate.config))
        return world

    def end_state(self, world: World, candidate: Candidate) -> Any:
        return end_state(world, candidate.classes)

    def task(self, record: Mapping[str, Any], functions: list[dict[str, Any]], lang: str) -> WorldTask:
        """A task from one line; a special case is a single reply (`WorldTask`'s `SpecialCaseHooks`)."""
        return world_task(record, functions, lang, self.family, apibank_world)


GENERATOR = ApiBankGenerator()
