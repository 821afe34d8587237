"""MessageApi: a phone's text messages between six contacts."""

# Annotations are evaluated here (no `from __future__ import annotations`): pydantic and `@tool` read
# every field's and parameter's type at import, and a type kept as a string is compiled and evaluated
# on its own, a noticeable share of a cold `toolworlds replay`.

import datetime as dt
from collections.abc import Mapping
from typing import Annotated, Any

from typing_extensions import TypedDict

from sandbox import Ref, StateModel, tool

from . import defaults
from .base import AceApp, Reply, fail, ok, peek


class Contact(StateModel):
    user_id: str
    phone_number: str
    occupation: str


class Message(StateModel):
    sender_id: str
    receiver_id: str
    message: str
    # Messages sent during an episode have no time in the reference (and in ground truths).
    time: str | None = None

    omit_if_none = frozenset({"time"})


class MessageState(StateModel):
    max_capacity: int = 6
    message_id_counter: int = 6
    user_list: dict[str, Contact] = {}
    inbox: dict[int, Message] = {}


class MessageBetween(TypedDict):
    id: int
    sender: str
    receiver: str
    message: str


class MessageFound(TypedDict):
    id: int
    sender_id: str
    receiver_id: str
    message: str


class MessagesBetween(TypedDict):
    status: bool
    messages: list[MessageBetween]


class MessagesFound(TypedDict):
    status: bool
    messages: list[MessageFound]


class MessageIdReply(Reply):
    message_id: int


# A contact's name, and a message's id: what the tools' parameters name in the state.
ContactName = Annotated[str, Ref("MessageApi", "user_list")]
MessageId = Annotated[int, Ref("MessageApi", "inbox")]


class MessageApi(AceApp[MessageState]):
    """Send, read, search and delete text messages."""

    app_name = "MessageApi"
    saved_attributes = ("inbox",)

    def default_state(self, lang: str) -> Mapping[str, Any]:
        return defaults.message_state(lang)

    @tool(destructive=False)
    def send_message(self, sender_name: ContactName, receiver_name: ContactName, message: str) -> Reply:
        """Send a text message from one contact to another.

        Args:
            sender_name: Name of the contact sending the message.
            receiver_name: Name of the contact receiving it.
            message: The text to send.
        """
        text, device = self.texts, self.device()
        if not device.logged_in:
            return fail(text.send_logged_out)
        if not device.wifi:
            return fail(text.send_wifi_off)
        # The checks read the state as it is (`read_only_state`): the first call after a fork copies only what
        # it writes (the inbox), and a refused call copies nothing.
        seen = self.read_only_state
        if len(seen.inbox) >= seen.max_capacity:
            return fail(text.inbox_full)
        contacts = seen.user_list
        sender, receiver = _user_id(contacts, sender_name), _user_id(contacts, receiver_name)
        if sender is None or receiver is None:
            return fail(text.sender_or_receiver_unknown)
        state = self.state
        message_id = state.message_id_counter + 1
        state.message_id_counter = message_id
        state.inbox[message_id] = Message(sender_id=sender, receiver_id=receiver, message=message)
        return ok(text.message_sent.format(receiver=receiver_name))

    @tool(idempotent=True)
    def delete_message(self, message_id: MessageId) -> Reply:
        """Delete a message by its id.

        Args:
            message_id: The id of the message to delete.
        """
        state = self.state
        if not self.device().logged_in:
            return fail(self.texts.delete_logged_out)
        if message_id not in state.inbox:
            return fail(self.texts.message_id_unknown)
        del state.inbox[message_id]
        return ok(self.texts.message_deleted.format(id=message_id))

    @tool(mutates=False)
    def view_messages_between_users(
        self, sender_name: ContactName, receiver_name: ContactName
    ) -> MessagesBetween | Reply:
        """List the messages one contact sent to another (one direction only).

        Args:
            sender_name: Who sent the messages.
            receiver_name: Who received them.
        """
        text = self.texts
        if not self.device().logged_in:
            return fail(text.view_logged_out)
        contacts = self.state.user_list
        sender, receiver = _user_id(contacts, sender_name), _user_id(contacts, receiver_name)
        if sender is None:
            return fail(text.sender_unknown)
        if receiver is None:
            return fail(text.receiver_unknown)
        found: list[MessageBetween] = [
            {"id": key, "sender": sender_name, "receiver": receiver_name, "message": msg.message}
            for key, msg in self.state.inbox.items()
            if msg.sender_id == sender and msg.receiver_id == receiver
        ]
        return {"status": True, "messages": found} if found else fail(text.no_related_messages)

    @tool(mutates=False)
    def search_messages(self, user_name: ContactName, keyword: str) -> MessagesFound | Reply:
        """Find a contact's sent or received messages containing a keyword (case-insensitive).

        Args:
            user_name: The contact whose messages to search.
            keyword: Text to look for.
        """
        user = _user_id(self.state.user_list, user_name)
        if user is None:
            return fail(self.texts.user_unknown)
        needle = keyword.lower()
        found: list[MessageFound] = [
            {"id": key, "sender_id": msg.sender_id, "receiver_id": msg.receiver_id, "message": msg.message}
            for key, msg in self.state.inbox.items()
            if user in (msg.sender_id, msg.receiver_id) and needle in msg.message.lower()
        ]
        return {"status": True, "messages": found} if found else fail(self.texts.no_keyword_messages)

    @tool(mutates=False)
    def get_all_message_times_with_ids(self) -> dict[int, str | None] | Reply:
        """Map every message id to the date it was sent (null for messages sent in this session)."""
        if not self.device().logged_in:
            return fail(self.texts.times_logged_out)
        return {key: msg.time for key, msg in self.state.inbox.items()}

    @tool(mutates=False)
    def get_latest_message_id(self) -> MessageIdReply | Reply:
        """Find the id of the most recently sent message."""
        return self._extreme_reply(latest=True)

    @tool(mutates=False)
    def get_earliest_message_id(self) -> MessageIdReply | Reply:
        """Find the id of the earliest sent message."""
        return self._extreme_reply(latest=False)

    def _extreme_reply(self, *, latest: bool) -> MessageIdReply | Reply:
        text = self.texts
        if not self.device().logged_in:
            return fail(text.latest_logged_out if latest else text.earliest_logged_out)
        found = self._extreme(latest=latest)
        if found is None:
            return fail(text.no_messages)
        return {"status": True, "message": (text.latest_id if latest else text.earliest_id).format(id=found),
                "message_id": found}

    def _extreme(self, *, latest: bool) -> int | None:
        """The latest or earliest message id; ties go to the first in inbox order.

        Messages sent during the session carry no date; they are newer than every dated
        message and ordered by id among themselves (the reference crashed on them).
        """
        dated: list[tuple[dt.date, int]] = []
        undated: list[int] = []
        for key, msg in self.state.inbox.items():
            day = _date(msg.time)
            if day is None:
                undated.append(key)
            else:
                dated.append((day, key))
        if latest and undated:
            return max(undated)
        if not dated:
            return min(undated) if undated else None
        best_day, best_key = dated[0]
        for day, key in dated[1:]:
            if (day > best_day) if latest else (day < best_day):
                best_day, best_key = day, key
        return best_key


def _user_id(contacts: dict[str, Contact], name: str) -> str | None:
    """The user id of the contact named `name`, or None; the contacts are read as they are (`peek`)."""
    contact = peek(contacts, name)
    return None if contact is None else contact.user_id


def _date(text: str | None) -> dt.date | None:
    if text is None:
        return None
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        return None
