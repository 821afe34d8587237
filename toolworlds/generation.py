"""`toolworlds generate`, `run --tasks generated:FILE` and `doctor generated:FILE`: the run layer's side of
generated task sets (`scenarios.generation` makes and reads them).

A generated file names its family and language in its header, so `generated:tasks.jsonl` is
enough to run it: the family reads it as it reads `--data tasks.jsonl`, and its episodes are
scored as the family's always are. `doctor` plays every task with the oracle agent, exactly as
a run would, and scores it with the family's scorer: a task the oracle does not solve, a
duplicate (instruction, ground truth) pair, or a header that disagrees with the lines is a finding.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sandbox.input_limits import exception_line
from scenarios.any_world import PREFIX as WORLD_PREFIX
from scenarios.any_world import world_family
from scenarios.family import TaskQuery, WorldFamily
from scenarios.generation import GeneratedSet, GenerationError, generate, read_generated
from scenarios.registry import families, family

PREFIX = "generated:"


@dataclass(frozen=True)
class Generated:
    """What `toolworlds generate` made: the set, where it went, and the CPU seconds it took."""

    tasks: GeneratedSet
    path: Path
    cpu_seconds: float

    def summary(self) -> str:
        header = self.tasks.header
        kept, tried = len(self.tasks.records), header["candidates"]
        dropped = ", ".join(f"{count} {why}" for why, count in header["dropped"].items()) or "none"
        return (f"{kept} verified {header['family']} tasks (difficulty {header['difficulty']}, {header['lang']}, "
                f"seed {header['seed']}) in {self.path}: {tried} candidates, {tried - kept} dropped "
                f"({(tried - kept) / tried:.1%}: {dropped}); {self.cpu_seconds:.1f} s CPU")


def generator_families() -> list[str]:
    return [entry.name for entry in families() if entry.generator is not None]


def family_generator(name: str) -> Any:
    """The task generator of family `name` (or of `world:package.module:factory`); `LookupError` naming
    those that have one."""
    try:
        entry = family_of(name)
    except KeyError as exc:
        raise LookupError(exc.args[0]) from None
    if entry.generator is None:
        raise LookupError(f"{name} has no task generator; families with one: {', '.join(generator_families())}")
    return entry.generator()


def generate_file(name: str, n: int, seed: int, difficulty: int, lang: str, out: Path) -> Generated:
    """Generate `n` tasks of family `name` into `out`; `LookupError`/`GenerationError` say why not."""
    generator = family_generator(name)
    started = time.process_time()
    try:
        tasks = generate(generator, n, seed=seed, difficulty=difficulty, lang=lang)
    except (GenerationError, LookupError):
        raise
    except Exception as exc:  # a user's world (or a generator) that breaks: one line, never a traceback
        raise GenerationError(f"{name}: generation failed: {exception_line(exc)}") from None
    took = time.process_time() - started
    try:
        tasks.write(out)
    except OSError as exc:
        raise GenerationError(f"cannot write {out}: {exc.strerror or type(exc).__name__}") from None
    return Generated(tasks, out, took)


def generated_path(name: str) -> Path | None:
    """The file a `--tasks generated:FILE` names, or None for a family name."""
    return Path(name[len(PREFIX):]) if name.startswith(PREFIX) else None


def generated_source(path: Path) -> tuple[WorldFamily, str]:
    """The family and language a generated file holds; `LookupError` saying why it cannot be run."""
    if not path.is_file():
        raise LookupError(f"{path}: no such file")
    read = read_generated(path)
    if not read.header:
        raise LookupError("; ".join(read.problems[:3]) or f"{path}: not a generated task set")
    try:
        entry = family_of(read.family)
    except KeyError as exc:
        raise LookupError(f"{path}: {exc.args[0]}") from None
    if entry.generator is None:
        raise LookupError(f"{path}: {read.family} has no task generator to read it")
    return entry, read.lang


def family_of(name: str) -> WorldFamily:
    """A registered family, or the family of a user's world (`world:package.module:factory`)."""
    if name.startswith(WORLD_PREFIX):
        return world_family(name)
    return family(name)


@dataclass
class Checkup:
    """`doctor` on a generated file: a finding per defect, and counts."""

    tasks: int = 0
    solved: int = 0
    findings: list[str] = field(default_factory=list)


def check_generated(path: Path) -> Checkup:
    """Every line of a generated file read, every task played by the oracle and scored as a run scores it."""
    from evaluators.task_score import episode_scorer

    from .agents import OracleAgent
    from .episodes import run_episode

    checkup = Checkup()
    read = read_generated(path)
    checkup.findings.extend(read.problems)
    if not read.header:
        return checkup
    try:
        entry, lang = generated_source(path)
    except LookupError as exc:
        checkup.findings.append(str(exc.args[0]))
        return checkup
    loaded = entry.tasks(TaskQuery(lang=lang, data=path))
    checkup.findings.extend(p for p in loaded.problems if p not in read.problems)
    if read.header.get("n") != len(read.records):
        checkup.findings.append(f"{path.name}: the header says {read.header.get('n')} tasks, the file holds "
                                f"{len(read.records)}")
    scorer = episode_scorer(entry.name)
    seen: dict[bytes, str] = {}
    for task in loaded.tasks:
        checkup.tasks += 1
        key = hashlib.blake2b(json.dumps([task.question, task.ground_truth], sort_keys=True, ensure_ascii=False)
                              .encode(), digest_size=16).digest()
        if key in seen:
            checkup.findings.append(f"{task.id}: the same instruction and ground truth as {seen[key]}")
        seen.setdefault(key, task.id)
        try:
            world, episode = run_episode(task, OracleAgent(task))
            score = scorer(task, world, episode.process, entry.end_state_mode)  # type: ignore[arg-type]
        except Exception as exc:  # a task whose world cannot be built or scored: a finding, the others go on
            checkup.findings.append(f"{task.id}: cannot be played: {exception_line(exc)}")
            continue
        if score.success and episode.error is None:
            checkup.solved += 1
        else:
            why = episode.error or score.diff.text(200) or "not solved"
            checkup.findings.append(f"{task.id}: the oracle does not solve it ({why})")
    return checkup
