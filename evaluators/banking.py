"""Banking episodes: by end state and process, as every world family; a generated special case
(`scenarios.acebench.generated`) by its one reply, as ACEBench scores its special categories."""

from __future__ import annotations

from .acebench.episode import score_episode

__all__ = ["score_episode"]
