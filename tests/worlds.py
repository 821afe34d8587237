"""The bundled worlds as property tests and the strategy benchmark build them.

Each world comes in its default bundled state and in a configured one, the state a
realistic episode starts from (ACEBench's tasks mostly turn Wi-Fi on and log the device
in; a banking session starts with customers logged in). `bench/strategies.py` reports
both; the property tests use the configured one.
"""

from __future__ import annotations

import functools
import importlib.util
import re
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from hypothesis import settings
from hypothesis.stateful import run_state_machine_as_test

from sandbox import World
from sandbox.testing import world_machine
from sandbox.testing.machine import Invariant, Postcondition
from scenarios.acebench import acebench_world
from scenarios.apibank.world import apibank_world
from scenarios.banking import banking_world
from scenarios.banking.world import CLASSES as BANKING_CLASSES
from scenarios.todo import todo_world
from scenarios.toolbench.family import example_world

DOCS = Path(__file__).resolve().parents[1] / "docs" / "testing.md"
ONLINE = {"BaseApi": {"wifi": True, "logged_in": True}}
BANK_CUSTOMERS = {"C001": "eve2024", "C002": "frank2024", "C003": "grace2024"}


@dataclass(frozen=True)
class BundledWorld:
    name: str
    default: Callable[[], World]
    configured: Callable[[], World]
    configuration: str  # what the configured state adds to the default one


def acebench(lang: str, *, online: bool) -> World:
    return acebench_world(lang=lang, initial_config=ONLINE if online else None)


def banking(lang: str, *, online: bool) -> World:
    """The bank with the phone apps; online: Wi-Fi on and every customer logged in to the bank."""
    world = banking_world(BANKING_CLASSES, lang=lang, initial_config=ONLINE if online else None)
    if online:
        for customer, password in BANK_CUSTOMERS.items():
            record = world.call("login_bank", {"customer_id": customer, "password": password})
            assert record.ok and record.result["status"], record
    return world


def _todo_with_tasks() -> World:
    return todo_world(tasks=3)


def _named(function: Callable[[], World], name: str) -> Callable[[], World]:
    """A factory with a name hypothesis can show."""
    def build() -> World:
        return function()

    build.__name__ = build.__qualname__ = name
    return build


def bundled() -> list[BundledWorld]:
    worlds = [BundledWorld("todo", todo_world, _todo_with_tasks, "three open tasks")]
    for family, build, configuration in (
            ("acebench", acebench, "Wi-Fi on, device logged in"),
            ("banking", banking, "Wi-Fi on, device and all three customers logged in")):
        for lang in ("en", "zh"):
            worlds.append(BundledWorld(
                f"{family}-{lang}",
                _named(functools.partial(build, lang, online=False), f"{family}_{lang}"),
                _named(functools.partial(build, lang, online=True), f"{family}_{lang}_online"),
                configuration))
    worlds.append(BundledWorld("apibank-1/2", apibank_world, apibank_world, "none (no device or session to set up)"))
    level3 = _named(functools.partial(apibank_world, level=3), "apibank_level3")
    worlds.append(BundledWorld("apibank-3", level3, level3, "none (no device or session to set up)"))
    worlds.append(BundledWorld("toolbench", example_world, example_world, "none (the example task's four tools)"))
    return worlds


def check_world(factory: Callable[[], World], *, invariants: Sequence[Invariant] = (),
                postconditions: Sequence[Postcondition] = (), examples: int = 12, name: str | None = None) -> None:
    """Run the kit's state machine over a bundled world with a budget the whole suite can afford."""
    machine = world_machine(factory, invariants=invariants, postconditions=postconditions, name=name)
    run_state_machine_as_test(machine, settings=settings(machine.TestCase.settings, max_examples=examples,
                                                         stateful_step_count=30, database=None))


def docs_example() -> ModuleType:
    """The code of docs/testing.md (the library world and its test) as a module, as a reader would save it."""
    blocks = re.findall(r"```python\n(.*?)```", DOCS.read_text(encoding="utf-8"), flags=re.DOTALL)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "library_example.py"
        path.write_text("\n\n".join(blocks), encoding="utf-8")
        spec = importlib.util.spec_from_file_location("library_example", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # pydantic resolves the models' annotations through it
        spec.loader.exec_module(module)
    return module
