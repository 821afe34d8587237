"""ACEBench as a runnable benchmark: every category run end to end, by the oracle and by an
LLM agent behind a local OpenAI-compatible server, scored as `score acebench` scores."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from evaluators.acebench import score_directory, summarize
from scenarios.acebench.family import FAMILY
from scenarios.acebench.items import AceItem, read_items
from scenarios.acebench.tasks import read_tasks
from scenarios.datasets import ENV_VAR, dataset_dir
from scenarios.family import TaskQuery
from tests.fake_chat import chat_endpoint
from toolworlds.agents import OracleAgent
from toolworlds.cli import app
from toolworlds.episodes import run_episode
from toolworlds.llm import ChatClient, LLMAgent

pytestmark = pytest.mark.long_running  # collected first: see tests/conftest.py

DATA = dataset_dir("acebench")
needs_data = pytest.mark.skipif(DATA is None, reason="ACEBench data not found (../shared/datasets or TOOLWORLDS_DATA)")
END = "finish conversation"


def _run(tmp_path: Path, *options: str) -> tuple[str, Path]:
    results = tmp_path / "results"
    arguments = ["run", "--tasks", "acebench", "--lang", "en", "--db", f"sqlite:///{tmp_path / 'runs.db'}",
                 "--run-id", "r", "--results", str(results), *options]
    outcome = CliRunner().invoke(app, arguments, env={"COLUMNS": "200"})
    assert outcome.exit_code == 0, outcome.output
    return outcome.output, results / "acebench_en"


@needs_data
def test_the_oracle_run_prints_the_reference_perfect_answer_scores(tmp_path: Path) -> None:
    output, folder = _run(tmp_path, "--data", str(DATA), "--agent", "oracle",
                          "--filter-category", "normal", "--filter-category", "special")
    assert "the paper's table" in output and "0.907" in output and "0.993" in output
    compat = score_directory(DATA / "data_en", folder, "compat")
    summary = summarize({name: s.accuracy for name, s in compat.items()})
    assert (summary["normal"], summary["special"]) == (0.907, 0.993)
    strict = score_directory(DATA / "data_en", folder, "strict")
    assert all(s.accuracy == 1.0 for s in strict.values())
    assert not (folder / "data_agent_multi_turn_result.json").exists()


def test_items_have_acebench_prompts_and_end_after_one_reply() -> None:
    item = AceItem(id="special_incomplete_0", category="special_incomplete", lang="en",
                   history="user: find me shoes\n", time="Today is 2024-01-01.",
                   functions=[{"name": "search_products", "parameters": {"required": ["sort"]}}],
                   ground_truth={"search_products": ["sort"]})
    assert "Missing necessary parameters (key1, key2, ...) for the api (ApiName)" in item.system_prompt
    assert "Today is 2024-01-01." in item.system_prompt and '"search_products"' in item.system_prompt
    assert item.question == "Conversation history 1..t:\nuser: find me shoes\n"
    zh = item.model_copy(update={"lang": "zh"})
    assert "对话历史1..t" in zh.question and "Missing necessary parameters" in zh.system_prompt
    world, episode = run_episode(item, OracleAgent(item))
    assert episode.stop_reason == "single reply" and episode.process == [item.paths[0][0]] and not world.log


def _gold_model(tasks: list[Any], replies: dict[str, str] | None = None) -> Any:
    """A fake model that answers each prompt as the oracle would: the item's possible answer,
    or the next milestone of the agent task's gold path, then "finish conversation"."""
    by_prompt = {(t.system_prompt, t.question): t for t in tasks}
    seen: list[dict[str, Any]] = []

    def model(body: dict[str, Any]) -> dict[str, Any]:
        seen.append(body)
        messages = body["messages"]
        task = by_prompt[(messages[0]["content"], messages[1]["content"])]
        steps = sum(1 for m in messages if m["role"] == "assistant")
        path = task.paths[0] if task.paths else []
        content = (replies or {}).get(task.id) or (path[steps] if steps < len(path) else END)
        return {"role": "assistant", "content": content}

    model.seen = seen  # type: ignore[attr-defined]
    return model


@needs_data
def test_an_llm_run_over_a_fake_endpoint_reproduces_the_perfect_answer_scores(tmp_path: Path) -> None:
    query = TaskQuery(data=DATA, limit=40)
    tasks = FAMILY.tasks(query).tasks
    model = _gold_model(tasks)
    with chat_endpoint(model) as url:
        output, folder = _run(tmp_path, "--data", str(DATA), "--agent", "llm", "--model", "m", "--base-url", url,
                              "--limit", "40")
    assert all("tools" not in body for body in model.seen)  # ACEBench's bracket protocol: no native tools
    for mode in ("compat", "strict"):
        ran = score_directory(DATA / "data_en", folder, mode, only_given=True)  # type: ignore[arg-type]
        perfect = tmp_path / f"perfect_{mode}"
        perfect.mkdir()
        for name in ran:
            lines = [json.loads(line) for line in (folder / f"data_{name}_result.json").read_text().splitlines()]
            if not name.startswith("agent"):
                task_by_id = {t.id: t for t in tasks}
                lines = [{"id": row["id"], "result": task_by_id[row["id"]].paths[0][0]} for row in lines]
            (perfect / f"data_{name}_result.json").write_text("".join(json.dumps(r) + "\n" for r in lines))
        expected = score_directory(DATA / "data_en", perfect, mode, only_given=True)  # type: ignore[arg-type]
        assert {n: s.accuracy for n, s in ran.items()} == {n: s.accuracy for n, s in expected.items()}
    assert {"agent_multi_turn", "agent_multi_step", "normal_atom_bool", "special_irrelevant"} <= set(ran)
    assert ran["agent_multi_turn"].total >= 1 and "the paper's table" in output
    # The stored LLM run scored again from its transcripts alone: the same scores, the endpoint not asked.
    asked = len(model.seen)  # type: ignore[attr-defined]
    rescored = CliRunner().invoke(app, ["rescore", "r", "--new-run-id", "again", "--db",
                                        f"sqlite:///{tmp_path / 'runs.db'}"])
    assert rescored.exit_code == 0, rescored.output
    assert "40 episodes stored, 40 scored again, 40 with the same scores" in rescored.output
    assert len(model.seen) == asked  # type: ignore[attr-defined]


def test_a_missing_sort_named_as_sort_by_is_wrong_in_strict_mode_only(tmp_path: Path) -> None:
    data = tmp_path / "data" / "data_en"
    (data / "possible_answer").mkdir(parents=True)
    functions = [{"name": "search_products", "description": "Search the catalogue.",
                  "parameters": {"type": "object", "properties": {"query": {"type": "string"},
                                                                  "sort": {"type": "string"}},
                                 "required": ["query", "sort"]}}]
    prompt = {"id": "special_incomplete_0", "question": "user: find me running shoes\n", "function": functions,
              "time": ""}
    (data / "data_special_incomplete.json").write_text(json.dumps(prompt) + "\n")
    answer = {"id": "special_incomplete_0", "ground_truth": {"search_products": ["sort"]}}
    (data / "possible_answer" / "data_special_incomplete.json").write_text(json.dumps(answer) + "\n")
    tasks = FAMILY.tasks(TaskQuery(data=data.parent)).tasks
    reply = '["Missing necessary parameters (sort by) for the api (search_products)"]'
    with chat_endpoint(_gold_model(tasks, {"special_incomplete_0": reply})) as url:
        agent = LLMAgent.for_task(ChatClient(url, "m"), tasks[0])
        _, episode = run_episode(tasks[0], agent)
        _, folder = _run(tmp_path, "--data", str(data.parent), "--agent", "llm", "--model", "m",
                              "--base-url", url)
    assert episode.process == [reply]
    assert score_directory(data, folder, "compat")["special_incomplete"].accuracy == 1.0
    assert score_directory(data, folder, "strict")["special_incomplete"].accuracy == 0.0


@needs_data
def test_agent_tasks_carry_acebench_scenario_rules_and_user_rules() -> None:
    tasks = FAMILY.tasks(TaskQuery(data=DATA, categories=("agent",))).tasks
    travel = next(t for t in tasks if "Travel" in t.involved_classes and t.category == "multi_turn")
    phone = next(t for t in tasks if "MessageApi" in t.involved_classes and t.category == "multi_turn")
    assert travel.protocol == "bracket" and "airline agent" in travel.system_prompt
    assert "login_device()" in phone.system_prompt and "finish conversation" in phone.system_prompt
    assert "Book a round-trip flight" in travel.user_prompt and travel.question in travel.user_prompt
    assert "which message to delete" in phone.user_prompt
    assert FAMILY.tasks(TaskQuery(data=DATA, categories=("nope",))).problems


# -- task data that is broken: problems naming file, line and field; the rest still load ------------------


def _task_line(task_id: str, **fields: Any) -> str:
    """One agent task (turn the Wi-Fi on) as a line of a prompt file."""
    task = {"id": task_id, "question": "Turn the Wi-Fi on.", "initial_config": {"BaseApi": {"wifi": False}},
            "involved_classes": ["BaseApi"], "function": [], **fields}
    return json.dumps(task)


def _answer_line(task_id: str, **fields: Any) -> str:
    answer = {"id": task_id, "ground_truth": [{"BaseApi": {"wifi": True, "logged_in": True}}],
              "mile_stone": ["[turn_on_wifi()]"], **fields}
    return json.dumps(answer)


def _agent_file(folder: Path, prompts: list[str | bytes], answers: list[str | bytes]) -> Path:
    """A multi-step prompt file of these lines in `folder`, with possible answers of those beside it."""
    (folder / "possible_answer").mkdir(parents=True, exist_ok=True)
    prompt_file = folder / "data_agent_multi_step.json"
    for path, lines in ((prompt_file, prompts), (folder / "possible_answer" / prompt_file.name, answers)):
        path.write_bytes(b"".join((line if isinstance(line, bytes) else line.encode()) + b"\n" for line in lines))
    return prompt_file


def test_lines_json_cannot_read_are_problems_naming_their_line(tmp_path: Path) -> None:
    """Not UTF-8, an integer past Python's 4,300 digits (a plain ValueError from `json`), nesting deeper
    than the stack (a RecursionError): each is a problem like a truncated line, and the rest load."""
    prompts = [_task_line("t0"), b'{"id": "t1", "question": "caf\xe9"}', '{"id": "t2", "n": ' + "9" * 5000 + "}",
               "[" * 100_000 + "]" * 100_000, _task_line("t3")]
    loaded = read_tasks(_agent_file(tmp_path, prompts, [_answer_line("t0"), _answer_line("t3")]))
    assert loaded.problems == ["data_agent_multi_step.json:2: not valid UTF-8 (byte 0xe9 at column 30)",
                               "data_agent_multi_step.json:3: not valid JSON (an integer too long to read)",
                               "data_agent_multi_step.json:4: not valid JSON (nested too deeply to read)"]
    assert [task.id for task in loaded.tasks] == ["t0", "t3"]


def test_a_bad_possible_answer_line_is_named_by_its_path_in_the_data_folder(tmp_path: Path) -> None:
    loaded = read_tasks(_agent_file(tmp_path, [_task_line("t0")], [_answer_line("t0"), "{oops"]))
    assert loaded.problems == ["possible_answer/data_agent_multi_step.json:2: not valid JSON (Expecting property "
                               "name enclosed in double quotes)"]


def test_a_repeated_task_or_answer_id_is_a_problem_and_the_first_is_kept(tmp_path: Path) -> None:
    """Episodes are stored by task id: a second task of an id would replace the first one's episode, and a
    second answer of an id would silently be the first task's ground truth."""
    prompts = [_task_line("t0"), _task_line("t1"), _task_line("t0", question="Something else.")]
    answers = [_answer_line("t0"), _answer_line("t1"), _answer_line("t1", mile_stone=["[login_device()]"])]
    loaded = read_tasks(_agent_file(tmp_path, prompts, answers))
    assert loaded.problems == ["possible_answer/data_agent_multi_step.json:3: duplicate id t1 (first at line 2)",
                               "data_agent_multi_step.json:3: duplicate id t0 (first at line 1)"]
    assert [(task.id, task.question, task.paths) for task in loaded.tasks] == [
        ("t0", "Turn the Wi-Fi on.", [["[turn_on_wifi()]"]]), ("t1", "Turn the Wi-Fi on.", [["[turn_on_wifi()]"]])]


def _item_files(folder: Path, category: str, prompts: list[Any], answers: list[Any]) -> None:
    """An item file of `category` (one JSON line per entry) with its possible answers beside it."""
    (folder / "possible_answer").mkdir(parents=True, exist_ok=True)
    name = f"data_{category}.json"
    (folder / name).write_text("".join(json.dumps(row) + "\n" for row in prompts))
    (folder / "possible_answer" / name).write_text("".join(json.dumps(row) + "\n" for row in answers))


def _item(item_id: Any) -> dict[str, Any]:
    functions = [{"name": "set_alarm", "description": "Set an alarm.",
                  "parameters": {"type": "object", "properties": {"on": {"type": "boolean"}}, "required": ["on"]}}]
    return {"id": item_id, "question": "user: wake me up\n", "function": functions}


def test_item_ids_and_possible_answers_are_checked_when_read(tmp_path: Path) -> None:
    """An id that is a list or an object (unhashable) and a possible answer of the wrong shape are problems
    naming the line and the field, found at load rather than as an AttributeError mid-run."""
    good = {"set_alarm": {"on": True}}
    _item_files(tmp_path, "normal_atom_bool",
                [_item("ok"), _item(["x"]), _item({"x": 1}), *(_item(f"bad{n}") for n in range(5)), _item("ok")],
                [{"id": "ok", "ground_truth": good}, {"id": ["x"], "ground_truth": good},
                 {"id": "bad0", "ground_truth": "oops"}, {"id": "bad1", "ground_truth": 7},
                 {"id": "bad2", "ground_truth": None}, {"id": "bad3", "ground_truth": [good, "oops"]},
                 {"id": "bad4", "ground_truth": {"set_alarm": [1, 2]}}])
    _item_files(tmp_path, "special_error_param", [_item("e0"), _item("e1")],
                [{"id": "e0", "ground_truth": {"on": []}}, {"id": "e1", "ground_truth": {"on": ["maybe"]}}])
    loaded = read_items(tmp_path, "en", ("normal_atom_bool", "special_error_param"))
    answers = "possible_answer/data_normal_atom_bool.json"
    assert loaded.problems == [
        f"{answers}:2: no id (an 'id' text field)",
        "data_normal_atom_bool.json:2: no id (an 'id' text field)",
        "data_normal_atom_bool.json:3: no id (an 'id' text field)",
        "data_normal_atom_bool.json:9: duplicate id ok (first at line 1)",
        f"{answers}:3: bad0: ground_truth must be an object of calls, not 'oops'",
        f"{answers}:4: bad1: ground_truth must be an object of calls, not a number",
        f"{answers}:5: bad2: ground_truth must be an object of calls, not null",
        f"{answers}:6: bad3: ground_truth[1] must be an object of calls, not 'oops'",
        f"{answers}:7: bad4: ground_truth['set_alarm'] must be an object of arguments, not a list",
        "possible_answer/data_special_error_param.json:1: e0: ground_truth['on'] must be a non-empty list, "
        "not an empty list"]
    assert [item.id for item in loaded.tasks] == ["ok", "e1"]
    assert all(item.paths for item in loaded.tasks)  # the oracle's reply: what failed mid-run before


def test_english_data_is_never_also_read_as_chinese(tmp_path: Path) -> None:
    """A `data_en` folder, or a single file in one, holds English tasks only: a run without --lang runs
    them once, as English."""
    folder = tmp_path / "data_en"
    prompt_file = _agent_file(folder, [_task_line("t0")], [_answer_line("t0")])
    _item_files(folder, "normal_atom_bool", [_item("i0")], [{"id": "i0", "ground_truth": {"set_alarm": {"on": True}}}])
    for source in (prompt_file, folder):
        assert FAMILY.tasks(TaskQuery(lang="zh", data=source)).tasks == [], source
        assert FAMILY.tasks(TaskQuery(lang="en", data=source)).tasks, source
    output = _run_languages(tmp_path, "--data", str(prompt_file), "--agent", "oracle")
    assert "acebench/en" in output and "acebench/zh" not in output and "no data for zh" in output


def _run_languages(tmp_path: Path, *options: str) -> str:
    """What `toolworlds run --tasks acebench` prints without --lang (it runs the languages the data holds)."""
    arguments = ["run", "--tasks", "acebench", "--db", f"sqlite:///{tmp_path / 'runs.db'}", "--run-id", "r",
                 "--results", str(tmp_path / "results"), *options]
    outcome = CliRunner().invoke(app, arguments, env={"COLUMNS": "200"})
    assert outcome.exit_code == 0, outcome.output
    return outcome.output


def test_doctor_reports_a_task_whose_world_cannot_be_built_and_lints_the_others(tmp_path: Path) -> None:
    prompts = [_task_line("t0"), _task_line("t1", initial_config={"BaseApi": [1, 2]}),
               _task_line("t2", involved_classes=["BaseApi", "NoSuchApi"]),
               _task_line("t3", initial_config={"BaseApi": {"wifi": "false"}}), _task_line("t4")]
    prompt_file = _agent_file(tmp_path, prompts, [_answer_line(f"t{n}") for n in range(5)])
    report = FAMILY.replay(prompt_file, "en", {}) if FAMILY.replay else None
    assert report is not None and report.summary == "reproduced 2/5 tasks"
    assert report.findings == [
        "t1: initial state invalid: initial_config.BaseApi must be an object, not a list",
        "t2: initial state invalid: unknown ACEBench classes: NoSuchApi; known: BaseApi, MessageApi, ReminderApi, "
        "FoodPlatform, Travel",
        "t3: initial state invalid: initial_config.BaseApi.wifi must be true or false, not 'false'"]
    doctor = CliRunner().invoke(app, ["doctor", "acebench", "--data", str(prompt_file)], env={"COLUMNS": "200"})
    assert doctor.exit_code == 1, doctor.output
    assert "t1: initial state invalid" in doctor.output and "5 rows: 2 reproduce, 3 finding(s)" in doctor.output


def test_a_data_folder_setting_that_names_no_folder_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    missing = tmp_path / "not-here"
    monkeypatch.setenv(ENV_VAR, str(missing))
    with pytest.raises(LookupError, match=f"no acebench data found: TOOLWORLDS_DATA names {missing}, which is not a "
                       "folder"):
        FAMILY.data_source(None)


def test_a_data_folder_set_one_level_too_deep_says_where_it_looked_and_what_works(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """TOOLWORLDS_DATA naming the acebench folder itself (it holds data_en/) is the usual slip: the
    error names the path it looked for and the setting that works, through the command a user runs."""
    inner = tmp_path / "datasets" / "acebench"
    (inner / "data_en").mkdir(parents=True)
    monkeypatch.setenv(ENV_VAR, str(inner))
    result = CliRunner().invoke(app, ["replay", "acebench"], env={"COLUMNS": "300"})
    assert result.exit_code != 0 and "Traceback" not in result.output
    said = " ".join(result.output.split())
    assert f"looked for {inner / 'acebench'}, which does not exist" in said, said
    assert f"itself looks like the acebench folder: set TOOLWORLDS_DATA={inner.parent}" in said, said
    elsewhere = tmp_path / "empty"
    elsewhere.mkdir()
    monkeypatch.setenv(ENV_VAR, str(elsewhere))
    with pytest.raises(LookupError, match=r"expected layout: acebench/data_en/data_agent_multi_step\.json"):
        FAMILY.data_source(None)


def test_replay_names_an_unreadable_line_and_an_empty_folder_and_exits_1(tmp_path: Path) -> None:
    """`replay` printed `reproduced 0/0` or a count over the lines it could read, exit 0: a broken line
    and a folder with no tasks are named, and the command fails."""
    broken = tmp_path / "broken"
    (broken / "possible_answer").mkdir(parents=True)
    (broken / "data_agent_multi_step.json").write_text('{"id": "t1", oops\n')
    (broken / "possible_answer" / "data_agent_multi_step.json").write_text("")
    empty = tmp_path / "empty"
    empty.mkdir()
    for folder, said in ((broken, "data_agent_multi_step.json:1: not valid JSON"),
                         (empty, f"no agent task files found under {empty}")):
        result = CliRunner().invoke(app, ["replay", "acebench", "--data", str(folder)], env={"COLUMNS": "300"})
        assert result.exit_code == 1, result.output
        assert f"unreadable: {said}" in result.output and "Traceback" not in result.output
    assert "0/0" not in result.output  # the empty folder: no table of nothing
