"""The runner's two halves: the worker side every backend imports, one row schema, one scoring assembly."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from scenarios.banking.family import load_tasks
from toolworlds.episode_record import EpisodeRecord
from toolworlds.episode_score import result_record, score_episode
from toolworlds.episodes import run_episode
from toolworlds.process_backend import ProcessBackend
from toolworlds.runner import AgentSpec, TaskSet, execute_run
from toolworlds.store import EpisodeRow, RunStore
from toolworlds.worker import Outcome, failed_outcome, run_one

ROOT = Path(__file__).resolve().parents[1]


def test_the_backends_import_the_worker_half_and_not_the_driver() -> None:
    """`runner` imports the backends; a backend importing the runner back was an import cycle."""
    probe = ("import sys, toolworlds.process_backend, toolworlds.ray_backend, toolworlds.worker; "
             "print('toolworlds.runner' in sys.modules)")
    shown = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.strip() == "False"


def test_the_episodes_table_is_the_record_plus_the_runs_own_columns() -> None:
    columns = [column.name for column in EpisodeRow.__table__.columns]  # type: ignore[attr-defined]
    assert sorted(columns) == sorted([*EpisodeRecord.model_fields, "id", "run_id", "finished_at", "task_hash",
                                      "tools_hash"])
    with pytest.raises(ValidationError, match="sucess"):  # a column under a wrong name is refused, not dropped
        EpisodeRecord.model_validate({**EpisodeRecord.failed("banking/en", "t", "c", "why").model_dump(), "sucess": 1})


def test_a_stored_episode_reads_back_as_the_record_its_worker_made(tmp_path: Path) -> None:
    """Every record field goes to the store and comes back, a failed episode's as well (its text as any database
    holds it); the runner adds the run's own columns."""
    store = RunStore(f"sqlite:///{tmp_path / 'runs.db'}")
    task_set = TaskSet("banking", "en", load_tasks("en")[:2])
    made: list[Outcome] = []
    episodes = execute_run(store, "r", [task_set], AgentSpec(), backend=ProcessBackend(0), on_done=made.append)
    failed = failed_outcome("banking/en", task_set.tasks[0], "run: RuntimeError: \x00 \udc80 boom", trial=1)
    store.store_record("r", failed.record, finished_at=episodes[0].finished_at)
    stored = store.episodes("r")
    # The tools an episode offered are kept once per store (`toolsets`), and read back with `RunStore.tools`.
    read = [EpisodeRecord.model_validate({**e.model_dump(include=set(EpisodeRecord.model_fields)),
                                          "tools": store.tools(e)}) for e in stored]
    assert read == [o.record for o in made] + [failed.record]
    assert made[0].record.tools and stored[0].tools is None and stored[0].tools_hash
    assert all(e.run_id == "r" and e.task_hash for e in stored[:2]) and stored[2].task_hash is None
    assert stored[2].error == "run: RuntimeError: \\x00 \\udc80 boom" and stored[2].stop_reason == "run failed"
    assert made[0].episode == made[0].record.model_dump()  # the row by name, as progress lines read it


def test_the_runner_stores_the_score_toolenv_and_the_mcp_host_read() -> None:
    """One scoring assembly: the stored verdict and the reward parts come from the same `score_episode`."""
    for noise, task in ((0.0, load_tasks("en")[0]), (0.9, load_tasks("en")[3])):
        spec = AgentSpec("noisy", noise=noise, seed=3)
        outcome = run_one("banking/en", task, spec)
        world, episode = run_episode(task, spec.build(task), max_steps=spec.max_steps)
        scored = score_episode("banking", task, world, episode.process, episode.records, "exact")
        parts = scored.parts()
        record = outcome.record
        assert (record.success, record.state_fraction, record.process) == \
            (parts["end_state"], parts["state_fraction"], parts["process"])
        assert record.calls == parts["calls"] and record.errors == sum(parts["errors"].values())
        assert parts["reward"] == (1.0 if record.success else 0.0)
        assert scored.columns("banking/en")["diff"] == record.diff


def test_the_result_record_shows_the_end_state_the_scorer_made() -> None:
    """The stored result record is written from the scorer's end state (made once an episode), and is the line
    the task's own `result_record` hook writes from the world."""
    for noise, task in ((0.0, load_tasks("en")[0]), (0.9, load_tasks("zh")[5])):
        spec = AgentSpec("noisy", noise=noise, seed=3)
        world, episode = run_episode(task, spec.build(task), max_steps=spec.max_steps)
        scored = score_episode("banking", task, world, episode.process, episode.records, "exact")
        assert len(scored.score.end_state) == 1
        written = scored.columns("banking/en")["result_record"]
        assert written == result_record(task, world, list(episode.process))  # the hook, the state made again
        assert json.loads(written)["result"] == task.end_state(world)
        assert run_one("banking/en", task, spec).record.result_record == written

def test_offered_tools_are_the_stored_text_read_back_a_fresh_copy_each_time() -> None:
    """Both the speed lane (a `marshal`-led copy) and the plain path (`json.loads` of the stored text) give the
    agent its own copy, equal to the stored text read back; a task's list changed since is converted again."""
    from toolworlds import worker

    functions = copy.deepcopy(load_tasks("en")[0].functions)
    offers = worker.ToolOffers()  # a worker's: its episodes share the conversion
    first, text = worker.offered_tools(functions, offers=offers)
    assert first == json.loads(text) and json.dumps(first) == json.dumps(json.loads(text))
    first[0]["function"]["name"] = "changed by the agent"
    second, again = worker.offered_tools(functions, offers=offers)
    assert again == text and second == json.loads(text) and second is not first
    functions[0]["description"] = "an erratum"
    third, changed = worker.offered_tools(functions, offers=offers)
    assert "an erratum" in changed and third == json.loads(changed)


def test_offered_tools_plain_path_when_the_lanes_are_off() -> None:
    probe = ("import json; from scenarios.banking.family import load_tasks; from toolworlds.worker import "
             "offered_tools, ToolOffers; f = load_tasks('en')[0].functions; o = ToolOffers(); "
             "a, t = offered_tools(f, offers=o); b, _ = offered_tools(f, offers=o); "
             "assert a == b == json.loads(t) and a is not b; print('ok')")
    for lanes in ("on", "off"):
        shown = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=60,
                               env={**os.environ, "TOOLWORLDS_SPEED_LANES": lanes, "PYTHONPATH": str(ROOT)})
        assert shown.returncode == 0 and shown.stdout.strip() == "ok", shown.stderr


def test_agents_that_never_read_their_tools_share_the_kept_copy_only_in_the_lane() -> None:
    """The oracle and noisy agents never read their tools: in the speed lane they are handed the copy the process
    keeps (the same list every time, equal to the stored text read back), on the plain path a copy each; any other
    agent gets its own copy either way. Their episodes store the same rows both ways (the run-level identity of
    lanes on and off is tests/test_store_sqlite.py's and the CI's lanes-off run)."""
    probe = ("import json; from scenarios.banking.family import load_tasks; from toolworlds.worker import "
             "AgentSpec, offered_tools, ToolOffers; f = load_tasks('en')[0].functions; o = ToolOffers(); "
             "a, t = offered_tools(f, shared=True, offers=o); b, _ = offered_tools(f, shared=True, offers=o); "
             "c, _ = offered_tools(f, offers=o); d, _ = offered_tools(f, offers=o); "
             "assert a == b == c == d == json.loads(t) and c is not d and c is not a; "
             "assert [AgentSpec(k).reads_tools for k in ('oracle', 'noisy', 'llm', 'm:F')] == [0, 0, 1, 1]; "
             "print('shared' if a is b else 'copied')")
    for lanes, expected in (("on", "shared"), ("off", "copied")):
        shown = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=60,
                               env={**os.environ, "TOOLWORLDS_SPEED_LANES": lanes, "PYTHONPATH": str(ROOT)})
        assert shown.returncode == 0 and shown.stdout.strip() == expected, shown.stderr


def test_oracle_and_noisy_episodes_are_the_same_with_the_kept_copy_of_their_tools(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """An oracle's and a noisy agent's outcome with the tools the process keeps, as with a copy of their own."""
    from toolworlds import worker

    tasks = load_tasks("en")[:6]
    specs = (AgentSpec(), AgentSpec(kind="noisy", noise=0.5, seed=2))
    offers = worker.ToolOffers()
    with_kept = [run_one("banking/en", task, spec, offers=offers) for spec in specs for task in tasks]
    original = worker.offered_tools
    monkeypatch.setattr(worker, "offered_tools", lambda functions, shared=False, offers=None:
                        original(functions, offers=offers))
    assert [run_one("banking/en", task, spec, offers=offers) for spec in specs for task in tasks] == with_kept


def test_tool_lists_equal_only_by_python_equality_are_offered_apart() -> None:
    """`True == 1 == 1.0` in Python, not in JSON: a list differing from a converted one only so gets its own text."""
    from toolworlds.worker import ToolOffers, offered_tools

    def functions(default: object) -> list[dict[str, object]]:
        return [{"name": "set_flag", "description": "Set the flag.",
                 "parameters": {"type": "object", "properties": {"on": {"type": "boolean", "default": default}}}}]

    offers = ToolOffers()
    texts = [offered_tools(functions(value), offers=offers)[1] for value in (True, 1, 1.0, True)]
    assert len(set(texts)) == 3 and texts[0] == texts[3]
    assert "true" in texts[0] and "true" not in texts[1] and "1.0" in texts[2]


def test_equal_tool_lists_have_the_same_exact_bytes_however_their_objects_are_shared() -> None:
    """What finds a converted tool list again: two equal lists whose strings are referenced differently
    (marshal's format 3 and later write that into the bytes) give the same bytes, and lists that differ
    only by True, 1 and 1.0 do not."""
    from toolworlds.worker import _exact

    def functions(description: str, default: object = True) -> list[dict[str, object]]:
        return [{"name": "set_flag", "description": description,
                 "parameters": {"type": "object", "properties": {"on": {"default": default}}}}]

    first = functions("".join(["Set ", "the flag."]))
    held = "".join(["Set ", "the flag."])  # still referenced here as well as in the list
    assert _exact(first) == _exact(functions(held))
    assert len({_exact(functions(held, value)) for value in (True, 1, 1.0)}) == 3


def test_a_list_found_by_its_quick_bytes_is_the_one_converted_and_a_change_is_seen() -> None:
    """A list seen before is found by its format 4 bytes (`_quick`) without its format 2 ones (`_exact`), and gives
    the conversion of that very value; changed in place (a value, or `True` for `1`), it is converted again."""
    from toolworlds import worker

    functions = copy.deepcopy(load_tasks("en")[0].functions)
    functions[0]["parameters"]["flag"] = True
    offers = worker.ToolOffers()
    _, text = worker.offered_tools(functions, offers=offers)
    worker.offered_tools(functions, offers=offers)  # found by its format 2 bytes: kept under its format 4 ones too
    exact_calls = []
    original = worker._exact

    def counted(listed: list[object]) -> bytes | None:
        exact_calls.append(1)
        return original(listed)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(worker, "_exact", counted)
        offered, again = worker.offered_tools(functions, offers=offers)
        assert again == text and offered == json.loads(text) and not exact_calls
        functions[0]["parameters"]["flag"] = 1
        _, changed = worker.offered_tools(functions, offers=offers)
        assert changed != text and '"flag": 1' in changed and exact_calls
        functions[0]["parameters"]["flag"] = True
        assert worker.offered_tools(functions, offers=offers)[1] == text


def test_a_workers_tool_lists_are_its_own() -> None:
    """Converted lists are kept by the worker's `ToolOffers`, not by the process: another worker (another run in
    this process) converts its own, and agents that never read their tools share only their worker's copy (in the
    speed lane; on the plain path every agent has a copy of its own)."""
    from sandbox.lanes import LANES_ON
    from toolworlds.worker import ToolOffers, offered_tools

    functions = load_tasks("en")[0].functions
    one, other = ToolOffers(), ToolOffers()
    kept, _ = offered_tools(functions, shared=True, offers=one)
    assert (offered_tools(functions, shared=True, offers=one)[0] is kept) is LANES_ON
    elsewhere, _ = offered_tools(functions, shared=True, offers=other)
    assert elsewhere == kept and elsewhere is not kept
    alone, _ = offered_tools(functions, shared=True)  # no worker's: converted for this call alone
    assert alone == kept and alone is not kept
