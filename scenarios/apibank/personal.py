"""The personal organiser APIs: agenda, alarms, reminders, meetings (all token-gated)."""

from __future__ import annotations

from typing import Annotated, Any, cast

from typing_extensions import TypedDict

from sandbox import App

from .api_common import ApiError, LiteralStrList, Records, api, strict_time
from .references import Token, owned, recorded


# What the query APIs answer: the user's stored record (API-Bank's init_database shapes).
class AgendaRecord(TypedDict):
    username: str
    content: str
    time: str
    location: str


class AlarmRecord(TypedDict):
    username: str
    time: str


class ReminderRecord(TypedDict):
    username: str
    content: str
    time: str


class MeetingRecord(TypedDict):
    username: str
    meeting_topic: str
    start_time: str
    end_time: str
    location: str
    attendees: list[str]


class _Gated(App[Records]):
    """Records keyed by id, owned by the user a token belongs to."""

    def user(self, token: str) -> str:
        return self.world.app("Accounts").username_for(token)  # type: ignore[attr-defined]

    def mine(self, username: str) -> list[tuple[str, dict[str, Any]]]:
        return [(key, record) for key, record in self.state.records.items() if record.get("username") == username]

    def find_any(self, username: str, **values: Any) -> tuple[str, dict[str, Any]] | None:
        """The user's first record (key, record) that matches any one of the given field values."""
        return next(((key, record) for key, record in self.mine(username)
                     if any(record.get(name) == value for name, value in values.items())), None)

    def next_key_by_count(self) -> str:
        """len+1, the reference's rule for agenda and alarm ids (skipping ids in use, which it overwrote)."""
        records = self.state.records
        number = len(records) + 1
        while str(number) in records:
            number += 1
        return str(number)

    def next_key_by_max(self) -> str:
        """One above the largest integer id, the reference's rule for reminders and meetings."""
        numbers = [int(key) for key in self.state.records if str(key).lstrip("-").isdigit()]
        return str(max(numbers) + 1) if numbers else "0"


class Agenda(_Gated):
    """Agenda items (Agenda.json)."""

    app_name = "Agenda"

    @api("AddAgenda", destructive=False)
    def add_agenda(self, token: Token, content: str, time: Annotated[str, recorded("Agenda", "time")],
                   location: str) -> str:
        strict_time(time)
        if content.strip() == "":
            raise ApiError("Content should not be null")
        username = self.user(token)
        self.state.records[self.next_key_by_count()] = {"username": username, "content": content, "time": time,
                                                        "location": location}
        return "success"

    @api("DeleteAgenda", idempotent=True)
    def delete_agenda(self, token: Token, content: Annotated[str, owned("Agenda", "content")],
                      time: Annotated[str, owned("Agenda", "time")],
                      location: Annotated[str, owned("Agenda", "location")]) -> str:
        if time:
            strict_time(time)
        found = self.find_any(self.user(token), content=content, time=time)
        if found is not None:
            del self.state.records[found[0]]
        elif content:
            raise ApiError(f"You have no meeting about {content}")
        elif time:
            raise ApiError(f"You have no meeting at time : {time}")
        return "success"

    @api("ModifyAgenda", idempotent=True)
    def modify_agenda(self, token: Token, content: Annotated[str, owned("Agenda", "content")],
                      time: Annotated[str, owned("Agenda", "time")],
                      location: Annotated[str, owned("Agenda", "location")]) -> str:
        if time:
            strict_time(time)
        username = self.user(token)
        found = self.find_any(username, content=content, time=time)
        if found is not None:
            self.state.records[found[0]] = {"username": username, "content": content, "time": time,
                                            "location": location}
            return "success"
        if content:
            raise ApiError(f"You have no agenda about {content}")
        if time:
            raise ApiError(f"You have no agenda at time : {time}")
        raise ApiError("Error")

    @api("QueryAgenda", mutates=False)
    def query_agenda(self, token: Token, content: Annotated[str, owned("Agenda", "content")],
                     time: Annotated[str, owned("Agenda", "time")],
                     location: Annotated[str, owned("Agenda", "location")]) -> AgendaRecord:
        if time:
            strict_time(time)
        found = self.find_any(self.user(token), content=content, time=time)
        if found is not None:
            return cast(AgendaRecord, found[1])
        if content:
            raise ApiError(f"You have no agenda about {content}")
        if time:
            raise ApiError(f"You have no agenda at time : {time}")
        raise ApiError("Error")


class Alarm(_Gated):
    """Alarm clocks (Alarm.json)."""

    app_name = "Alarm"

    @api("AddAlarm", destructive=False)
    def add_alarm(self, token: Token, time: Annotated[str, recorded("Alarm", "time")]) -> str:
        strict_time(time)
        username = self.user(token)
        self.state.records[self.next_key_by_count()] = {"username": username, "time": time}
        return "success"

    @api("DeleteAlarm", idempotent=True)
    def delete_alarm(self, token: Token, time: Annotated[str, owned("Alarm", "time")]) -> str:
        strict_time(time)
        found = self.find_any(self.user(token), time=time)
        if found is None:
            raise ApiError(f"You have no alarm clock at time : {time}")
        del self.state.records[found[0]]
        return "success"

    @api("ModifyAlarm", idempotent=True)
    def modify_alarm(self, token: Token, from_time: Annotated[str, owned("Alarm", "time")],
                     to_time: Annotated[str, recorded("Alarm", "time")]) -> str:
        strict_time(from_time)
        strict_time(to_time)
        username = self.user(token)
        found = self.find_any(username, time=from_time)
        if found is None:
            raise ApiError(f"You have no agenda at time : {from_time}")
        self.state.records[found[0]] = {"username": username, "time": to_time}
        return "success"

    @api("QueryAlarm", mutates=False)
    def query_alarm(self, token: Token, time: Annotated[str, owned("Alarm", "time")]) -> AlarmRecord:
        strict_time(time)
        found = self.find_any(self.user(token), time=time)
        if found is None:
            raise ApiError(f"You have no alarm clock at time : {time}")
        return cast(AlarmRecord, found[1])


class Reminder(_Gated):
    """Reminders (Reminder.json)."""

    app_name = "Reminder"

    def _checked(self, token: str, content: str, time: str) -> tuple[str, dict[str, Any]] | None:
        strict_time(time)
        if content.strip() == "":
            raise ApiError("Content should not be null")
        return self.find_any(self.user(token), content=content, time=time)

    @api("AddReminder", destructive=False)
    def add_reminder(self, token: Token, content: str, time: Annotated[str, recorded("Reminder", "time")]) -> str:
        strict_time(time)
        if content.strip() == "":
            raise ApiError("Content should not be null")
        username = self.user(token)
        self.state.records[self.next_key_by_max()] = {"username": username, "content": content, "time": time}
        return "success"

    @api("DeleteReminder", idempotent=True)
    def delete_reminder(self, token: Token, content: Annotated[str, owned("Reminder", "content")],
                        time: Annotated[str, owned("Reminder", "time")]) -> str:
        found = self._checked(token, content, time)
        if found is None:
            raise ApiError(f"You have no reminder about {content} or at time : {time}")
        del self.state.records[found[0]]
        return "success"

    @api("ModifyReminder", idempotent=True)
    def modify_reminder(self, token: Token, content: Annotated[str, owned("Reminder", "content")],
                        time: Annotated[str, owned("Reminder", "time")]) -> str:
        found = self._checked(token, content, time)
        if found is None:
            raise ApiError(f"You have no reminder about {content} or at time : {time}")
        found[1]["content"] = content
        found[1]["time"] = time
        return "success"

    @api("QueryReminder", mutates=False)
    def query_reminder(self, token: Token, content: Annotated[str, owned("Reminder", "content")],
                       time: Annotated[str, owned("Reminder", "time")]) -> ReminderRecord:
        found = self._checked(token, content, time)
        if found is None:
            raise ApiError(f"You have no reminder about {content} or at time : {time}")
        return cast(ReminderRecord, found[1])


class Meeting(_Gated):
    """Meetings (Meeting.json)."""

    app_name = "Meeting"

    def _checked(self, token: str, meeting_topic: str, start_time: str, end_time: str
                 ) -> tuple[str, dict[str, Any]] | None:
        if start_time:
            strict_time(start_time)
        if end_time:
            strict_time(end_time)
        if meeting_topic.strip() == "" and not start_time:
            raise ApiError("Meeting Topic and start_time should not be null both")
        return self.find_any(self.user(token), meeting_topic=meeting_topic, start_time=start_time)

    @staticmethod
    def _missing(meeting_topic: str, start_time: str) -> ApiError:
        if meeting_topic:
            return ApiError(f"You have no meeting about {meeting_topic}")
        return ApiError(f"You have no meeting at time : {start_time}")

    @api("AddMeeting", destructive=False)
    def add_meeting(self, token: Token, meeting_topic: str,
                    start_time: Annotated[str, recorded("Meeting", "start_time")],
                    end_time: Annotated[str, recorded("Meeting", "end_time")], location: str,
                    attendees: LiteralStrList) -> str:
        strict_time(start_time)
        strict_time(end_time)
        if meeting_topic.strip() == "":
            raise ApiError("Meeting Topic should not be null")
        username = self.user(token)
        self.state.records[self.next_key_by_max()] = {
            "username": username, "meeting_topic": meeting_topic, "start_time": start_time, "end_time": end_time,
            "location": location, "attendees": attendees}
        return "success"

    @api("DeleteMeeting", idempotent=True)
    def delete_meeting(self, token: Token, meeting_topic: Annotated[str, owned("Meeting", "meeting_topic")],
                       start_time: Annotated[str, owned("Meeting", "start_time")],
                       end_time: Annotated[str, owned("Meeting", "end_time")],
                       location: Annotated[str, owned("Meeting", "location")],
                       attendees: LiteralStrList) -> str:
        found = self._checked(token, meeting_topic, start_time, end_time)
        if found is None:
            raise self._missing(meeting_topic, start_time)
        del self.state.records[found[0]]
        return "success"

    @api("ModifyMeeting", idempotent=True)
    def modify_meeting(self, token: Token, meeting_topic: Annotated[str, owned("Meeting", "meeting_topic")],
                       start_time: Annotated[str, owned("Meeting", "start_time")],
                       end_time: Annotated[str, owned("Meeting", "end_time")],
                       location: Annotated[str, owned("Meeting", "location")],
                       attendees: LiteralStrList) -> str:
        found = self._checked(token, meeting_topic, start_time, end_time)
        if found is None:
            raise self._missing(meeting_topic, start_time)
        record = found[1]
        if meeting_topic:
            record["meeting_topic"] = meeting_topic
        if start_time:
            record["start_time"] = start_time
            record["end_time"] = end_time
        return "success"

    @api("QueryMeeting", mutates=False)
    def query_meeting(self, token: Token, meeting_topic: Annotated[str, owned("Meeting", "meeting_topic")],
                      start_time: Annotated[str, owned("Meeting", "start_time")],
                      end_time: Annotated[str, owned("Meeting", "end_time")],
                      location: Annotated[str, owned("Meeting", "location")],
                      attendees: LiteralStrList) -> MeetingRecord:
        found = self._checked(token, meeting_topic, start_time, end_time)
        if found is None:
            raise self._missing(meeting_topic, start_time)
        return cast(MeetingRecord, found[1])
