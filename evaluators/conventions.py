"""A family's own scorers, found where the family declares them (`WorldFamily.scorers`).

A family names the module of its scorers by import path (scorers sit in this layer, above
`scenarios`, so the family cannot import them); nothing is found by module name. What the
module may provide, each optional:

- `score_results(ResultsRequest) -> ScoreTable`: scores a model's result files
  (`toolworlds score NAME`, see `results.py`);
- `score_episode(task, world, process, mode) -> TaskScore`: scores one finished episode
  in place of the generic end-state score (`task_score.py`), for benchmarks that judge
  something other than the end state;
- `score_run(RunRecords) -> list[ScoreTable]`: after `toolworlds run`, writes the
  benchmark's own result files from the records the tasks wrote (`task.result_record`)
  and scores them as the benchmark reports them (`results.py`).
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

from scenarios.registry import FAMILIES, family

WORLD_PREFIX = "world:"  # `scenarios.any_world.PREFIX`, without importing the generic generator


def scored_families() -> list[str]:
    """The names of the families that declare scorers of their own."""
    return [name for name in FAMILIES if family(name).scorers is not None]


def family_scorers(name: str) -> ModuleType | None:
    """The module a family declares its scorers in; None for an unknown family or one without.

    A declared module that cannot be imported raises: the family promised scorers, and scoring its
    episodes with the generic score instead would be a silent wrong answer.
    """
    if name.startswith(WORLD_PREFIX):  # a user's world (`world:package.module:factory`), which no registry lists
        from scenarios.any_world import world_family

        try:
            declared = world_family(name).scorers
        except LookupError:
            return None
        return None if declared is None else importlib.import_module(declared)
    if name not in FAMILIES:
        return None
    declared = family(name).scorers
    return None if declared is None else importlib.import_module(declared)


def family_function(name: str, function: str) -> Any | None:
    """The family's scorer called `function`, or None when it declares no such scorer."""
    module = family_scorers(name)
    return None if module is None else getattr(module, function, None)
