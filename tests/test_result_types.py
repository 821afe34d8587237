"""The bundled worlds' declared result types: exported as output schemas, and true of every reply.

A tool's return annotation only documents its reply (nothing converts results), so these tests run
drawn calls against each bundled world and check every successful reply against the schema its tool
declares; a type that drifted from what the code returns fails here.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from sandbox import World, export, output_schema, tool
from sandbox.app import App
from sandbox.state import StateModel
from sandbox.testing import calls
from scenarios.fuzz_targets import TARGETS

# The worlds whose every tool declares its reply; API-Bank's account APIs do too (its others, not yet).
DECLARED = ("todo", "banking-en", "acebench-en", "acebench-zh")


@pytest.mark.parametrize("target", DECLARED)
def test_every_tool_of_the_bundled_worlds_declares_its_reply(target: str) -> None:
    world = TARGETS[target]()
    shapeless = [name for name, spec in world.tools.items() if output_schema(spec) is None]
    assert shapeless == []
    for spec in world.tools.values():
        Draft202012Validator.check_schema(output_schema(spec))  # type: ignore[arg-type]


def test_api_bank_s_account_apis_declare_their_replies() -> None:
    tools = TARGETS["apibank"]().tools
    declared = {name for name, spec in tools.items() if output_schema(spec) is not None}
    assert {"GetUserToken", "CheckToken", "RegisterUser", "DeleteAccount", "ModifyPassword"} <= declared


@pytest.mark.parametrize("target", (*DECLARED, "apibank"))
@settings(max_examples=15, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_successful_reply_matches_its_declared_schema(target: str, data: st.DataObject) -> None:
    world = TARGETS[target]()
    declared = [name for name, spec in world.tools.items() if output_schema(spec) is not None]
    for _ in range(12):
        call = data.draw(calls(world, declared))
        record = world.call(call.name, call.arguments)
        if record.ok:
            schema = output_schema(world.tools[call.name])
            assert schema is not None
            errors = [e.message for e in Draft202012Validator(schema).iter_errors(record.result)]
            assert errors == [], (call, record.result)


class _Notes(StateModel):
    notes: list[str] = []


class _NotesApp(App[_Notes]):
    """Notes, with one tool declaring its reply and one not."""

    app_name = "Notes"

    @tool
    def add(self, text: str) -> list[str]:
        """Add a note.

        Args:
            text: The note.
        """
        self.state.notes.append(text)
        return list(self.state.notes)

    @tool(mutates=False)
    def raw(self) -> dict:
        """Everything, undescribed."""
        return {"notes": list(self.state.notes)}

    @tool(mutates=False)
    def loose(self) -> dict[str, Any] | None:
        """Everything or nothing, undescribed."""
        return None


def test_the_jsonschema_export_carries_output_schemas_only_where_declared() -> None:
    world = World([_NotesApp()])
    add, raw, loose = (export(world.tools[name], "jsonschema") for name in ("add", "raw", "loose"))
    assert add["outputSchema"] == {"$schema": "https://json-schema.org/draft/2020-12/schema",
                                   "type": "array", "items": {"type": "string"}}
    assert "outputSchema" not in raw and "outputSchema" not in loose
    assert all("outputSchema" not in export(world.tools["add"], fmt) for fmt in ("openai", "anthropic"))


def test_a_declared_reply_is_returned_as_the_tool_made_it() -> None:
    world = World([_NotesApp()])
    assert world.call("add", {"text": "a"}).result == ["a"]
    assert world.call("raw").result == {"notes": ["a"]}
