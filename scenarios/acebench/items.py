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
from sandbox.errors import ParseError
from sandbox.parsing import parse_message, render_calls

from ..family import TaskLoad
from ..jsonlines import shown_value
from .answers import possible_reply
from .prompts import history_message, single_reply_prompt
from .tasks import answers_by_id, folder_language, unique_records


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
        """The item's line of an ACEBench result file: the reply, verbatim (native calls as bracket calls)."""
        return {"id": self.id, "result": item_reply(process)}


def item_reply(process: list[str]) -> str:
    """An item's reply as its result file holds it: the text the model wrote, or, for native `tool_calls`
    (the JSON message a run keeps of them, `sandbox.chat.uses_json`), the bracket calls they make, as
    ACEBench's handlers of function-calling models write them."""
    reply = process[0] if process else ""
    if not reply.startswith('{"tool_calls": '):
        return reply
    try:
        return render_calls(parse_message(reply).calls)
    except ParseError:
        return reply


def read_items(data: Path, lang: str, categories: tuple[str, ...]) -> TaskLoad:
    """The items of `categories` under an ACEBench folder (or its `data_<lang>` folder);
    a category without a file is skipped, a malformed line is a problem.

    As for agent tasks, an id met twice is a problem and only its first line is kept, and a
    possible answer is checked at load against the shape its category's checker reads, so a
    malformed one is named here rather than failing the episode with no field named."""
    folder = data / f"data_{lang}" if (data / f"data_{lang}").is_dir() else data
    result = TaskLoad()
    if folder_language(folder) not in (None, lang):
        return result  # a data_en folder holds no zh items
    for category in categories:
        prompt_file = folder / f"data_{category}.json"
        if not prompt_file.is_file():
            continue
        answer_label = f"possible_answer/{prompt_file.name}"
        answer_file = folder / answer_label
        if not answer_file.is_file():
            result.problems.append(f"{prompt_file.name}: no {answer_label} beside it")
            continue
        answers = answers_by_id(answer_file, answer_label, result.problems)
        for number, row in unique_records(prompt_file, prompt_file.name, result.problems):
            item = _item(row, answers, category, lang, f"{prompt_file.name}:{number}", answer_label, result.problems)
            if item is not None:
                result.tasks.append(item)
    return result


def _item(row: dict[str, Any], answers: dict[str, tuple[int, dict[str, Any]]], category: str, lang: str,
          source: str, answer_label: str, problems: list[str]) -> AceItem | None:
    """One prompt line joined with its possible answer, or None (and a problem naming the line of
    either file that is wrong) when it cannot be an item."""
    item_id = row["id"]
    if item_id not in answers:
        problems.append(f"{source}: no possible answer for {item_id}")
        return None
    number, answer = answers[item_id]
    wrong = answer_problem(category, answer.get("ground_truth"))
    if wrong is not None:
        problems.append(f"{answer_label}:{number}: {item_id}: {wrong}")
        return None
    try:
        return AceItem(
            id=item_id, category=category, lang=lang, history=str(row.get("question", "")),
            functions=row.get("function") or [], ground_truth=answer.get("ground_truth"),
            time=str(row.get("time") or ""), profile=str(row.get("profile") or ""), source=source)
    except ValueError as exc:
        problems.append(f"{item_id}: malformed item: {exc}")
        return None


def answer_problem(category: str, answer: Any) -> str | None:
    """What is wrong with a possible answer for `category`, or None when its checker can read it.

    Normal items: an object mapping each function to an object of its arguments, or a non-empty
    list of such objects (alternatives). Special items: `incomplete` maps an API to the list of
    missing parameter names, `error_param` a parameter to a non-empty list of its wrong values (the
    checker reads the first);
    `irrelevant` answers are never read.
    """
    if category == "special_irrelevant":
        return None
    if category.startswith("special"):
        return _special_problem(category, answer)
    if not isinstance(answer, list):
        return _calls_problem(answer, "ground_truth")
    if not answer:
        return "ground_truth is an empty list (no alternative)"
    return next((wrong for index, alternative in enumerate(answer)
                 if (wrong := _calls_problem(alternative, f"ground_truth[{index}]")) is not None), None)


def _calls_problem(answer: Any, where: str) -> str | None:
    """What is wrong with one normal answer (`{function: {argument: value}}`) found at `where`, or None."""
    if not isinstance(answer, dict):
        return f"{where} must be an object of calls, not {shown_value(answer)}"
    return next((f"{where}[{name!r}] must be an object of arguments, not {shown_value(arguments)}"
                 for name, arguments in answer.items() if not isinstance(arguments, dict)), None)


def _special_problem(category: str, answer: Any) -> str | None:
    """What is wrong with a special item's answer (`{name: [values]}`, at least one entry), or None."""
    if not isinstance(answer, dict) or not answer:
        return f"ground_truth must be a non-empty object, not {shown_value(answer)}"
    incomplete = "incomplete" in category
    for name, values in answer.items():
        if not isinstance(values, list) or not (values or incomplete):
            size = "" if incomplete else "non-empty "
            return f"ground_truth[{name!r}] must be a {size}list, not {shown_value(values)}"
        if incomplete and not all(isinstance(value, str) for value in values):
            return f"ground_truth[{name!r}] must list parameter names as text"
    return None
