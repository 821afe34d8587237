"""Gold calls replayed in each task's world: `toolworlds replay toolbench` and `doctor toolbench`.

mcpbr never runs a ToolBench call, so nothing in its pipeline notices ground truth that
its own tools would refuse: a call to a tool the task does not list, or parameters its
schema does not allow. Replaying every task's expected calls in a fresh world finds
them; each refused call is a finding. A task without ground truth is a note (mcpbr
scores it as an error, so no agent can solve it).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from sandbox.input_limits import exception_line

from ..family import ReplayReport
from .sources import read_tasks
from .tasks import ToolBenchTask


@dataclass(frozen=True)
class GoldReplay:
    task: str
    source: str
    calls: int
    refused: tuple[str, ...]  # one line per gold call the world refused

    def row(self) -> tuple[str, ...]:
        detail = "; ".join(self.refused) or ("no ground truth" if not self.calls else "every gold call accepted")
        return (self.task, str(self.calls), str(len(self.refused)), detail)


def replay_task(task: ToolBenchTask) -> GoldReplay:
    """The task's expected calls run in order in a fresh world, and what the world said to each. A world
    that cannot be built (loaders refuse the tool descriptions known to break one) is a finding of its own,
    never a traceback."""
    try:
        world = task.world()
    except Exception as exc:
        return GoldReplay(task.id, task.source, len(task.expected_calls),
                          (f"its world cannot be built from its tools: {exception_line(exc)}",))
    refused = []
    for call in task.expected_calls:
        name = call["name"]
        if not isinstance(name, str) or not name:
            refused.append(f"a gold call without a tool name: {call!r}")
            continue
        parameters = call["parameters"]
        record = world.call(name, parameters if isinstance(parameters, Mapping) else {"(parameters)": parameters})
        if record.error is not None:
            refused.append(f"{name}: {record.error.message}")
    return GoldReplay(task.id, task.source, len(task.expected_calls), tuple(refused))


def replay_report(source: Path, lang: str, options: Mapping[str, Any]) -> ReplayReport:
    """The family contract's `replay`: one row per task, a finding per refused gold call."""
    loaded = read_tasks(source)
    replays = [replay_task(task) for task in loaded.tasks]
    findings = list(loaded.problems) + [f"{r.task} ({r.source}): {problem}" for r in replays for problem in r.refused]
    notes = [f"{r.task} ({r.source}): no ground truth; mcpbr scores it as an error" for r in replays if not r.calls]
    clean = sum(not r.refused and r.calls > 0 for r in replays)
    return ReplayReport(
        title=f"toolbench gold calls replayed ({source})", columns=("task", "gold calls", "refused", "detail"),
        rows=[r.row() for r in replays], ok=[not r.refused for r in replays],
        summary=f"{clean}/{len(replays)} tasks: every gold call accepted by the task's own tools",
        findings=findings, notes=notes, records=[asdict(r) for r in replays], problems=list(loaded.problems),
    )
