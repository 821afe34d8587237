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
from sandbox.calllog import CallRecord
from sandbox.parsing import parse_message
from sandbox.state import StateModel
from sandbox.testing import calls
from scenarios.acebench.tasks import read_tasks
from scenarios.apibank.replay import queue_recorded_random, recorded_dialogues, recording_world
from scenarios.apibank.scenes import read_scenes, scene_world
from scenarios.banking.family import DATA_DIR as BANKING_TASKS
from scenarios.banking.world import banking_world
from scenarios.datasets import dataset_dir
from scenarios.fuzz_targets import TARGETS

# The bundled worlds: every tool of each declares its reply.
DECLARED = ("todo", "banking-en", "banking-zh", "acebench-en", "acebench-zh", "apibank", "apibank-l3")
ACEBENCH = dataset_dir("acebench")
API_BANK = dataset_dir("api-bank")


@pytest.mark.parametrize("target", DECLARED)
def test_every_tool_of_the_bundled_worlds_declares_its_reply(target: str) -> None:
    world = TARGETS[target]()
    shapeless = [name for name, spec in world.tools.items() if output_schema(spec) is None]
    assert shapeless == []
    for spec in world.tools.values():
        Draft202012Validator.check_schema(output_schema(spec))  # type: ignore[arg-type]


@pytest.mark.parametrize("target", DECLARED)
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


def _mismatches(world: World, records: list[CallRecord]) -> list[tuple[str, Any, list[str]]]:
    """Each successful record whose result its tool's output schema refuses, with the reasons."""
    found = []
    for record in records:
        if record.ok:
            assert record.tool is not None
            schema = output_schema(world.tools[record.tool])
            assert schema is not None, record.tool
            errors = [e.message for e in Draft202012Validator(schema).iter_errors(record.result)]
            if errors:
                found.append((record.tool, record.result, errors))
    return found


def _path_records(world: World, path: list[str]) -> list[CallRecord]:
    return [record for message in path for record in world.execute(parse_message(message).calls)]


def _ace_format_gold(source: Any, lang: str, **family: Any) -> tuple[int, list[tuple[str, Any, list[str]]]]:
    """Every gold path of an ACEBench-format task set replayed: the successful calls, and the mismatches."""
    ok, bad = 0, []
    for task in read_tasks(source, lang=lang, **family).tasks:
        for path in task.paths:
            world = task.world()
            records = _path_records(world, path)
            ok += sum(record.ok for record in records)
            bad += _mismatches(world, records)
    return ok, bad


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_banking_gold_replies_match_their_declared_schemas(lang: str) -> None:
    ok, bad = _ace_format_gold(BANKING_TASKS, lang, family="banking", build=banking_world)
    assert ok > 50 and bad == []


@pytest.mark.skipif(ACEBENCH is None, reason="ACEBench data not found (../shared/datasets or TOOLWORLDS_DATA)")
def test_acebench_gold_replies_match_their_declared_schemas() -> None:
    ok, bad = _ace_format_gold(ACEBENCH, "en")  # the data holds English tasks only
    assert ok > 50 and bad == []


@pytest.mark.skipif(API_BANK is None, reason="API-Bank data not found (../shared/datasets or TOOLWORLDS_DATA)")
def test_api_bank_gold_replies_match_their_declared_schemas() -> None:
    """Levels 1-2 replayed in the world they were recorded in (recorded answers included), and every
    level-3 scene's gold calls in its scene world: each successful reply fits its tool's schema."""
    assert API_BANK is not None
    dialogues = recorded_dialogues(API_BANK, (1, 2))
    recording = recording_world(API_BANK, dialogues)
    tools: set[str] = set()
    bad = []
    for dialogue in dialogues:
        world = recording.fork()
        records = []
        for call in dialogue.api_calls:
            queue_recorded_random(world, call.api_name, call.result or {})
            records.append(world.call(call.api_name, call.param_dict))
        tools |= {record.tool for record in records if record.ok}
        bad += _mismatches(world, records)
    for task in read_scenes(API_BANK).tasks:
        world = scene_world(task.base, task.scene)
        records = [world.call(call.api_name, call.param_dict) for call in task.calls]
        tools |= {record.tool for record in records if record.ok}
        bad += _mismatches(world, records)
    assert bad == []
    # The recorded answers reached: the query APIs typed here, and those answered from the cassette.
    assert {"QueryMeeting", "QueryHealthData", "QueryRegistration", "ToolSearcher", "Dictionary", "Translate",
            "SearchEngine", "Wiki", "QueryScene", "SymptomSearch"} <= tools


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
