"""API-Bank dialogue loaders: against the real data (skipped when it is absent), and against small broken
folders each test writes."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from scenarios.apibank import load_dialogues, load_level3
from scenarios.apibank.dialogues import LEVEL_FOLDERS
from scenarios.apibank.family import FAMILY
from scenarios.datasets import dataset_dir
from scenarios.family import TaskQuery
from toolworlds.cli import app

DATA = dataset_dir("api-bank")
needs_data = pytest.mark.skipif(DATA is None, reason="API-Bank data not found (../shared/datasets or TOOLWORLDS_DATA)")


@needs_data
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


@needs_data
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


# -- broken data folders: each bad file a problem naming file, line and field; the others load --------------

USER = json.dumps({"role": "User", "text": "What is 2+2?"})
CALL = json.dumps({"role": "API", "api_name": "Calculator", "param_dict": {"formula": "2+2"},
                   "result": {"api_name": "Calculator", "input": {"formula": "2+2"}, "output": 4.0, "exception": None}})
REPLY = json.dumps({"role": "AI", "text": "It is 4."})
BROKEN = {  # file name: its bad line (the second of three), and the problem it is
    "a_truncated": ('{"role": "User", "te', "not valid JSON (Unterminated string starting at)"),
    "b_list": ("[1, 2]", "a line must be a JSON object, not a list"),
    "c_number": ("42", "a line must be a JSON object, not a number"),
    "d_bigint": ('{"role": "User", "text": ' + "9" * 5000 + "}", "not valid JSON (an integer too long to read)"),
    "e_deep": ("[" * 100_000, "not valid JSON (nested too deeply to read)"),
    "f_role": ('{"role": "Robot", "text": "hi"}', "role must be 'User', 'AI' or 'API', not 'Robot'"),
    "g_params": ('{"role": "API", "api_name": "Calculator", "param_dict": [1]}',
                 "param_dict must be an object, not a list"),
    "h_no_name": ('{"role": "API", "param_dict": {}}', "api_name is missing"),
    "i_text": ('{"role": "AI", "text": 5}', "text must be text, not a number"),
    "j_result": ('{"role": "API", "api_name": "Calculator", "result": "oops"}', "result must be an object, not 'oops'"),
}


def _api_bank(tmp_path: Path) -> Path:
    """A small API-Bank folder: an empty init_database, one good dialogue per level, one scene."""
    root = tmp_path / "api-bank"
    (root / "init_database").mkdir(parents=True)
    (root / "lv3-samples").mkdir()
    (root / "lv3-samples" / "Today.txt").write_text("Scene: S\nFirst Utterance: What day is it?\nKey Info:\nnone\n"
                                                   "API Calls:\nGetToday()\n")
    for level, name in LEVEL_FOLDERS.items():
        (root / "lv1-lv2-samples" / name).mkdir(parents=True)
        (root / "lv1-lv2-samples" / name / f"good-{level}.jsonl").write_text("\n".join([USER, CALL, REPLY]) + "\n")
    return root


def _break_level_one(root: Path) -> Path:
    """Every kind of broken dialogue file in level 1, a byte that is not UTF-8 and a folder; and a good
    dialogue saved with a byte-order mark, which reads as the dialogue it holds."""
    level1 = root / "lv1-lv2-samples" / LEVEL_FOLDERS[1]
    for name, (line, _) in BROKEN.items():
        (level1 / f"{name}.jsonl").write_text("\n".join([USER, line, REPLY]) + "\n")
    (level1 / "k_bom.jsonl").write_bytes(b"\xef\xbb\xbf" + "\n".join([USER, CALL, REPLY]).encode() + b"\n")
    (level1 / "l_latin1.jsonl").write_bytes(USER.encode() + b'\n{"role": "AI", "text": "caf\xe9"}\n')
    (level1 / "m_folder.jsonl").mkdir()
    return level1


def _expected_problems() -> list[str]:
    folder = LEVEL_FOLDERS[1]
    return [*(f"{folder}/{name}.jsonl:2: {problem}" for name, (_, problem) in BROKEN.items()),
            f"{folder}/l_latin1.jsonl:2: not valid UTF-8 (byte 0xe9 at column 28)",
            f"{folder}/m_folder.jsonl: cannot read it (Is a directory)"]


def test_each_broken_dialogue_file_is_a_problem_naming_its_line_and_field(tmp_path: Path) -> None:
    root = _api_bank(tmp_path)
    _break_level_one(root)
    problems: list[str] = []
    dialogues = load_dialogues(root / "lv1-lv2-samples", problems=problems)
    assert problems == _expected_problems()
    assert [(d.file, d.level) for d in dialogues] == [("good-1.jsonl", 1), ("k_bom.jsonl", 1), ("good-2.jsonl", 2)]
    with pytest.raises(ValueError, match=r"a_truncated\.jsonl:2: not valid JSON"):  # no list to collect them in
        load_dialogues(root / "lv1-lv2-samples")


def test_a_missing_level_folder_is_a_problem_naming_the_folder(tmp_path: Path) -> None:
    root = _api_bank(tmp_path)
    (root / "lv1-lv2-samples" / LEVEL_FOLDERS[2] / "good-2.jsonl").unlink()
    (root / "lv1-lv2-samples" / LEVEL_FOLDERS[2]).rmdir()
    problems: list[str] = []
    assert len(load_dialogues(root / "lv1-lv2-samples", problems=problems)) == 1
    assert problems == [f"no level-2-toolsearcher folder in {root / 'lv1-lv2-samples'}"]
    with pytest.raises(ValueError, match="no level-2-toolsearcher folder in"):
        load_dialogues(root / "lv1-lv2-samples")


def test_a_dialogue_file_name_in_both_levels_is_a_duplicate_and_the_first_is_kept(tmp_path: Path) -> None:
    """Samples are named by file (`good-1.jsonl#api0`): a second file of that name would give its samples
    the first one's ids, and one episode would replace the other's in the store."""
    root = _api_bank(tmp_path)
    level2 = root / "lv1-lv2-samples" / LEVEL_FOLDERS[2]
    (level2 / "good-1.jsonl").write_text((level2 / "good-2.jsonl").read_text())
    loaded = FAMILY.tasks(TaskQuery(data=root, categories=("level-1", "level-2")))
    assert loaded.problems == [f"{LEVEL_FOLDERS[2]}/good-1.jsonl: duplicate id good-1.jsonl "
                               f"(first at {LEVEL_FOLDERS[1]}/good-1.jsonl)"]
    assert sorted((task.id, task.level) for task in loaded.tasks) == [
        ("good-1.jsonl#api0", 1), ("good-1.jsonl#response0", 1), ("good-2.jsonl#api0", 2),
        ("good-2.jsonl#response0", 2)]


def test_a_scene_file_that_cannot_be_read_is_a_problem_and_the_others_load(tmp_path: Path) -> None:
    scenes = tmp_path / "lv3-samples"
    scenes.mkdir()
    (scenes / "Good.txt").write_text("Scene: S\nFirst Utterance: hi\nKey Info:\nnone\nAPI Calls:\nGetToday()\n")
    (scenes / "Latin.txt").write_bytes(b"Scene: S\nFirst Utterance: caf\xe9\n")
    (scenes / "Folder.txt").mkdir()
    problems: list[str] = []
    assert [scene.file for scene in load_level3(tmp_path, problems)] == ["Good.txt"]
    assert problems == ["lv3-samples/Folder.txt: cannot read it (Is a directory)",
                        "lv3-samples/Latin.txt:2: not valid UTF-8 (byte 0xe9 at column 21)"]
    with pytest.raises(ValueError, match=r"Folder\.txt: cannot read it"):
        load_level3(tmp_path)


def test_a_scene_with_no_first_utterance_or_no_gold_call_is_a_problem_not_a_solved_task(tmp_path: Path) -> None:
    """An empty scene file was a task whose user said nothing and whose 0 of 0 gold calls counted as
    solved, whatever the agent did: "2/2 solved" with one real scene."""
    root = _api_bank(tmp_path)
    scenes = root / "lv3-samples"
    (scenes / "Empty.txt").write_text("")
    (scenes / "Mute.txt").write_text("Scene: S\nKey Info:\nnone\nAPI Calls:\nGetToday()\n")
    (scenes / "Idle.txt").write_text("Scene: S\nFirst Utterance: hello\nKey Info:\nnone\n")
    loaded = FAMILY.tasks(TaskQuery(data=root, categories=("level-3",)))
    assert sorted(task.id for task in loaded.tasks) == ["Today"]
    assert loaded.problems == [
        "Empty.txt: left out: no first utterance (a 'First Utterance:' line); "
        "no gold call (an 'API Calls:' heading and call lines)",
        "Idle.txt: left out: no gold call (an 'API Calls:' heading and call lines)",
        "Mute.txt: left out: no first utterance (a 'First Utterance:' line)"]

def test_the_family_loads_the_good_dialogues_and_names_every_bad_one(tmp_path: Path) -> None:
    """What `toolworlds run --tasks apibank --data DIR` reads: problems, never a traceback; replay goes on
    with every dialogue it can read and reports the others."""
    root = _api_bank(tmp_path)
    _break_level_one(root)
    loaded = FAMILY.tasks(TaskQuery(data=root))
    assert loaded.problems == _expected_problems()
    assert sorted(task.id for task in loaded.tasks) == ["Today", "good-1.jsonl#api0", "good-1.jsonl#response0",
                                                      "good-2.jsonl#api0", "good-2.jsonl#response0",
                                                      "k_bom.jsonl#api0", "k_bom.jsonl#response0"]
    assert FAMILY.replay is not None
    report = FAMILY.replay(root, "en", {})
    assert report.findings == _expected_problems()
    assert report.summary.startswith("3 calls: 3 reproduce exactly, 3 pass the check; left out, unreadable: ")
    run = CliRunner().invoke(app, ["run", "--tasks", "apibank", "--data", str(root), "--db",
                                   f"sqlite:///{tmp_path / 'runs.db'}"])
    assert run.exit_code == 2 and "a_truncated.jsonl:2: not valid JSON" in run.output, run.output


@pytest.mark.parametrize(("file", "content", "problem"), [
    ("Bank.json", '{"JohnDoe": {"bal', "init_database/Bank.json: not valid JSON (Unterminated string starting at)"),
    ("Account.json", "", "init_database/Account.json: not valid JSON (Expecting value)"),
    ("Alarm.json", "[1, 2]", "init_database/Alarm.json: Input should be a valid dictionary"),
    ("Agenda.json", b'{"x": "\xff"}', "init_database/Agenda.json:1: not valid UTF-8 (byte 0xff at column 8)"),
])
def test_a_broken_init_database_file_is_one_problem_naming_it(tmp_path: Path, file: str, content: str | bytes,
                                                             problem: str) -> None:
    root = _api_bank(tmp_path)
    path = root / "init_database" / file
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    assert FAMILY.tasks(TaskQuery(data=root)).problems == [problem]
    assert FAMILY.tasks(TaskQuery(data=root, categories=("level-3",))).problems == [problem]
    assert FAMILY.replay is not None
    with pytest.raises(ValueError, match=re.escape(problem)):
        FAMILY.replay(root, "en", {})
