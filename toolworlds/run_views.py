"""Stored runs as their reports read them: each run's row, configuration, episodes and
known-defective tasks, with each task's outcomes per task set and category.

The HTML page (`report_html`) and the tables for scripts (`score_rows`) are both built from these
views, so a figure on the page and in a JSON or CSV export is computed once, the same way.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .defects import run_defects
from .store import EpisodeRow, RunRow, RunStore

ALL = ("all", "all")


@dataclass
class RunView:
    """A run as the page shows it: its row, configuration, episodes and known-defective tasks."""

    run: RunRow
    config: dict[str, Any]
    episodes: list[EpisodeRow]
    defects: dict[str, list[str] | None]

    @property
    def trials(self) -> int:
        return max(((e.trial or 0) + 1 for e in self.episodes), default=1)

    def flawed(self, episode: EpisodeRow) -> bool:
        return episode.task_id in (self.defects.get(episode.task_set) or ())

    def outcomes(self, clean: bool = False) -> dict[tuple[str, str], dict[str, list[bool]]]:
        """Per (task set, category), and overall: each task's successes over its trials."""
        groups: dict[tuple[str, str], dict[str, list[bool]]] = {}
        for episode in self.episodes:
            if clean and self.flawed(episode):
                continue
            key = f"{episode.task_set}:{episode.task_id}"
            for group in ((episode.task_set, episode.category), ALL):
                groups.setdefault(group, {}).setdefault(key, []).append(episode.success)
        return groups


def load_views(store: RunStore, run_ids: Sequence[str]) -> list[RunView]:
    views = []
    for run_id in run_ids:
        run = store.run(run_id)
        if run is None:
            raise KeyError(f"no run {run_id!r} in {store.url}")
        episodes = store.episodes(run_id)
        names = sorted({e.task_set for e in episodes})
        views.append(RunView(run, json.loads(run.config or "{}"), episodes, run_defects(store, run_id, names)))
    return views
