"""Building banking worlds: the Bank next to ACEBench's device (and, for combined tasks,
its messages and reminders)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from sandbox import App, World
from scenarios.acebench.world import APP_CLASSES as ACEBENCH_APPS
from scenarios.acebench.world import apply_initial_config

from .bank import Bank

CLASSES: tuple[str, ...] = ("BaseApi", "Bank", "MessageApi", "ReminderApi")


def banking_world(
    classes: Iterable[str] = ("BaseApi", "Bank"),
    *,
    lang: str = "en",
    initial_config: Mapping[str, Any] | None = None,
    seed: int = 0,
) -> World:
    """A world with the bank and the named ACEBench phone apps (the device is always there).

    `initial_config` follows ACEBench: the "BaseApi" entry sets wifi and login; a "Bank"
    entry replaces the listed bank fields (e.g. accounts with a frozen one).
    """
    names = list(dict.fromkeys(["BaseApi", *classes]))
    apps: list[App[Any]] = []
    for name in names:
        if name == "Bank":
            apps.append(Bank(lang))
        elif name in ACEBENCH_APPS:
            apps.append(ACEBENCH_APPS[name](lang))
        else:
            raise KeyError(f"unknown class {name!r}; banking worlds know {', '.join(CLASSES)}")
    world = World(apps, seed=seed)
    config = dict(initial_config or {})
    apply_initial_config(world, config)
    if "Bank" in config and "Bank" in world.apps:
        if not isinstance(config["Bank"], Mapping):  # `load` would fail on it with a TypeError naming nothing
            kind = type(config["Bank"]).__name__
            raise ValueError(f"initial_config.Bank must be an object of bank fields, not a value of type {kind}")
        world.load({"Bank": config["Bank"]})
    return world
