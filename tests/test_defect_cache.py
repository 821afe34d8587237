"""Known-defective tasks are replayed once per data set and code, then read from the cache."""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import toolworlds.defects as defects
from scenarios.banking.family import DATA_DIR
from scenarios.family import ReplayReport
from scenarios.registry import family
from toolworlds.defect_cache import cache_folder, data_hash


@pytest.fixture
def replays(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[list[str]]:
    """The banking family with a replay that counts its runs (by language) and finds its first task defective."""
    monkeypatch.setenv("TOOLWORLDS_CACHE", str(tmp_path / "cache"))
    entry = family("banking")
    assert entry.replay is not None
    made: list[str] = []

    def counted(source: Path, lang: str, options: dict[str, Any]) -> ReplayReport:
        made.append(lang)
        assert entry.replay is not None
        report = entry.replay(source, lang, options)
        return dataclasses.replace(report, ok=[False, *report.ok[1:]])

    monkeypatch.setattr(defects, "family", lambda name: dataclasses.replace(entry, replay=counted))
    yield made


def test_a_data_set_is_replayed_once_then_read_from_the_cache(replays: list[str], tmp_path: Path) -> None:
    first = defects.known_defects("banking", "en", None)
    assert first and len(first) == 1 and replays == ["en"]
    assert defects.known_defects("banking", "en", None) == first and replays == ["en"]  # from the cache
    assert defects.known_defects("banking", "zh", None) and replays == ["en", "zh"]  # another language: its own
    assert defects.known_defects("banking", "en", None, use_cache=False) == first and replays == ["en", "zh", "en"]
    assert len(list((cache_folder() / "defects").glob("*.json"))) == 2


def test_changed_data_is_replayed_again(replays: list[str], tmp_path: Path) -> None:
    data = tmp_path / "data"
    shutil.copytree(DATA_DIR, data)
    before = defects.known_defects("banking", "en", data)
    assert defects.known_defects("banking", "en", data) == before and replays == ["en"]
    task_file = next(path for path in sorted((data / "data_en").iterdir()) if path.is_file())
    task_file.write_text(task_file.read_text(encoding="utf-8") + "\n", encoding="utf-8")  # one byte more
    assert defects.known_defects("banking", "en", data) == before and replays == ["en", "en"]


def test_an_unreadable_cache_entry_is_replayed_again(replays: list[str]) -> None:
    first = defects.known_defects("banking", "en", None)
    (entry,) = (cache_folder() / "defects").glob("*.json")
    entry.write_text("{not json", encoding="utf-8")
    assert defects.known_defects("banking", "en", None) == first and replays == ["en", "en"]
    entry.write_text('{"defects": [1, 2]}', encoding="utf-8")  # readable, but not ids
    assert defects.known_defects("banking", "en", None) == first and replays == ["en", "en", "en"]


def test_a_cache_that_cannot_be_written_changes_nothing(replays: list[str], monkeypatch: pytest.MonkeyPatch,
                                                         tmp_path: Path) -> None:
    blocked = tmp_path / "a file"
    blocked.write_text("", encoding="utf-8")
    monkeypatch.setenv("TOOLWORLDS_CACHE", str(blocked))  # a file where the folder should be
    first = defects.known_defects("banking", "en", None)
    assert defects.known_defects("banking", "en", None) == first and replays == ["en", "en"]


def test_a_runs_task_sets_of_one_data_folder_hash_it_once(replays: list[str], tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """en and zh share the family's data folder: a run's defects hash it once, under the keys each language's
    own look-up makes (a later `known_defects` reads the entries the run wrote, replaying nothing)."""
    from toolworlds.store import RunStore

    hashed: list[Path] = []

    def counted(source: Path) -> str:
        hashed.append(source)
        return data_hash(source)

    monkeypatch.setattr(defects, "data_hash", counted)
    store = RunStore(f"sqlite:///{tmp_path / 'runs.db'}")
    store.start_run("r", "oracle", {"task_sets": ["banking/en", "banking/zh"]})
    found = defects.run_defects(store, "r")
    store.close()
    assert len(hashed) == 1 and replays == ["en", "zh"] and all(found.values())
    assert {lang: defects.known_defects("banking", lang, None) for lang in ("en", "zh")} == {
        "en": found["banking/en"], "zh": found["banking/zh"]} and replays == ["en", "zh"]
