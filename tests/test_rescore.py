"""Errata and re-scoring: scorer versions and task hashes stored with every score, `toolworlds rescore`
reproducing stored runs exactly, flips between runs in `report`, errata applied at load and listed by
`doctor` (issue 38, item 4). Everything goes through the command line, as a user drives it."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import scenarios.banking.family as banking_family
import toolworlds.rescore as rescore_module
from evaluators.conventions import family_function, scored_families
from evaluators.versions import SCORER_VERSIONS, scorer_version
from sandbox.parsing import Call
from scenarios.acebench.items import AceItem
from scenarios.datasets import dataset_dir
from scenarios.errata import ErrataError, apply_errata, read_errata
from scenarios.family import TaskQuery
from scenarios.registry import family
from scenarios.taskhash import task_hash
from toolworlds.agents import ToolCall, Turn
from toolworlds.cli import app
from toolworlds.episodes import run_episode
from toolworlds.prebuilt import TaskWorlds
from toolworlds.runner import transcript_rows
from toolworlds.store import EpisodeRow, MessageRow, RunStore
from toolworlds.transcript import agent_process

runner = CliRunner()
SCORED = ("success", "state_fraction", "process", "diff", "result_record", "task_hash", "scorer_version")
ACEBENCH = dataset_dir("acebench")


def invoke(*args: str) -> str:
    result = runner.invoke(app, list(args), env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    return result.output


def by_key(store: RunStore, run_id: str) -> dict[tuple[str, str, int], EpisodeRow]:
    return {(e.task_set, e.task_id, e.trial or 0): e for e in store.episodes(run_id)}


def summary(store: RunStore, run_id: str) -> dict[tuple[str, str, str], tuple[float, str | None, str | None]]:
    return {(s.task_set, s.category, s.metric): (s.value, s.scorer_version, s.data_hash) for s in store.scores(run_id)}


def assert_same_scores(store: RunStore, first: str, second: str) -> int:
    """Every episode of `second` scored as `first`'s, column for column, and the same summary; the count."""
    before, after = by_key(store, first), by_key(store, second)
    assert before.keys() == after.keys()
    for key, old in before.items():
        new = after[key]
        assert [getattr(new, c) for c in SCORED] == [getattr(old, c) for c in SCORED], key
        happened = ("steps", "calls", "errors", "stop_reason", "error_types", "finished", "tools")
        assert [getattr(new, c) for c in happened] == [getattr(old, c) for c in happened], key
        assert len(store.messages(new.id)) == len(store.messages(old.id))  # type: ignore[arg-type]
    assert summary(store, second) == summary(store, first)
    return len(before)


@pytest.mark.parametrize("agent", [["--agent", "oracle"], ["--agent", "noisy", "--noise", "0.3"]])
def test_rescore_of_a_stored_run_reproduces_its_scores_exactly(agent: list[str], tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    invoke("run", *agent, "--db", db, "--run-id", "first", "--workers", "0")
    output = invoke("rescore", "first", "--new-run-id", "again", "--db", db)
    store = RunStore(db)
    episodes = store.episodes("first")
    assert len(episodes) == 72 and all(e.scorer_version == "banking/2 compat" and e.task_hash for e in episodes)
    if agent[1] == "noisy":  # the noisy agent's mistakes: some episodes missed, some calls refused
        assert 0 < sum(e.success for e in episodes) < 72 and sum(e.errors for e in episodes) > 0
    assert assert_same_scores(store, "first", "again") == 72
    assert "72 episodes stored, 72 scored again, 72 with the same scores, 0 changed" in output
    assert "replay differs" not in output
    stored = store.run("again")
    assert stored is not None and json.loads(stored.config)["rescored"]["from"] == "first"
    shown = invoke("report", "--db", db, "--run-id", "first", "--run-id", "again")
    assert "first -> again: 0 of 72 episodes flipped (0 pass->fail, 0 fail->pass)" in shown


def test_report_shows_the_episodes_that_flipped_between_two_runs(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    invoke("run", "--agent", "oracle", "--lang", "en", "--db", db, "--run-id", "oracle", "--workers", "0")
    invoke("run", "--agent", "noisy", "--noise", "0.5", "--lang", "en", "--db", db, "--run-id", "noisy", "--workers",
           "0")
    store = RunStore(db)
    missed = sorted(e.task_id for e in store.episodes("noisy") if not e.success)
    assert missed
    shown = invoke("report", "--db", db, "--run-id", "oracle", "--run-id", "noisy")
    assert f"oracle -> noisy: {len(missed)} of 36 episodes flipped ({len(missed)} pass->fail, 0 fail->pass)" in shown
    for task_id in missed:
        assert task_id in shown
    back = invoke("report", "--db", db, "--run-id", "noisy", "--run-id", "oracle")
    assert f"({len(missed)} fail->pass" not in back and f"0 pass->fail, {len(missed)} fail->pass" in back


def test_errata_from_a_file_apply_at_load_are_listed_by_doctor_and_flip_a_rescored_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    invoke("run", "--agent", "oracle", "--lang", "en", "--db", db, "--run-id", "before", "--workers", "0")
    tasks = {t.id: t for t in family("banking").tasks(TaskQuery(lang="en")).tasks}
    errata = tmp_path / "errata.jsonl"
    rows = [{"task_id": "banking_multi_step_1", "action": "exclude", "wrong": "its instruction is ambiguous",
             "change": "left out"},
            {"task_id": "banking_multi_step_4", "lang": "en", "action": "replace", "field": "ground_truth",
             "value": tasks["banking_multi_step_5"].ground_truth, "wrong": "the ground truth was another task's",
             "change": "ground truth replaced"},
            {"task_id": "banking_multi_step_4", "lang": "zh", "action": "exclude", "wrong": "zh only",
             "change": "never applied to en"}]
    errata.write_text("".join(json.dumps(row) + "\n" for row in rows))
    monkeypatch.setattr(banking_family, "FAMILY", dataclasses.replace(banking_family.FAMILY, errata=errata))

    loaded = family("banking").tasks(TaskQuery(lang="en"))
    assert sorted(loaded.errata) == ["banking_multi_step_1", "banking_multi_step_4"]
    assert len(loaded.tasks) == len(tasks) - 1
    fixed = next(t for t in loaded.tasks if t.id == "banking_multi_step_4")
    assert fixed.ground_truth == tasks["banking_multi_step_5"].ground_truth
    assert task_hash(fixed) != task_hash(tasks["banking_multi_step_4"])
    assert len(family("banking").tasks(TaskQuery(lang="en", errata=False)).tasks) == len(tasks)
    assert len(family("banking").tasks(TaskQuery(lang="en", limit=6)).tasks) == 6  # the limit taken after errata

    doctor = invoke("doctor", "banking", "--lang", "en")
    assert "errata: 2 for en in" in doctor and "banking_multi_step_1 [exclude]: its instruction is ambiguous -> " \
                                               "left out" in doctor
    assert "banking_multi_step_4 (en) [replace ground_truth]: the ground truth was another task's" in doctor
    assert "zh only" not in doctor

    output = invoke("rescore", "before", "--new-run-id", "after", "--db", db)
    assert "36 episodes scored" not in output and "35 episodes stored, 35 scored again, 34 with the same scores, " \
                                                   "1 changed" in output
    assert "left out: banking/en:banking_multi_step_1#0" in output
    shown = invoke("report", "--db", db, "--run-id", "before", "--run-id", "after")
    assert "before -> after: 1 of 35 episodes flipped (1 pass->fail, 0 fail->pass); only in before: 1, only in " \
           "after: 0" in shown
    assert "banking_multi_step_4 │ 0     │ pass->fail │ data" in shown

    published = invoke("run", "--agent", "oracle", "--lang", "en", "--no-errata", "--db", db, "--run-id", "published",
                       "--workers", "0")
    assert "36 episodes stored" in published
    store = RunStore(db)
    from toolworlds.cli.resume import resume_command, stored_config

    assert "--no-errata" in resume_command("published", db, config=stored_config(store, "published"))  # kept
    assert len(store.episodes("published")) == 36 and all(e.success for e in store.episodes("published"))
    invoke("rescore", "published", "--new-run-id", "published-again", "--db", db)  # rescored as it was loaded
    assert assert_same_scores(store, "published", "published-again") == 36
    resumed = runner.invoke(app, ["run", "--agent", "oracle", "--lang", "en", "--db", db, "--run-id", "before",
                                  "--resume", "--workers", "0"])
    assert resumed.exit_code == 0, resumed.output  # a run made before errata resumes with them: no mismatch
    with pytest.raises(LookupError, match="banking_multi_step_1 left out by an erratum"):
        TaskWorlds("banking", ["banking_multi_step_1"])  # what `serve --task` and the integrations start from


def test_an_episode_whose_scorer_fails_is_stored_as_missed_and_the_rescore_goes_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    invoke("run", "--agent", "oracle", "--lang", "en", "--limit", "4", "--db", db, "--run-id", "a", "--workers", "0")
    real = rescore_module.episode_scorer

    def scorer(name: str, checker: Any) -> Any:
        def score(task: Any, *args: Any) -> Any:
            if task.id == "banking_multi_step_1":
                raise RuntimeError("scorer bug\nsecond line")
            return real(name, checker)(task, *args)
        return score

    monkeypatch.setattr(rescore_module, "episode_scorer", scorer)
    output = invoke("rescore", "a", "--new-run-id", "b", "--db", db)
    assert "4 scored again, 3 with the same scores, 1 changed" in output
    assert "failed to score: banking/en:banking_multi_step_1#0" in output
    failed = by_key(RunStore(db), "b")[("banking/en", "banking_multi_step_1", 0)]
    assert not failed.success and failed.error == "rescore: RuntimeError: scorer bug second line"
    assert failed.scorer_version is None and failed.result_record is None


def test_a_malformed_errata_file_is_refused_whole_with_each_line_named(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    errata = tmp_path / "errata.jsonl"
    errata.write_text("\n".join([
        json.dumps({"task_id": "a", "action": "replace", "wrong": "w", "change": "c"}),
        "{not json",
        json.dumps({"task_id": "b", "action": "drop", "wrong": "w", "change": "c"}),
        json.dumps({"task_id": "c", "action": "exclude", "wrong": "w", "change": "c"}),
        json.dumps({"task_id": "c", "action": "exclude", "wrong": "w", "change": "again"}),
        json.dumps({"task_id": "d", "action": "exclude", "field": "paths", "wrong": "w", "change": "c"}),
        json.dumps({"task_id": "e", "action": "exclude", "wrong": "w", "change": "c", "typo": 1}),
    ]) + "\n")
    with pytest.raises(ErrataError) as caught:
        read_errata(errata)
    said = str(caught.value)
    for line in ("errata.jsonl:1: ", "errata.jsonl:2: ", "errata.jsonl:3: action", "errata.jsonl:5: c is corrected "
                 "already on line 4", "errata.jsonl:6: ", "errata.jsonl:7: typo"):
        assert line in said, line
    monkeypatch.setattr(banking_family, "FAMILY", dataclasses.replace(banking_family.FAMILY, errata=errata))
    for command in (["run", "--lang", "en", "--db", f"sqlite:///{tmp_path / 'r.db'}"], ["doctor", "banking"]):
        result = runner.invoke(app, command)
        assert result.exit_code == 2 and "errata.jsonl:3: action" in result.output and "Traceback" not in result.output
    assert read_errata(tmp_path / "none.jsonl") == []


def test_a_replacement_the_task_refuses_is_named() -> None:
    (task,) = family("banking").tasks(TaskQuery(lang="en", task_ids=("banking_multi_step_4",))).tasks
    for row, said in (({"field": "paths", "value": "not a list"}, "the task refuses the value"),
                      ({"field": "no_such_field", "value": 1}, "has no field 'no_such_field'")):
        erratum = read_errata_row({"task_id": task.id, "action": "replace", "wrong": "w", "change": "c", **row})
        with pytest.raises(ErrataError, match=said):
            apply_errata([task], [erratum], "en")


def read_errata_row(row: dict[str, Any]) -> Any:
    from scenarios.errata import Erratum

    return Erratum.model_validate(row)


def test_the_task_hash_is_the_data_not_where_it_was_read() -> None:
    first = family("banking").tasks(TaskQuery(lang="en")).tasks
    second = family("banking").tasks(TaskQuery(lang="en")).tasks
    assert [task_hash(t) for t in first] == [task_hash(t) for t in second]
    assert len({task_hash(t) for t in first}) == len(first)
    task = first[0]
    assert task_hash(task.model_copy(update={"source": "elsewhere.json:9"})) == task_hash(task)
    assert task_hash(task.model_copy(update={"question": task.question + "!"})) != task_hash(task)
    item = AceItem(id="i", category="normal_atom_bool", ground_truth={"f": {"a": True}})
    assert task_hash(item) != task_hash(item.model_copy(update={"ground_truth": {"f": {"a": False}}}))


def test_every_family_scorer_has_a_version_in_one_table() -> None:
    own = [name for name in scored_families() if family_function(name, "score_episode") is not None]
    assert own and set(own) <= set(SCORER_VERSIONS)
    assert scorer_version("banking") == "banking/2 compat" and scorer_version("todo") == "todo/2 compat"
    assert scorer_version("apibank") == "apibank/2 compat"
    assert scorer_version("acebench", "strict") == "acebench/2 strict"


def test_the_stored_transcript_gives_back_the_process_the_episode_was_scored_on() -> None:
    """Native calls (good, with unreadable arguments, several at once), written calls, text and call text."""
    (task,) = family("banking").tasks(TaskQuery(lang="en", task_ids=("banking_multi_step_4",))).tasks
    turns = iter([
        Turn(tool_calls=(ToolCall("c1", "login_bank", '{"customer_id": "C001", "password": "eve2024"}'),
                         ToolCall("c2", "get_accounts", '{"customer_id": "C001"')), text="logging in"),
        Turn(calls=(Call("get_accounts", {"customer_id": "C001"}),)),
        Turn(call_text="[get_accounts(customer_id='C001'"),
        Turn(raw="Sure: [get_accounts(customer_id='C001')]", calls=(Call("get_accounts", {"customer_id": "C001"}),)),
        Turn(tool_calls=(ToolCall("c3", "get_accounts", '{"customer_id": "C001"}'),)),
        Turn(text="done"),
    ])

    class Scripted:
        def act(self, conversation: Any, tools: Any) -> Turn:
            return next(turns)

    _, episode = run_episode(task, Scripted())
    assert len(episode.process) == 5
    rows = [MessageRow(episode_id=0, **row) for row in transcript_rows(episode.transcript)]
    assert agent_process(rows) == episode.process

    item = AceItem(id="i", category="normal_atom_bool", functions=[], ground_truth={})
    for turn in (Turn(tool_calls=(ToolCall("x", "f", '{"a": 1}'),)), Turn(text="[f(a=1)]", raw="[f(a=1)]")):
        _, single = run_episode(item, type("One", (), {"act": lambda self, c, t, turn=turn: turn})())
        rows = [MessageRow(episode_id=0, **row) for row in transcript_rows(single.transcript)]
        assert agent_process(rows, single_reply=True) == single.process


def test_a_database_from_before_scorer_versions_opens_and_its_runs_rescore(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    db = f"sqlite:///{path}"
    invoke("run", "--agent", "noisy", "--lang", "en", "--db", db, "--run-id", "old", "--workers", "0")
    with sqlite3.connect(path) as connection:  # as an older release left it
        for table, column in (("episodes", "scorer_version"), ("episodes", "task_hash"), ("scores", "scorer_version"),
                              ("scores", "data_hash")):
            connection.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
    output = invoke("rescore", "old", "--new-run-id", "new", "--db", db)
    assert "36 with the same scores" in output
    store = RunStore(db)
    assert all(e.scorer_version is None for e in store.episodes("old"))
    assert all(e.scorer_version == "banking/2 compat" for e in store.episodes("new"))
    assert "0 of 36 episodes flipped" in invoke("report", "--db", db, "--run-id", "old", "--run-id", "new")


def test_rescore_refuses_what_it_cannot_do(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    invoke("run", "--lang", "en", "--limit", "2", "--db", db, "--run-id", "a", "--workers", "0")
    for args, said in ((["rescore", "nope"], "no run 'nope'"),
                       (["rescore", "a", "--new-run-id", "a"], "already exists"),
                       (["rescore", "a", "--mode", "lenient"], "unknown mode 'lenient'")):
        result = runner.invoke(app, [*args, "--db", db])
        assert result.exit_code == 2 and said in result.output, result.output


@pytest.mark.skipif(ACEBENCH is None, reason="ACEBench data not found (../shared/datasets or TOOLWORLDS_DATA)")
def test_acebench_runs_rescore_exactly_and_strict_mode_flips_what_compat_let_pass(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    options = ["--tasks", "acebench", "--lang", "en", "--categories", "agent,normal_atom_number,special_incomplete",
               "--db", db, "--workers", "0", "--results", str(tmp_path / "results")]
    invoke("run", *options, "--agent", "oracle", "--run-id", "oracle")
    invoke("run", *options, "--agent", "noisy", "--noise", "0.3", "--run-id", "noisy")
    store = RunStore(db)
    total = len(store.episodes("oracle"))
    assert total > 90
    assert {e.task_id for e in store.episodes("oracle")}.isdisjoint({"agent_multi_step_0", "agent_multi_step_14"})
    assert all(e.success for e in store.episodes("oracle") if e.category.startswith("multi"))  # errata: all solvable
    for run in ("oracle", "noisy"):
        invoke("rescore", run, "--new-run-id", f"{run}-again", "--db", db)
        assert assert_same_scores(store, run, f"{run}-again") == total
    output = invoke("rescore", "noisy", "--mode", "strict", "--new-run-id", "strict", "--db", db)
    assert "changed" in output
    strict = by_key(store, "strict")
    assert all(e.scorer_version == "acebench/2 strict" for e in strict.values())
    flipped = [k for k, e in by_key(store, "noisy").items() if e.success != strict[k].success]
    assert flipped  # e.g. a noisy number compat only type-checks (`days=9` for 5)
    shown = invoke("report", "--db", db, "--run-id", "noisy", "--run-id", "strict")
    assert f"noisy -> strict: {len(flipped)} of {total} episodes flipped" in shown and "│ scorer" in shown


@pytest.mark.skipif(ACEBENCH is None, reason="ACEBench data not found (../shared/datasets or TOOLWORLDS_DATA)")
def test_a_run_made_before_the_acebench_errata_rescores_with_them(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    invoke("run", "--tasks", "acebench", "--lang", "en", "--categories", "agent", "--no-errata", "--db", db,
           "--run-id", "old", "--workers", "0", "--results", str(tmp_path / "results"))
    store = RunStore(db)
    stored = store.run("old")
    assert stored is not None
    config = json.loads(stored.config)
    assert len(config["defects"]["acebench/en"]) == 9
    del config["query"]["errata"]  # as a run made before errata existed recorded its query
    store.set_config("old", config)
    output = invoke("rescore", "old", "--new-run-id", "new", "--db", db)
    assert "44 scored again, 41 with the same scores, 3 changed" in output and "6 left out" in output
    new = store.run("new")
    assert new is not None and json.loads(new.config)["defects"] == {"acebench/en": []}  # all corrected
    changed = {k[1] for k, e in by_key(store, "new").items() if e.process != by_key(store, "old")[k].process}
    assert changed == {"agent_multi_step_12", "agent_multi_step_13", "agent_multi_turn_6"}  # longer gold paths
    assert "old -> new: 0 of 44 episodes flipped" in invoke("report", "--db", db, "--run-id", "old", "--run-id", "new")


def test_a_family_s_scorers_are_the_module_it_declares_and_none_is_found_by_name(monkeypatch: Any) -> None:
    import importlib
    import pkgutil

    import evaluators
    import evaluators.conventions as conventions

    acebench_scorers = importlib.import_module("evaluators.acebench")
    assert family_function("acebench", "score_episode") is acebench_scorers.score_episode
    assert family_function("todo", "score_run") is None and family_function("nope", "score_run") is None
    assert family_function("banking", "score_episode") is acebench_scorers.score_episode  # its special cases
    assert family_function("todo", "score_episode") is acebench_scorers.score_episode  # its special cases too
    assert family_function("world:scenarios.todo.app:todo_world", "score_episode") is acebench_scorers.score_episode
    assert scorer_version("world:scenarios.todo.app:todo_world") == "world/1 compat"
    # Every scorer package under evaluators/ is some family's declared one: none is orphaned.
    packages = {f"evaluators.{info.name}" for info in pkgutil.iter_modules(evaluators.__path__) if info.ispkg}
    modules = packages | {"evaluators.banking", "evaluators.generated"}
    assert modules == {family(name).scorers for name in scored_families()}
    # A family that declares scorers it cannot import is an error, never the generic score.
    broken = dataclasses.replace(family("banking"), scorers="evaluators.no_such_module")
    monkeypatch.setattr(conventions, "family", lambda name: broken)
    with pytest.raises(ModuleNotFoundError):
        family_function("banking", "score_episode")
