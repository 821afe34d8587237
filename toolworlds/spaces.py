"""The gymnasium spaces of a tool-use episode: conversations observed, assistant messages acted.

Neither is a fixed-size array, so both are custom spaces (gymnasium allows them; they are
not flattenable). Sampling gives lower-case words, which read as a plain answer and never
as a tool call, so a random policy ends an episode at once rather than acting at random.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium

ROLES = frozenset({"system", "user", "assistant", "tool"})
_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def _words(rng: Any, most: int = 6) -> str:
    count = int(rng.integers(1, most + 1))
    return " ".join("".join(_LETTERS[int(i)] for i in rng.integers(0, 26, size=int(rng.integers(1, 9))))
                    for _ in range(count))


def is_message(value: Any) -> bool:
    """A chat message in the OpenAI shape: a role, and text (or None beside tool calls)."""
    if not isinstance(value, Mapping) or value.get("role") not in ROLES:
        return False
    content = value.get("content")
    return isinstance(content, str) or (content is None and bool(value.get("tool_calls")))


class _ChatSpace(gymnasium.Space[Any]):
    """A space of chat data: no shape, no dtype, equal to any space of the same kind."""

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(None, None, seed)

    @property
    def is_np_flattenable(self) -> bool:
        return False

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self)

    def __hash__(self) -> int:
        return hash(type(self))

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class Conversation(_ChatSpace):
    """Observations: `{"messages": [...]}`, the episode's chat messages so far, tool results included."""

    def contains(self, x: Any) -> bool:
        return (isinstance(x, dict) and set(x) == {"messages"} and isinstance(x["messages"], list)
                and all(is_message(m) for m in x["messages"]))

    def sample(self, mask: Any = None, probability: Any = None) -> dict[str, Any]:
        return {"messages": [{"role": "user", "content": _words(self.np_random)}]}


class AssistantMessage(_ChatSpace):
    """Actions: the assistant's text (tool calls written in it, in any format `sandbox.replies.read_reply`
    reads, run; call-shaped text that does not read is a `parse_error`), or a
    message (a dict or an SDK object) with `content` and/or OpenAI `tool_calls`."""

    def contains(self, x: Any) -> bool:
        if isinstance(x, str):
            return True
        if isinstance(x, Mapping):
            return x.get("role", "assistant") == "assistant" and ("content" in x or "tool_calls" in x)
        return hasattr(x, "content") or hasattr(x, "tool_calls")

    def sample(self, mask: Any = None, probability: Any = None) -> str:
        return _words(self.np_random)
