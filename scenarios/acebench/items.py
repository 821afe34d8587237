"""ACEBench's normal and special items as runnable tasks, each scored on one reply.

An item is a conversation so far and a list of functions; the model answers once, with
calls in ACEBench's bracket syntax or one of the special phrases, and that reply is the
result the checker scores (task-hook contract: `single_reply`, `protocol="bracket"`,
`system_prompt`). No tool runs: the functions exist only as descriptions, so an item's
world is empty. `paths` holds the possible answer written as a model would write it,
which is what the oracle agent replies.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from sandbox import World

from ..family import TaskLoad
from .answers import possible_reply
from .prompts import history_message, single_reply_prompt
from .tasks import json_records


class AceItem(BaseModel):
    """One normal or special item: the model's first reply is its result."""

    id: str
    category: str
    lang: str = "en"
    history: str = ""  # the conversation so far, as the dataset writes it ("user: ...\nsystem: ...")
    functions: list[dict[str, Any]] = Field(default_factory=list)
    ground_truth: Any = None  # the possible answer(s)
    time: str = ""
    profile: str = ""
    source: str = ""

    single_reply: bool = True
    protocol: str = "bracket"

    @property
    def question(self) -> str:
        """The user message the model sees: the conversation so far."""
        return history_message(self.history, self.lang)

    @property
    def system_prompt(self) -> str:
        return single_reply_prompt(self.category, self.lang, self.functions, self.time, self.profile)

    @property
    def paths(self) -> list[list[str]]:
        return [[possible_reply(self.category, self.ground_truth, self.functions)]]

    def world(self, seed: int = 0) -> World:
        """No tool runs for an item: an empty world."""
        return World([], seed=seed)

    def end_state(self, world: World) -> None:
        return None

    def result_record(self, world: World, process: list[str]) -> dict[str, Any]:
        """The item's line of an ACEBench result file: the reply, verbatim."""
        return {"id": self.id, "result": process[0] if process else ""}


def read_items(data: Path, lang: str, categories: tuple[str, ...]) -> TaskLoad:
    """The items of `categories` under an ACEBench folder (or its `data_<lang>` folder);
    a category without a file is skipped, a malformed line is a problem."""
    folder = data / f"data_{lang}" if (data / f"data_{lang}").is_dir() else data
    result = TaskLoad()
    for category in categories:
        prompt_file = folder / f"data_{category}.json"
        answer_file = folder / "possible_answer" / prompt_file.name
        if not prompt_file.is_file():
            continue
        if not answer_file.is_file():
            result.problems.append(f"{prompt_file.name}: no possible_answer/{prompt_file.name} beside it")
            continue
        answers = {row.get("id"): row for _, row in json_records(answer_file, result.problems)}
        for number, row in json_records(prompt_file, result.problems):
            item_id = row.get("id")
            answer = answers.get(item_id)
            if not isinstance(item_id, str) or answer is None:
                result.problems.append(f"{prompt_file.name}:{number}: no id, or no possible answer for it")
                continue
            try:
                result.tasks.append(AceItem(
                    id=item_id, category=category, lang=lang, history=str(row.get("question", "")),
                    functions=row.get("function") or [], ground_truth=answer.get("ground_truth"),
                    time=str(row.get("time") or ""), profile=str(row.get("profile") or ""),
                    source=f"{prompt_file.name}:{number}"))
            except ValueError as exc:
                result.problems.append(f"{item_id}: malformed item: {exc}")
    return result

