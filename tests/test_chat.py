"""Chat-API helpers against the real SDKs: their response objects in, tool messages out and back.

A local endpoint on 127.0.0.1 plays the API: it answers with scripted tool calls and records
what the SDK sends next, so the round trip goes through each SDK's own parsing and request
building.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import TypeAdapter

from scenarios.banking.family import load_tasks
from scenarios.todo import todo_world
from tests.fake_chat import json_endpoint

TASK = {task.id: task for task in load_tasks()}["banking_multi_step_4"]  # pay 1200 from A001 to A003
LOGIN = {"customer_id": "C001", "password": "eve2024"}
PAY = {"customer_id": "C001", "from_account_id": "A001", "to_account_id": "A003", "amount": 1200, "memo": "July rent"}


@pytest.fixture
def endpoint() -> Iterator[tuple[str, list[dict[str, Any]], list[dict[str, Any]]]]:
    """A local API that answers each request with the next scripted reply and keeps every request body."""
    replies: list[dict[str, Any]] = []
    received: list[dict[str, Any]] = []

    def reply(body: dict[str, Any]) -> dict[str, Any]:
        received.append(body)
        return replies.pop(0)

    with json_endpoint(reply) as url:
        yield url, replies, received


def openai_reply(message: dict[str, Any]) -> dict[str, Any]:
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "m",
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}]}


def anthropic_reply(content: list[dict[str, Any]]) -> dict[str, Any]:
    return {"id": "msg_1", "type": "message", "role": "assistant", "model": "m", "content": content,
            "stop_reason": "tool_use", "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}}


def test_openai_tool_calls_round_trip_through_the_sdk(endpoint: Any) -> None:
    openai = pytest.importorskip("openai")
    from openai.types.chat import ChatCompletionToolMessageParam

    url, replies, received = endpoint
    calls = [{"id": "call_a", "type": "function", "function": {"name": "login_bank", "arguments": json.dumps(LOGIN)}},
             {"id": "call_b", "type": "function", "function": {"name": "transfer", "arguments": json.dumps(PAY)}}]
    replies += [openai_reply({"role": "assistant", "content": None, "tool_calls": calls}),
                openai_reply({"role": "assistant", "content": "Paid."})]
    client = openai.OpenAI(base_url=url + "/v1", api_key="test", max_retries=0)
    world = TASK.world()
    messages: list[Any] = [{"role": "user", "content": TASK.question}]
    reply = client.chat.completions.create(model="m", messages=messages, tools=world.schemas("openai"))
    message = reply.choices[0].message
    assert isinstance(message, openai.types.chat.ChatCompletionMessage)  # the SDK's own object

    results = world.run_openai(message.tool_calls)
    assert [r["tool_call_id"] for r in results] == ["call_a", "call_b"]
    assert json.loads(results[1]["content"])["balance"] == "10800.00"
    for result in results:
        TypeAdapter(ChatCompletionToolMessageParam).validate_python(result)
    assert TASK.end_state(world) == TASK.ground_truth

    messages += [message.model_dump(exclude_none=True), *results]
    client.chat.completions.create(model="m", messages=messages)
    assert received[1]["messages"][-2:] == results  # sent back as written


def test_anthropic_tool_use_blocks_round_trip_through_the_sdk(endpoint: Any) -> None:
    anthropic = pytest.importorskip("anthropic")
    from anthropic.types import ToolResultBlockParam

    url, replies, received = endpoint
    replies += [anthropic_reply([{"type": "text", "text": "Paying now."},
                                 {"type": "tool_use", "id": "toolu_a", "name": "login_bank", "input": LOGIN},
                                 {"type": "tool_use", "id": "toolu_b", "name": "transfer",
                                  "input": {**PAY, "amount": -5}}]),
                anthropic_reply([{"type": "text", "text": "Sorry."}])]
    client = anthropic.Anthropic(base_url=url, api_key="test", max_retries=0)
    world = TASK.world()
    tools = world.schemas("anthropic")
    reply = client.messages.create(model="m", max_tokens=100, tools=tools,
                                   messages=[{"role": "user", "content": TASK.question}])
    assert isinstance(reply, anthropic.types.Message)

    before = world.state()["Bank"]["accounts"]
    results = world.run_anthropic(reply.content)
    assert [(r["tool_use_id"], r["is_error"]) for r in results] == [("toolu_a", False), ("toolu_b", True)]
    error = json.loads(results[1]["content"])
    assert error["error"] == "invalid_arguments" and error["details"][0]["parameter"] == "amount"
    assert world.state()["Bank"]["accounts"] == before  # the refused transfer changed nothing
    for result in results:
        TypeAdapter(ToolResultBlockParam).validate_python(result)

    client.messages.create(model="m", max_tokens=100, tools=tools, messages=[
        {"role": "user", "content": TASK.question},
        {"role": "assistant", "content": [block.model_dump(exclude_none=True) for block in reply.content]},
        {"role": "user", "content": results}])
    assert received[1]["messages"][-1]["content"] == results


def test_sdk_objects_built_directly_and_plain_dicts_give_the_same_messages() -> None:
    pytest.importorskip("openai")
    from openai.types.chat import ChatCompletionMessage

    calls = [{"id": "1", "type": "function", "function": {"name": "add_task", "arguments": '{"title": "milk"}'}},
             {"id": "2", "type": "function", "function": {"name": "complete_task", "arguments": '{"task_id": 1}'}}]
    message = ChatCompletionMessage.model_validate({"role": "assistant", "content": None, "tool_calls": calls})
    from_sdk, from_dicts, from_message = todo_world(), todo_world(), todo_world()
    expected = from_dicts.run_openai(calls)
    assert from_sdk.run_openai(message.tool_calls) == expected
    assert from_message.run_openai({"role": "assistant", "tool_calls": calls}) == expected
    assert from_sdk.state() == from_dicts.state() == from_message.state()


def test_malformed_calls_become_error_results_and_change_nothing() -> None:
    world = todo_world(tasks=1)
    before = world.state()
    results = world.run_openai([
        {"id": "a", "type": "function", "function": {"name": "add_task", "arguments": '{"title": '}},  # cut off
        {"id": "b", "type": "function", "function": {"name": "add_task", "arguments": "[1, 2]"}},  # not an object
        {"id": "c", "type": "function", "function": {"name": "add_tsk", "arguments": "{}"}},  # unknown tool
        {"id": "d", "type": "function", "function": {"name": "complete_task", "arguments": ""}},  # missing argument
    ])
    errors = [json.loads(r["content"])["error"] for r in results]
    assert errors == ["parse_error", "parse_error", "unknown_tool", "invalid_arguments"]
    assert [json.loads(r["content"])["message"] for r in results[:2]] == [
        "arguments of add_task are not valid JSON", "arguments of add_task must be a JSON object of named values"]
    assert "add_task" in json.loads(results[2]["content"])["message"]  # the close match is suggested
    assert world.state() == before
    assert [r.error.type for r in world.log if r.error] == errors  # every refusal is in the log

    blocks = world.run_anthropic([{"type": "tool_use", "id": "x", "name": "complete_task", "input": "1"}])
    assert blocks[0]["is_error"] and world.state() == before


def test_hostile_argument_text_and_too_many_calls_become_error_results() -> None:
    """What a model can write that the JSON decoder itself refuses by raising (nesting past its stack, an
    integer past Python's 4,300 digits) is an error result like any unreadable arguments; a message of more
    calls than `max_calls` runs none of them and answers each with that refusal, once in the log."""
    world = todo_world(tasks=1)
    before = world.state()
    hostile = ["[" * 100_000, '{"title": ' + "1" * 5_000 + "}", '{"a":' * 5_000]
    results = world.run_openai([{"id": str(i), "type": "function", "function": {"name": "add_task", "arguments": text}}
                                for i, text in enumerate(hostile)])
    # Past a bound (the message's length, an integer's digits), the whole message is refused, as written text is.
    assert [json.loads(r["content"])["error"] for r in results] == ["parse_error"] * 3
    assert world.state() == before
    # Unreadable within the bounds: each such call is refused in its place, and the one beside them runs.
    results = todo_world(tasks=1).run_openai([
        {"id": str(i), "type": "function", "function": {"name": "add_task", "arguments": text}}
        for i, text in enumerate(hostile[2:] * 2 + ['{"title": "x"}'])])
    assert [json.loads(r["content"]).get("error") for r in results] == ["parse_error", "parse_error", None]
    logged = len(world.log)
    limit = world.limits.max_calls
    add = {"name": "add_task", "arguments": '{"title": "x"}'}
    results = world.run_openai([{"id": f"c{i}", "type": "function", "function": add} for i in range(limit + 1)])
    assert [r["tool_call_id"] for r in results] == [f"c{i}" for i in range(limit + 1)]
    assert {json.loads(r["content"])["error"] for r in results} == {"parse_error"}
    assert world.state() == before and len(world.log) == logged + 1
    blocks = world.run_anthropic([{"type": "tool_use", "id": f"t{i}", "name": "add_task", "input": {"title": "x"}}
                                  for i in range(limit + 1)])
    assert len(blocks) == limit + 1 and all(b["is_error"] for b in blocks) and world.state() == before
    exact = world.run_openai([{"id": f"c{i}", "type": "function", "function": add}  # at the limit, all run
                              for i in range(limit)])
    assert [json.loads(r["content"])["status"] for r in exact] == ["open"] * limit
    assert len(world.state()["Todo"]["tasks"]) == len(before["Todo"]["tasks"]) + limit
