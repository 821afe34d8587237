"""Recorded tool answers, in the shape StableToolBench's response cache keeps them.

StableToolBench stores one JSON file per API at `<cache>/<category>/<tool>_for_<category>/<api>.json`;
each file maps the call's arguments, written as Python's `str()` of the argument dict, to the
answer `{"error": "", "response": ...}`. A ToolBench function is named `<api>_for_<tool>`,
so a call is found by that full name or by the bare API name (the file's stem). Keys are
matched exactly first, then as argument dicts whatever their key order; a key is read with
`ast.literal_eval`, which accepts literals only, so a cache file cannot run code.

Files are indexed on the first lookup and read when first needed, so pointing at a large
cache costs nothing until a call asks for it.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..jsonlines import file_text, json_value


class ResponseCache:
    """A StableToolBench cache folder, or a single `<api>.json` file of it."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        if not self.root.exists():
            raise FileNotFoundError(f"no response cache at {self.root}")
        self._files: dict[str, Path] | None = None
        self._answers: dict[Path, tuple[dict[str, Any], dict[str, Any]]] = {}

    def lookup(self, tool: str, arguments: Mapping[str, Any]) -> dict[str, Any] | None:
        """The recorded answer to `tool(**arguments)`, or None when the cache has none."""
        path = self._index().get(tool)
        if path is None:
            return None
        exact, by_value = self._load(path)
        found = exact.get(str(dict(arguments)))
        if found is None:
            found = by_value.get(_canonical(arguments))
        if found is None:
            return None
        return dict(found) if isinstance(found, Mapping) else {"error": "", "response": found}

    def _index(self) -> dict[str, Path]:
        if self._files is None:
            files = [self.root] if self.root.is_file() else sorted(self.root.rglob("*.json"))
            index: dict[str, Path] = {}
            for path in files:
                api, tool_folder = path.stem, path.parent.name
                index.setdefault(api, path)
                if path is not self.root:
                    index.setdefault(f"{api}_for_{tool_folder.split('_for_')[0]}", path)
            self._files = index
        return self._files

    def _load(self, path: Path) -> tuple[dict[str, Any], dict[str, Any]]:
        if path not in self._answers:
            try:
                data = json_value(file_text(path))
            except ValueError:  # unreadable, not UTF-8 or not JSON (`DataFileError`, `JsonTextError`)
                data = {}
            exact = data if isinstance(data, dict) else {}
            by_value: dict[str, Any] = {}
            for key, answer in exact.items():
                arguments = _literal_dict(key)
                if arguments is not None:
                    by_value.setdefault(_canonical(arguments), answer)
            self._answers[path] = (exact, by_value)
        return self._answers[path]

    def __getstate__(self) -> dict[str, Any]:
        # Worker processes get the location only and read what they need themselves.
        return {"root": self.root}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.root, self._files, self._answers = state["root"], None, {}

    def __repr__(self) -> str:
        return f"ResponseCache({str(self.root)!r})"


def _literal_dict(key: str) -> dict[str, Any] | None:
    try:
        value = ast.literal_eval(key)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _canonical(arguments: Mapping[str, Any]) -> str:
    return json.dumps(dict(arguments), sort_keys=True, ensure_ascii=False, default=str)
