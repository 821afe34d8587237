"""The one contract every world family fulfils.

The CLI, the runner, replay and every integration know a family only through its
`WorldFamily` object in `scenarios.registry`: how to build its default world, which
languages it speaks, where its tasks live and how to read them, how its end states are
compared, and how its gold paths replay. Adding a benchmark means writing
`scenarios/<family>/` with a `FAMILY` object and adding one line to the registry.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from sandbox import World

    from .generation import TaskGenerator


@runtime_checkable
class Task(Protocol):
    """What the runner needs of a task: an instruction, tools, a fresh world, and a gold answer."""

    id: str
    category: str
    question: str
    functions: list[dict[str, Any]]
    paths: list[list[str]]  # gold milestone paths (alternatives), in bracket syntax
    ground_truth: Any  # the expected end state, in the form `end_state` returns

    def world(self, seed: int = 0) -> World: ...

    def end_state(self, world: World) -> Any: ...


def task_hook(task: Any, name: str, default: Any = None) -> Any:
    """The task's optional hook `name` (`system_prompt`, `single_reply`, `opening_messages`, `multi_turn`,
    `protocol`, `calls_in`, `user_prompt`, `user_opener`, `result_record`...), or `default` without one.

    What `getattr(task, name, default)` gives, without what it costs for a hook a pydantic task lacks:
    about 4 us, pydantic's `__getattr__` raising twice before `getattr` gives up. Starting an episode
    asks for three, a fifth of an RL environment's reset (`ToolEnv.reset`). On a pydantic model a hook
    is found where `getattr` would find it: its fields (which no class attribute can shadow), its class
    and their bases (methods, properties), its extra fields. Any other object is simply asked."""
    kind: Any = type(task)  # a class is hashable; typeshed's Hashable does not say so of type[Any]
    found = _found_by(kind, name)
    if found == _ASK:
        return getattr(task, name, default)
    values = task.__dict__
    if name in values:
        return values[name]
    if found == _CLASS:
        return getattr(task, name, default)
    extra = task.__pydantic_extra__
    return extra[name] if extra and name in extra else default


_ASK, _CLASS, _FIELDS = 0, 1, 2  # how `task_hook` finds a name: getattr, a class attribute, fields and extras


@functools.lru_cache(maxsize=1024)
def _found_by(kind: Any, name: str) -> int:
    """How `task_hook` looks `name` up on instances of `kind`, read once per class and name (the walk of
    the class's bases was a third of the lookup): `_ASK` for what is no pydantic model (or a private
    name), `_CLASS` where the class or a base defines it, else `_FIELDS`."""
    if not _pydantic_fallback(getattr(kind, "__getattr__", None)) or name[0] == "_":
        return _ASK
    return _CLASS if any(name in klass.__dict__ for klass in kind.__mro__) else _FIELDS


def _pydantic_fallback(function: Any) -> bool:
    """Whether `function` is pydantic's `BaseModel.__getattr__` (known by name: this module, which the command
    line imports, does not import pydantic), which finds nothing but private and extra values: a
    missing name costs two exceptions there."""
    return getattr(function, "__qualname__", None) == "BaseModel.__getattr__" \
        and getattr(function, "__module__", None) == "pydantic.main"


@dataclass(frozen=True)
class TaskQuery:
    """Which tasks a run asks a family for. Every family applies the filters it can answer.

    `categories` and `task_ids` match exactly; `limit` keeps at most that many tasks,
    taken evenly across categories. `difficulties` and `tags` are for families whose tasks
    carry them (ToolBench); a family names those it applies in `WorldFamily.filters`.
    A family may give the common filters its benchmark's own meaning (ToolBench matches
    categories as substrings and takes the first `limit` tasks, as mcpbr does).
    """

    lang: str = "en"
    data: Path | None = None
    categories: tuple[str, ...] = ()
    task_ids: tuple[str, ...] = ()
    difficulties: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    limit: int | None = None
    errata: bool = True  # apply the family's errata (`scenarios.errata`); False reads the data as published

    def unanswered(self, answered: Sequence[str]) -> list[str]:
        """The optional filters this query uses that a family answering only `answered` cannot."""
        used = {"difficulties": bool(self.difficulties), "tags": bool(self.tags)}
        return [name for name, on in used.items() if on and name not in answered]


@dataclass
class TaskLoad:
    """Tasks read from a source, and every problem met on the way (bad lines do not abort)."""

    tasks: list[Any] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    errata: list[str] = field(default_factory=list)  # ids of the tasks an erratum changed or left out


@dataclass(frozen=True)
class ReplayReport:
    """Gold paths (or recorded calls) replayed in fresh worlds: a table, a verdict per row.

    `findings` are what `toolworlds doctor` reports as defects (and exits 1 for); `notes`
    are reported but are no defect (repairs the data needed, skipped lines). `problems` are the
    input that could not be read at all (a line that is not JSON, an unreadable file), each
    naming its file and line; they are findings too, and `toolworlds replay` prints them and exits
    1, since a replay that skipped them is no replay of the data given.
    """

    title: str
    columns: tuple[str, ...]
    rows: Sequence[tuple[str, ...]]
    ok: list[bool]
    summary: str
    findings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    records: list[dict[str, Any]] = field(default_factory=list)  # one JSON object per row
    problems: list[str] = field(default_factory=list)


Replayer = Callable[[Path, str, Mapping[str, Any]], ReplayReport]


@dataclass(frozen=True)
class WorldFamily:
    """One benchmark or world family, as everything above `scenarios` sees it.

    Args:
        name: The name users type (`toolworlds run --tasks NAME`).
        description: One line for `toolworlds worlds`.
        build_world: A default world of the family (`lang=` and `seed=` keywords).
        languages: The languages its worlds and tasks come in.
        end_state_mode: How an episode's end state is compared with the task's ground
            truth (`sandbox.compare_states` modes: "exact" or "acebench").
        find_data: Where its tasks live when the user names no folder (bundled data, or
            the datasets folder); None when there is none on this machine.
        load_tasks: Reads tasks for a query, or None when the family has no runnable tasks.
        replay: Replays gold paths from a data folder, or None.
        filters: The optional `TaskQuery` filters its tasks can answer ("difficulties",
            "tags"); a query using another is refused rather than silently ignored.
        errata: Its errata file (`scenarios.errata`: corrections of published tasks, applied
            by `tasks`), or None.
        generator: Makes its task generator (`scenarios.generation.TaskGenerator`), or None for a
            family without one. A family with one reads generated files (`--data tasks.jsonl`) too.
        scorers: The import path of the module holding its own scorers (`score_results`,
            `score_episode`, `score_run`; see `evaluators/conventions.py`), or None when the generic
            end-state score serves it. A name, not the module: scorers live in `evaluators`, a layer
            above this one, and are imported only when something scores.
    """

    name: str
    description: str
    build_world: Callable[..., World]
    languages: tuple[str, ...] = ("en",)
    end_state_mode: str = "exact"
    find_data: Callable[[], Path | None] | None = None
    load_tasks: Callable[[TaskQuery], TaskLoad] | None = None
    replay: Replayer | None = None
    filters: tuple[str, ...] = ()
    errata: Path | None = None
    generator: Callable[[], TaskGenerator] | None = None
    scorers: str | None = None

    def data_source(self, given: Path | None) -> Path:
        """The folder or file to read tasks from; raises `LookupError` saying what to pass."""
        source = given if given is not None else (self.find_data() if self.find_data else None)
        if source is None:
            from .datasets import DatasetFolder, unusable_setting  # here: drawing the command line imports this

            if isinstance(self.find_data, DatasetFolder):
                why = self.find_data.missing()
            else:
                why = unusable_setting() or "pass --data DIR or set TOOLWORLDS_DATA"
            raise LookupError(f"no {self.name} data found: {why}")
        if not source.exists():
            raise LookupError(f"{source} does not exist")
        return source

    def tasks(self, query: TaskQuery) -> TaskLoad:
        if self.load_tasks is None and self.generator is None:
            raise LookupError(f"{self.name} has no runnable tasks")
        data = query.data
        generator = self.generator() if self.generator is not None and data is not None and data.is_file() \
            and _generated_file(data) else None
        # A generated file speaks its generator's languages (API-Bank's tasks are English, its generated ones also zh).
        languages = generator.languages if generator is not None else self.languages
        if query.lang not in languages:
            raise LookupError(f"{self.name} has no {query.lang!r} tasks; languages: {', '.join(languages)}")
        unanswered = query.unanswered(self.filters)
        if unanswered:
            raise LookupError(f"{self.name} tasks carry no {' or '.join(unanswered)} to filter on")
        if generator is not None and data is not None:
            return load_generated(data, query, generator)
        if self.load_tasks is None:
            raise LookupError(f"{self.name} has no runnable tasks of its own: make some with `toolworlds generate "
                              f"{self.name}` and pass the file as its data")
        from .errata import apply_errata, read_errata  # here: drawing the command line imports this module

        errata = read_errata(self.errata) if self.errata is not None and query.errata else []
        if not any(erratum.lang in (None, query.lang) for erratum in errata):
            return self.load_tasks(query)
        # Corrected before the limit is taken, so `--limit N` still gives N tasks when errata leave some out.
        loaded = self.load_tasks(dataclasses.replace(query, limit=None))
        tasks, changed = apply_errata(loaded.tasks, errata, query.lang)
        return TaskLoad(select(tasks, TaskQuery(limit=query.limit)), loaded.problems, changed)


def _generated_file(path: Path) -> bool:
    from .generation import is_generated  # only when a family with a generator is given a file

    return is_generated(path)


def select(tasks: Sequence[Any], query: TaskQuery) -> list[Any]:
    """The generic filters: categories, task ids, and a limit spread evenly across categories.

    The limit takes tasks round-robin from each category in file order, so `--limit 6` over
    multi-step and multi-turn tasks runs three of each, not six of the first kind.
    """
    chosen = [t for t in tasks
              if (not query.categories or t.category in query.categories)
              and (not query.task_ids or t.id in query.task_ids)]
    if query.limit is None or len(chosen) <= query.limit:
        return chosen
    by_category: dict[str, list[int]] = {}
    for index, task in enumerate(chosen):
        by_category.setdefault(task.category, []).append(index)
    picked: set[int] = set()
    depth = 0
    while len(picked) < query.limit:
        for indices in by_category.values():
            if depth < len(indices) and len(picked) < query.limit:
                picked.add(indices[depth])
        depth += 1
    return [task for index, task in enumerate(chosen) if index in picked]


def load_generated(path: Path, query: TaskQuery, generator: TaskGenerator) -> TaskLoad:
    """The tasks of a generated file for `query` (its language, ids, categories, limit). Here, not in
    `scenarios.generation`, which then needs nothing of this module (no import cycle between the two)."""
    from .generation import read_generated

    read = read_generated(path)
    result = TaskLoad(problems=list(read.problems))
    if not read.header:
        return result
    if read.family != generator.family:
        result.problems.append(f"{path.name} holds {read.family} tasks, not {generator.family}")
        return result
    if read.lang != query.lang:
        return result  # a zh set holds no en tasks: never relabel one language as another
    for number, record in read.records:
        try:
            result.tasks.append(generator.task(record, read.header["toolsets"][record["toolset"]], read.lang))
        except (ValueError, TypeError, KeyError) as exc:
            result.problems.append(f"{path.name}:{number}: malformed task: {exc}")
    result.tasks = select(result.tasks, query)
    return result
