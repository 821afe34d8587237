"""API-Bank as a runnable benchmark: levels 1-3 run end to end, by the oracle and by an LLM agent
behind a local OpenAI-compatible server, and scored as `score apibank` scores."""

from __future__ import annotations

import json
import pickle
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from evaluators.apibank import Scorer, score_episode, score_scene
from sandbox import World
from scenarios.apibank.family import CATEGORIES, FAMILY
from scenarios.apibank.replay import apibank_folder
from scenarios.apibank.samples import ApiBankSample
from scenarios.apibank.scenes import Level3Task
from scenarios.apibank.world_base import WorldBase
from scenarios.datasets import dataset_dir
from scenarios.family import TaskQuery
from tests.fake_chat import chat_endpoint
from toolworlds.agents import OracleAgent, Turn
from toolworlds.cli import app
from toolworlds.episodes import run_episode
from toolworlds.store import RunStore

DATA = dataset_dir("api-bank")
pytestmark = pytest.mark.skipif(DATA is None, reason="API-Bank data not found (../shared/datasets or TOOLWORLDS_DATA)")
PER_LEVEL = 4  # tasks per level in the suite's oracle runs; the full-run figures are in docs/evaluators.md
LIMIT = 15  # tasks of the LLM runs: three of each of the five categories


def _run(tmp_path: Path, *options: str) -> tuple[str, Path, list[Any]]:
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    arguments = ["run", "--tasks", "apibank", "--data", str(DATA), "--db", db, "--run-id", "r",
                 "--results", str(tmp_path / "results"), *options]
    outcome = CliRunner().invoke(app, arguments, env={"COLUMNS": "200"})
    assert outcome.exit_code == 0, outcome.output
    store = RunStore(db)
    episodes = store.episodes("r")
    store.close()
    return outcome.output, tmp_path / "results" / "apibank_en", episodes


def _tasks(level: int) -> list[Any]:
    return FAMILY.tasks(TaskQuery(data=DATA, categories=(f"level-{level}",), limit=PER_LEVEL)).tasks


def test_the_levels_hold_the_reference_samples() -> None:
    tasks = FAMILY.tasks(TaskQuery(data=DATA)).tasks
    counts = Counter(t.category for t in tasks)
    assert counts == {"level-1-api": 389, "level-2-api": 119, "level-1-response": 1001, "level-2-response": 209,
                      "level-3": 8}
    assert sum(t.after_call for t in tasks if isinstance(t, ApiBankSample)) == 478  # the reference's reply set
    scenes = [t for t in tasks if isinstance(t, Level3Task)]
    assert sum(len(t.calls) for t in scenes) == 34
    assert all(call.result and call.result["exception"] is None for t in scenes for call in t.calls)
    assert {t.id for t in scenes if t.repairs} == {"Financial Management", "Health Management", "Shopping"}
    assert FAMILY.tasks(TaskQuery(data=DATA, categories=("level-4",))).problems


@pytest.mark.parametrize("level", [1, 2, 3])
def test_the_oracle_scores_one_per_level(tmp_path: Path, level: int) -> None:
    output, folder, episodes = _run(tmp_path, "--agent", "oracle", "--level", str(level), "--limit", str(PER_LEVEL))
    assert len(episodes) == PER_LEVEL and all(e.success and e.process == 1.0 for e in episodes)
    assert {e.category.split("-")[1] for e in episodes} == {str(level)}
    if level == 3:
        assert "API-Bank level 3" in output and (folder / "level3.jsonl").is_file()
    else:
        # The printed table's width follows the console's (80 columns in an xdist worker), so the
        # figure is checked by scoring the written predictions as `score apibank` does.
        assert f"API call accuracy, level {level}" in output
        rows = [json.loads(line) for line in (folder / "predictions.jsonl").read_text().splitlines()]
        scores = Scorer(apibank_folder(FAMILY.data_source(DATA))).score(rows)
        assert len(rows) == PER_LEVEL and scores.accuracy() == 1.0


def _wrapped(text: str, style: int) -> str:
    """A gold reply written three ways: as it is, behind `API-Request:`, and inside a sentence."""
    return [text, f"API-Request: {text}", f"Sure, let me do that.\n{text}\nI will wait for the result."][style % 3]


def _gold_model(tasks: list[Any]) -> Any:
    """A fake model answering each prompt as the oracle would: the sample's recorded call or
    reply, or the scene's next gold call, then a closing sentence; calls written in turn as
    they are, behind `API-Request:`, and inside a sentence.
    A sample is known by its whole prompt, a scene by its system prompt and first user message."""
    samples = {json.dumps([t.system_prompt, [list(m) for m in t.opening_messages]]): t
               for t in tasks if isinstance(t, ApiBankSample)}
    scenes = {(t.system_prompt, t.question): t for t in tasks if isinstance(t, Level3Task)}
    seen: list[dict[str, Any]] = []

    def model(body: dict[str, Any]) -> dict[str, Any]:
        seen.append(body)
        system, rest = body["messages"][0]["content"], body["messages"][1:]
        key = json.dumps([system, [[m["role"], m["content"]] for m in rest]])
        task = samples.get(key) or scenes[(system, rest[0]["content"])]
        steps = 0 if isinstance(task, ApiBankSample) else sum(1 for m in rest if m["role"] == "assistant")
        path = task.paths[0]
        if steps >= len(path):
            return {"role": "assistant", "content": "Everything is done."}
        is_call = not isinstance(task, ApiBankSample) or task.kind == "api"
        content = _wrapped(path[steps], steps + len(task.id)) if is_call else path[steps]
        return {"role": "assistant", "content": content}

    model.seen = seen  # type: ignore[attr-defined]
    return model


def test_an_llm_answering_with_the_gold_scores_one_per_level(tmp_path: Path) -> None:
    levels = ("level-1", "level-2", "level-3")
    tasks = FAMILY.tasks(TaskQuery(data=DATA, categories=levels, limit=LIMIT)).tasks
    model = _gold_model(tasks)
    with chat_endpoint(model) as url:
        output, folder, episodes = _run(tmp_path, "--agent", "llm", "--model", "m", "--base-url", url,
                                        "--limit", str(LIMIT), "--level", "1", "--level", "2", "--level", "3")
    assert Counter(e.category for e in episodes) == {category: LIMIT // 5 for category in CATEGORIES}
    assert all(e.error is None for e in episodes)
    assert all(e.success and e.process == 1.0 for e in episodes), [e.task_id for e in episodes if not e.success]
    assert all("tools" not in body for body in model.seen)  # API-Bank's bracket protocol: no native tools
    first = model.seen[0]["messages"]
    assert first[0]["role"] == "system" and "This year is 2023." in first[0]["content"]
    predictions = [json.loads(line) for line in (folder / "predictions.jsonl").read_text().splitlines()]
    scenes = [json.loads(line) for line in (folder / "level3.jsonl").read_text().splitlines()]
    assert len(predictions) == 4 * LIMIT // 5 and len(scenes) == LIMIT // 5
    assert any(p["pred"].startswith("API-Request: [") for p in predictions)
    assert any(p["pred"].startswith("Sure, let me") for p in predictions)
    assert any("API-Request: [" in message for scene in scenes for message in scene["process"])
    assert "API-Bank level 3" in output and f"{LIMIT // 5}/{LIMIT // 5}" in output


def test_the_model_sees_the_reference_chat_and_descriptions() -> None:
    level1 = next(t for t in _tasks(1) if t.kind == "api" and t.prefix_calls())
    assert [api for api in level1.apis if f'"name": "{api}"' not in level1.system_prompt] == []
    rows = [content for role, content in level1.opening_messages if role == "system"]
    call = level1.prefix_calls()[0]
    assert rows[0].startswith(f"[{call.api_name}(") and "] Response: " in rows[0]
    level2 = next(t for t in _tasks(2) if t.kind == "api")
    assert '"name": "ToolSearcher"' in level2.system_prompt
    assert [api for api in level2.apis if api != "ToolSearcher" and f'"name": "{api}"' in level2.system_prompt] == []
    reply = next(t for t in _tasks(2) if t.kind == "response")
    assert "write what the AI says next" in reply.system_prompt
    assert [api for api in reply.apis if f'"name": "{api}"' not in reply.system_prompt] == []


def test_a_wrong_call_or_reply_scores_zero() -> None:
    sample = next(t for t in _tasks(1) if t.kind == "api")
    world, episode = run_episode(sample, OracleAgent(sample))
    assert score_episode(sample, world, episode.process, "exact").success
    wrong = f"API-Request: [{sample.gold_call.api_name}Typo()]"
    score = score_episode(sample, sample.world(), [wrong], "exact")
    assert not score.success and score.process == 0.0
    reply = next(t for t in _tasks(1) if t.kind == "response")
    assert score_episode(reply, World([]), ["nothing like it"], "exact").process < 0.5


class _SkippingAgent:
    """Makes a scene's gold calls but the one at `skip`, then says it is done."""

    def __init__(self, task: Level3Task, skip: int) -> None:
        self.calls = [c for i, c in enumerate(task.paths[0]) if i != skip]

    def act(self, conversation: Any, tools: Any) -> Turn:
        return Turn.from_text(self.calls.pop(0)) if self.calls else Turn(text="Done.")


def test_a_scene_with_a_gold_call_missing_is_not_solved() -> None:
    (scene,) = FAMILY.tasks(TaskQuery(data=DATA, categories=("level-3",), task_ids=("Reminder",))).tasks
    world, _ = run_episode(scene, _SkippingAgent(scene, skip=2))
    score = score_scene(scene, world)
    assert not score.success and score.process == pytest.approx(2 / 3) and score.state_fraction < 1.0
    world, _ = run_episode(scene, _SkippingAgent(scene, skip=99))
    assert score_scene(scene, world).success


def test_samples_share_one_built_world_that_stays_behind_when_pickled() -> None:
    samples = [t for t in _tasks(1) if t.kind == "api"]
    assert len({id(t.base) for t in samples}) == 1
    samples[0].world()
    assert samples[0].base.built
    copy = pickle.loads(pickle.dumps(samples[0]))
    assert isinstance(copy.base, WorldBase) and not copy.base.built and copy.base.data == samples[0].base.data
    assert copy.world().state() == samples[0].world().state()
