"""Loading API-Bank's recorded dialogues into typed models.

- Levels 1 and 2 (`lv1-lv2-samples/`): one dialogue per JSON-lines file; turns are User or
  AI text, or API rows with the call (`api_name`, `param_dict`, every value a string as
  recorded) and its recorded result envelope (`api_name`, `input`, `output`, `exception`).
- Level 3 (`lv3-samples/*.txt`): free-text scenes with a first utterance, key information
  and the expected calls in call syntax, some with glosses after a colon or unquoted
  tokens; those are read leniently and every line that cannot be read is reported.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

from pydantic import BaseModel, Field

from sandbox import ParseError, parse_message

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
    raise FileNotFoundError(f"no {name} folder under {data}")


def load_dialogues(data: str | Path, levels: tuple[int, ...] = (1, 2)) -> list[Dialogue]:
    """Level-1 and level-2 dialogues under an API-Bank folder, in file-name order (empty files skipped)."""
    dialogues = []
    for level in levels:
        folder = _folder(Path(data), LEVEL_FOLDERS[level])
        for path in sorted(folder.glob("*.jsonl")):
            turns = []
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise ValueError(f"{path.name}:{number}: not valid JSON ({exc.msg})") from None
                if row.get("role") == "API":
                    call = ApiCall(api_name=row["api_name"], param_dict=row.get("param_dict") or {},
                                   result=row.get("result"))
                    turns.append(DialogueTurn(role="API", call=call))
                else:
                    turns.append(DialogueTurn(role=row.get("role", "User"), text=row.get("text", "")))
            if turns:
                dialogues.append(Dialogue(file=path.name, level=level, turns=turns))
    return dialogues


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


def load_level3(data: str | Path) -> list[Level3Scene]:
    """The level-3 scenes under an API-Bank folder (or its `lv3-samples` folder)."""
    folder = Path(data)
    if (folder / "lv3-samples").is_dir():
        folder = folder / "lv3-samples"
    scenes = []
    for path in sorted(folder.glob("*.txt")):
        text = path.read_text(encoding="utf-8")
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
        scenes.append(Level3Scene(file=path.name, scene=scene.group(1).strip() if scene else path.stem,
                                  first_utterance=first.group(1).strip() if first else "",
                                  key_info=key_info.group(1).strip() if key_info else "", calls=calls,
                                  problems=problems))
    return scenes
