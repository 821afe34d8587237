"""API-Bank dialogue loaders against the real data (skipped when it is absent)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from scenarios.apibank import load_dialogues, load_level3
from scenarios.datasets import dataset_dir

DATA = dataset_dir("api-bank")
pytestmark = pytest.mark.skipif(DATA is None, reason="API-Bank data not found (../shared/datasets or TOOLWORLDS_DATA)")


def test_levels_one_and_two() -> None:
    dialogues = load_dialogues(DATA)
    level1 = [d for d in dialogues if d.level == 1]
    level2 = [d for d in dialogues if d.level == 2]
    assert (len(level1), len(level2)) == (213, 50)  # one level-1 file is empty
    calls = [c for d in dialogues for c in d.api_calls]
    assert len(calls) == 508 and sum(len(d.api_calls) for d in level1) == 389
    counts = Counter(c.api_name for c in calls)
    assert counts["GetUserToken"] == 108 and counts["ToolSearcher"] == 45 and len(counts) == 50
    assert all(isinstance(v, str) for c in calls for v in c.param_dict.values())
    assert all(c.result is not None and c.result.get("exception") is None for c in calls)
    first = next(d for d in dialogues if d.file == "AddAgenda-level-1-1.jsonl")
    assert first.turns[0].role == "User" and first.apis == ["GetUserToken", "AddAgenda"]


def test_level_three_scenes() -> None:
    scenes = load_level3(DATA)
    assert len(scenes) == 8 and sum(len(s.calls) for s in scenes) == 34
    assert all(not s.problems for s in scenes)
    hospital = next(s for s in scenes if s.file == "Hospital.txt")
    assert hospital.calls[-1].param_dict["token"] == "a9s8d7f6g5h4j3k2l1"  # written unquoted in the scene
    health = next(s for s in scenes if s.file == "Health Management.txt")
    assert health.calls[0].param_dict["health_data"] == {"systolic_blood_pressure": 120,
                                                         "diastolic_blood_pressure": 80}
    assert next(s for s in scenes if s.file == "Personal Assistant.txt").calls[0].api_name == "GetUserToken"


def test_broken_files_are_reported(tmp_path: Path) -> None:
    folder = tmp_path / "level-1-given-desc"
    folder.mkdir()
    (folder / "x.jsonl").write_text('{"role": "User", "text": "hi"}\n{oops\n')
    with pytest.raises(ValueError, match=r"x.jsonl:2"):
        load_dialogues(tmp_path, levels=(1,))
    scenes = tmp_path / "lv3-samples"
    scenes.mkdir()
    (scenes / "s.txt").write_text("Scene: S\nFirst Utterance: hi\nKey Info:\nnone\nAPI Calls:\nAddAlarm(time=3+4)\n")
    (scene,) = load_level3(tmp_path)
    assert scene.calls == [] and "AddAlarm" in scene.problems[0]
