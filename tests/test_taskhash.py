"""The task hash made once per run (`TaskHasher`) is the digest of the whole task written at once: stored runs
compare task hashes across runs and resume relies on them, so the faster way must not move one of them."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from scenarios.acebench.items import AceItem
from scenarios.datasets import dataset_dir
from scenarios.family import TaskQuery
from scenarios.generation import generate
from scenarios.registry import family
from scenarios.taskhash import PROTOCOL_FIELDS, TaskHasher, _fields, _plain, task_hash


def whole_content_hash(task: Any) -> str:
    """The task hash as first written: one `json.dumps` of everything, for each task on its own."""
    fields = _fields(task)
    if isinstance(fields, dict):
        fields = {name: value for name, value in fields.items() if name not in PROTOCOL_FIELDS}
    content = {"task": {name: getattr(task, name, None) for name in PROTOCOL_FIELDS}, "fields": fields}
    try:
        text = json.dumps(content, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=_plain)
    except TypeError:
        text = json.dumps(content, ensure_ascii=False, separators=(",", ":"), default=_plain)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def assert_same_hashes(tasks: list[Any]) -> None:
    hasher = TaskHasher()
    expected = [whole_content_hash(task) for task in tasks]
    assert [hasher.hash(task) for task in tasks] == expected  # lists met again come from the hasher's memory
    assert [hasher.hash(task) for task in tasks] == expected
    assert [task_hash(task) for task in tasks] == expected


@pytest.mark.parametrize(("name", "lang"), [
    ("banking", "en"), ("banking", "zh"),
    pytest.param("apibank", "en", marks=pytest.mark.skipif(dataset_dir("api-bank") is None,
                                                           reason="API-Bank data not found: set TOOLWORLDS_DATA")),
    ("toolbench", "en")])
def test_bundled_tasks_hash_as_before(name: str, lang: str) -> None:
    for errata in (True, False):
        tasks = family(name).tasks(TaskQuery(lang=lang, errata=errata)).tasks
        assert tasks
        assert_same_hashes(tasks)


@pytest.mark.skipif(dataset_dir("acebench") is None, reason="ACEBench data not found: set TOOLWORLDS_DATA")
def test_acebench_tasks_hash_as_before() -> None:
    assert_same_hashes(family("acebench").tasks(TaskQuery(lang="en")).tasks)


def test_generated_tasks_hash_as_before(tmp_path: Path) -> None:
    for name in ("banking", "todo"):
        made = family(name).generator
        assert made is not None
        path = tmp_path / f"{name}.jsonl"
        generate(made(), 12, seed=1, difficulty=2).write(path)
        tasks = family(name).tasks(TaskQuery(data=path)).tasks
        assert len(tasks) == 12
        assert_same_hashes(tasks)


def test_lists_equal_in_python_but_not_in_json_hash_apart() -> None:
    """`True == 1 == 1.0` in Python, yet JSON writes them apart: a list remembered must not stand for one
    that only compares equal."""
    tasks = [AceItem(id="i", category="normal", functions=[{"name": "f", "required": value}])
             for value in (True, 1, 1.0, True, 1, 1.0)]
    assert_same_hashes(tasks)
    assert len({TaskHasher().hash(task) for task in tasks}) == 3


def test_keys_json_cannot_sort_hash_in_their_order() -> None:
    tasks = [AceItem(id="i", category="normal", functions=[{"name": "f"}], ground_truth={"f": {1: "a", "b": 2}})] * 3
    assert_same_hashes(tasks)


def test_a_list_shared_by_tasks_is_marshalled_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tasks made from one another (copies under new ids) share their function list: once its text is known,
    the list itself is known, and the copies hash as their whole content without marshalling it again."""
    import scenarios.taskhash as taskhash

    made = [AceItem(id=f"t{n}", category="normal", functions=[{"name": "f", "required": ["a"]}]) for n in range(5)]
    copies = [task.model_copy(update={"id": f"{task.id}~{n}"}) for n in range(4) for task in made]
    marshalled: list[int] = []

    def counted(value: Any, version: int) -> bytes:
        marshalled.append(id(value))
        return taskhash_marshal(value, version)

    taskhash_marshal = taskhash.marshal.dumps
    monkeypatch.setattr(taskhash, "marshal", type("M", (), {"dumps": staticmethod(counted)}))
    assert_same_hashes([*made, *copies])
    # Once per list but for the two met before its text was kept (the first by its new names, the second on its
    # first marshal): a copy never costs its own marshal, nor does hashing them all again.
    assert len(marshalled) <= len(made) + 2 and len(set(marshalled)) == len(made)
