"""`run --config FILE`: a YAML or JSON file with mcpbr's keys, read as the `RunOptions` fields it sets.

The keys are mcpbr's, so an mcpbr config file's task selection carries over: `benchmark` (a family
name, or a list), `dataset` (a Hugging Face dataset name, read as `hf:NAME`), `sample_size`,
`filter_difficulty`, `filter_category`, `filter_tags`, `task_ids`, and our own `data` (a task file or
folder, relative to the config file). Keys toolworlds has no use for (an mcpbr file's model, server,
timeouts) are returned apart; a key it uses with a value of the wrong shape is an `OptionError`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from .task_options import OptionError, option_error


class ConfigFile(BaseModel):
    """A `--config` file's settings, with mcpbr's keys; keys it does not know are kept as extras."""

    model_config = ConfigDict(extra="allow", frozen=True)

    benchmark: tuple[str, ...] = ()
    filter_difficulty: tuple[str, ...] = ()
    filter_category: tuple[str, ...] = ()
    filter_tags: tuple[str, ...] = ()
    task_ids: tuple[str, ...] = ()
    data: str | None = Field(None, min_length=1, strict=True)
    dataset: str | None = Field(None, min_length=1, strict=True)
    sample_size: int | None = Field(None, ge=1, strict=True)

    @field_validator("benchmark", "filter_difficulty", "filter_category", "filter_tags", "task_ids", mode="before")
    @classmethod
    def _texts(cls, value: Any, info: Any) -> tuple[str, ...]:
        values = [value] if isinstance(value, (str, int, float)) and not isinstance(value, bool) else value
        if values is None:
            return ()
        if not isinstance(values, list) or not all(isinstance(v, (str, int, float)) and not isinstance(v, bool)
                                                   for v in values):
            raise ValueError(f"{info.field_name} must be a text or a list of texts")
        return tuple(str(v) for v in values)

    @model_validator(mode="after")
    def _one_source(self) -> ConfigFile:
        if self.data is not None and self.dataset is not None:
            raise ValueError("give data (files) or dataset (a hub name), not both")
        return self


def read_config(path: Path) -> tuple[dict[str, Any], tuple[str, ...]]:
    """The `RunOptions` fields a config file sets, and the keys in it toolworlds does not use;
    `OptionError` saying what is wrong with the file."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise OptionError(f"cannot read config {path}: {exc}") from None
    content = _parse(path, text)
    if content is None:
        content = {}
    if not isinstance(content, Mapping):
        raise OptionError(f"config {path.name}: expected a mapping of settings at the top")
    try:
        file = ConfigFile.model_validate({str(key): value for key, value in content.items()})
    except ValidationError as exc:
        raise option_error(exc, prefix=f"config {path.name}: ") from None
    settings = {"tasks": file.benchmark, "data": _data_path(path, file), "limit": file.sample_size,
                "difficulties": file.filter_difficulty, "categories": file.filter_category, "tags": file.filter_tags,
                "task_ids": file.task_ids}
    return settings, tuple(sorted(file.model_extra or {}))


def _parse(path: Path, text: str) -> Any:
    if path.suffix.lower() == ".json":
        try:
            return json.loads(text)
        except (json.JSONDecodeError, RecursionError) as exc:
            raise OptionError(f"config {path.name}: not valid JSON ({exc})") from None
    import yaml  # PyYAML: imported here, so runs without a YAML config never load it

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        where = " ".join(str(exc).split())  # PyYAML's message spans lines, with a caret under the place
        raise OptionError(f"config {path.name}: not valid YAML ({where})") from None


def _data_path(path: Path, file: ConfigFile) -> Path | None:
    """The file's data: a hub dataset as `hf:NAME`, a path relative to the config file's folder."""
    if file.dataset is not None:
        return Path(file.dataset if file.dataset.startswith("hf:") else f"hf:{file.dataset}")
    if file.data is None:
        return None
    if file.data.startswith("hf:"):
        return Path(file.data)
    given = Path(file.data).expanduser()
    return given if given.is_absolute() else path.parent / given
