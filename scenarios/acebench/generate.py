"""Generated ACEBench agent tasks: requests to the phone's messages and reminders, food delivery and
flights, in ACEBench's task format (involved classes, device configuration, milestones, saved end state).

ACEBench's apps hold fixed data (six contacts, three reminders, six restaurants, three travellers and
eleven flights), so variety comes from who asks, what they ask and how they say it. The levels
(`scenarios.generation.LEVELS`):

1. one request, named as the call needs it (a flight by its number, a restaurant and its dishes);
2. two requests, one of them needing a lookup (the cheapest dish on a menu);
3. a request whose later call needs an earlier call's output (the earliest message's id before
   deleting it to make room, a reminder's key found by its title, a flight number found by route
   and day, a reservation found by its route and day to cancel it or move it to another flight or
   cabin) and two more requests;
4. two such requests and two more, with Wi-Fi off or the phone logged out (unsaid), and an app
   offered that is not needed; written as one message (`scenarios.generation.one_request`), the
   accounts said once after the name;
5. three such requests and three more; one candidate in twenty is an ACEBench special case (a message or
   reminder without its text or title, a time that does not exist, a request no tool serves).

Each candidate states the balances, messages and reminders its end state must show, from the
generator's own reading of the data; verification replays the gold path and checks them.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from sandbox import Call

from ..generation import SPECIAL_SHARE, Candidate, one_message, one_request, special_category
from .defaults import food_state, travel_state
from .generated import AceFormatGenerator
from .phrases import BAGS_EN, BAGS_ZH, PAYMENT, PHRASES, QUANTITIES, ZH_COMMA, ZH_QUESTION, ZH_STOP
from .phrases import REMINDERS as REMINDER_TEXTS
from .texts import texts_for
from .world import acebench_world

VERSION = "2"  # levels 3 to 5 changed; 1 and 2 give the bytes of version 1 (`STREAM`)
STREAM = "1"
PEOPLE = ("Eve", "Frank", "Grace")  # in every app's data: contacts, food users, travellers
CONTACTS = ("Eve", "Frank", "Grace", "Helen", "Isaac", "Jack")
EARLIEST = (3, 6, 2, 5, 1, 4)  # the inbox's messages from the earliest, by their dates
REMINDERS: Mapping[str, int] = MappingProxyType({"Doctor's Appointment": 1, "Team Meeting": 2, "To-do list": 3})
TRAVELLERS: Mapping[str, str] = MappingProxyType({"Eve": "user1", "Frank": "user2", "Grace": "user3"})
ALLOWANCE: Mapping[str, tuple[int, int]] = MappingProxyType({"regular": (1, 2), "silver": (2, 3), "gold": (3, 3)})
BAG_FEE = 50
APPS = ("MessageApi", "ReminderApi", "FoodPlatform", "Travel")
NEEDS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "MessageApi": ("wifi", "logged_in"), "ReminderApi": ("logged_in",), "FoodPlatform": ("wifi",), "Travel": ()})


def _when(rng: random.Random, lang: str) -> tuple[str, str]:
    """A reminder time as the user says it and as the tool takes it."""
    month = rng.choice((7, 8))
    day = rng.randrange(15, 32) if month == 7 else rng.randrange(1, 29)  # after the phone's date, 2024-07-14
    hour, minute = rng.randrange(7, 21), rng.choice((0, 15, 30, 45))
    value = f"2024-{month:02d}-{day:02d} {hour:02d}:{minute:02d}"
    if lang == "zh":
        return f"{month}月{day}日{hour}点" + (f"{minute}分" if minute else ""), value
    names = {7: "July", 8: "August"}
    return f"on {names[month]} {day} at {hour:02d}:{minute:02d}", value


def _trip_key(flight: Mapping[str, Any]) -> tuple[str, str, str]:
    return flight["origin"], flight["destination"], flight["depart_time"][:10]


@dataclass
class _Draft:
    rng: random.Random
    lang: str
    difficulty: int
    me: str = ""
    messages: list[tuple[Call, ...]] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    apps: list[str] = field(default_factory=list)
    expect: dict[str, Any] = field(default_factory=dict)
    sent: int = 0
    reminders_added: int = 0
    removed: set[str] = field(default_factory=set)
    food_logged_in: bool = False
    food_balance: float | None = None
    booked: int = 0
    travel: dict[str, float] = field(default_factory=dict)
    changed: set[str] = field(default_factory=set)  # reservations a request already changes or cancels
    trips: set[tuple[str, str, str]] = field(default_factory=set)  # (origin, destination, day) booked here
    asked: set[tuple[str, str, str]] = field(default_factory=set)  # those of the reservations changed or cancelled

    def __post_init__(self) -> None:
        self.me = self.rng.choice(PEOPLE)
        self.phrases = PHRASES[self.lang]
        self.food = food_state(self.lang)
        texts = texts_for(self.lang)
        self.cabins = (texts.economy, texts.business)
        self.travel_data = travel_state(self.lang, texts.economy, texts.business)

    def say(self, key: str, **values: Any) -> str:
        """A paraphrase of `key`; from level 4 on, its short form when it has one (the accounts are said once,
        after the name: `identity`)."""
        if self.difficulty >= 4 and f"{key}_short" in self.phrases:
            key += "_short"
        return self.rng.choice(self.phrases[key]).format(**values)

    def use(self, app: str) -> None:
        if app not in self.apps:
            self.apps.append(app)

    # -- requests ----------------------------------------------------------------------------

    def send(self) -> bool:
        if self.sent >= 2:
            return False
        to = self.rng.choice([c for c in CONTACTS if c != self.me])
        text = self.rng.choice(self.phrases["texts"])
        earliest = EARLIEST[self.sent]
        self.messages += [(Call("get_earliest_message_id", {}),), (Call("delete_message", {"message_id": earliest}),),
                          (Call("send_message", {"sender_name": self.me, "receiver_name": to, "message": text}),)]
        self.expect[f"MessageApi.inbox.{7 + self.sent}.message"] = text
        self.sent += 1
        self.use("MessageApi")
        self.requests.append(self.say("send_full", to=to, text=text))
        return True

    def remind(self) -> bool:
        if self.reminders_added >= 2:
            return False
        title, desc = self.rng.choice(REMINDER_TEXTS[self.lang])
        said, when = _when(self.rng, self.lang)
        self.messages.append((Call("add_reminder", {"title": title, "description": desc, "time": when}),))
        key = 4 + self.reminders_added
        self.reminders_added += 1
        self.expect[f"ReminderApi.reminder_list.{key}.time"] = when
        self.expect[f"ReminderApi.reminder_list.{key}.title"] = title
        self.use("ReminderApi")
        self.requests.append(self.say("remind", when=said, title=title, desc=desc))
        return True

    def unremind(self) -> bool:
        left = [t for t in REMINDERS if t not in self.removed]
        if self.reminders_added or not left:
            return False  # keys of added reminders follow the counter: keep deletions before additions simple
        title = self.rng.choice(left)
        self.removed.add(title)
        self.messages += [(Call("view_reminder_by_title", {"title": title}),),
                          (Call("delete_reminder", {"reminder_id": REMINDERS[title]}),)]
        self.use("ReminderApi")
        self.requests.append(self.say("unremind", title=title))
        return True

    def _food_login(self) -> str:
        password = self.food["users"][self.me]["password"]
        if not self.food_logged_in:
            self.messages.append((Call("login_food_platform", {"username": self.me, "password": password}),))
            self.food_logged_in = True
            self.food_balance = float(self.food["users"][self.me]["balance"])
        return str(password)

    def _affordable(self, total: float) -> bool:
        balance = self.food_balance if self.food_balance is not None else self.food["users"][self.me]["balance"]
        return total < balance if self.lang == "zh" else total <= balance

    def order(self, cheapest: bool = False) -> bool:
        shop = self.rng.choice(sorted(self.food["merchant_list"]))
        menu = self.food["merchant_list"][shop]["menu"]
        if cheapest:
            item = min(menu, key=lambda entry: entry["price"])
            quantity = self.rng.randrange(1, 4)
            lines = [(item, quantity)]
        else:
            chosen = self.rng.sample(menu, self.rng.choice((1, 1, 2)))
            lines = [(entry, self.rng.randrange(1, 4)) for entry in chosen]
        total = float(sum(entry["price"] * quantity for entry, quantity in lines))
        if not self._affordable(total):
            return False
        again = self.food_logged_in  # the password was said with the first order
        password = self._food_login()
        if cheapest:
            self.messages.append((Call("get_products", {"merchant_name": shop}),))
        items = [{"product": entry["product"], "quantity": quantity} for entry, quantity in lines]
        self.messages.append((Call("add_food_delivery_order", {"username": self.me, "merchant_name": shop,
                                                               "items": items}),))
        assert self.food_balance is not None
        self.food_balance -= total
        self.expect[f"FoodPlatform.users.{self.me}.balance"] = self.food_balance
        self.use("FoodPlatform")
        if cheapest:
            key = "order_cheap_more" if again else "order_cheap"
            self.requests.append(self.say(key, shop=shop, qty=quantity, pw=password))
        else:
            joiner = "、" if self.lang == "zh" else " and "
            said = joiner.join(f"{QUANTITIES[self.lang][q]} {e['product']}".strip() if self.lang == "en"
                               else f"{e['product']}{QUANTITIES[self.lang][q]}" for e, q in lines)
            self.requests.append(self.say("order_more" if again else "order", items=said, shop=shop, pw=password))
        return True

    def book(self, by_route: bool = False) -> bool:
        uid = TRAVELLERS[self.me]
        user = self.travel_data["users"][uid]
        flights = self.travel_data["flights"]
        first_of: dict[str, dict[str, Any]] = {}
        for flight in flights:
            first_of.setdefault(flight["flight_no"], flight)
        choices = [f for f in first_of.values()
                   if f["seats_available"] > self.booked and _trip_key(f) not in self.asked]
        if by_route:
            days = [(f["origin"], f["destination"], f["depart_time"][:10]) for f in flights]
            choices = [f for f in choices if days.count((f["origin"], f["destination"], f["depart_time"][:10])) == 1
                       and sum((g["origin"], g["destination"]) == (f["origin"], f["destination"]) for g in flights)
                       <= 3]
        flight = self.rng.choice(choices)
        self.trips.add(_trip_key(flight))
        cabin = self.rng.choice(self.cabins)
        bags = self.rng.randrange(0, 4)
        method = self.rng.choice(("cash", "bank"))
        allowance = ALLOWANCE[user["membership_level"]][self.cabins.index(cabin)]
        price = flight["economy_price"] if cabin == self.cabins[0] else flight["business_price"]
        total = price + max(bags - allowance, 0) * BAG_FEE
        key = f"{method}_balance"
        balance = self.travel.get(key, float(user[key]))
        if total > balance:
            return False
        self.travel[key] = balance - total
        self.expect[f"Travel.users.{uid}.{key}"] = balance - total
        self.expect[f"Travel.reservations.{4 + self.booked}.flight_no"] = flight["flight_no"]
        self.booked += 1
        if by_route:
            self.messages.append((Call("get_flight_details", {"origin": flight["origin"],
                                                              "destination": flight["destination"]}),))
        self.messages.append((Call("reserve_flight", {"user_id": uid, "password": user["password"],
                                                      "flight_no": flight["flight_no"], "cabin": cabin,
                                                      "payment_method": method, "baggage_count": bags}),))
        self.use("Travel")
        bags_said = (BAGS_EN if self.lang == "en" else BAGS_ZH)[bags]
        values = {"cabin": cabin, "a": "an" if cabin[0] in "AEIOU" else "a", "bags": bags_said,
                  "pay": PAYMENT[self.lang][method], "uid": uid, "pw": user["password"]}
        if by_route:
            month, day = int(flight["depart_time"][5:7]), int(flight["depart_time"][8:10])
            said = f"{month}月{day}日" if self.lang == "zh" else f"July {day}" if month == 7 else f"August {day}"
            self.requests.append(self.say("book_route", origin=flight["origin"], dest=flight["destination"],
                                          day=said, **values))
        else:
            self.requests.append(self.say("book", flight=flight["flight_no"], **values))
        return True

    def _reservation(self) -> tuple[int, dict[str, Any], dict[str, Any]] | None:
        """One of the speaker's own reservations not yet asked about (its index, itself, its flight), or None."""
        uid = TRAVELLERS[self.me]
        flights = {f["flight_no"]: f for f in reversed(self.travel_data["flights"])}  # the first of a number wins
        mine = [(i, r) for i, r in enumerate(self.travel_data["reservations"])
                if r["user_id"] == uid and r["flight_no"] in flights and r["reservation_id"] not in self.changed
                and _trip_key(flights[r["flight_no"]]) not in self.trips]  # named by route and day: no twin booked
        if not mine:
            return None
        index, reservation = self.rng.choice(mine)
        self.changed.add(reservation["reservation_id"])
        self.asked.add(_trip_key(flights[reservation["flight_no"]]))
        return index, reservation, flights[reservation["flight_no"]]

    def _trip(self, flight: Mapping[str, Any]) -> dict[str, str]:
        """The words a traveller has for a booked flight: its route and day."""
        return {"origin": flight["origin"], "dest": flight["destination"], "day": self._day(flight["depart_time"]),
                "uid": TRAVELLERS[self.me]}

    def _day(self, when: str) -> str:
        month, day = int(when[5:7]), int(when[8:10])
        return f"{month}月{day}日" if self.lang == "zh" else f"July {day}" if month == 7 else f"August {day}"

    def cancel(self) -> bool:
        """Cancel one of the speaker's reservations, found by route and day: the fare paid comes back to the
        payment method (more than a day before departure: all of it)."""
        found = self._reservation()
        if found is None:
            return False
        _, reservation, flight = found
        uid, rid = TRAVELLERS[self.me], reservation["reservation_id"]
        reason = self.rng.choice(self.phrases["reasons"])
        key = f"{reservation['payment_method']}_balance"
        balance = self.travel.get(key, float(self.travel_data["users"][uid][key]))
        self.travel[key] = balance + self.travel_data["fares_paid"][rid]
        self.expect[f"Travel.users.{uid}.{key}"] = self.travel[key]
        self.messages += [(Call("get_reservation_details", {"user_id": uid}),),
                          (Call("cancel_reservation", {"user_id": uid, "reservation_id": rid, "reason": reason}),)]
        self.use("Travel")
        self.requests.append(self.say("cancel", reason=reason, **self._trip(flight)))
        return True

    def rebook(self) -> bool:
        """Move one of the speaker's reservations to another flight on its route (found by day and time), or
        to the other cabin (a dearer one paid, a cheaper one refunded, by the method the user names)."""
        found = self._reservation()
        if found is None:
            return False
        index, reservation, flight = found
        uid, rid = TRAVELLERS[self.me], reservation["reservation_id"]
        others = [f for f in self.travel_data["flights"] if (f["origin"], f["destination"]) ==
                  (flight["origin"], flight["destination"]) and f["flight_no"] != flight["flight_no"]]
        lookup = (Call("get_reservation_details", {"user_id": uid}),)
        self.use("Travel")
        if others and self.rng.random() < 0.6:
            target = self.rng.choice(others)
            self.messages += [lookup, (Call("get_flight_details", {"origin": flight["origin"],
                                                                  "destination": flight["destination"]}),),
                              (Call("modify_flight", {"user_id": uid, "reservation_id": rid,
                                                      "new_flight_no": target["flight_no"]}),)]
            self.expect[f"Travel.reservations.{index}.flight_no"] = target["flight_no"]
            self.requests.append(self.say("change_flight", new_day=self._day(target["depart_time"]),
                                          new_time=target["depart_time"][11:16], **self._trip(flight)))
            return True
        cabin = self.cabins[1] if reservation["cabin"] == self.cabins[0] else self.cabins[0]
        prices = [flight["economy_price"], flight["business_price"]]
        diff = prices[self.cabins.index(cabin)] - prices[self.cabins.index(reservation["cabin"])]
        method = self.rng.choice(("", "cash", "bank"))
        key = f"{method or reservation['payment_method']}_balance"
        balance = self.travel.get(key, float(self.travel_data["users"][uid][key]))
        if diff > balance:
            return False
        self.travel[key] = balance - diff
        self.expect[f"Travel.users.{uid}.{key}"] = self.travel[key]
        self.expect[f"Travel.reservations.{index}.cabin"] = cabin
        arguments = {"user_id": uid, "reservation_id": rid, "new_cabin": cabin}
        if method:
            arguments["new_payment_method"] = method
        self.messages += [lookup, (Call("modify_flight", arguments),)]
        values = {"cabin": cabin, **self._trip(flight)}
        self.requests.append(self.say("change_cabin_pay", pay=PAYMENT[self.lang][method], **values) if method
                             else self.say("change_cabin", **values))
        return True

    # -- the candidate --------------------------------------------------------------------------

    def write(self) -> Candidate | None:
        level = self.difficulty
        simple: list[Callable[[], bool]] = [self.remind, self.order, self.book]
        if level >= 2:
            simple = [self.remind, lambda: self.order(cheapest=True), self.order]
        compound: list[Callable[[], bool]] = [self.send, self.unremind, lambda: self.book(by_route=True),
                                              self.cancel, self.rebook]
        plan = {1: [simple], 2: [simple, simple], 3: [compound, simple, simple],
                4: [compound, compound, simple, simple],
                5: [compound, compound, compound, simple, simple, simple]}[level]
        for choices in self.rng.sample(plan, len(plan)):
            if not self.rng.choice(choices)():
                return None
        device = {"wifi": True, "logged_in": True}
        opening: list[tuple[Call, ...]] = []
        extra: list[str] = []
        if level >= 4:
            needed = sorted({need for app in self.apps for need in NEEDS[app]})
            if needed:
                missing = self.rng.choice(needed)
                device[missing] = False
                opening.append((Call("turn_on_wifi" if missing == "wifi" else "login_device", {}),))
            unused = [app for app in APPS if app not in self.apps]
            if unused:
                extra.append(self.rng.choice(unused))
        classes = ("BaseApi", *sorted(self.apps + extra, key=APPS.index))
        return Candidate("multi_step", self.question(), classes, {"BaseApi": device},
                         tuple(opening + self.messages), dict(self.expect))

    def identity(self) -> str:
        """Who speaks; from level 4 on, with the accounts their requests need, said once."""
        said = self.say("identity", name=self.me)
        travel, food = "Travel" in self.apps, "FoodPlatform" in self.apps
        if self.difficulty < 4 or not (travel or food):
            return said
        key = "creds_both" if travel and food else "creds_travel" if travel else "creds_food"
        uid = TRAVELLERS.get(self.me, "")
        creds = self.say(key, uid=uid, pw=self.food["users"][self.me]["password"])
        return said + ("" if self.lang == "zh" else " ") + creds

    def question(self) -> str:
        if self.difficulty >= 4:
            return one_request(self.requests, self.lang, self.rng, self.identity())
        return one_message(self.say("identity", name=self.me), self.requests, self.lang, self.rng,
                           self.phrases["then"], zh_direct=("我", "帮", "给", "在", "用"), zh_question=ZH_QUESTION,
                           zh_comma=ZH_COMMA, zh_stop=ZH_STOP, ends=("?", "!"))


def _special(draft: _Draft) -> Candidate:
    rng = draft.rng
    to = rng.choice([c for c in CONTACTS if c != draft.me])
    said, _ = _when(rng, draft.lang)
    title, _ = rng.choice(REMINDER_TEXTS[draft.lang])
    category = special_category(rng, 0.4, 0.7)
    if category == "special_incomplete":
        if rng.random() < 0.5:
            request, answer, apps = draft.say("incomplete_send", to=to), {"send_message": ["message"]}, ["MessageApi"]
        else:
            request, answer, apps = draft.say("incomplete_remind", when=said), {"add_reminder": ["title"]}, \
                ["ReminderApi"]
    elif category == "special_error_param":
        bad = rng.choice(("2024-13-05 09:00", "2024-02-30 10:00", "2024-07-32 08:30", "2024-06-31 18:00"))
        request, answer, apps = draft.say("error_remind", title=title, bad=bad), {"time": [bad]}, ["ReminderApi"]
    else:
        request, answer = draft.say("irrelevant"), {}
        apps = [rng.choice(APPS)]
    draft.requests = [request]
    return Candidate(category, draft.question(), ("BaseApi", *apps), {"BaseApi": {"wifi": True, "logged_in": True}},
                     special=answer)


GENERATOR = AceFormatGenerator("acebench", VERSION, acebench_world, _Draft, _special, SPECIAL_SHARE, stream=STREAM)
