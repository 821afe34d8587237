"""Models behind any OpenAI-compatible endpoint, as agents or as simulated users.

Optional: needs the `openai` package (`pip install "toolworlds[llm]"`). Tests point it at
a local fake server; nothing here is used unless asked for.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sandbox.parsing import Call
from sandbox.schemas import openai_tools

from .agents import ChatMessage, Turn
from .users import END

AGENT_PROMPT = ("You are an assistant that completes the user's request by calling the tools provided. "
                "When the request is complete, reply with a short answer and no tool call.")
USER_PROMPT = ("You play a user talking to an assistant. Your goal, which you reveal as the conversation needs "
               "it: {instruction}\nReply as the user in one or two sentences. When your goal is met, reply "
               f"exactly '{END}'.")


@dataclass
class ChatClient:
    """A chat-completions client for one model at one OpenAI-compatible base URL."""

    base_url: str
    model: str
    api_key: str = field(default_factory=lambda: os.environ.get("OPENAI_API_KEY", "not-needed"))
    timeout: float = 60.0
    _client: Any = field(default=None, init=False, repr=False, compare=False)

    def complete(self, messages: list[dict[str, Any]], tools: Sequence[dict[str, Any]] = ()) -> Any:
        if self._client is None:  # made once: each client holds its own connection pool
            try:
                from openai import OpenAI
            except ImportError as exc:  # pragma: no cover - exercised only without the extra
                raise RuntimeError('LLM agents need the openai package: pip install "toolworlds[llm]"') from exc
            self._client = OpenAI(base_url=self.base_url, api_key=self.api_key, timeout=self.timeout,
                                  max_retries=0)
        options: dict[str, Any] = {"model": self.model, "messages": messages}
        if tools:
            options["tools"] = list(tools)
        return self._client.chat.completions.create(**options).choices[0].message


@dataclass
class LLMAgent:
    client: ChatClient
    system_prompt: str = AGENT_PROMPT

    def act(self, conversation: Sequence[ChatMessage], tools: Sequence[dict[str, Any]]) -> Turn:
        messages: list[dict[str, Any]] = [{"role": "system", "content": self.system_prompt}]
        for message in conversation:
            role = "user" if message.role == "tool" else message.role
            content = f"execution result: {message.content}" if message.role == "tool" else message.content
            messages.append({"role": role, "content": content})
        reply = self.client.complete(messages, openai_tools(tools))
        calls = []
        for tool_call in getattr(reply, "tool_calls", None) or []:
            try:
                arguments = json.loads(tool_call.function.arguments or "{}")
            except json.JSONDecodeError:
                arguments = {"_unparseable_arguments": tool_call.function.arguments}
            calls.append(Call(tool_call.function.name, arguments if isinstance(arguments, dict) else {}))
        if calls:
            return Turn(calls=tuple(calls))
        return Turn.from_text(reply.content or "")


@dataclass
class LLMUser:
    client: ChatClient
    instruction: str

    def respond(self, conversation: Sequence[ChatMessage]) -> str:
        # Roles flip: the simulated user sees the assistant's words as the other party's.
        messages: list[dict[str, Any]] = [{"role": "system",
                                           "content": USER_PROMPT.format(instruction=self.instruction)}]
        for message in conversation:
            if message.role == "assistant" and not message.calls:
                messages.append({"role": "user", "content": message.content})
            elif message.role == "user":
                messages.append({"role": "assistant", "content": message.content})
        if len(messages) == 1:
            messages.append({"role": "user", "content": "Is there anything you need help with today?"})
        return self.client.complete(messages).content or END
