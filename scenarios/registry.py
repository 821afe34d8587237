"""The world families toolworlds ships, by name, for the CLI and for harnesses.

Entries name a factory by import path so that listing worlds imports none of them.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from sandbox import World


@dataclass(frozen=True)
class WorldFamily:
    name: str
    description: str
    factory: str  # "package.module:function" returning a World

    def build(self, **options: Any) -> World:
        module, _, function = self.factory.partition(":")
        make: Callable[..., World] = getattr(importlib.import_module(module), function)
        return make(**options)


FAMILIES: Mapping[str, WorldFamily] = MappingProxyType({
    family.name: family
    for family in (
        WorldFamily("todo", "A tiny to-do list: the engine's example world.", "scenarios.todo:todo_world"),
        WorldFamily("acebench", "ACEBench's phone (device, messages, reminders, food delivery) and travel worlds.",
                    "scenarios.acebench:acebench_world"),
        WorldFamily("banking", "The banking world the ACEBench paper describes: accounts, payments, loans.",
                    "scenarios.banking:banking_world"),
        WorldFamily("apibank", "API-Bank's APIs (apis/) as one offline, deterministic world.",
                    "scenarios.apibank:apibank_world"),
    )
})


def family(name: str) -> WorldFamily:
    try:
        return FAMILIES[name]
    except KeyError:
        raise KeyError(f"unknown world {name!r}; known worlds: {', '.join(FAMILIES)}") from None
