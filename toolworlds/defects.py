"""The tasks a benchmark's own data gets wrong, so scores can be read with and without them.

A family's gold replay (`WorldFamily.replay`, what `toolworlds doctor` reports) runs every
task's gold path in a fresh world; a row that does not reproduce its ground truth is a task
no agent can be scored fairly on (ACEBench en: 9 of its 50 agent tasks). Found through the
family contract only, and kept with the run (per task set, so per data folder and language),
so a report never replays again; a run over a data set replayed before reads the verdicts from
the cache (`toolworlds.defect_cache`) instead of replaying it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from scenarios.errata import read_errata
from scenarios.family import ReplayReport
from scenarios.registry import family

from .defect_cache import code_hash, data_hash, entry_key, read_entry, write_entry
from .store import RunStore


def known_defects(family_name: str, lang: str, data: Path | None, errata: bool = True, *,
                  use_cache: bool = True, code: str | None = None,
                  data_hashes: dict[Path, str] | None = None) -> list[str] | None:
    """Ids of the family's tasks whose gold path does not reproduce, for this data and language;
    [] when every one does, None when the family has no replay or its data cannot be replayed here.
    With `errata` (tasks loaded with the family's errata applied), a task an erratum corrects or
    leaves out is no known defect of the run: the replay reads the data as published. The replay's
    verdicts are kept by the content hash of the data and the code (`toolworlds.defect_cache`), so
    a data set is replayed once, not at the start of every run; `use_cache=False` replays anyway. `code` is
    the code's hash (`defect_cache.code_hash`) when the caller has it already; `data_hashes`, the caller's
    data hashes (`defect_cache.data_hash`) by data source, which this fills: one per folder, not per language."""
    try:
        entry = family(family_name)
        if entry.replay is None or lang not in entry.languages:
            return None
        source = entry.data_source(data)
        key = None
        if use_cache:
            hashed = data_hashes.get(source) if data_hashes is not None else None
            if hashed is None:
                hashed = data_hash(source)
                if data_hashes is not None:
                    data_hashes[source] = hashed
            key = entry_key(family_name, lang, source, code, hashed)
        failing = read_entry(key) if key is not None else None
        if failing is None:
            failing = _replayed_defects(entry.replay(source, lang, {}))
            if failing is None:
                return None
            if key is not None:
                write_entry(key, family_name, lang, failing)
        corrected = {e.task_id for e in read_errata(entry.errata) if e.lang in (None, lang)} \
            if errata and entry.errata is not None else set()
    except Exception:  # no data here, or data the replay cannot read: defects unknown, not "none"
        return None
    return sorted(set(failing) - corrected)


def _replayed_defects(report: ReplayReport) -> list[str] | None:
    """The ids of a replay's tasks that did not reproduce; None when its records are not one per task."""
    if len(report.records) != len(report.ok):  # records not one per row (API-Bank's are per call): no task ids
        return None
    return sorted({str(record["id"]) for record, ok in zip(report.records, report.ok, strict=True)
                   if not ok and isinstance(record, Mapping) and "id" in record})


def run_defects(store: RunStore, run_id: str, task_sets: Iterable[str] | None = None) -> dict[str, list[str] | None]:
    """The known-defective task ids of each of the run's task sets, replayed once and then read from
    the run's stored configuration ("defects")."""
    stored = store.config_text(run_id)
    if stored is None:
        raise KeyError(f"no run {run_id!r}")
    config: dict[str, Any] = json.loads(stored)
    names = list(task_sets) if task_sets is not None else list(config.get("task_sets", []))
    cached: dict[str, list[str] | None] = dict(config.get("defects") or {})
    missing = [name for name in names if name not in cached and "/" in name]
    if missing:
        data = (config.get("query") or {}).get("data")
        errata = (config.get("query") or {}).get("errata", True)
        try:  # the same for every task set: hashed once
            code = code_hash() if len(missing) > 1 else None
        except OSError:  # a source file gone meanwhile: each task set's key hashes it again (or replays)
            code = None
        hashes: dict[Path, str] = {}  # each data source's hash, made once for all its task sets
        for name in missing:
            family_name, lang = name.split("/", 1)
            cached[name] = known_defects(family_name, lang, Path(data) if data else None, errata, code=code,
                                         data_hashes=hashes)
        store.set_config(run_id, {**config, "defects": cached})
    return {name: cached.get(name) for name in names}
