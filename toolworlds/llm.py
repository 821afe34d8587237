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

import json
import os
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Any

from sandbox.errors import ParseError
from sandbox.limits import printable_text
from sandbox.parsing import Call, decode_arguments
from sandbox.schemas import openai_tools

from .agents import ChatMessage, Turn
from .users import END

AGENT_PROMPT = ("You are an assistant that completes the user's request by calling the tools provided. "
                "When the request is complete, reply with a short answer and no tool call.")
USER_PROMPT = ("You play a user talking to an assistant. Your goal, which you reveal as the conversation needs "
               "it: {instruction}\nReply as the user in one or two sentences. When your goal is met, reply "
               f"exactly '{END}'.")


DEFAULT_TIMEOUT = 60.0  # seconds per request
DEFAULT_RETRIES = 2  # further tries of a request that failed transiently


class EndpointError(RuntimeError):
    """The endpoint gave no usable reply, after the retries it was allowed; the message says why."""


@dataclass
class ChatClient:
    """A chat-completions client for one model at one OpenAI-compatible base URL.

    `timeout` bounds each request (seconds); `retries` is how many more times the SDK
    tries a request that failed transiently, waiting longer each time. `gate`, when given,
    is held around each request: the run's limit on requests in flight to the endpoint,
    shared by all its workers (a semaphore, or a Ray actor on a cluster).
    """

    base_url: str
    model: str
    api_key: str = field(default_factory=lambda: os.environ.get("OPENAI_API_KEY", "not-needed"))
    timeout: float = DEFAULT_TIMEOUT
    retries: int = DEFAULT_RETRIES
    gate: AbstractContextManager[Any] | None = field(default=None, repr=False, compare=False)
    _client: Any = field(default=None, init=False, repr=False, compare=False)

    def complete(self, messages: list[dict[str, Any]], tools: Sequence[dict[str, Any]] = ()) -> Any:
        """The reply message of one chat completion; `EndpointError` when there is none."""
        try:
            import openai
        except ImportError as exc:  # pragma: no cover - exercised only without the extra
            raise RuntimeError('LLM agents need the openai package: pip install "toolworlds[llm]"') from exc
        if self._client is None:  # made once: each client holds its own connection pool
            self._client = openai.OpenAI(base_url=self.base_url, api_key=self.api_key, timeout=self.timeout,
                                         max_retries=self.retries)
        options: dict[str, Any] = {"model": self.model, "messages": messages}
        if tools:
            options["tools"] = list(tools)
        try:
            with self.gate if self.gate is not None else nullcontext():
                response = self._client.chat.completions.create(**options)
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
        choices = getattr(response, "choices", None)
        if not isinstance(choices, list):
            raise EndpointError(f"the reply is not a chat completion: {_glimpse(response)}")
        if not choices:
            raise EndpointError("the reply has no choices")
        if getattr(choices[0], "message", None) is None:
            raise EndpointError("the reply's first choice has no message")
        return choices[0].message


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
    """`protocol` "native" sends the tools as OpenAI tool schemas and reads `tool_calls`;
    "bracket" (a benchmark's own text protocol, whose system prompt lists the functions)
    sends no tools, and the model writes its calls as text."""

    client: ChatClient
    system_prompt: str = AGENT_PROMPT
    protocol: str = "native"
    calls_in: Callable[[str], str | None] | None = None  # where a reply's request is, if the task says

    @classmethod
    def for_task(cls, client: ChatClient, task: Any) -> LLMAgent:
        """An agent that honours the task's hooks: its own system prompt, protocol, and where
        a reply's calls are (`calls_in`: the part of a reply holding them, None for words)."""
        prompt = getattr(task, "system_prompt", None)
        return cls(client, prompt if isinstance(prompt, str) else AGENT_PROMPT, getattr(task, "protocol", "native"),
                   getattr(task, "calls_in", None))

    def act(self, conversation: Sequence[ChatMessage], tools: Sequence[dict[str, Any]]) -> Turn:
        messages: list[dict[str, Any]] = [{"role": "system", "content": self.system_prompt}]
        for message in conversation:
            role = "user" if message.role == "tool" else message.role
            content = f"execution result: {message.content}" if message.role == "tool" else message.content
            messages.append({"role": role, "content": content})
        reply = self.client.complete(messages, () if self.protocol == "bracket" else openai_tools(tools))
        tool_calls = getattr(reply, "tool_calls", None) or []
        if tool_calls:
            return _tool_call_turn(tool_calls)
        content = reply.content
        text = content if isinstance(content, str) else ""
        return _text_turn(text, self.calls_in(text) if self.calls_in is not None else None)


@dataclass
class LLMUser:
    """`system_prompt` replaces the generic user prompt (a benchmark's own user rules, with
    the instruction in it); `opener` is what the user is asked before the agent spoke."""

    client: ChatClient
    instruction: str
    system_prompt: str | None = None
    opener: str | None = None

    def respond(self, conversation: Sequence[ChatMessage]) -> str:
        # Roles flip: the simulated user sees the assistant's words as the other party's.
        prompt = self.system_prompt or USER_PROMPT.format(instruction=self.instruction)
        messages: list[dict[str, Any]] = [{"role": "system", "content": prompt}]
        for index, message in enumerate(conversation):
            sent_to_tools = index + 1 < len(conversation) and conversation[index + 1].role == "tool"
            if message.role == "assistant" and not message.calls and not sent_to_tools:
                messages.append({"role": "user", "content": message.content})
            elif message.role == "user":
                messages.append({"role": "assistant", "content": message.content})
        if len(messages) == 1:
            messages.append({"role": "user", "content": self.opener or "Is there anything you need help with today?"})
        return self.client.complete(messages).content or END


def _text_turn(text: str, calls: str | None) -> Turn:
    """A text reply: read whole, or, when the task found a request inside it (`calls`), that
    request, handed to the world if it cannot be read here, so the model sees why."""
    if calls is None:
        return Turn.from_text(text)
    read = Turn.from_text(calls)
    return Turn(calls=read.calls, raw=text) if read.calls else Turn(raw=text, call_text=calls)


def _tool_call_turn(tool_calls: Sequence[Any]) -> Turn:
    """The model's tool calls, read here when they can be; otherwise handed to the world as
    JSON text, so the world's parser records why they cannot be (a `parse_error` the model sees)."""
    calls: list[Call] = []
    given: list[dict[str, Any]] = []
    try:
        for tool_call in tool_calls:
            function = tool_call.function
            name, arguments = function.name, function.arguments or ""
            given.append({"name": name, "arguments": arguments})
            if not isinstance(name, str) or not isinstance(arguments, str):
                raise ParseError("a tool call needs a name and arguments as text")
            calls.append(Call(name, decode_arguments(name, arguments)))
    except (ParseError, AttributeError):
        return Turn(call_text=json.dumps({"tool_calls": [{"function": g} for g in given]}, default=str))
    return Turn(calls=tuple(calls))
