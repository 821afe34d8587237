"""`task_hook` reads a task's optional hooks as `getattr` does, whatever kind of object the task is."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import pytest
from pydantic import BaseModel, ConfigDict

from scenarios.family import task_hook

HOOKS = ("single_reply", "opening_messages", "system_prompt", "protocol", "result_record", "missing", "_private")


class FieldsTask(BaseModel):
    id: str = "t"
    single_reply: bool = True
    system_prompt: str | None = None


class ExtraTask(BaseModel):
    model_config = ConfigDict(extra="allow")
    id: str = "t"


class ClassHooksTask(FieldsTask):
    protocol: ClassVar[str] = "bracket"

    @property
    def opening_messages(self) -> list[tuple[str, str]]:
        return [("user", "hello")]

    def result_record(self, world: Any, process: list[str]) -> dict[str, Any]:
        return {"id": self.id}


@dataclass(slots=True)
class SlotsTask:
    id: str = "t"
    single_reply: bool = False
    system_prompt: str = field(default="be brief")


class PlainTask:
    protocol = "native"

    def __init__(self) -> None:
        self.opening_messages = [("user", "hi")]


class ProxyTask:
    """Answers every name through its own `__getattr__`."""

    def __getattr__(self, name: str) -> str:
        if name.startswith("__"):
            raise AttributeError(name)
        return f"proxied {name}"


def unset_slot() -> SlotsTask:
    task = SlotsTask()
    del task.system_prompt
    return task


TASKS = [FieldsTask(), FieldsTask(system_prompt="hi"), ExtraTask(protocol="bracket", calls_in="x"), ClassHooksTask(),
         SlotsTask(), unset_slot(), PlainTask(), ProxyTask()]


@pytest.mark.parametrize("task", TASKS, ids=lambda task: type(task).__name__)
@pytest.mark.parametrize("name", HOOKS)
def test_a_hook_reads_as_getattr_reads_it(task: Any, name: str) -> None:
    expected = getattr(task, name, "default")
    found = task_hook(task, name, "default")
    if callable(expected):  # a bound method is made anew at each lookup
        assert found.__func__ is expected.__func__ and found.__self__ is task
    else:
        assert found == expected


def test_a_hook_that_raises_attribute_error_in_its_property_gives_the_default_as_getattr_does() -> None:
    class Broken(FieldsTask):
        @property
        def opening_messages(self) -> Any:
            raise AttributeError("not today")

    assert task_hook(Broken(), "opening_messages", "default") == getattr(Broken(), "opening_messages", "default")
