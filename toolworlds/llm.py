"""Models behind any OpenAI-compatible endpoint, as agents or as simulated users.

Optional: needs the `openai` package (`pip install "toolworlds[llm]"`). Tests point it at
a local fake server; nothing here is used unless asked for.

An endpoint is the least reliable part of a run. Transient failures (429, 5xx, refused
or dropped connections, timeouts) are retried with backoff by the openai SDK itself
(`retries`, `timeout`); what still fails, and every reply that is not a chat completion
(an HTML page, empty `choices`), raises `EndpointError` with a one-line reason, which
the episode stores as its failure. What the model *says* is never an error here: its
tool calls go to the world, which refuses what it cannot read.
"""

from __future__ import annotations

import dataclasses
import json
import os
import threading
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Any

from sandbox.bounds import printable_text
from scenarios.family import task_hook

from .agents import ChatMessage, ToolCall, Turn
from .endpoints import DEFAULT_RETRIES, DEFAULT_TIMEOUT
from .users import END

AGENT_PROMPT = ("You are an assistant that completes the user's request by calling the tools provided. "
                "When the request is complete, reply with a short answer and no tool call.")
USER_PROMPT = ("You play a user talking to an assistant. Your goal, which you reveal as the conversation needs "
               "it: {instruction}\nReply as the user in one or two sentences. When your goal is met, reply "
               f"exactly '{END}'.")


class EndpointError(RuntimeError):
    """The endpoint gave no usable reply, after the retries it was allowed; the message says why."""


class SdkClients:
    """The OpenAI SDK clients of one worker: one per endpoint and request settings, made on first use and
    kept for every later episode the worker runs.

    Making an SDK client loads the system's certificate bundle into a fresh TLS context, even for an
    `http://` endpoint: about 25-40 ms of CPU, more than a whole episode against a fast local model.
    A client per episode paid that every time, and opened new connections besides; a worker's episodes
    run one after another, so they can share one client (and its connection pool) per endpoint. The
    clients are the worker's own and hold no episode's data: nothing of one episode reaches another.
    """

    def __init__(self) -> None:
        self._clients: dict[tuple[str, str, float, int], Any] = {}
        self._lock = threading.Lock()  # a worker may run its episodes in threads

    def client(self, base_url: str, api_key: str, timeout: float, retries: int) -> Any:
        """The `openai.OpenAI` client for these settings."""
        import openai

        key = (base_url, api_key, timeout, retries)
        with self._lock:
            made = self._clients.get(key)
            if made is None:
                made = self._clients[key] = openai.OpenAI(base_url=base_url, api_key=api_key, timeout=timeout,
                                                          max_retries=retries)
            return made

    def close(self) -> None:
        """Close every client's connections (a worker that is done)."""
        with self._lock:
            made, self._clients = list(self._clients.values()), {}
        for each in made:
            each.close()


@dataclass
class ChatClient:
    """A chat-completions client for one model at one OpenAI-compatible base URL.

    `timeout` bounds each request (seconds); `retries` is how many more times the SDK
    tries a request that failed transiently, waiting longer each time. `temperature` and
    `max_tokens` are sent with every request when set (None: the endpoint's default). `gate`,
    when given, is held around each request: the run's limit on requests in flight to the
    endpoint, shared by all its workers (a semaphore, or a Ray actor on a cluster). `clients`, when
    given, is the worker's `SdkClients`, whose client for this endpoint this one uses; else it makes
    its own.
    """

    base_url: str
    model: str
    api_key: str = field(default_factory=lambda: os.environ.get("OPENAI_API_KEY", "not-needed"))
    timeout: float = DEFAULT_TIMEOUT
    retries: int = DEFAULT_RETRIES
    temperature: float | None = None
    max_tokens: int | None = None
    gate: AbstractContextManager[Any] | None = field(default=None, repr=False, compare=False)
    clients: SdkClients | None = field(default=None, repr=False, compare=False)
    _client: Any = field(default=None, init=False, repr=False, compare=False)

    def complete(self, messages: list[dict[str, Any]], tools: Sequence[dict[str, Any]] = ()) -> Any:
        """The reply message of one chat completion; `EndpointError` when there is none."""
        return self.exchange(messages, tools)[0]

    def exchange(self, messages: list[dict[str, Any]], tools: Sequence[dict[str, Any]] = ()
                 ) -> tuple[Any, dict[str, Any]]:
        """The reply message of one chat completion and what it cost: `prompt_tokens` and
        `completion_tokens` (None when the endpoint does not say) and `latency_ms` (retries included)."""
        try:
            import openai
        except ImportError as exc:  # pragma: no cover - exercised only without the extra
            raise RuntimeError('LLM agents need the openai package: pip install "toolworlds[llm]"') from exc
        if self._client is None:  # found or made once: an SDK client holds its own connection pool
            clients = self.clients if self.clients is not None else SdkClients()  # without a worker's: its own
            self._client = clients.client(self.base_url, self.api_key, self.timeout, self.retries)
        options: dict[str, Any] = {"model": self.model, "messages": messages}
        if tools:
            options["tools"] = list(tools)
        if self.temperature is not None:
            options["temperature"] = self.temperature
        if self.max_tokens is not None:
            options["max_tokens"] = self.max_tokens
        try:
            with self.gate if self.gate is not None else nullcontext():
                started = time.perf_counter()  # the request's own time, not the wait for the gate
                # The SDK's documented way to send a body as it is (`post`): `create` would first walk every
                # message and tool schema against its typed parameters, which leaves JSON-ready dicts such as
                # these unchanged but costs more CPU than the rest of the request (the history grows each turn).
                response = self._client.post("/chat/completions", body=options,
                                             cast_to=openai.types.chat.ChatCompletion)
        except openai.APIStatusError as exc:
            raise EndpointError(_reason(f"HTTP {exc.status_code}", exc, self.retries)) from None
        except openai.APITimeoutError as exc:
            raise EndpointError(_reason(f"timed out after {self.timeout:g} s", exc, self.retries)) from None
        except openai.APIConnectionError as exc:
            raise EndpointError(_reason("connection failed", exc, self.retries)) from None
        except openai.APIError as exc:  # a reply the SDK could not read as a completion
            raise EndpointError(_reason("unreadable reply", exc, None)) from None
        except ValueError as exc:  # a body that is not JSON (or not text) at all
            raise EndpointError(_reason("unreadable reply", exc, None)) from None
        latency = round((time.perf_counter() - started) * 1000, 1)
        choices = getattr(response, "choices", None)
        if not isinstance(choices, list):
            raise EndpointError(f"the reply is not a chat completion: {_glimpse(response)}")
        if not choices:
            raise EndpointError("the reply has no choices")
        if getattr(choices[0], "message", None) is None:
            raise EndpointError("the reply's first choice has no message")
        usage = getattr(response, "usage", None)
        return choices[0].message, {"prompt_tokens": _count(getattr(usage, "prompt_tokens", None)),
                                    "completion_tokens": _count(getattr(usage, "completion_tokens", None)),
                                    "latency_ms": latency}


def _count(value: Any) -> int | None:
    return value if type(value) is int and value >= 0 else None


def _glimpse(value: Any, limit: int = 120) -> str:
    text = value if isinstance(value, str) else type(value).__name__
    return printable_text(" ".join(text.split())[:limit])


def _reason(what: str, exc: Exception, retries: int | None) -> str:
    tried = "" if retries is None else f" ({retries + 1} tries)"
    try:
        detail = str(exc)
    except Exception:
        detail = type(exc).__name__
    return f"endpoint {what}{tried}: {_glimpse(detail, 200)}"


@dataclass
class LLMAgent:
    """A model as the agent, speaking one of two protocols.

    "native" (the default): the tools go to the API as OpenAI tool schemas, the model's calls
    come back as `tool_calls` with ids, and each result (an error too) is a `role: "tool"`
    message carrying the `tool_call_id` it answers; the model sees its own calls again as it
    sent them. "bracket": no tools are sent; the model writes calls as text in the bracket
    syntax of ACEBench-style prompts and reads results back as user messages, as those
    benchmarks do. `system_prompt` replaces the generic prompt (a benchmark's own).
    """

    client: ChatClient
    system_prompt: str = AGENT_PROMPT
    protocol: str = "native"
    calls_in: Callable[[str], str | None] | None = None  # where a reply's request is, if the task says
    tool_format = "openai"

    def __post_init__(self) -> None:
        if self.protocol not in PROTOCOLS:
            raise ValueError(f"unknown protocol {self.protocol!r}; use one of {', '.join(PROTOCOLS)}")

    @classmethod
    def for_task(cls, client: ChatClient, task: Any, protocol: str | None = None) -> LLMAgent:
        """The agent for one task: the task's own system prompt and protocol when it has them
        (`protocol` given here wins); the bracket protocol without a prompt of the task's own
        gets a generic one listing the tools. A task's `calls_in(reply)` says which part of a
        text reply is its request (None: words to the user)."""
        chosen = protocol or task_protocol(task)
        prompt = task_hook(task, "system_prompt")
        if not isinstance(prompt, str) or not prompt:
            prompt = AGENT_PROMPT if chosen == "native" else bracket_prompt(getattr(task, "functions", []))
        return cls(client, prompt, chosen, task_hook(task, "calls_in"))

    def act(self, conversation: Sequence[ChatMessage], tools: Sequence[dict[str, Any]]) -> Turn:
        if self.protocol == "bracket":
            reply, usage = self.client.exchange(self._bracket_messages(conversation))
            content = _text(reply.content)
            calls = self.calls_in(content) if self.calls_in is not None else None
            return dataclasses.replace(_text_turn(content, calls), usage=usage)
        reply, usage = self.client.exchange(self._native_messages(conversation), tools)
        content = _text(reply.content)
        tool_calls = getattr(reply, "tool_calls", None) or []
        if tool_calls:
            return Turn(text=content, tool_calls=_tool_calls(tool_calls), usage=usage)
        return dataclasses.replace(Turn.from_text(content), usage=usage)

    def _native_messages(self, conversation: Sequence[ChatMessage]) -> list[dict[str, Any]]:
        messages: list[dict[str, Any]] = [{"role": "system", "content": self.system_prompt}]
        for message in conversation:
            if message.role == "assistant" and message.tool_calls:
                messages.append({"role": "assistant", "content": message.content or None, "tool_calls": [
                    {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                    for c in message.tool_calls]})
            elif message.role == "tool" and message.tool_call_id is not None:
                messages.append({"role": "tool", "tool_call_id": message.tool_call_id, "content": message.content})
            elif message.role == "tool":  # results of calls written as text: no call id to answer
                messages.append({"role": "user", "content": f"execution result: {message.content}"})
            else:
                messages.append({"role": message.role, "content": message.content})
        return messages

    def _bracket_messages(self, conversation: Sequence[ChatMessage]) -> list[dict[str, Any]]:
        messages: list[dict[str, Any]] = [{"role": "system", "content": self.system_prompt}]
        for message in conversation:
            if message.role == "tool":
                messages.append({"role": "user", "content": f"execution result: {message.content}"})
            else:
                messages.append({"role": message.role, "content": message.content})
        return messages


PROTOCOLS = ("native", "bracket")
BRACKET_PROMPT = ("You are an assistant that completes the user's request by calling tools. To call tools, reply "
                  "with nothing but the calls, written as [tool_name(argument=value, ...), ...] with every "
                  "argument named and every value a literal. Each reply with calls is answered with their results. "
                  "When the request is complete, reply with a short answer and no call.\nThe tools:\n{tools}")


def task_protocol(task: Any) -> str:
    """The protocol a task asks for (its optional `protocol` attribute), "native" when it names none."""
    protocol = task_hook(task, "protocol")
    return protocol if protocol in PROTOCOLS else "native"


def bracket_prompt(functions: Sequence[dict[str, Any]]) -> str:
    return BRACKET_PROMPT.format(tools=json.dumps(list(functions), ensure_ascii=False, indent=1))


@dataclass
class LLMUser:
    """A model playing the user of a multi-turn task.

    `system_prompt` replaces the generic user prompt (a benchmark's own user rules, with the
    instruction in it); `opener` is what the user is asked before the agent spoke;
    `last_usage` is what its latest reply cost.
    """

    client: ChatClient
    instruction: str
    system_prompt: str | None = None
    opener: str | None = None
    last_usage: dict[str, Any] | None = field(default=None, init=False)

    @property
    def prompt(self) -> str:
        """The system message it is given."""
        return self.system_prompt or USER_PROMPT.format(instruction=self.instruction)

    def respond(self, conversation: Sequence[ChatMessage]) -> str:
        # Roles flip: the simulated user sees the assistant's words as the other party's.
        messages: list[dict[str, Any]] = [{"role": "system", "content": self.prompt}]
        for index, message in enumerate(conversation):
            sent_to_tools = index + 1 < len(conversation) and conversation[index + 1].role == "tool"
            if message.role == "assistant" and not message.calls and not message.tool_calls and not sent_to_tools:
                messages.append({"role": "user", "content": message.content})
            elif message.role == "user":
                messages.append({"role": "assistant", "content": message.content})
        if len(messages) == 1:
            messages.append({"role": "user", "content": self.opener or "Is there anything you need help with today?"})
        reply, self.last_usage = self.client.exchange(messages)
        return _text(reply.content) or END


def _text_turn(text: str, calls: str | None) -> Turn:
    """A text reply: read whole, or, when the task found a request inside it (`calls`), that
    request, handed to the world if it cannot be read here, so the model sees why."""
    if calls is None:
        return Turn.from_text(text)
    read = Turn.from_text(calls)
    return Turn(calls=read.calls, raw=text) if read.calls else Turn(raw=text, call_text=calls)


def _text(content: Any) -> str:
    """A reply's text, "" for none. A lone surrogate (JSON's `"\\ud800"` decodes to one) is kept as its
    escape (`printable_text`): the conversation goes back to the endpoint as UTF-8, which cannot hold it."""
    return printable_text(content) if isinstance(content, str) else ""


def _tool_calls(tool_calls: Sequence[Any]) -> tuple[ToolCall, ...]:
    """The model's tool calls as sent: ids, names and argument text kept verbatim (the world reads
    the arguments, and refuses, in place, each call it cannot read), but for lone surrogates, kept as
    their escapes as in `_text`. A call without an id gets one from its position; a name or arguments
    that are not text are kept as their JSON."""
    calls = []
    for index, tool_call in enumerate(tool_calls):
        function = getattr(tool_call, "function", None)
        name = getattr(function, "name", None)
        arguments = getattr(function, "arguments", None)
        call_id = getattr(tool_call, "id", None)
        calls.append(ToolCall(_text(call_id) if isinstance(call_id, str) and call_id else f"call_{index}",
                              _text(name) if isinstance(name, str) else json.dumps(name, default=str),
                              _text(arguments) if isinstance(arguments, str) else json.dumps(arguments, default=str)))
    return tuple(calls)
