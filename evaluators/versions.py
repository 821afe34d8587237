"""The version of each family's episode scorer, in one place: bump a family's number whenever a change
to its scorer (or to anything it calls) can change a stored verdict.

Every stored episode records the version it was scored with (`scorer_version`), so a run scored before
a scorer fix says so, and `toolworlds rescore` can score it again with the fixed one; a report comparing
the two runs shows which episodes flipped. Families without an evaluator module of their own are scored
by the generic end-state scorer (`task_score.score_task`), whose version is `GENERIC`'s.

A version names the scorer and the checker mode: `acebench/1 compat`. The mode is `compat` (the
verdicts a run stores: the reference's, where a family has a reference) or `strict` (bugs fixed), as
`toolworlds score --mode` and `toolworlds rescore --mode` name them.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from types import MappingProxyType
from typing import Literal

from .conventions import family_function

Checker = Literal["compat", "strict"]
CHECKERS: tuple[Checker, ...] = ("compat", "strict")

GENERIC = "task_score"

# family (or GENERIC) -> version of its episode scorer
# 2 (issue 38): a process with no or an empty milestone path is unscorable (0.0), never 1.0; strict
# ACEBench values equal after a stated normalisation, never contained; an API-Bank level-3 scene with
# no gold call is not solved.
SCORER_VERSIONS: Mapping[str, int] = MappingProxyType({
    GENERIC: 2,
    "acebench": 2,
    "apibank": 2,
    "banking": 2,  # the generic end-state scorer, and a generated special case's one reply as ACEBench scores it
    "todo": 2,  # as banking (`evaluators.generated`): generated special cases came in issue 40
    "world": 1,  # a user's world (`world:package.module:factory`), as todo
    "toolbench": 1,
})


def scorer_name(family: str) -> str:
    """Whose scorer scores `family`'s episodes: the family's own `score_episode`, else the generic one."""
    return family if family_function(family, "score_episode") is not None else GENERIC


@functools.cache
def scorer_version(family: str, checker: Checker = "compat") -> str:
    """The version stored with an episode of `family` scored in `checker` mode, e.g. `acebench/1 compat`.

    Found once per family and mode in a process, as `task_score.episode_scorer` is: for a family with no
    evaluator module, each lookup is a failed import searching the package's folder, paid per episode.
    A family whose evaluator has a `score_episode` but no entry in `SCORER_VERSIONS` is a bug (a test
    checks every evaluator has one); it is stored as version 0 rather than failing the episode."""
    name = scorer_name(family)
    key = "world" if name.startswith("world:") else name  # every user's world is scored alike
    return f"{key}/{SCORER_VERSIONS.get(key, 0)} {checker}"
