"""Building ACEBench worlds and reading their end states the way the benchmark does."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

from sandbox import World
from sandbox.template import WorldTemplate
from sandbox.tools import Coercion

from ..jsonlines import shown_value
from .base import AceApp, BaseApi
from .food import FoodPlatform
from .message import MessageApi
from .reminder import ReminderApi
from .travel import Travel

APP_CLASSES: Mapping[str, type[AceApp[Any]]] = MappingProxyType({
    "BaseApi": BaseApi, "MessageApi": MessageApi, "ReminderApi": ReminderApi,
    "FoodPlatform": FoodPlatform, "Travel": Travel,
})
PHONE_APPS = frozenset({"MessageApi", "ReminderApi", "FoodPlatform"})
ALL_CLASSES: tuple[str, ...] = tuple(APP_CLASSES)


def acebench_world(
    classes: Iterable[str] = ALL_CLASSES,
    *,
    lang: str = "en",
    initial_config: Mapping[str, Any] | None = None,
    seed: int = 0,
    coercion: Coercion = "lax",
) -> World:
    """A world with the named ACEBench apps (BaseApi is added when a phone app needs it).

    `initial_config` is applied as ACEBench applies it: only the "BaseApi" entry has any
    effect, because the reference loads every class with its own entry and then with the
    BaseApi entry, and the phone apps' data cannot be configured.

    The world is a fork of a template built once per (classes, language, configuration,
    seed): validating the default data is most of the cost of building one.
    """
    names = _app_names(classes if type(classes) is tuple else tuple(classes))
    if not initial_config or (type(initial_config) is dict and not initial_config.get("BaseApi")):
        # The default device, the common case: no setting to read or check (checking costs 15% of a build).
        return _template(names, lang, False, True, (), seed, coercion).fork()
    wifi, logged_in, users = device_settings(initial_config)
    # What the configuration can change, as a hashable key: one template per distinct world.
    return _template(names, lang, wifi, logged_in, users, seed, coercion).fork()


@functools.lru_cache(maxsize=256)
def _app_names(classes: tuple[str, ...]) -> tuple[str, ...]:
    """The apps a list of ACEBench classes stands for: each once, BaseApi first when a phone app needs it."""
    names = list(dict.fromkeys(classes))
    unknown = [name for name in names if name not in APP_CLASSES]
    if unknown:
        raise KeyError(f"unknown ACEBench classes: {', '.join(unknown)}; known: {', '.join(APP_CLASSES)}")
    if PHONE_APPS.intersection(names) and "BaseApi" not in names:
        names.insert(0, "BaseApi")
    return tuple(names)


@functools.lru_cache(maxsize=256)
def _template(names: tuple[str, ...], lang: str, wifi: bool, logged_in: bool, users: tuple[str, ...],
              seed: int, coercion: Coercion) -> WorldTemplate:
    """Default data validated once per configuration (a few dozen per task set); worlds are its forks."""
    config = {"BaseApi": {"wifi": wifi, "logged_in": logged_in, "logged_in_users": list(users)}}
    return WorldTemplate(_build(list(names), lang, config, seed, coercion))


def _build(names: list[str], lang: str, initial_config: Mapping[str, Any], seed: int,
           coercion: Coercion = "lax") -> World:
    world = World([APP_CLASSES[name](lang) for name in names], seed=seed, coercion=coercion)
    apply_initial_config(world, initial_config)
    return world


def device_settings(config: Mapping[str, Any]) -> tuple[bool, bool, tuple[str, ...]]:
    """The device an ACEBench `initial_config` sets up: (wifi, logged_in, logged_in_users).

    Read as the reference reads its "BaseApi" entry (`wifi` defaults to False, `logged_in` to
    True, the food platform's `logged_in_users` to none), with the types checked: the reference
    stores the values as given, so `"false"` would turn the Wi-Fi on and `"Eve"` log in no user
    by that name. A wrong type raises `ValueError` naming the field, so the task fails as
    invalid, with that reason, instead of running in a world its author did not mean.
    """
    if not isinstance(config, Mapping):
        raise ValueError(f"initial_config must be an object, not {shown_value(config)}")
    device = config.get("BaseApi") or {}
    if not isinstance(device, Mapping):
        raise ValueError(f"initial_config.BaseApi must be an object, not {shown_value(device)}")
    wifi, logged_in = device.get("wifi", False), device.get("logged_in", True)
    for name, value in (("wifi", wifi), ("logged_in", logged_in)):
        if type(value) is not bool:
            raise ValueError(f"initial_config.BaseApi.{name} must be true or false, not {shown_value(value)}")
    users = device.get("logged_in_users", [])
    if not isinstance(users, (list, tuple)):
        raise ValueError("initial_config.BaseApi.logged_in_users must be a list of user names, "
                         f"not {shown_value(users)}")
    wrong = next((index for index, user in enumerate(users) if type(user) is not str), None)
    if wrong is not None:
        raise ValueError(f"initial_config.BaseApi.logged_in_users[{wrong}] must be a user name, "
                         f"not {shown_value(users[wrong])}")
    return wifi, logged_in, tuple(users)


def apply_initial_config(world: World, config: Mapping[str, Any]) -> None:
    """Set the device of `world` as `config` says (`device_settings`; `ValueError` for a wrong type)."""
    wifi, logged_in, users = device_settings(config)
    if "BaseApi" in world.apps:
        world.load({"BaseApi": {"wifi": wifi, "logged_in": logged_in}})
    if "FoodPlatform" in world.apps:
        world.load({"FoodPlatform": {"logged_in_users": list(users)}})


def saved_state(world: World, classes: Sequence[str]) -> list[dict[str, Any]]:
    """The end state ACEBench records: `[{Class: {saved attributes}}]` in `classes` order."""
    result = []
    for name in classes:
        app = world.apps.get(name)
        if isinstance(app, AceApp):
            result.append({name: app.saved_state()})
    return result
