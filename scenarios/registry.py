"""The world families toolworlds ships, by name: the one list the CLI, runner and integrations read.

Each entry names a family's `FAMILY` object by import path, so listing names imports no world.
Adding a family is one line here (see docs/architecture.md).
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Mapping
from types import MappingProxyType

from .family import WorldFamily

FAMILIES: Mapping[str, str] = MappingProxyType({
    "todo": "scenarios.todo.family:FAMILY",
    "acebench": "scenarios.acebench.family:FAMILY",
    "banking": "scenarios.banking.family:FAMILY",
    "apibank": "scenarios.apibank.family:FAMILY",
    "toolbench": "scenarios.toolbench.family:FAMILY",
})


def family(name: str) -> WorldFamily:
    """The family called `name`; `KeyError` naming the known ones otherwise."""
    try:
        path = FAMILIES[name]
    except KeyError:
        close = difflib.get_close_matches(name, FAMILIES, n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise KeyError(f"unknown world {name!r}; {hint}known worlds: {', '.join(FAMILIES)}") from None
    module, _, attribute = path.partition(":")
    found: WorldFamily = getattr(importlib.import_module(module), attribute)
    return found


def families() -> list[WorldFamily]:
    return [family(name) for name in FAMILIES]
