"""The worlds the fuzzer attacks, by name: every bundled family, in each language it speaks.

Each builder returns the family's world in the state an agent usually meets (device on
and logged in; a to-do list with a few tasks; a customer logged in to the bank) so
valid calls reach deep into the tools instead of stopping at the first precondition.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from types import MappingProxyType

from sandbox import World

from .acebench import ALL_CLASSES, acebench_world
from .apibank import apibank_world
from .banking import CLASSES as BANKING_CLASSES
from .banking import banking_world
from .todo import todo_world

DEVICE_ON = MappingProxyType({"BaseApi": MappingProxyType({"wifi": True, "logged_in": True})})


def _acebench(lang: str) -> World:
    return acebench_world(ALL_CLASSES, lang=lang, initial_config=DEVICE_ON)


def _banking(lang: str) -> World:
    world = banking_world(BANKING_CLASSES, lang=lang, initial_config=DEVICE_ON)
    world.call("login_bank", {"customer_id": "C001", "password": "eve2024"})
    return world


TARGETS: Mapping[str, Callable[[], World]] = MappingProxyType({
    "todo": functools.partial(todo_world, tasks=5),
    "acebench-en": functools.partial(_acebench, "en"),
    "acebench-zh": functools.partial(_acebench, "zh"),
    "banking-en": functools.partial(_banking, "en"),
    "banking-zh": functools.partial(_banking, "zh"),
    "apibank": apibank_world,
    "apibank-l3": functools.partial(apibank_world, level=3),
})
