"""Generated tasks of worlds without a benchmark scorer of their own (the to-do list, a user's world): a
task by its end state and process, as every world family; a special case (a missing detail, a wrong value,
a request no tool serves: `scenarios.generation.SpecialCaseHooks`) by its one reply, as ACEBench scores
its special categories, the same path banking's generated special cases take."""

from __future__ import annotations

from .acebench.episode import score_episode

__all__ = ["score_episode"]
