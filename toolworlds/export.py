"""Stored episodes as training data: OpenAI chat JSON lines, ShareGPT, or Parquet.

Every episode of a run becomes one record, failed ones included and marked (`metadata.failed`,
`metadata.error`, and no reward, since an episode whose endpoint or agent broke has no verdict):

    {"messages": [...], "tools": [...], "reward": 1.0 | 0.0 | null, "metadata": {...}}

`messages` is the conversation as the agent saw it, in OpenAI's chat format: its system
prompt, the user's (or user simulator's) turns, assistant turns with `tool_calls`, and
`role: "tool"` results with the `tool_call_id` they answer. Results of calls written as text
(the bracket protocol) come back as the user messages that protocol uses; with `calls="native"`
(`export --calls native`), calls that were sent as text are written as the assistant's `tool_calls`
(ids `call_<message>_<n>`) and their results as one `tool` message each, so training data teaches
the native form whichever form the model used. The simulator's own
system prompt is in `metadata.user_prompt`, not in the conversation. `tools` are OpenAI tool
schemas. Parquet holds `tools` as JSON text (one column type for every episode's schemas);
ShareGPT (as LLaMA-Factory reads it) has `conversations` of `from`/`value` turns, `system`,
and `tools` as JSON text.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from sandbox.input_limits import printable_json
from scenarios.jsonlines import JsonTextError, json_value

from .store import EpisodeRow, MessageRow, RunStore

FORMATS = ("openai-jsonl", "sharegpt", "parquet")
CALL_FORMS = ("sent", "native")  # calls as the model sent them, or all as native tool_calls


def episode_records(store: RunStore, run_id: str, calls: str = "sent") -> Iterator[dict[str, Any]]:
    """One training record per stored episode of the run, in the order they were stored; `calls`
    is "sent" (as the model sent them) or "native" (calls sent as text, as `tool_calls`)."""
    if calls not in CALL_FORMS:
        raise ValueError(f"unknown calls form {calls!r}; use one of {', '.join(CALL_FORMS)}")
    run = store.run(run_id)
    if run is None:
        raise KeyError(f"no run {run_id!r}")
    config = json.loads(run.config or "{}")
    for episode in store.episodes(run_id):
        messages = store.messages(episode.id) if episode.id is not None else []
        yield {
            "messages": chat_messages(messages, native=calls == "native"),
            "tools": json.loads(tools) if (tools := store.tools(episode)) else [],
            "reward": None if episode.error is not None else (1.0 if episode.success else 0.0),
            "metadata": _metadata(run_id, run.agent, config, episode, messages),
        }


def chat_messages(messages: Sequence[MessageRow], native: bool = False) -> list[dict[str, Any]]:
    """A stored transcript as the OpenAI chat messages the agent saw; with `native`, calls it sent as text
    as native `tool_calls` answered by `tool` messages (`native_calls`)."""
    chat: list[dict[str, Any]] = []
    answered: set[int] = set()  # tool messages already written as the answers of text calls
    for index, message in enumerate(messages):
        if index in answered:
            continue
        if native and (converted := native_calls(messages, index)) is not None:
            chat.extend(converted)
            if len(converted) > 1:
                answered.add(index + 1)
            continue
        if message.role == "system":
            if message.source == "agent":
                chat.append({"role": "system", "content": message.content})
        elif message.role == "assistant":
            entry: dict[str, Any] = {"role": "assistant", "content": message.content}
            calls = json.loads(message.tool_calls) if message.tool_calls else []
            if calls and all(c.get("id") for c in calls):  # native calls: as the model sent them
                entry["tool_calls"] = [{"id": c["id"], "type": "function",
                                        "function": {"name": c["name"], "arguments": _text(c["arguments"])}}
                                       for c in calls]
            chat.append(entry)
        elif message.role == "tool" and message.tool_call_id is not None:
            chat.append({"role": "tool", "tool_call_id": message.tool_call_id, "content": message.content})
        elif message.role == "tool":
            chat.append({"role": "user", "content": f"execution result: {message.content}"})
        else:
            chat.append({"role": message.role, "content": message.content})
    return chat


def native_calls(messages: Sequence[MessageRow], index: int) -> list[dict[str, Any]] | None:
    """The calls of `messages[index]`, sent as text, and the results after it, as native messages: the
    assistant's `tool_calls` with ids, then one `tool` message per call (none for a reply that was scored
    alone). None when the message is no such call, or its results cannot be told apart (a message refused
    whole, or text the world could read only in part, has fewer results than calls): it is then written
    as it was sent."""
    message = messages[index]
    if message.role != "assistant" or not message.tool_calls:
        return None
    calls = json.loads(message.tool_calls)
    if not calls or any(c.get("id") for c in calls):
        return None
    ids = [f"call_{message.seq}_{n}" for n in range(len(calls))]
    uses = [{"id": call_id, "type": "function", "function": {"name": c["name"], "arguments": _text(c["arguments"])}}
            for call_id, c in zip(ids, calls, strict=True)]
    result = messages[index + 1] if index + 1 < len(messages) else None
    if result is None or result.role != "tool":  # a reply scored alone (single-reply tasks): nothing ran
        return [{"role": "assistant", "content": "", "tool_calls": uses}]
    if result.tool_call_id is not None:
        return None
    try:
        observations = json_value(result.content)
    except JsonTextError:
        return None
    if not isinstance(observations, list) or len(observations) != len(calls):
        return None
    answers = [{"role": "tool", "tool_call_id": call_id,
                "content": seen if isinstance(seen, str) else json.dumps(seen, ensure_ascii=False, default=str)}
               for call_id, seen in zip(ids, observations, strict=True)]
    return [{"role": "assistant", "content": "", "tool_calls": uses}, *answers]


def _text(arguments: Any) -> str:
    return arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)


def _metadata(run_id: str, agent: str, config: dict[str, Any], episode: EpisodeRow,
              messages: Sequence[MessageRow]) -> dict[str, Any]:
    user_prompt = next((m.content for m in messages if m.role == "system" and m.source == "user"), None)
    usage = [m for m in messages if m.prompt_tokens is not None or m.completion_tokens is not None]
    return {
        "run_id": run_id, "agent": agent, "model": config.get("model") or None,
        "task_set": episode.task_set, "task_id": episode.task_id, "category": episode.category,
        "trial": episode.trial or 0, "success": episode.success, "failed": episode.error is not None,
        "error": episode.error, "stop_reason": episode.stop_reason, "steps": episode.steps,
        "calls": episode.calls, "call_errors": episode.errors, "state_fraction": episode.state_fraction,
        "process": episode.process, "user_prompt": user_prompt,
        "prompt_tokens": sum(m.prompt_tokens or 0 for m in usage) if usage else None,
        "completion_tokens": sum(m.completion_tokens or 0 for m in usage) if usage else None,
    }


def sharegpt(record: dict[str, Any]) -> dict[str, Any]:
    """A record in ShareGPT form: human/gpt turns, function_call and observation for tools."""
    turns: list[dict[str, str]] = []
    system = ""
    for message in record["messages"]:
        role = message["role"]
        if role == "system":
            system = message["content"]
        elif role == "user":
            turns.append({"from": "human", "value": message["content"]})
        elif role == "tool":
            turns.append({"from": "observation", "value": message["content"]})
        elif message.get("tool_calls"):
            calls = [{"name": c["function"]["name"], "arguments": _arguments(c["function"]["arguments"])}
                     for c in message["tool_calls"]]
            turns.append({"from": "function_call", "value": json.dumps(calls, ensure_ascii=False)})
        else:
            turns.append({"from": "gpt", "value": message["content"] or ""})
    return {"conversations": turns, "system": system, "tools": json.dumps(record["tools"], ensure_ascii=False),
            "reward": record["reward"], "metadata": record["metadata"]}


def _arguments(text: str) -> Any:
    try:
        return json_value(text)
    except JsonTextError:  # not JSON, an integer past 4,300 digits, nesting past the stack
        return text  # as the model wrote it: training data keeps even a broken call


def write_export(store: RunStore, run_id: str, fmt: str, path: Path, calls: str = "sent") -> int:
    """Write the run's episodes to `path` in `fmt`, calls in the form `calls` names; returns how many were
    written."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}")
    records = list(episode_records(store, run_id, calls))
    if fmt == "parquet":
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError:
            raise RuntimeError('parquet export needs pyarrow: '
                               'pip install -e ".[export]" in the toolworlds checkout') from None
        rows = [{**r, "tools": json.dumps(r["tools"], ensure_ascii=False)} for r in records]
        pq.write_table(pa.Table.from_pylist(rows), path)
        return len(records)
    shaped = [sharegpt(r) for r in records] if fmt == "sharegpt" else records
    with path.open("w", encoding="utf-8") as handle:
        for record in shaped:
            # printable_json: argument text read back as JSON can hold the escape of a lone surrogate.
            handle.write(printable_json(json.dumps(record, ensure_ascii=False)) + "\n")
    return len(records)
