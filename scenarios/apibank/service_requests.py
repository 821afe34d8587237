"""Requests of a generated API-Bank task to its services that need no token: doctor's appointments,
health data, smart-home scenes and timers, hotel bookings (see `scenarios.apibank.generate`).

Each request returns False, having changed nothing, when the task's world as it stands cannot take
it; else it adds its calls, its words and its changes to the draft's tables.
"""

from __future__ import annotations

from typing import Any

from .drafting import Draft, Table, lower_first, world_draw
from .phrases import DEVICES, DOCTORS, HOTELS, METRICS, PEOPLE, SCENES


def possessive(name: str) -> str:
    """"the blinds' timer", "the lamp's timer"."""
    return name + ("'" if name.endswith("s") else "'s")


class ServiceRequests(Draft):
    """The token-free requests (`Draft` with them)."""

    def appointments(self) -> Table:
        def draw() -> Table:
            table: Table = {}
            for patient in self.rng.sample(PEOPLE[self.lang], self.rng.choice((2, 3))):
                table[str(self.rng.randrange(10000000, 100000000))] = {
                    "patient_name": patient, "date": self.moment()[0][:10], "doctor_name": self.rng.choice(DOCTORS)}
            return table
        return self.table("Hospital", "records", draw)

    def register_appointment(self) -> bool:
        table = self.appointments()
        patient, doctor = self.rng.choice(PEOPLE[self.lang]), self.rng.choice(DOCTORS)
        day = self.moment()[0][:10]
        if any(r["patient_name"] == patient and r["date"] == day for r in table.values()):
            return False
        self.call("AppointmentRegistration", patient_name=patient, date=day, doctor_name=doctor)
        while True:
            self.draws += 1
            key = str(world_draw(self.draws).randint(10000000, 99999999))
            if key not in table:
                break
        table[self.new_key("Hospital", key)] = {"patient_name": patient, "date": day, "doctor_name": doctor}
        self.change("Hospital", "records")
        self.requests.append(self.say("register_appointment", patient=patient, doctor=doctor,
                                      day=self.said_day(day)))
        return True

    def _appointment(self) -> tuple[str, dict[str, Any]] | None:
        fresh = sorted((key, r) for key, r in self.appointments().items() if ("Hospital", key) not in self.handled)
        return self.take(fresh, "Hospital") if fresh else None

    def _query_appointment(self, record: dict[str, Any]) -> None:
        self.call("QueryRegistration", patient_name=record["patient_name"], date=record["date"])

    def cancel_appointment(self) -> bool:
        found = self._appointment()
        if found is None:
            return False
        key, record = found
        self._query_appointment(record)
        self.call("CancelRegistration", appointment_id=key)
        del self.appointments()[key]
        self.change("Hospital", "records")
        self.requests.append(self.say("cancel_appointment", patient=record["patient_name"],
                                      day=self.said_day(record["date"])))
        return True

    def move_appointment(self) -> bool:
        found = self._appointment()
        if found is None:
            return False
        key, record = found
        day = self.moment()[0][:10]
        if day == record["date"] or any(r["patient_name"] == record["patient_name"] and r["date"] == day
                                        for r in self.appointments().values()):
            return False
        self._query_appointment(record)
        self.call("ModifyRegistration", appointment_id=key, new_appointment_date=day)
        self.requests.append(self.say("move_appointment", patient=record["patient_name"],
                                      day=self.said_day(record["date"]), until=self.said_day(day)))
        record["date"] = day
        self.change("Hospital", "records")
        return True

    def health(self) -> bool:
        def draw() -> Table:
            table: Table = {}
            for _ in range(2):
                name, _word, _unit, low, high = self.rng.choice(METRICS[self.lang])
                table[f"P{self.rng.randrange(100, 1000)}"] = [{"time": self.moment()[0],
                                                               name: str(self.rng.randint(low, high))}]
            return table
        table = self.table("Health", "health", draw)
        pid = self.rng.choice(sorted(table)) if self.rng.random() < 0.7 else f"P{self.rng.randrange(100, 1000)}"
        time, when = self.moment()
        metrics = self.rng.sample(METRICS[self.lang], self.rng.choice((1, 2)))
        # values as the API's example writes them ('80'), said without their unit
        items = [{"name": name, "value": str(self.rng.randint(low, high))} for name, _, _, low, high in metrics]
        words = [self.phrases["reading"][0].format(word=word, value=item["value"], unit=unit)
                 for (_, word, unit, _, _), item in zip(metrics, items, strict=True)]
        self.call("RecordHealthData", user_id=pid, time=time, health_data=items)
        table.setdefault(pid, []).append({"time": time, **{item["name"]: item["value"] for item in items}})
        self.change("Health", "health")
        self.requests.append(self.say("health", pid=pid, when=when, data=self.phrases["and"][0].join(words)))
        return True

    def scenes(self) -> Table:
        def draw() -> Table:
            table: Table = {}
            for scene in self.rng.sample(SCENES[self.lang], self.rng.choice((2, 3))):
                devices = self.rng.sample(DEVICES[self.lang], self.rng.choice((1, 2, 3)))
                table[scene] = sorted(({"name": n, "description": d} for n, d in devices), key=lambda d: d["name"])
            return table
        return self.table("SmartHome", "scenes", draw)

    def add_scene(self) -> bool:
        table = self.scenes()
        scene = self.rng.choice(SCENES[self.lang])
        if scene in table:
            return False
        devices = [{"name": n, "description": d} for n, d in self.rng.sample(DEVICES[self.lang], 2)]
        self.call("AddScene", name=scene, devices=devices)
        table[self.new_key("SmartHome", scene)] = sorted(devices, key=lambda d: d["name"])
        self.change("SmartHome", "scenes")
        self.requests.append(self.say("add_scene", scene=scene, devices=self.devices(devices)))
        return True

    def devices(self, devices: list[dict[str, str]]) -> str:
        return self.phrases["and"][0].join(self.phrases["device"][0].format(name=d["name"],
                                                                            description=lower_first(d["description"]))
                                           for d in devices)

    def scene(self, table: Table) -> str | None:
        """A scene no earlier request of the task touched, drawn and marked handled; None when there is none."""
        fresh = sorted(scene for scene in table if ("SmartHome", scene) not in self.handled)
        return self.take([(name, None) for name in fresh], "SmartHome")[0] if fresh else None

    def extend_scene(self) -> bool:
        table = self.scenes()
        scene = self.scene(table)
        if scene is None:
            return False
        have = {d["name"] for d in table[scene]}
        name, description = self.rng.choice([d for d in DEVICES[self.lang] if d[0] not in have])
        self.call("QueryScene", name=scene)
        devices = [*table[scene], {"name": name, "description": description}]
        self.call("ModifyScene", name=scene, devices=devices)
        table[scene] = sorted(devices, key=lambda d: d["name"])
        self.change("SmartHome", "scenes")
        self.requests.append(self.say("extend_scene", scene=scene, device=self.devices([devices[-1]])))
        return True

    def delete_scene(self) -> bool:
        table = self.scenes()
        scene = self.scene(table)
        if scene is None:
            return False
        self.call("DeleteScene", name=scene)
        del table[scene]
        self.change("SmartHome", "scenes")
        self.requests.append(self.say("delete_scene", scene=scene))
        return True

    def switches(self) -> Table:
        def draw() -> Table:
            devices = self.rng.sample(DEVICES[self.lang], self.rng.choice((1, 2)))
            return {name: [{"time": self.moment()[0], "on": self.rng.random() < 0.6}] for name, _ in devices}
        return self.table("SmartHome", "switches", draw)

    def switch(self) -> bool:
        table = self.switches()
        device = self.rng.choice(DEVICES[self.lang])[0]
        time, when = self.moment()
        on = self.rng.random() < 0.6
        self.call("TimedSwitch", name=device, time=time, on=on)
        table.setdefault(self.new_key("switch", device), []).append({"time": time, "on": on})
        self.change("SmartHome", "switches")
        self.requests.append(self.say("switch", device=device, when=when, state=self.phrases["on" if on else "off"][0]))
        return True

    def cancel_switch(self) -> bool:
        table = self.switches()
        devices = sorted(d for d in table if table[d] and ("switch", d) not in self.handled)
        if not devices:
            return False
        device = self.take([(d, None) for d in devices], "switch")[0]
        entry = self.rng.choice(table[device])
        self.call("CancelTimedSwitch", name=device, time=entry["time"])
        table[device].remove(entry)
        self.change("SmartHome", "switches")
        self.requests.append(self.say("cancel_switch", device=device, whose=possessive(device),
                                      when=self.said(entry["time"])))
        return True

    def hotel(self) -> bool:
        def draw() -> Table:
            start = self.rng.randrange(1, 25)
            return {"1": {"hotel_name": self.rng.choice(HOTELS), "check_in_time": f"2023-04-{start:02d}",
                          "check_out_time": f"2023-04-{start + self.rng.randrange(1, 4):02d}", "room_count": 1,
                          "adult_count": 2, "child_count": 0}}
        orders = self.table("Hotel", "orders", draw)
        hotel, start = self.rng.choice(HOTELS), self.rng.randrange(1, 25)
        end = start + self.rng.randrange(1, 5)
        for order in orders.values():  # the API's overlap rule
            first, last = int(order["check_in_time"][8:]), int(order["check_out_time"][8:])
            if order["hotel_name"] == hotel and (first <= start < last or first < end <= last):
                return False
        adults, children = self.rng.randrange(1, 5), self.rng.randrange(0, 3)
        rooms = 2 if adults > 2 else self.rng.choice((1, 1, 2))
        check_in, check_out = f"2023-04-{start:02d}", f"2023-04-{end:02d}"
        self.call("BookHotel", hotel_name=hotel, check_in_time=check_in, check_out_time=check_out, room_count=rooms,
                  adult_count=adults, child_count=children)
        key = str(len(orders) + 1)
        while key in orders:
            key = str(int(key) + 1)
        orders[key] = {"hotel_name": hotel, "check_in_time": check_in, "check_out_time": check_out,
                       "room_count": rooms, "adult_count": adults, "child_count": children}
        self.change("Hotel", "orders")
        self.requests.append(self.say("book_hotel", hotel=hotel, day=self.said_day(check_in),
                                      until=self.said_day(check_out), **self.party(rooms, adults, children)))
        return True

    def party(self, rooms: int, adults: int, children: int = 0) -> dict[str, str]:
        return {"rooms": self.phrases["rooms"][rooms - 1], "adults": self.phrases["adults"][adults - 1],
                "children": self.phrases["children"][children]}
