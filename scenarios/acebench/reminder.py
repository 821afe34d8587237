"""ReminderApi: the phone's reminders, at most six."""

# Annotations are evaluated here (no `from __future__ import annotations`): pydantic and `@tool` read
# every field's and parameter's type at import, and a type kept as a string is compiled and evaluated
# on its own, a noticeable share of a cold `toolworlds replay`.

from collections.abc import Mapping
from typing import Annotated, Any

from typing_extensions import TypedDict

from sandbox import Ref, StateModel, tool

from . import defaults
from .base import AceApp, Reply, fail, ok


class Reminder(StateModel):
    reminder_id: int
    title: str
    description: str
    time: str
    notified: bool = False


class ReminderState(StateModel):
    max_capacity: int = 6
    reminder_list: dict[int, Reminder] = {}
    reminder_id_counter: int = 3


class ReminderShown(TypedDict):
    status: bool
    reminder: Reminder


class ReminderFound(TypedDict):
    title: str
    description: str
    time: str


class ReminderListed(ReminderFound):
    notified: bool


class RemindersListed(TypedDict):
    status: bool
    reminders: list[ReminderListed]


class RemindersFound(TypedDict):
    status: bool
    reminders: list[ReminderFound]


ReminderKey = Annotated[int, Ref("ReminderApi", "reminder_list")]


class ReminderApi(AceApp[ReminderState]):
    """Add, view, search and delete reminders."""

    app_name = "ReminderApi"
    saved_attributes = ("reminder_list",)

    def default_state(self, lang: str) -> Mapping[str, Any]:
        return defaults.reminder_state(lang)

    @tool(mutates=False)
    def view_reminder_by_title(
        self, title: Annotated[str, Ref("ReminderApi", "reminder_list", "title")]
    ) -> ReminderShown | Reply:
        """Show the first reminder whose title matches exactly.

        Args:
            title: The reminder's title.
        """
        if not self.device().logged_in:
            return fail(self.texts.reminder_view_logged_out)
        for reminder in self.state.reminder_list.values():
            if reminder.title == title:
                return {"status": True, "reminder": reminder}
        return fail(self.texts.reminder_title_unknown.format(title=title))

    @tool(destructive=False)
    def add_reminder(self, title: str, description: str, time: str) -> Reply:
        """Add a reminder.

        Args:
            title: The reminder's title.
            description: What to be reminded of.
            time: When, as YYYY-MM-DD HH:MM.
        """
        state = self.state
        if not self.device().logged_in:
            return fail(self.texts.reminder_add_logged_out)
        if len(state.reminder_list) >= state.max_capacity:
            return fail(self.texts.reminders_full)
        state.reminder_id_counter += 1
        key = state.reminder_id_counter
        state.reminder_list[key] = Reminder(reminder_id=key, title=title, description=description, time=time)
        return ok(self.texts.reminder_added.format(title=title))

    @tool(idempotent=True)
    def delete_reminder(self, reminder_id: ReminderKey) -> Reply:
        """Delete a reminder by its key in the reminder list.

        Args:
            reminder_id: The reminder's key.
        """
        state = self.state
        if not self.device().logged_in:
            return fail(self.texts.reminder_delete_logged_out)
        if reminder_id not in state.reminder_list:
            return fail(self.texts.reminder_id_unknown)
        del state.reminder_list[reminder_id]
        return ok(self.texts.reminder_deleted.format(id=reminder_id))

    @tool(mutates=False)
    def view_all_reminders(self) -> RemindersListed | Reply:
        """List every reminder."""
        reminders: list[ReminderListed] = [
            {"title": r.title, "description": r.description, "time": r.time, "notified": r.notified}
            for r in self.state.reminder_list.values()
        ]
        return {"status": True, "reminders": reminders} if reminders else fail(self.texts.no_reminders)

    @tool(destructive=False, idempotent=True)
    def mark_as_notified(self, reminder_id: ReminderKey) -> Reply:
        """Mark a reminder as notified.

        Args:
            reminder_id: The reminder's key.
        """
        reminder = self.state.reminder_list.get(reminder_id)
        if reminder is None:
            return fail(self.texts.reminder_id_unknown)
        reminder.notified = True
        return ok(self.texts.reminder_notified.format(id=reminder_id))

    @tool(mutates=False)
    def search_reminders(self, keyword: str) -> RemindersFound | Reply:
        """Find reminders whose title or description contains a keyword (case-insensitive).

        Args:
            keyword: Text to look for.
        """
        needle = keyword.lower()
        found: list[ReminderFound] = [
            {"title": r.title, "description": r.description, "time": r.time}
            for r in self.state.reminder_list.values()
            if needle in r.title.lower() or needle in r.description.lower()
        ]
        return {"status": True, "reminders": found} if found else fail(self.texts.no_keyword_reminders)
