"""The gymnasium spaces of a tool-use episode: conversations observed, assistant messages acted.

Neither is a fixed-size array, so both are custom spaces (gymnasium allows them; they are
not flattenable). Sampling gives lower-case words, which read as a plain answer and never
as a tool call, so a random policy ends an episode at once rather than acting at random.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import multiprocessing
import os
import tempfile
import weakref
from collections.abc import Mapping
from collections.abc import Sequence as SequenceABC
from pathlib import Path
from typing import Any

import gymnasium
from gymnasium.vector.utils import create_shared_memory, read_from_shared_memory, write_to_shared_memory

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
    """Observations: `{"messages": [...], "tools": [...]}`: the episode's chat messages so far (the system
    prompt first, tool results included) and the task's tools as OpenAI function schemas."""

    def contains(self, x: Any) -> bool:
        return (isinstance(x, dict) and set(x) == {"messages", "tools"} and isinstance(x["messages"], list)
                and all(is_message(m) for m in x["messages"]) and isinstance(x["tools"], list)
                and all(isinstance(t, Mapping) for t in x["tools"]))

    def sample(self, mask: Any = None, probability: Any = None) -> dict[str, Any]:
        return {"messages": [{"role": "user", "content": _words(self.np_random)}], "tools": []}


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


# -- observations through AsyncVectorEnv's shared memory -----------------------------------------
#
# gymnasium's `AsyncVectorEnv` (default `shared_memory=True`) has each worker write its observation into
# a buffer made once for the space, and gives the batch back by reading that buffer. A conversation has
# no fixed size, so each environment's slot holds its observation as JSON; one larger than the slot is
# written to a file beside it (the slot names the file), removed when the slot is written again or the
# buffer is dropped, so no observation is ever cut.

SLOT_BYTES = 1 << 20
_HEADER = 9  # a kind byte (M: in memory, F: in a file) and the length of what follows


def _create_conversation_memory(space: Conversation, n: int = 1, ctx: Any = multiprocessing) -> Any:
    return ctx.Array(ctypes.c_char, n * SLOT_BYTES, lock=False)


def _slot(shared_memory: Any, index: int) -> memoryview:
    return memoryview(shared_memory).cast("B")[index * SLOT_BYTES:(index + 1) * SLOT_BYTES]


def _spilled(slot: memoryview) -> str | None:
    if bytes(slot[:1]) != b"F":
        return None
    length = int.from_bytes(slot[1:_HEADER], "little")
    return bytes(slot[_HEADER:_HEADER + length]).decode()


def _write_conversation_memory(space: Conversation, index: int, value: Any, shared_memory: Any) -> None:
    data = json.dumps(value).encode()  # ASCII: a lone surrogate in a message is kept as its escape
    slot = _slot(shared_memory, index)
    old = _spilled(slot)
    if old is not None:
        with contextlib.suppress(OSError):
            os.remove(old)
    kind = b"M"
    if len(data) > SLOT_BYTES - _HEADER:
        with tempfile.NamedTemporaryFile("wb", prefix="toolworlds-obs-", suffix=".json", delete=False) as file:
            file.write(data)
        kind, data = b"F", file.name.encode()
    slot[:1] = kind
    slot[1:_HEADER] = len(data).to_bytes(8, "little")
    slot[_HEADER:_HEADER + len(data)] = data


class SharedConversations(SequenceABC[dict[str, Any]]):
    """The batch of observations in shared memory, read when asked (gymnasium deep-copies it each step)."""

    def __init__(self, shared_memory: Any, n: int) -> None:
        self._memory, self._n = shared_memory, n
        weakref.finalize(self, _remove_spilled, shared_memory, n)

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return tuple(self[i] for i in range(self._n)[index])
        if not -self._n <= index < self._n:
            raise IndexError(index)
        slot = _slot(self._memory, index % self._n)
        length = int.from_bytes(slot[1:_HEADER], "little")
        if bytes(slot[:1]) == b"F":
            return json.loads(Path(bytes(slot[_HEADER:_HEADER + length]).decode()).read_bytes())
        return json.loads(bytes(slot[_HEADER:_HEADER + length])) if length else None

    def __deepcopy__(self, memo: Any) -> tuple[Any, ...]:
        return tuple(self)


def _remove_spilled(shared_memory: Any, n: int) -> None:
    for index in range(n):
        path = _spilled(_slot(shared_memory, index))
        if path is not None:
            with contextlib.suppress(OSError):
                os.remove(path)


def _read_conversation_memory(space: Conversation, shared_memory: Any, n: int = 1) -> SharedConversations:
    return SharedConversations(shared_memory, n)


create_shared_memory.register(Conversation)(_create_conversation_memory)
write_to_shared_memory.register(Conversation)(_write_conversation_memory)
read_from_shared_memory.register(Conversation)(_read_conversation_memory)
