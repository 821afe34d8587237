"""Building ACEBench worlds and reading their end states the way the benchmark does."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

from sandbox import World
from sandbox.tools import Coercion

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
    """
    names = list(dict.fromkeys(classes))
    unknown = [name for name in names if name not in APP_CLASSES]
    if unknown:
        raise KeyError(f"unknown ACEBench classes: {', '.join(unknown)}; known: {', '.join(APP_CLASSES)}")
    if PHONE_APPS.intersection(names) and "BaseApi" not in names:
        names.insert(0, "BaseApi")
    world = World([APP_CLASSES[name](lang) for name in names], seed=seed, coercion=coercion)
    apply_initial_config(world, initial_config or {})
    return world


def apply_initial_config(world: World, config: Mapping[str, Any]) -> None:
    device = config.get("BaseApi") or {}
    if "BaseApi" in world.apps:
        world.load({"BaseApi": {"wifi": bool(device.get("wifi", False)),
                                "logged_in": bool(device.get("logged_in", True))}})
    if "FoodPlatform" in world.apps:
        world.load({"FoodPlatform": {"logged_in_users": list(device.get("logged_in_users", []))}})


def saved_state(world: World, classes: Sequence[str]) -> list[dict[str, Any]]:
    """The end state ACEBench records: `[{Class: {saved attributes}}]` in `classes` order."""
    result = []
    for name in classes:
        app = world.apps.get(name)
        if isinstance(app, AceApp):
            result.append({name: app.saved_state()})
    return result
