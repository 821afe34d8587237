"""Building banking worlds: the Bank next to ACEBench's device (and, for combined tasks,
its messages and reminders).

A world is a fork of a template (`sandbox.template.WorldTemplate`) built once per (apps,
language, configuration, seed): validating the bank's default data is nearly all of a build
(217 us against a fork's 5 us), and a run's tasks share a few dozen configurations.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping
from typing import Any

from sandbox import App, World
from sandbox.template import WorldTemplate
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
    names = tuple(dict.fromkeys(["BaseApi", *classes]))
    config = initial_config or {}
    try:  # the configuration as a key: its canonical JSON text
        key = json.dumps(config, sort_keys=True, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):
        key = None
    if key is None or (config and json.loads(key) != config):  # JSON would not give it back as it is (tuples,
        return _build(names, lang, initial_config, seed)  # numbers as keys): built afresh, as given
    return _template(names, lang, key, seed).fork()


@functools.lru_cache(maxsize=256)
def _template(names: tuple[str, ...], lang: str, config: str, seed: int) -> WorldTemplate:
    """The world built once per configuration (given as its JSON text); every caller gets a fork."""
    return WorldTemplate(_build(names, lang, json.loads(config), seed))


def _build(names: Iterable[str], lang: str, initial_config: Mapping[str, Any] | None, seed: int) -> World:
    """A banking world built from scratch (what a template holds)."""
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
