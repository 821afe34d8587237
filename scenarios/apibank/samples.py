"""API-Bank's level-1 and level-2 samples as runnable tasks, each scored on one reply.

A sample is a dialogue cut before one of its rows: before an API row (a call sample: the
model writes the AI's request) or before an AI turn (a response sample: the model writes
the AI's reply). The model sees what the reference's evaluator shows it (`prompts.py`):
the system prompt with the API descriptions, then the dialogue so far as a chat (task hook
`opening_messages`). Its first reply, verbatim, is the result (`single_reply`,
`protocol="bracket"`). Asked for the native protocol (task hook `for_protocol`), a sample becomes
its native form: the APIs as tools, the history's API rows as tool calls and tool messages, one
system message (`prompts.native_history`); the bracket form stays the reference's.

A call is judged in the world the dialogue's gold calls before it left behind (ForgotPassword's
second step needs its first). That world is the recording-era world of the data folder
(`replay.recording_world`), built once per task set (`bases.WorldBase`) and forked per
episode, then the gold prefix is replayed in the fork.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from sandbox import World
from sandbox.parsing import Call, render_calls

from .dialogues import ApiCall, Dialogue, DialogueTurn
from .prompts import (
    NATIVE_CALL_PROMPT,
    NATIVE_RESPONSE_PROMPT,
    NATIVE_SEARCH_PROMPT,
    api_functions,
    call_prompt,
    found_apis,
    history_messages,
    native_history,
    response_prompt,
)
from .replay import recorded_dialogues, recording_world, replay_calls
from .world_base import WorldBase

KINDS = ("api", "response")


def recording_base(data: Path) -> World:
    """The recording-era world of a data folder (what the scorer replays in), for `WorldBase`. Its
    cassette comes from the dialogues that can be read: the loader has reported the others."""
    return recording_world(data, recorded_dialogues(data, (1, 2), problems=[]))


@dataclass(frozen=True, eq=False)
class ApiBankSample:
    """One level-1 or level-2 sample: the dialogue before one row, and that row as the answer."""

    file: str
    level: int
    kind: str  # "api" (the model writes a call) or "response" (the model writes the AI's reply)
    index: int  # the n-th API call, or the n-th AI turn, of the dialogue
    history: tuple[DialogueTurn, ...]
    apis: tuple[str, ...]  # every API of the dialogue, in order of first use
    gold_call: ApiCall | None  # api samples
    gold_reply: str  # response samples
    after_call: bool  # a response sample that directly follows an API row (the reference's set)
    base: WorldBase
    native: bool = False  # the native protocol's form (`for_protocol`)

    single_reply = True

    @property
    def protocol(self) -> str:
        return "native" if self.native else "bracket"

    def for_protocol(self, protocol: str) -> ApiBankSample:
        """This sample as `protocol` ("native" or "bracket") presents it (task hook)."""
        return self if (protocol == "native") == self.native else replace(self, native=protocol == "native")

    @property
    def id(self) -> str:
        return f"{self.file}#{self.kind}{self.index}"

    @property
    def category(self) -> str:
        return f"level-{self.level}-{self.kind}"

    @property
    def system_prompt(self) -> str:
        if self.native:
            if self.kind != "api":
                return NATIVE_RESPONSE_PROMPT
            return NATIVE_SEARCH_PROMPT if self.level == 2 else NATIVE_CALL_PROMPT
        return call_prompt(self.level, self.apis) if self.kind == "api" else response_prompt(self.apis)

    @property
    def opening_messages(self) -> tuple[Any, ...]:
        """The dialogue so far (task hook: the episode opens with these): as the reference sends it, (role,
        content) pairs with API rows as system messages; natively, chat messages with tool calls."""
        return native_history(self.history) if self.native else history_messages(self.history)

    @property
    def question(self) -> str:
        """The user's last words before the sample, for displays that show one line."""
        return next((turn.text for turn in reversed(self.history) if turn.role == "User"), "")

    @property
    def functions(self) -> list[dict[str, Any]]:
        """The APIs, by name (the reference's prompts describe them in text); natively, as tools: a level-2
        call sample has ToolSearcher and what its answers in the history found, as the reference shows it."""
        if not self.native:
            return [{"name": name} for name in self.apis]
        if self.level == 2 and self.kind == "api":
            return api_functions(["ToolSearcher", *found_apis(self.history)])
        return api_functions(self.apis)

    @property
    def paths(self) -> list[list[str]]:
        """The gold answer as a model writes it: the recorded call, or the recorded reply."""
        if self.gold_call is not None:
            return [[render_calls([Call(self.gold_call.api_name, dict(self.gold_call.param_dict))])]]
        return [[self.gold_reply]]

    @property
    def ground_truth(self) -> Any:
        return self.gold_call.result if self.gold_call is not None else self.gold_reply

    def prefix_calls(self) -> list[ApiCall]:
        return [turn.call for turn in self.history if turn.call is not None]

    def world(self, seed: int = 0) -> World:
        """For a call sample, the world the dialogue's gold calls before it leave behind (forked
        from the base, seed 0, as the scorer's; `seed` is not used); a response sample runs
        nothing, so its world is empty."""
        if self.kind != "api":
            return World([], seed=seed)
        return replay_calls(self.base.fork(), self.prefix_calls())

    def end_state(self, world: World) -> None:
        return None

    def result_record(self, world: World, process: list[str]) -> dict[str, Any]:
        """The sample's line of a predictions file (`toolworlds score apibank` reads it)."""
        return {"file": self.file, "kind": self.kind, "index": self.index, "pred": process[0] if process else ""}


def dialogue_samples(dialogue: Dialogue, base: WorldBase) -> list[ApiBankSample]:
    """Every call sample and every response sample of a dialogue, in dialogue order."""
    samples = []
    apis = tuple(dialogue.apis)
    after_calls = set(dialogue.replies_after_calls)
    calls = replies = 0
    for position, turn in enumerate(dialogue.turns):
        history = tuple(dialogue.turns[:position])
        if turn.call is not None:
            samples.append(ApiBankSample(dialogue.file, dialogue.level, "api", calls, history, apis, turn.call, "",
                                         False, base))
            calls += 1
        elif turn.role == "AI":
            samples.append(ApiBankSample(dialogue.file, dialogue.level, "response", replies, history, apis, None,
                                         turn.text, replies in after_calls, base))
            replies += 1
    return samples


def read_samples(data: Path, levels: tuple[int, ...], problems: list[str] | None = None) -> list[ApiBankSample]:
    """The samples of `levels` (1, 2) under an API-Bank folder, all sharing one `WorldBase`; dialogue
    files that cannot be read are problems added to `problems` (a `ValueError` without it)."""
    base = WorldBase(data, recording_base)
    dialogues = recorded_dialogues(data, levels, problems)
    return [sample for dialogue in dialogues for sample in dialogue_samples(dialogue, base)]
