"""Hospital appointments, health data, smart home, hotel and stock APIs."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, cast

from pydantic import AliasChoices, Field
from typing_extensions import TypedDict

from sandbox import App, Ref, StateModel

from .accounts import RandomSource, RecordedDraws
from .api_common import (
    DATE_FORMAT,
    FROM_LITERAL,
    TIME_FORMAT,
    ApiError,
    LiteralList,
    Records,
    api,
    normalize_date,
    pad_year,
    strict_time,
)
from .references import recorded


# What the query APIs answer (API-Bank's init_database shapes).
class Registration(TypedDict):
    patient_name: str
    date: str
    doctor_name: str


class HealthRecord(TypedDict):
    """One measurement: its time, and each metric recorded then by name (`blood_pressure`,
    `heart_rate`, ...; RecordHealthData takes any names, so they are not listed)."""

    time: str


class Condition(TypedDict):
    name: str
    description: str


class FirstAid(TypedDict):
    name: str
    aid: str


class SceneDevice(TypedDict):
    name: str
    description: str


def _normalized_or_none(value: str, fmt: str) -> str | None:
    try:
        return normalize_date(value, fmt)
    except ApiError:
        return None


class HospitalState(Records, RecordedDraws):
    """Appointments by id, and the appointment ids a replay queued."""


# What the APIs' parameters name in the state: an appointment, a date written as the
# APIs expect it, a doctor, a patient; a health record's user and times; a scene and the
# devices in scenes; a switch and its times; a stock and its dates.
AppointmentId = Annotated[str, Ref("Hospital", "records")]
AppointmentDate = Annotated[str, recorded("Hospital", "date")]
Doctor = Annotated[str, recorded("Hospital", "doctor_name")]
HealthUser = Annotated[str, Ref("Health", "health")]
HealthTime = Annotated[str, Ref("Health", "health.{user_id}", "time"), Ref("Health", "health.*", "time")]
Symptom = Annotated[str, Ref("Health", "symptoms")]
SceneName = Annotated[str, Ref("SmartHome", "scenes")]
Devices = Annotated[list[Annotated[Any, Ref("SmartHome", "scenes.*")]], FROM_LITERAL]


class Hospital(RandomSource[HospitalState]):
    """Doctor appointments (Appointments.json)."""

    app_name = "Hospital"

    @api("AppointmentRegistration", destructive=False)
    def appointment_registration(self, patient_name: str, date: AppointmentDate, doctor_name: Doctor) -> str:
        patient, doctor = patient_name.strip(), doctor_name.strip()
        if not patient or not doctor:
            raise ApiError("Patient name or doctor name cannot be empty.")
        day = normalize_date(date)
        records = self.state.records
        for record in records.values():
            if record.get("patient_name") == patient and _normalized_or_none(record.get("date", ""),
                                                                             "%Y-%m-%d") == day:
                if record.get("doctor_name") == doctor:
                    raise ApiError("This appointment has already been registered.")
                raise ApiError("This patient has already been registered in this day.")
        appointment_id = self.take()
        while appointment_id is None or appointment_id in records:
            appointment_id = str(self.world.rng.randint(10000000, 99999999))
        records[appointment_id] = {"patient_name": patient, "date": day, "doctor_name": doctor}
        return appointment_id

    @api("CancelRegistration", idempotent=True)
    def cancel_registration(self, appointment_id: AppointmentId) -> str:
        if appointment_id not in self.state.records:
            raise ApiError("The appointment ID is incorrect.")
        del self.state.records[appointment_id]
        return "success"

    @api("ModifyRegistration", idempotent=True)
    def modify_registration(self, appointment_id: AppointmentId, new_appointment_date: AppointmentDate | None = None,
                            new_appointment_doctor: Doctor | None = None) -> str:
        key = appointment_id.strip()
        record = self.state.records.get(key)
        if record is None:
            raise ApiError("The appointment ID does not exist.")
        doctor = None if new_appointment_doctor is None else new_appointment_doctor.strip()
        if doctor == "":
            raise ApiError("Fail because the doctor name is empty.")
        day = None if new_appointment_date is None else normalize_date(new_appointment_date)
        if day is None and doctor is None:
            raise ApiError("Fail because no modification is made.")
        if day is None:
            if doctor == record.get("doctor_name"):
                raise ApiError("Fail because doctor is not changed.")
            record["doctor_name"] = doctor
        elif doctor is None:
            if day == record.get("date"):
                raise ApiError("Fail because date is not changed.")
            record["date"] = day
        else:
            same_day, same_doctor = day == record.get("date"), doctor == record.get("doctor_name")
            if same_day and same_doctor:
                raise ApiError("Fail because no modification is made.")
            if same_day:
                raise ApiError("Fail because date is not changed.")
            if same_doctor:
                raise ApiError("Fail because doctor is not changed.")
            record["date"], record["doctor_name"] = day, doctor
        return "success"

    @api("QueryRegistration", mutates=False)
    def query_registration(
        self, patient_name: Annotated[str, recorded("Hospital", "patient_name")],
        date: Annotated[str, Ref("Hospital", "records", "date", where={"patient_name": "{patient_name}"})],
    ) -> dict[str, Registration]:
        patient, day = patient_name.strip(), normalize_date(date)
        found = {key: record for key, record in self.state.records.items()
                 if record.get("patient_name") == patient
                 and _normalized_or_none(record.get("date", ""), "%Y-%m-%d") == day}
        if not found:
            raise ApiError("No appointments found.")
        return cast(dict[str, Registration], found)


class HealthState(StateModel):
    health: dict[str, Any] = {}  # user id -> list of {time, metric: value}
    symptoms: dict[str, Any] = {}  # symptom -> list of {name, description, aid}


class Health(App[HealthState]):
    """Health records (HealthData.json) and medical knowledge (Symptom.json)."""

    app_name = "Health"

    @api("RecordHealthData", destructive=False)
    def record_health_data(self, user_id: HealthUser, time: HealthTime, health_data: LiteralList) -> str:
        user = user_id.upper().strip()
        if not user:
            raise ApiError("The user id cannot be empty.")
        moment = normalize_date(time, TIME_FORMAT)
        if not health_data:
            raise ApiError("The health data cannot be empty.")
        names: set[str] = set()
        for item in health_data:
            if not isinstance(item, dict) or not isinstance(item.get("name"), str):
                raise ApiError("The health data has invalid format.")
            if item["name"] in names:
                raise ApiError("The health data cannot contain duplicate items.")
            names.add(item["name"])
            if "value" not in item:
                raise ApiError("'value'")
        records = self.state.health.setdefault(user, [])
        target = next((record for record in records if record.get("time") == moment), None)
        if target is None:
            records.append({"time": moment, **{item["name"]: item["value"] for item in health_data}})
        else:
            for item in health_data:
                target[item["name"]] = item["value"]
        return "success"

    @api("QueryHealthData", mutates=False)
    def query_health_data(self, user_id: HealthUser, start_time: HealthTime, end_time: HealthTime
                          ) -> list[HealthRecord]:
        user = user_id.upper().strip()
        if not user:
            raise ApiError("The user id cannot be empty.")
        start, start_error = _parse_time(start_time)
        end, end_error = _parse_time(end_time)
        if start_error and end_error:
            raise ApiError(f"{start_error}; {end_error}")
        if start_error or end_error:
            raise ApiError(start_error or end_error)  # type: ignore[arg-type]
        if start > end:  # type: ignore[operator]
            raise ApiError("The start time cannot be later than the end time.")
        if user not in self.state.health:
            raise ApiError("The user id does not exist.")
        found = [record for record in self.state.health[user]
                 if start <= dt.datetime.strptime(record["time"], TIME_FORMAT) <= end]  # type: ignore[operator]
        if not found:
            raise ApiError("There is no health data in the given time span.")
        return cast(list[HealthRecord], found)

    def _symptom(self, symptom: str) -> list[dict[str, Any]]:
        key = symptom.strip().lower()
        if not key:
            raise ApiError("The symptom cannot be empty.")
        if key not in self.state.symptoms:
            raise ApiError("The symptom does not exist.")
        return self.state.symptoms[key]

    @api("SymptomSearch", mutates=False)
    def symptom_search(self, symptom: Symptom) -> list[Condition]:
        return [{"name": item["name"], "description": item["description"]} for item in self._symptom(symptom)]

    @api("EmergencyKnowledge", mutates=False)
    def emergency_knowledge(self, symptom: Symptom) -> list[FirstAid]:
        return [{"name": item["name"], "aid": item["aid"]} for item in self._symptom(symptom)]


def _parse_time(value: str) -> tuple[dt.datetime | None, str | None]:
    text = pad_year(value)
    try:
        return dt.datetime.strptime(text, TIME_FORMAT), None
    except ValueError as exc:
        return None, str(exc)


class HomeState(StateModel):
    scenes: dict[str, Any] = {}  # scene -> list of {name, description}
    switches: dict[str, Any] = {}  # device -> list of {time, on}


DeviceName = Annotated[str, Field(validation_alias=AliasChoices("name", "device_id")), Ref("SmartHome", "switches")]
SwitchTime = Annotated[str, Ref("SmartHome", "switches.{name}", "time"), Ref("SmartHome", "switches.*", "time")]


class SmartHome(App[HomeState]):
    """Scenes (Scenes.json) and timed switches (TimeSwitch.json)."""

    app_name = "SmartHome"

    @staticmethod
    def _scene_name(name: str) -> str:
        key = name.strip().lower()
        if not key:
            raise ApiError("Scene name cannot be empty.")
        return key

    @staticmethod
    def _devices(devices: list[Any]) -> list[dict[str, Any]]:
        seen: set[str] = set()
        cleaned = []
        for device in devices:
            if not isinstance(device, dict) or "name" not in device or "description" not in device:
                raise ApiError("Invalid device format.")
            name = str(device["name"]).strip().lower()
            if name in seen:
                raise ApiError("Device name cannot be duplicated.")
            seen.add(name)
            cleaned.append({"name": name, "description": str(device["description"]).strip()})
        return sorted(cleaned, key=lambda d: d["name"])

    @api("AddScene", destructive=False)
    def add_scene(self, name: str, devices: Devices) -> str:
        key, cleaned = self._scene_name(name), self._devices(devices)
        if key in self.state.scenes:
            raise ApiError("Scene name already exists.")
        self.state.scenes[key] = cleaned
        return "success"

    @api("ModifyScene", idempotent=True)
    def modify_scene(self, name: SceneName, devices: Devices) -> str:
        key, cleaned = self._scene_name(name), self._devices(devices)
        if key not in self.state.scenes:
            raise ApiError("The scene does not exist.")
        self.state.scenes[key] = cleaned
        return "success"

    @api("QueryScene", mutates=False)
    def query_scene(self, name: SceneName) -> list[SceneDevice]:
        key = self._scene_name(name)
        if key not in self.state.scenes:
            raise ApiError("Scene not found.")
        return cast(list[SceneDevice], self.state.scenes[key])

    @api("DeleteScene", idempotent=True)
    def delete_scene(self, name: SceneName) -> str:
        key = self._scene_name(name)
        if key not in self.state.scenes:
            raise ApiError("The scene does not exist.")
        del self.state.scenes[key]
        return "success"

    @api("TimedSwitch", destructive=False)
    def timed_switch(self, name: DeviceName, time: SwitchTime, on: bool) -> str:
        device = name.strip().lower()
        if not device:
            raise ApiError("Name cannot be empty.")
        moment = normalize_date(time, TIME_FORMAT)
        schedule = self.state.switches.setdefault(device, [])
        for entry in schedule:
            if entry.get("time") == moment:
                entry["on"] = on
                return "success"
        schedule.append({"time": moment, "on": on})
        return "success"

    @api("CancelTimedSwitch", idempotent=True)
    def cancel_timed_switch(self, name: DeviceName, time: SwitchTime) -> str:
        device = name.strip().lower()
        if not device:
            raise ApiError("name cannot be empty.")
        moment = normalize_date(time, TIME_FORMAT)
        if device not in self.state.switches:
            raise ApiError("device name does not exist.")
        schedule = self.state.switches[device]
        index = next((i for i, entry in enumerate(schedule) if entry.get("time") == moment), None)
        if index is None:
            raise ApiError("time does not exist.")
        schedule.pop(index)
        return "success"


class HotelState(StateModel):
    orders: dict[str, Any] = {}  # order id -> booking (Hotel.json)


class Hotel(App[HotelState]):
    """Hotel bookings (Hotel.json): in effect one room per hotel."""

    app_name = "Hotel"

    @api("BookHotel", destructive=False)
    def book_hotel(self, hotel_name: str, check_in_time: Annotated[str, Ref("Hotel", "orders", "check_in_time")],
                   check_out_time: Annotated[str, Ref("Hotel", "orders", "check_out_time")], room_count: int,
                   adult_count: int, child_count: int) -> str:
        check_in = dt.datetime.strptime(strict_time(check_in_time, DATE_FORMAT), DATE_FORMAT)
        check_out = dt.datetime.strptime(strict_time(check_out_time, DATE_FORMAT), DATE_FORMAT)
        if adult_count > 2 and room_count == 1:
            raise ApiError("The number of adults is greater than 2. Two rooms are ordered.")
        for order in self.state.orders.values():
            if order.get("hotel_name") != hotel_name:
                continue
            start = dt.datetime.strptime(order["check_in_time"], "%Y-%m-%d")
            end = dt.datetime.strptime(order["check_out_time"], "%Y-%m-%d")
            # The reference's overlap rule (a stay that encloses a booking is not caught).
            if start <= check_in < end or start < check_out <= end:
                raise ApiError("The room is not available.")
        order_id = str(len(self.state.orders) + 1)
        while order_id in self.state.orders:
            order_id = str(int(order_id) + 1)
        self.state.orders[order_id] = {"hotel_name": hotel_name, "check_in_time": check_in_time,
                                       "check_out_time": check_out_time, "room_count": room_count,
                                       "adult_count": adult_count, "child_count": child_count}
        return order_id


class StockState(StateModel):
    prices: dict[str, Any] = {}  # code -> {date: price} (Stock.json)


class Stock(App[StockState]):
    app_name = "Stock"

    @api("QueryStock", mutates=False)
    def query_stock(self, stock_code: Annotated[str, Ref("Stock", "prices")],
                    date: Annotated[str, Ref("Stock", "prices.{stock_code}")]) -> float:
        code = stock_code.strip().upper()
        if not code:
            raise ApiError("The stock code cannot be empty.")
        day = normalize_date(date)
        if code not in self.state.prices:
            raise ApiError("The stock code does not exist.")
        if day not in self.state.prices[code]:
            raise ApiError("The stock price of this date is not maintained.")
        return self.state.prices[code][day]
