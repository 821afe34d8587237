"""The native protocol end to end: the oracle sends `tool_calls` when asked (`--protocol native`), API-Bank's
history goes as tool calls and tool messages behind one system message, and `export --calls native` writes
calls that were sent as text as `tool_calls` answered by `tool` messages."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from scenarios.apibank.family import FAMILY as APIBANK
from scenarios.apibank.samples import ApiBankSample
from scenarios.datasets import dataset_dir
from scenarios.family import TaskQuery
from tests.fake_chat import chat_endpoint
from toolworlds.cli import app
from toolworlds.store import RunStore

DATA = dataset_dir("api-bank")
needs_apibank = pytest.mark.skipif(DATA is None, reason="API-Bank data not found (../shared/datasets or "
                                                        "TOOLWORLDS_DATA)")


def _invoke(*arguments: str) -> str:
    outcome = CliRunner().invoke(app, list(arguments), env={"COLUMNS": "200"})
    assert outcome.exit_code == 0, outcome.output
    return outcome.output


def _export(db: str, run_id: str, path: Path, *options: str) -> list[dict[str, Any]]:
    _invoke("export", run_id, "--db", db, "--out", str(path), *options)
    return [json.loads(line) for line in path.read_text().splitlines()]


def _answered(messages: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    """(tool name, arguments, result) of every call, checking that each call's id is answered by the tool
    messages right after the assistant message holding it, in order."""
    seen = []
    for index, message in enumerate(messages):
        if message["role"] != "assistant" or not message.get("tool_calls"):
            continue
        uses = message["tool_calls"]
        answers = messages[index + 1:index + 1 + len(uses)]
        assert [a["role"] for a in answers] == ["tool"] * len(uses)
        assert [a["tool_call_id"] for a in answers] == [u["id"] for u in uses] and all(u["id"] for u in uses)
        seen += [(u["function"]["name"], u["function"]["arguments"], a["content"])
                 for u, a in zip(uses, answers, strict=True)]
    return seen


def test_the_oracle_sends_native_calls_and_export_writes_text_calls_the_same_way(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    common = ("--db", db, "--lang", "en", "--categories", "multi_step", "-n", "4")
    _invoke("run", *common, "--run-id", "text")
    _invoke("run", *common, "--run-id", "native", "--protocol", "native")
    store = RunStore(db)
    native = store.episodes("native")
    assert len(native) == 4 and all(e.success for e in native)
    for episode in native:
        assert episode.id is not None
        sent = [m for m in store.messages(episode.id) if m.role == "assistant" and m.tool_calls]
        assert sent and all(m.call_text is None and all(c["id"] for c in json.loads(m.tool_calls or "[]"))
                            for m in sent)
    assert [e.calls for e in native] == [e.calls for e in store.episodes("text")]
    as_sent = _export(db, "text", tmp_path / "text.jsonl")
    assert any(m["role"] == "user" and m["content"].startswith("execution result: ")
               for record in as_sent for m in record["messages"])  # the default keeps the text protocol
    converted = _export(db, "text", tmp_path / "text-native.jsonl", "--calls", "native")
    gold = _export(db, "native", tmp_path / "native.jsonl")
    for ours, theirs in zip(converted, gold, strict=True):
        assert not any(m["role"] == "user" and m["content"].startswith("execution result: ") for m in ours["messages"])
        calls, expected = _answered(ours["messages"]), _answered(theirs["messages"])
        assert [(name, json.loads(arguments)) for name, arguments, _ in calls] == \
               [(name, json.loads(arguments)) for name, arguments, _ in expected]
        assert [json.loads(result) for *_, result in calls if '"error"' not in result] == \
               [json.loads(result) for *_, result in expected if '"error"' not in result]
    sharegpt = _export(db, "text", tmp_path / "text.sharegpt.jsonl", "--calls", "native", "--format", "sharegpt")
    assert any(turn["from"] == "function_call" for turn in sharegpt[0]["conversations"])
    refused = CliRunner().invoke(app, ["export", "text", "--db", db, "--calls", "bracket"])
    assert refused.exit_code == 2 and "unknown --calls 'bracket'" in refused.output


@needs_apibank
def test_api_bank_native_history_is_tool_calls_behind_one_system_message(tmp_path: Path) -> None:
    categories = ("level-1-api", "level-1-response", "level-2-api", "level-2-response")
    loaded = APIBANK.tasks(TaskQuery(data=DATA, categories=categories, limit=12)).tasks
    tasks = [t.for_protocol("native") for t in loaded]
    by_history = {json.dumps([t.system_prompt, [[m["role"], m["content"]] for m in t.opening_messages]]): t
                  for t in tasks if isinstance(t, ApiBankSample)}
    seen: list[dict[str, Any]] = []

    def model(body: dict[str, Any]) -> dict[str, Any]:
        """The gold call as a native tool call, the gold reply as text."""
        seen.append(body)
        system, *rest = body["messages"]
        task = by_history[json.dumps([system["content"], [[m["role"], m["content"] or ""] for m in rest]])]
        if task.gold_call is None:
            return {"role": "assistant", "content": task.gold_reply}
        function = {"name": task.gold_call.api_name, "arguments": json.dumps(task.gold_call.param_dict)}
        return {"role": "assistant", "content": None, "tool_calls": [{"id": "call_x", "type": "function",
                                                                      "function": function}]}

    db = f"sqlite:///{tmp_path / 'runs.db'}"
    with chat_endpoint(model) as url:
        output = _invoke("run", "--tasks", "apibank", "--data", str(DATA), "--db", db, "--run-id", "r", "-n", "12",
                         "--level", "1", "--level", "2", "--agent", "llm", "--model", "m", "--base-url", url,
                         "--protocol", "native", "--results", str(tmp_path / "results"))
    episodes = RunStore(db).episodes("r")
    assert len(episodes) == 12 and all(e.success for e in episodes), output
    assert "API call accuracy, level 1" in output
    with_rows = [body for body in seen if any(m["role"] == "tool" for m in body["messages"])]
    assert with_rows and all(m["role"] != "system" for body in seen for m in body["messages"][1:])
    for body in with_rows:  # each tool message answers the call of the assistant message before it
        messages = body["messages"]
        for index, message in enumerate(messages):
            if message["role"] == "tool":
                asked = messages[index - 1]
                assert asked["role"] == "assistant"
                assert message["tool_call_id"] in [c["id"] for c in asked["tool_calls"]]
    tools = [{t["function"]["name"] for t in body["tools"]} for body in seen]
    assert all(tools) and all(t["function"]["parameters"]["type"] == "object" for body in seen for t in body["tools"])
    level2 = [body for body in seen if "you have the API search engine" in body["messages"][0]["content"]]
    assert level2 and all("ToolSearcher" in {t["function"]["name"] for t in body["tools"]} for body in level2)


@needs_apibank
def test_the_oracle_scores_api_bank_the_same_in_both_protocols(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    base = ("run", "--tasks", "apibank", "--data", str(DATA), "--db", db, "-n", "8", "--level", "1", "--level", "2",
            "--results", str(tmp_path / "results"))
    _invoke(*base, "--run-id", "text")
    _invoke(*base, "--run-id", "native", "--protocol", "native")
    store = RunStore(db)
    text, native = store.episodes("text"), store.episodes("native")
    assert [(e.task_id, e.success) for e in text] == [(e.task_id, True) for e in native]
    calls = [native_call for e in native if e.id is not None
             for native_call in store.messages(e.id) if native_call.source == "agent" and native_call.tool_calls]
    assert calls and all(c["id"] for m in calls for c in json.loads(m.tool_calls or "[]"))
    opened = [m for e in native if e.id is not None for m in store.messages(e.id) if m.source == "task"]
    assert any(m.role == "tool" and m.tool_call_id for m in opened) and not any(m.role == "system" for m in opened)
