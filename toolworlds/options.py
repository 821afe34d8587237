"""`RunOptions`: everything a run is asked to do, checked in one place.

`toolworlds run` turns its flags into a `RunOptions` and runs it; a Python user builds the same
model and hands it to `toolworlds.run` (`run(RunOptions(tasks=["banking"], lang=["en"], limit=2))`).
Every check of what the options say (an agent with what it needs, options that only mean something
together, finite numbers) and the merge of a `--config` file (`config_file.py`; options given
explicitly win over the file, its unused keys kept in `config_ignored`) live here, so the command
line and Python callers refuse the same things in the same words. The task selection and protocol
are `TaskOptions`' (`task_options.py`), the part a run shares with `ToolEnv` and the MCP host.
"""

from __future__ import annotations

import importlib.util
import math
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import Field, field_validator, model_validator

from .config_file import read_config
from .endpoints import DEFAULT_RETRIES, DEFAULT_TIMEOUT
from .task_options import OptionError, TaskOptions, one_of, option_texts

if TYPE_CHECKING:
    from .runner import AgentSpec, Backend

__all__ = ["OptionError", "RunOptions", "TaskOptions"]

AGENTS = ("oracle", "noisy", "llm")
USERS = ("auto", "scripted", "llm")
BACKENDS = ("process", "ray")


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
        tasks = option_texts(merged.get("tasks"), split=False)
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
        return one_of(value, choices, what)

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
