"""User simulators: the other side of a multi-turn conversation.

A simulator answers the agent's text. `ScriptedUser` states the task's instruction and
then ends the conversation when the agent replies; `LLMUser` (in `toolworlds.llm`) role-plays
the instruction with a model behind any OpenAI-compatible endpoint.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from .agents import END, ChatMessage


@runtime_checkable
class UserSimulator(Protocol):
    def respond(self, conversation: Sequence[ChatMessage]) -> str:
        """The user's next message; one containing "finish conversation" ends the episode."""
        ...


@dataclass
class ScriptedUser:
    """Opens with the instruction; answers any later agent message by ending the conversation."""

    instruction: str

    def respond(self, conversation: Sequence[ChatMessage]) -> str:
        if not any(message.role == "user" for message in conversation):
            return self.instruction
        return END
