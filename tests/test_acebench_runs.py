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
from scenarios.acebench.items import AceItem
from scenarios.datasets import dataset_dir
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
