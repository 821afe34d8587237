"""Loading API-Bank's recorded dialogues into typed models.

- Levels 1 and 2 (`lv1-lv2-samples/`): one dialogue per JSON-lines file; turns are User or
  AI text, or API rows with the call (`api_name`, `param_dict`, every value a string as
  recorded) and its recorded result envelope (`api_name`, `input`, `output`, `exception`).
- Level 3 (`lv3-samples/*.txt`): free-text scenes with a first utterance, key information
  and the expected calls in call syntax, some with glosses after a colon or unquoted
  tokens; those are read leniently and every line that cannot be read is reported.
"""

from __future__ import annotations

import re
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

from pydantic import BaseModel, Field

from sandbox import ParseError, parse_message

from ..jsonlines import FirstSeen, file_text, json_lines, shown_value

LEVEL_FOLDERS = MappingProxyType({1: "level-1-given-desc", 2: "level-2-toolsearcher"})


class ApiCall(BaseModel):
    api_name: str
    param_dict: dict[str, Any] = Field(default_factory=dict)
    result: dict[str, Any] | None = None


class DialogueTurn(BaseModel):
    role: Literal["User", "AI", "API"]
    text: str = ""
    call: ApiCall | None = None


class Dialogue(BaseModel):
    file: str
    level: int
    turns: list[DialogueTurn] = Field(default_factory=list)

    @property
    def api_calls(self) -> list[ApiCall]:
        return [turn.call for turn in self.turns if turn.call is not None]

    @property
    def replies(self) -> list[str]:
        """The AI's turns in order: the response samples."""
        return [turn.text for turn in self.turns if turn.role == "AI"]

    @property
    def replies_after_calls(self) -> list[int]:
        """Indices (into `replies`) of the AI turns that directly follow an API row: the
        response samples API-Bank's evaluator builds (478 over levels 1-2)."""
        indices, reply = [], 0
        for before, turn in zip([None, *self.turns], self.turns, strict=False):
            if turn.role == "AI":
                if before is not None and before.role == "API":
                    indices.append(reply)
                reply += 1
        return indices

    @property
    def apis(self) -> list[str]:
        """Every API the dialogue uses, in order of first use."""
        return list(dict.fromkeys(call.api_name for call in self.api_calls))


class Level3Scene(BaseModel):
    file: str
    scene: str
    first_utterance: str
    key_info: str
    calls: list[ApiCall] = Field(default_factory=list)
    problems: list[str] = Field(default_factory=list)


def _folder(data: Path, name: str) -> Path:
    for candidate in (data / name, data / "lv1-lv2-samples" / name):
        if candidate.is_dir():
            return candidate
    raise ValueError(f"no {name} folder in {data}")


def load_dialogues(data: str | Path, levels: tuple[int, ...] = (1, 2),
                   problems: list[str] | None = None) -> list[Dialogue]:
    """Level-1 and level-2 dialogues under an API-Bank folder, in file-name order (empty files skipped).

    A file with a line that cannot be read (not UTF-8, not JSON, a turn of the wrong shape) is
    left out whole, since a dialogue missing a turn would shift every sample after it, and each
    such line is a problem `level-1-given-desc/NAME.jsonl:LINE: reason` naming the field; a
    missing level folder is one problem too. A file name already read in another level is a
    problem and only the first is kept: samples (and their predictions) are named by file, so a
    second would share the first one's ids. The other dialogues still load. With a `problems`
    list the problems are added to it; without one, they raise `ValueError`.
    """
    found: list[str] = []
    dialogues = []
    seen = FirstSeen()
    for level in levels:
        try:
            folder = _folder(Path(data), LEVEL_FOLDERS[level])
        except ValueError as exc:
            found.append(str(exc))
            continue
        for path in sorted(folder.glob("*.jsonl")):
            label = f"{folder.name}/{path.name}"
            if repeat := seen.repeated(path.name, label):
                found.append(f"{label}: {repeat}")
                continue
            turns = _dialogue_turns(path, label, found)
            if turns:
                dialogues.append(Dialogue(file=path.name, level=level, turns=turns))
    _hand_over(found, problems)
    return dialogues


def _hand_over(found: list[str], problems: list[str] | None) -> None:
    """The problems a loader met, added to the caller's `problems`; without that list, a `ValueError` of the
    first five (a caller that collects none must not get a data set with files silently left out)."""
    if problems is not None:
        problems.extend(found)
    elif found:
        raise ValueError("; ".join(found[:5]))


def _dialogue_turns(path: Path, label: str, problems: list[str]) -> list[DialogueTurn]:
    """The turns of one dialogue file, or none (and a problem per bad line) when any line is bad."""
    turns = []
    before = len(problems)
    for number, row in json_lines(path, problems, label):
        try:
            turns.append(dialogue_turn(row))
        except ValueError as exc:
            problems.append(f"{label}:{number}: {exc}")
    return turns if len(problems) == before else []


def dialogue_turn(row: Any) -> DialogueTurn:
    """One line of a dialogue file as a turn; `ValueError` naming the field that is wrong."""
    if not isinstance(row, dict):
        raise ValueError(f"a line must be a JSON object, not {shown_value(row)}")
    role = row.get("role", "User")
    if role not in ("User", "AI", "API"):
        raise ValueError(f"role must be 'User', 'AI' or 'API', not {shown_value(role)}")
    if role != "API":
        text = row.get("text", "")
        if not isinstance(text, str):
            raise ValueError(f"text must be text, not {shown_value(text)}")
        return DialogueTurn(role=role, text=text)
    return DialogueTurn(role="API", call=_recorded_call(row))


def _recorded_call(row: dict[str, Any]) -> ApiCall:
    """The call of an API row, its fields checked where the replay reads them."""
    name = row.get("api_name")
    if "api_name" not in row:
        raise ValueError("api_name is missing")
    if not isinstance(name, str) or not name:
        raise ValueError(f"api_name must be an API's name, not {shown_value(name)}")
    param_dict = row.get("param_dict") or {}
    if not isinstance(param_dict, dict):
        raise ValueError(f"param_dict must be an object, not {shown_value(param_dict)}")
    result = row.get("result")
    if result is not None and not isinstance(result, dict):
        raise ValueError(f"result must be an object, not {shown_value(result)}")
    given = (result or {}).get("input")
    if given is not None and not isinstance(given, dict):
        raise ValueError(f"result.input must be an object, not {shown_value(given)}")
    return ApiCall(api_name=name, param_dict=param_dict, result=result)


_CALL_LINE = re.compile(r"^\s*-?\s*([A-Z][A-Za-z]+)\((.*)\)\s*(?::.*)?$")
_BARE = re.compile(r"(=\s*)([A-Za-z_][A-Za-z0-9_]*)(\s*[,)])")
_HEADINGS = re.compile(r"^\s*-?\s*(GT )?API Calls?:\s*$", re.IGNORECASE)


def _quote_bare(text: str) -> str:
    """`token=a9s8` → `token='a9s8'` (the scenes write some tokens unquoted)."""
    def fix(match: re.Match[str]) -> str:
        word = match.group(2)
        if word in ("True", "False", "None", "true", "false", "null"):
            return match.group(0)
        return f"{match.group(1)}{word!r}{match.group(3)}"

    return _BARE.sub(fix, text)


def load_level3(data: str | Path, problems: list[str] | None = None) -> list[Level3Scene]:
    """The level-3 scenes under an API-Bank folder (or its `lv3-samples` folder).

    A scene file that cannot be read (a folder by that name, bytes that are not UTF-8) is left
    out and is a problem naming it (and the line); with no `problems` list, it raises `ValueError`.
    Lines within a readable scene are read leniently (`Level3Scene.problems`)."""
    folder = Path(data)
    if (folder / "lv3-samples").is_dir():
        folder = folder / "lv3-samples"
    found: list[str] = []
    scenes = []
    for path in sorted(folder.glob("*.txt")):
        try:
            text = file_text(path, f"{folder.name}/{path.name}")
        except ValueError as exc:
            found.append(str(exc))
            continue
        scenes.append(read_scene(path.name, text.replace("\r\n", "\n").replace("\r", "\n")))  # as read_text reads
    _hand_over(found, problems)
    return scenes


def read_scene(file: str, text: str) -> Level3Scene:
    """One scene's text: its headings, and its call lines read as calls (each unreadable one a problem)."""
    scene = re.search(r"Scene:\s*(.+)", text)
    first = re.search(r"First Utter[ae]nce:\s*(.+)", text)
    key_info = re.search(r"Key Info:\s*(.*?)(?:\n\s*-?\s*(?:GT )?API Calls?:)", text, re.DOTALL | re.IGNORECASE)
    calls: list[ApiCall] = []
    problems: list[str] = []
    in_calls = False
    for line in text.splitlines():
        if _HEADINGS.match(line):
            in_calls = True
            continue
        match = _CALL_LINE.match(line) if in_calls else None
        if match is None:
            continue
        source = _quote_bare(f"{match.group(1)}({match.group(2)})")
        try:
            (call,) = parse_message(source).calls
        except (ParseError, ValueError) as exc:
            problems.append(f"{line.strip()[:80]}: {exc}")
            continue
        calls.append(ApiCall(api_name=call.name, param_dict=call.arguments))
    return Level3Scene(file=file, scene=scene.group(1).strip() if scene else Path(file).stem,
                       first_utterance=first.group(1).strip() if first else "",
                       key_info=key_info.group(1).strip() if key_info else "", calls=calls, problems=problems)
