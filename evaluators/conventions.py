"""Finding a family's own evaluator functions by convention, so the layers above never name a family.

The evaluator of family `name` is the module (or package) `evaluators.<name>`. What it
may provide, each optional:

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
import pkgutil
from typing import Any


def evaluator_modules() -> list[str]:
    """The names of the modules and packages directly inside `evaluators`."""
    package = importlib.import_module(__package__ or "evaluators")
    return sorted(info.name for info in pkgutil.iter_modules(package.__path__))


def family_function(family: str, function: str) -> Any | None:
    """`evaluators.<family>.<function>`, or None when there is no such module or function."""
    if not family.isidentifier():
        return None
    name = f"{__package__}.{family}"
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name == name:
            return None
        raise  # the evaluator exists but imports something missing: say so
    return getattr(module, function, None)
