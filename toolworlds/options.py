"""`RunOptions`: everything a run is asked to do, checked in one place.

`toolworlds run` turns its flags into a `RunOptions` and runs it; a Python user builds the same
model (`RunOptions(tasks=["banking"], lang=["en"], limit=2).run()`). Every check of what the
options say (an agent with what it needs, options that only mean something together, finite
numbers) and the merge of a `--config` file live here, so the command line, the runner and
Python callers refuse the same things in the same words. `TaskOptions` is the part a run shares
with `ToolEnv` and the MCP host: which tasks, in which language, from which data, in which protocol.

The `--config` file takes mcpbr's keys, so an mcpbr config file's task selection carries over:
`benchmark` (a family name, or a list), `dataset` (a Hugging Face dataset name, read as
`hf:NAME`), `sample_size`, `filter_difficulty`, `filter_category`, `filter_tags`, `task_ids`,
and our own `data` (a task file or folder, relative to the config file). Keys toolworlds has no
use for (an mcpbr file's model, server, timeouts) are kept in `config_ignored`; a key it uses
with a value of the wrong shape is an error. Options given explicitly win over the file.
"""

from __future__ import annotations

import importlib.util
import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from scenarios.family import TaskQuery

from .endpoints import DEFAULT_RETRIES, DEFAULT_TIMEOUT
from .llm import PROTOCOLS

if TYPE_CHECKING:
    from .runner import AgentSpec, Backend

AGENTS = ("oracle", "noisy", "llm")
USERS = ("auto", "scripted", "llm")
BACKENDS = ("process", "ray")


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


def _one_of(value: str, choices: tuple[str, ...], what: str) -> str:
    if value not in choices:
        raise ValueError(f"unknown {what} {value!r}; use {', '.join(choices[:-1])} or {choices[-1]}")
    return value


def _texts(value: Any, *, split: bool) -> Any:
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
        return _texts(value, split=False)

    @field_validator("lang", mode="before")
    @classmethod
    def _langs(cls, value: Any) -> Any:
        """Repeated, comma- or space-separated (`--lang en zh`, `--lang en,zh`)."""
        texts = _texts(value, split=True)
        if not isinstance(texts, tuple):
            return texts
        return tuple(dict.fromkeys(word for text in texts for word in text.split()))

    @field_validator("task_ids", "categories", "difficulties", "tags", mode="before")
    @classmethod
    def _filters(cls, value: Any, info: Any) -> Any:
        return _texts(value, split=info.field_name in ("task_ids", "categories"))

    @field_validator("protocol")
    @classmethod
    def _protocol(cls, value: str) -> str:
        return _one_of(value, PROTOCOLS, "protocol") if value else value  # "": each task's own

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


class RunOptions(TaskOptions):
    """Everything `toolworlds run` is asked to do; its flags, one field each (`--filter-category` and
    `--categories` are `categories`, `--level` is `levels`, `--filter-difficulty` is `difficulties`)."""

    agent: str = "oracle"  # oracle, noisy, llm, or package.module:Factory
    noise: float = Field(0.2, ge=0.0, le=1.0)
    seed: int = 0
    model: str = ""
    base_url: str = ""
    user: str = "auto"
    user_model: str = ""
    user_base_url: str = ""
    temperature: float | None = Field(None, ge=0.0)
    max_tokens: int | None = Field(None, ge=1)
    max_steps: int = Field(30, ge=1)
    trials: int = Field(1, ge=1)
    db: str = "sqlite:///toolworlds.db"
    run_id: str | None = None
    resume: bool = False
    retry_failed: bool = False
    force: bool = False
    timeout: float = Field(DEFAULT_TIMEOUT, ge=0.001, le=86_400)
    retries: int = Field(DEFAULT_RETRIES, ge=0)
    workers: int | None = Field(None, ge=0)
    episode_timeout: float | None = Field(None, ge=0.001)
    backend: str = "process"
    address: str | None = None
    concurrency: int = Field(0, ge=0)
    pause: float = Field(0.0, ge=0.0)
    results: Path | None = None
    config: Path | None = None
    config_ignored: tuple[str, ...] = ()  # keys of the config file toolworlds does not use (filled from it)

    @field_validator("noise", "temperature", "timeout", "episode_timeout", "pause", mode="before")
    @classmethod
    def _finite(cls, value: Any, info: Any) -> Any:
        if isinstance(value, float) and not math.isfinite(value):  # NaN passes range checks; inf means nothing
            raise ValueError(f"--{info.field_name.replace('_', '-')} must be a finite number, not {value}")
        return value

    @model_validator(mode="before")
    @classmethod
    def _merge_config(cls, values: Any) -> Any:
        """A generated task file is the run's data; the `config` file fills what the options leave unset."""
        if not isinstance(values, Mapping):
            return values
        merged = dict(values)
        tasks = _texts(merged.get("tasks"), split=False)
        if merged.get("data") is None and len(tasks) == 1 and str(tasks[0]).startswith("generated:"):
            merged["data"] = Path(tasks[0].partition(":")[2])  # stored with the run: its resume reads the same file
        if merged.get("config") is None:
            return merged
        settings, ignored = read_config(Path(merged["config"]))
        for field, value in settings.items():
            if merged.get(field) in (None, (), []):
                merged[field] = value
        merged["config_ignored"] = ignored
        return merged

    @field_validator("agent")
    @classmethod
    def _agent(cls, value: str) -> str:
        if value not in AGENTS and ":" not in value:
            raise ValueError(f"unknown agent {value!r}; use oracle, noisy, llm or package.module:Factory")
        if ":" in value:
            from .runner import load_factory

            load_factory(value)  # its ValueError names what is wrong with the path
        return value

    @field_validator("user", "backend")
    @classmethod
    def _known(cls, value: str, info: Any) -> str:
        choices, what = {"user": (USERS, "user simulator"), "backend": (BACKENDS, "backend")}[info.field_name]
        return _one_of(value, choices, what)

    @model_validator(mode="after")
    def _together(self) -> RunOptions:
        """Options that need another, or mean nothing without one."""
        for problem in (*self._endpoint_problems(), *self._resume_problems(), *self._backend_problems()):
            raise ValueError(problem)
        return self

    def _endpoint_problems(self) -> list[str]:
        problems = []
        if self.agent == "llm" and not (self.model and self.base_url):
            problems.append("--agent llm needs --model and --base-url")
        if self.user == "llm" and not ((self.user_model or self.model) and (self.user_base_url or self.base_url)):
            problems.append("--user llm needs --user-model and --user-base-url (or --model and --base-url)")
        if "llm" in (self.agent, self.user) and importlib.util.find_spec("openai") is None:
            # Found before a run is made: each episode would otherwise fail on it and store a useless run.
            problems.append('--agent llm and --user llm need the openai package: pip install -e ".[llm]" in the '
                            "toolworlds checkout")
        return problems

    def _resume_problems(self) -> list[str]:
        problems = []
        if self.resume and not self.run_id:
            problems.append("--resume needs the --run-id of the run to continue")
        if self.retry_failed and not self.resume:
            problems.append("--retry-failed continues a run: give it with --resume --run-id")
        if self.force and not self.resume:
            problems.append("--force overrides a resume's configuration check: give it with --resume --run-id")
        return problems

    def _backend_problems(self) -> list[str]:
        problems = []
        if self.episode_timeout is not None and (self.backend != "process" or self.workers == 0):
            problems.append("--episode-timeout is kept by the process backend's pool, which ends the process of an "
                            "episode past it: give it with --backend process and --workers 1 or more")
        if self.backend == "process" and self.address is not None:
            problems.append("--address names a Ray cluster: give it with --backend ray")
        if self.backend == "ray" and self.workers == 0:
            problems.append("--workers 0 runs episodes in this process: give it with --backend process")
        return problems

    def agent_spec(self) -> AgentSpec:
        """The agent (and user simulator) every episode builds, as the runner takes it."""
        from .runner import AgentSpec

        return AgentSpec(kind=self.agent, noise=self.noise, seed=self.seed, model=self.model, base_url=self.base_url,
                         pause=self.pause, user=self.user, timeout=self.timeout, retries=self.retries,
                         temperature=self.temperature, max_tokens=self.max_tokens, user_model=self.user_model,
                         user_base_url=self.user_base_url, max_steps=self.max_steps, protocol=self.protocol,
                         concurrency=self.concurrency)

    def make_backend(self) -> Backend:
        """Where the episodes run (`toolworlds.runner.Backend`)."""
        if self.backend == "ray":
            from .ray_backend import RayBackend

            return RayBackend(address=self.address, workers=self.workers)
        from .process_backend import ProcessBackend

        return ProcessBackend(1 if self.workers is None else self.workers, time_limit=self.episode_timeout)

    def stored_query(self) -> dict[str, Any]:
        """The task filter as the run stores it (and a resume compares it)."""
        import dataclasses

        return {key: (str(value) if isinstance(value, Path) else value)
                for key, value in dataclasses.asdict(self.query()).items() if key != "lang"}


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
