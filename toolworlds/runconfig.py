"""`toolworlds run --config FILE`: which tasks to run, from a YAML or JSON file.

The keys are mcpbr's, so an mcpbr config file's task selection carries over:
`benchmark` (a family name, or a list), `dataset` (a Hugging Face dataset name, read as
`hf:NAME`), `sample_size`, `filter_difficulty`, `filter_category`, `filter_tags`,
`task_ids`, and our own `data` (a task file or folder, relative to the config file).
Keys toolworlds has no use for (an mcpbr file's model, server, timeouts) are reported and
ignored; a key it uses with a value of the wrong shape is an error. Flags given on the
command line win over the file.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_LIST_KEYS = ("benchmark", "filter_difficulty", "filter_category", "filter_tags", "task_ids")
_KNOWN = (*_LIST_KEYS, "dataset", "data", "sample_size")


@dataclass(frozen=True)
class RunConfig:
    benchmark: tuple[str, ...] = ()
    data: str | None = None
    sample_size: int | None = None
    filter_difficulty: tuple[str, ...] = ()
    filter_category: tuple[str, ...] = ()
    filter_tags: tuple[str, ...] = ()
    task_ids: tuple[str, ...] = ()
    ignored: tuple[str, ...] = ()  # keys in the file that toolworlds does not use


def read_run_config(path: Path) -> RunConfig:
    """The run settings in `path`; `ValueError` saying what is wrong with the file."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read config {path}: {exc}") from None
    content = _parse(path, text)
    if content is None:
        content = {}
    if not isinstance(content, Mapping):
        raise ValueError(f"config {path.name}: expected a mapping of settings at the top")
    lists = {key: _strings(path, key, content[key]) for key in _LIST_KEYS if content.get(key) is not None}
    data = _data(path, content)
    size = content.get("sample_size")
    if size is not None and (isinstance(size, bool) or not isinstance(size, int) or size < 1):
        raise ValueError(f"config {path.name}: sample_size must be a positive whole number")
    ignored = tuple(sorted(str(key) for key in content if key not in _KNOWN))
    return RunConfig(data=data, sample_size=size, ignored=ignored, **lists)


def _parse(path: Path, text: str) -> Any:
    if path.suffix.lower() == ".json":
        try:
            return json.loads(text)
        except (json.JSONDecodeError, RecursionError) as exc:
            raise ValueError(f"config {path.name}: not valid JSON ({exc})") from None
    import yaml  # PyYAML: imported here, so commands without a YAML config never load it

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ValueError(f"config {path.name}: not valid YAML ({exc})") from None


def _strings(path: Path, key: str, value: Any) -> tuple[str, ...]:
    values = [value] if isinstance(value, (str, int, float)) and not isinstance(value, bool) else value
    if not isinstance(values, list) or not all(isinstance(v, (str, int, float)) and not isinstance(v, bool)
                                               for v in values):
        raise ValueError(f"config {path.name}: {key} must be a text or a list of texts")
    return tuple(str(v) for v in values)


def _data(path: Path, content: Mapping[str, Any]) -> str | None:
    data, dataset = content.get("data"), content.get("dataset")
    if data is not None and dataset is not None:
        raise ValueError(f"config {path.name}: give data (files) or dataset (a hub name), not both")
    if dataset is not None:
        if not isinstance(dataset, str) or not dataset:
            raise ValueError(f"config {path.name}: dataset must be a dataset name")
        return dataset if dataset.startswith("hf:") else f"hf:{dataset}"
    if data is None:
        return None
    if not isinstance(data, str) or not data:
        raise ValueError(f"config {path.name}: data must be a path")
    if data.startswith("hf:"):
        return data
    given = Path(data).expanduser()
    return str(given if given.is_absolute() else path.parent / given)
