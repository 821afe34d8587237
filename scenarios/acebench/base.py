"""What every ACEBench app shares: language, messages, and the device (BaseApi).

In the reference every phone app inherits its own `wifi`/`logged_in` from BaseApi, but
the harness keeps the copies in sync (the BaseApi config is applied to every app, and
`turn_on_wifi`/`login_device` run on every instance). Here there is one device, the
`BaseApi` app, and the phone apps consult it; the observable behaviour is the same.
"""

# Annotations are evaluated here (no `from __future__ import annotations`): pydantic and `@tool` read
# every field's and parameter's type at import, and a type kept as a string is compiled and evaluated
# on its own, a noticeable share of a cold `toolworlds replay`.

import re
from collections.abc import Mapping
from typing import Any, ClassVar, Literal, TypeVar

# pydantic reads the reply types to export output schemas, and on Python 3.11 needs this TypedDict.
from typing_extensions import TypedDict

from sandbox import App, StateModel, tool

from .texts import Texts, texts_for

S = TypeVar("S", bound=StateModel)


class Reply(TypedDict):
    """ACEBench's reply envelope: whether the request went through, and a sentence saying what happened.

    A tool listing things answers `{"status": True, <things>: [...]}` when it found some and this
    refusal (status False) when not; the tools' return types say which.
    """

    status: bool
    message: str


class ErrorReply(TypedDict):
    """The Travel app's refusal: `status` is the word "error"."""

    status: Literal["error"]
    message: str


def ok(message: str) -> Reply:
    return {"status": True, "message": message}


def fail(message: str) -> Reply:
    return {"status": False, "message": message}


def peek(entries: dict[Any, Any], key: Any) -> Any:
    """The value at `key` of a state dict (None when absent), for reading only.

    In a call that may write, a tracked dict hands out only values the world may change in
    place, copying one still shared with a fork or snapshot first; a lookup that only reads
    needs no copy, and this takes none. Never change what it returns, nor anything in it.
    """
    return dict.get(entries, key)


def peek_all(values: list[Any]) -> list[Any]:
    """The items of a state list as they are, for reading only (see `peek`)."""
    return list.copy(values)


class AceApp(App[S]):
    """An ACEBench app: built from the reference's default data for its language."""

    saved_attributes: ClassVar[tuple[str, ...]] = ()
    # The texts (names of `Texts` fields) that a tool answering in plain text refuses with.
    refusal_texts: ClassVar[tuple[str, ...]] = ()

    def __init__(self, lang: str = "en", state: S | Mapping[str, Any] | None = None) -> None:
        self.lang = lang
        self.texts: Texts = texts_for(lang)
        super().__init__(self.default_state(lang) if state is None else state)

    def default_state(self, lang: str) -> Mapping[str, Any]:
        return {}

    def saved_state(self) -> dict[str, Any]:
        """The attributes ACEBench saves as this class's end state, JSON-ready (only they are dumped)."""
        return self.dump(self.saved_attributes)

    def refused(self, result: Any) -> bool:
        """ACEBench's tools refuse in their result: `status` False (or "error"), or a refusal text."""
        if isinstance(result, dict):
            return result.get("status") in (False, "error")
        if isinstance(result, str):
            return any(_fills(getattr(self.texts, name), result) for name in self.refusal_texts)
        return False

    def device(self) -> "DeviceState":
        """The phone's wifi/login state (the world's BaseApi), for reading only: the phone apps check
        it and never change it, so a writing call takes no copy of it."""
        state: DeviceState = self.world.app("BaseApi").read_only_state
        return state


def _fills(template: str, text: str) -> bool:
    """Whether `text` is `template` with its `{placeholders}` filled in."""
    pattern = ".*?".join(re.escape(part) for part in re.split(r"\{[^{}]*\}", template))
    return re.fullmatch(pattern, text, flags=re.DOTALL) is not None


class DeviceState(StateModel):
    wifi: bool = False
    logged_in: bool = True


class BaseApi(AceApp[DeviceState]):
    """The phone itself: wifi and device login."""

    app_name = "BaseApi"
    saved_attributes = ("wifi", "logged_in")

    @tool(destructive=False, idempotent=True)
    def turn_on_wifi(self) -> Reply:
        """Turn on the phone's Wi-Fi connection."""
        self.state.wifi = True
        return ok(self.texts.wifi_on)

    @tool(destructive=False, idempotent=True)
    def login_device(self) -> Reply:
        """Log in to the phone."""
        self.state.logged_in = True
        return ok(self.texts.device_logged_in)
