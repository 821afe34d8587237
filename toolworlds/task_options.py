"""`TaskOptions`: which tasks, in which languages, from which data, in which protocol.

What a run (`RunOptions`) shares with `ToolEnv` and the MCP host (`WorldHost`), checked in one place;
`OptionError` is the one-line refusal every option check raises (`option_error` turns a pydantic
`ValidationError` into one).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Self

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from scenarios.family import TaskQuery

from .llm import PROTOCOLS


class OptionError(ValueError):
    """Options (or a `--config` file) that cannot be run: one line naming each problem."""


def option_error(exc: ValidationError, prefix: str = "") -> OptionError:
    """A pydantic `ValidationError` as one line: a check's own words, else the option's flag and pydantic's."""
    lines = []
    for error in exc.errors():
        cause = (error.get("ctx") or {}).get("error")
        if isinstance(cause, ValueError):
            lines.append(f"{prefix}{cause}")
            continue
        where = ".".join(str(part) for part in error["loc"])
        name = where if prefix else "--" + where.replace("_", "-")
        lines.append(f"{prefix}{name}: {error['msg']}" if where else f"{prefix}{error['msg']}")
    return OptionError("; ".join(dict.fromkeys(lines)))


def one_of(value: str, choices: tuple[str, ...], what: str) -> str:
    if value not in choices:
        raise ValueError(f"unknown {what} {value!r}; use {', '.join(choices[:-1])} or {choices[-1]}")
    return value


def option_texts(value: Any, *, split: bool) -> Any:
    """A text or a list of texts as a tuple; `split`: comma-separated values are several (`--task-ids a,b`)."""
    if value is None:
        return ()
    values = [value] if isinstance(value, str) else value
    if not isinstance(values, (list, tuple)) or not all(isinstance(item, str) for item in values):
        return value  # pydantic names what is wrong with it
    if split:
        return tuple(part.strip() for item in values for part in item.split(",") if part.strip())
    return tuple(values)


class TaskOptions(BaseModel):
    """Which tasks, in which languages, from which data, in which protocol: what a run shares with
    `ToolEnv` and the MCP host."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tasks: tuple[str, ...] = ()  # family names, or generated:FILE; none: the --config file's, else banking
    lang: tuple[str, ...] = ()  # none: every language the family's data holds
    data: Path | None = None
    task_ids: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    difficulties: tuple[str, ...] = ()
    levels: tuple[int, ...] = ()
    tags: tuple[str, ...] = ()
    limit: int | None = Field(None, ge=1)
    errata: bool = True
    protocol: str = ""  # "": each task's own (native for oracle and noisy agents)

    @field_validator("tasks", mode="before")
    @classmethod
    def _tasks(cls, value: Any) -> Any:
        return option_texts(value, split=False)

    @field_validator("lang", mode="before")
    @classmethod
    def _langs(cls, value: Any) -> Any:
        """Repeated, comma- or space-separated (`--lang en zh`, `--lang en,zh`)."""
        texts = option_texts(value, split=True)
        if not isinstance(texts, tuple):
            return texts
        return tuple(dict.fromkeys(word for text in texts for word in text.split()))

    @field_validator("task_ids", "categories", "difficulties", "tags", mode="before")
    @classmethod
    def _filters(cls, value: Any, info: Any) -> Any:
        return option_texts(value, split=info.field_name in ("task_ids", "categories"))

    @field_validator("protocol")
    @classmethod
    def _protocol(cls, value: str) -> str:
        return one_of(value, PROTOCOLS, "protocol") if value else value  # "": each task's own

    @model_validator(mode="after")
    def _one_family_with_data(self) -> TaskOptions:
        if self.data is not None and len(self.tasks) > 1:
            raise ValueError("--data names one family's tasks: give exactly one --tasks with it")
        return self

    @classmethod
    def checked(cls, **values: Any) -> Self:
        """`cls(**values)`, its problems as one `OptionError` line (what the command line prints)."""
        try:
            return cls(**values)
        except ValidationError as exc:
            raise option_error(exc) from None

    def one_lang(self, default: str = "en") -> str:
        """The language of what reads one (an environment, a served world): `default` when none is named."""
        if len(self.lang) > 1:
            raise OptionError(f"one language, not {', '.join(self.lang)}")
        return self.lang[0] if self.lang else default

    def query(self) -> TaskQuery:
        """The filters every chosen task set is read under (the language set per task set)."""
        return TaskQuery(data=self.data, limit=self.limit, difficulties=self.difficulties,
                         categories=self.categories + tuple(f"level-{n}" for n in self.levels), tags=self.tags,
                         task_ids=self.task_ids, errata=self.errata)
