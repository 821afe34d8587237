"""LLM runs a researcher can trust: the native tool-calling protocol, calls read one by one,
full transcripts that replay, resumes that check their configuration, run options."""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator
from math import comb
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from scenarios.banking.family import load_tasks
from scenarios.datasets import dataset_dir
from scenarios.registry import family
from tests.fake_chat import Response, completion, say, serve
from toolworlds.agents import ChatMessage, Turn, tools_for
from toolworlds.cli import app
from toolworlds.episodes import run_episode
from toolworlds.llm import ChatClient, LLMAgent, SdkClients
from toolworlds.process_backend import ProcessBackend
from toolworlds.report_html import html_report
from toolworlds.runner import AgentSpec, ConfigMismatch, TaskSet, execute_run
from toolworlds.stats import bootstrap_interval, pass_hat, task_pass_hat
from toolworlds.store import RunStore
from toolworlds.transcript import replay

pytestmark = pytest.mark.long_running  # collected first: see tests/conftest.py

TASKS = {task.id: task for task in load_tasks("en")}
RENT = TASKS["banking_multi_step_4"]  # log in, then pay Frank 1200 from A001 to A003
LOGIN = {"customer_id": "C001", "password": "eve2024"}
TRANSFER = {"customer_id": "C001", "from_account_id": "A001", "to_account_id": "A003", "amount": 1200,
            "memo": "July rent"}


def call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


class RentModel:
    """Pays the rent in the native protocol, with one broken call along the way; records every request."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> Response:
        with self.lock:
            self.requests.append(body)
        messages = body["messages"]
        if messages[0]["role"] == "system" and "You play a user" in messages[0]["content"]:
            reply: dict[str, Any] = {"role": "assistant", "content": "finish conversation"}
        elif not any(m["role"] == "tool" for m in messages):
            # Three calls in one reply: the second's arguments are broken JSON; the others must still run.
            reply = {"role": "assistant", "content": "Logging in first.", "tool_calls": [
                call("call_a", "login_bank", json.dumps(LOGIN)),
                call("call_b", "list_accounts", '{"customer_id": "C001"'),
                call("call_c", "list_accounts", json.dumps({"customer_id": "C001"}))]}
        elif sum(m["role"] == "assistant" for m in messages) == 1:
            reply = {"role": "assistant", "content": None,
                     "tool_calls": [call("call_d", "transfer", json.dumps(TRANSFER))]}
        else:
            reply = {"role": "assistant", "content": "Paid."}
        body_out = completion(reply, body["model"])
        body_out["usage"] = {"prompt_tokens": 100 + len(messages), "completion_tokens": 7, "total_tokens": 0}
        return Response(json.dumps(body_out).encode())


@pytest.fixture
def rent_model() -> Iterator[tuple[RentModel, str]]:
    pytest.importorskip("openai")
    model = RentModel()
    with serve(model) as url:
        yield model, url + "/v1"


def test_world_execute_runs_every_call_it_can_read_and_refuses_the_others_in_place() -> None:
    world = family("banking").build_world()
    good = {"function": {"name": "list_accounts", "arguments": json.dumps({"customer_id": "C001"})}}
    broken = {"function": {"name": "list_accounts", "arguments": '{"customer_id": '}}
    records = world.execute(json.dumps({"tool_calls": [good, good, broken, good, good]}))
    assert [r.tool for r in records] == ["list_accounts", "list_accounts", None, "list_accounts", "list_accounts"]
    assert records[2].error is not None and records[2].error.type == "parse_error"
    assert "not valid JSON" in records[2].error.message
    assert all(r.error is None or r.error.type != "parse_error" for i, r in enumerate(records) if i != 2)
    text = "[list_accounts(customer_id='C001'), list_accounts(customer_id=C001), list_accounts(customer_id='C001')]"
    bracket = world.execute(text)
    assert [r.tool for r in bracket] == ["list_accounts", None, "list_accounts"]
    assert "bare word" in bracket[1].error.message  # type: ignore[union-attr]
    (unreadable,) = world.execute("[list_accounts(customer_id='C001'), list_accounts(")
    assert unreadable.error is not None and unreadable.error.type == "parse_error"


def test_the_native_protocol_sends_calls_with_ids_and_results_as_tool_messages(rent_model: tuple[RentModel, str]
                                                                               ) -> None:
    model, url = rent_model
    agent = LLMAgent.for_task(ChatClient(url, "m", api_key="test"), RENT)
    world, episode = run_episode(RENT, agent)
    assert RENT.end_state(world) == RENT.ground_truth and episode.stop_reason == "agent answered"
    second = model.requests[1]
    assert second["tools"][0]["type"] == "function"
    assistant = second["messages"][2]
    assert assistant["role"] == "assistant" and assistant["content"] == "Logging in first."
    assert [c["id"] for c in assistant["tool_calls"]] == ["call_a", "call_b", "call_c"]
    assert assistant["tool_calls"][1]["function"]["arguments"] == '{"customer_id": "C001"'  # verbatim
    results = second["messages"][3:6]
    assert [(m["role"], m["tool_call_id"]) for m in results] == [("tool", "call_a"), ("tool", "call_b"),
                                                                 ("tool", "call_c")]
    assert json.loads(results[1]["content"])["error"] == "parse_error"  # an error is a tool result too
    assert "A001" in results[2]["content"]  # the call after the broken one ran
    assert not any("execution result" in str(m.get("content")) for m in second["messages"])
    assert episode.messages[1].usage is not None and episode.messages[1].usage["completion_tokens"] == 7


def test_the_bracket_protocol_sends_no_tools_and_reads_calls_from_text() -> None:
    pytest.importorskip("openai")
    seen: list[dict[str, Any]] = []

    def model(body: dict[str, Any]) -> Response:
        seen.append(body)
        done = any(m["content"].startswith("execution result") for m in body["messages"] if m["role"] == "user")
        text = "Paid." if done else (f"[login_bank(customer_id='C001', password='eve2024'), transfer("
                                     f"{', '.join(f'{k}={v!r}' for k, v in TRANSFER.items())})]")
        return Response(json.dumps(completion({"role": "assistant", "content": text})).encode())

    with serve(model) as url:
        agent = LLMAgent.for_task(ChatClient(url + "/v1", "m", api_key="test"), RENT, "bracket")
        world, episode = run_episode(RENT, agent)
    assert RENT.end_state(world) == RENT.ground_truth
    assert "tools" not in seen[0] and "transfer" in seen[0]["messages"][0]["content"]  # tools listed in the prompt
    assert episode.process[0].startswith("[login_bank(")


def test_tools_come_in_the_format_the_agent_asks_for() -> None:
    class Wants:
        def __init__(self, tool_format: str | None) -> None:
            if tool_format:
                self.tool_format = tool_format

    assert tools_for(Wants(None), RENT.functions)[0]["type"] == "function"
    assert "input_schema" in tools_for(Wants("anthropic"), RENT.functions)[0]
    assert tools_for(Wants("acebench"), RENT.functions) == RENT.functions
    with pytest.raises(ValueError, match="unknown tool_format"):
        tools_for(Wants("yaml"), RENT.functions)


def test_a_stored_llm_transcript_is_complete_and_replays_to_the_same_end_state(
        rent_model: tuple[RentModel, str], tmp_path: Path) -> None:
    _, url = rent_model
    store = RunStore(f"sqlite:///{tmp_path / 'runs.db'}")
    (episode,) = execute_run(store, "r", [TaskSet("banking", "en", [RENT])], AgentSpec("llm", model="m", base_url=url))
    assert episode.success and episode.error is None
    messages = store.messages(episode.id)  # type: ignore[arg-type]
    assert [(m.role, m.source) for m in messages[:3]] == [("system", "agent"), ("user", "task"), ("assistant", "agent")]
    first = messages[2]
    assert first.content == "Logging in first." and first.prompt_tokens == 102 and first.completion_tokens == 7
    assert first.latency_ms is not None and first.latency_ms > 0
    assert [c["id"] for c in json.loads(first.tool_calls or "[]")] == ["call_a", "call_b", "call_c"]
    assert [m.tool_call_id for m in messages[3:6]] == ["call_a", "call_b", "call_c"]
    assert messages[-1].content == "Paid." and messages[-1].role == "assistant"
    world, records = replay(RENT, messages)
    assert RENT.end_state(world) == RENT.ground_truth
    assert [(r.tool, None if r.error is None else r.error.type) for r in records] == [
        (c.tool, c.error_type) for c in store.calls(episode.id)]  # type: ignore[arg-type]
    shown = CliRunner().invoke(app, ["show", "r", RENT.id, "--db", f"sqlite:///{tmp_path / 'runs.db'}"])
    assert shown.exit_code == 0, shown.output
    for text in ("Logging in first.", "-> login_bank(", "[call_b]", "parse_error", "call log", "102+7 tokens"):
        assert text in shown.output, text


def test_the_user_simulator_can_be_another_model_and_its_turns_are_stored(tmp_path: Path) -> None:
    pytest.importorskip("openai")
    asked: dict[str, int] = {"agent": 0, "user": 0}

    def agent_model(body: dict[str, Any]) -> Response:
        asked["agent"] += 1
        return Response(json.dumps(completion({"role": "assistant", "content": "How can I help?"})).encode())

    def user_model(body: dict[str, Any]) -> Response:
        asked["user"] += 1
        assert body["model"] == "user-m" and body.get("temperature") == 0.5
        text = "finish conversation" if len(body["messages"]) > 2 else "Please check my balance."
        return Response(json.dumps(completion({"role": "assistant", "content": text})).encode())

    task = TASKS["banking_multi_turn_2"]
    with serve(agent_model) as agent_url, serve(user_model) as user_url:
        spec = AgentSpec("llm", model="m", base_url=agent_url + "/v1", user="llm", user_model="user-m",
                         user_base_url=user_url + "/v1", temperature=0.5)
        store = RunStore(f"sqlite:///{tmp_path / 'runs.db'}")
        (episode,) = execute_run(store, "r", [TaskSet("banking", "en", [task])], spec)
    assert asked["agent"] >= 1 and asked["user"] >= 2
    sources = [(m.role, m.source) for m in store.messages(episode.id)]  # type: ignore[arg-type]
    assert sources[:4] == [("system", "agent"), ("system", "user"), ("user", "user"), ("assistant", "agent")]


def done(body: dict[str, Any]) -> Response:
    return say("Done.")


@pytest.mark.parametrize("workers", [1, 2])
def test_a_workers_episodes_share_one_sdk_client_and_its_open_connection(tmp_path: Path, workers: int) -> None:
    """An SDK client per episode made a TLS context (tens of milliseconds) and a connection per episode;
    a worker's episodes now share its client, and the endpoint sees one connection per worker."""
    pytest.importorskip("openai")
    connections: list[tuple[str, int]] = []
    tasks = [t for t in TASKS.values() if t.category == "multi_step"][:6]
    with serve(done, connections) as url:
        store = RunStore(f"sqlite:///{tmp_path / 'runs.db'}")
        episodes = execute_run(store, "r", [TaskSet("banking", "en", tasks)],
                               AgentSpec("llm", model="m", base_url=url + "/v1", timeout=10),
                               backend=ProcessBackend(workers))
    assert len(episodes) == 6 and all(e.error is None for e in episodes), [e.error for e in episodes]
    assert 1 <= len(connections) <= workers


def test_chat_clients_given_the_same_sdk_clients_share_the_client_of_their_endpoint() -> None:
    pytest.importorskip("openai")
    clients = SdkClients()
    connections: list[tuple[str, int]] = []
    with serve(done, connections) as first, serve(done) as second:
        agent, user, other = (ChatClient(first + "/v1", "m", clients=clients),
                              ChatClient(first + "/v1", "user-m", clients=clients),
                              ChatClient(second + "/v1", "m", clients=clients))
        for client in (agent, user, other, agent):
            assert client.complete([{"role": "user", "content": "hi"}]).content == "Done."
        alone = ChatClient(first + "/v1", "m")
        alone.complete([{"role": "user", "content": "hi"}])
        clients.close()
    assert agent._client is user._client and other._client is not agent._client
    assert alone._client is not agent._client
    assert len(connections) == 2  # the shared client's one, and the client of its own


def test_an_llm_agents_multi_turn_tasks_get_the_model_played_user_by_default(tmp_path: Path) -> None:
    """The default user ("auto") role-plays a multi-turn task's simulator instruction with the
    model; a multi-step task's instruction is the user's message as it is, with no simulator."""
    pytest.importorskip("openai")
    users: list[str] = []

    def model(body: dict[str, Any]) -> Response:
        system = body["messages"][0]["content"]
        if system.startswith("You play a user"):
            users.append(system)
            text = "finish conversation" if len(body["messages"]) > 2 else "What are my balances?"
        else:
            text = "Your balances are in your accounts."
        return Response(json.dumps(completion({"role": "assistant", "content": text})).encode())

    multi_turn = TASKS["banking_multi_turn_0"]
    multi_step = next(t for t in TASKS.values() if t.category == "multi_step")
    with serve(model) as url:
        store = RunStore(f"sqlite:///{tmp_path / 'runs.db'}")
        episodes = execute_run(store, "r", [TaskSet("banking", "en", [multi_turn, multi_step])],
                               AgentSpec("llm", model="m", base_url=url + "/v1"))
    assert users and all(multi_turn.question in prompt for prompt in users)
    opening = {e.task_id: next(m.content for m in store.messages(e.id) if m.role == "user") for e in episodes}
    assert opening == {multi_turn.id: "What are my balances?", multi_step.id: multi_step.question}
    assert not AgentSpec("oracle").simulates_user(multi_turn) and not AgentSpec("llm", user="scripted").simulates_user(
        multi_turn)


def test_a_resume_with_another_configuration_is_refused_unless_forced(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'runs.db'}"
    base = ["run", "--db", url, "--run-id", "r", "--limit", "2", "--lang", "en", "--agent", "noisy", "--seed", "1"]
    assert CliRunner().invoke(app, base).exit_code == 0
    same = CliRunner().invoke(app, [*base, "--resume"])
    assert same.exit_code == 0, same.output
    for change, named in ((["--seed", "2"], "seed"), (["--categories", "multi_turn"], "query"),
                          (["--trials", "2"], "trials"), (["--lang", "zh"], "task_sets"),
                          (["--max-steps", "5"], "max_steps")):
        refused = CliRunner().invoke(app, [*base, *change, "--resume"])
        assert refused.exit_code == 2 and f"{named}: stored" in refused.output and "--force" in refused.output
    grown = CliRunner().invoke(app, [*base, "--limit", "4", "--resume"])  # a larger sample of the same run
    assert grown.exit_code == 0, grown.output
    forced = CliRunner().invoke(app, [*base, "--limit", "4", "--seed", "2", "--resume", "--force"])
    assert forced.exit_code == 0, forced.output
    store = RunStore(url)
    run = store.run("r")
    assert run is not None
    config = json.loads(run.config)
    (record,) = config["forced"]
    assert record["differences"] == ["seed: stored 1, given 2"]
    assert [entry["limit"] for entry in config["limits"]] == [[2, 4]] and config["query"]["limit"] == 4
    with pytest.raises(ConfigMismatch):
        execute_run(store, "r", [TaskSet("banking", "en", load_tasks("en")[:2])], AgentSpec("oracle"))


def test_a_resume_with_another_model_is_refused(rent_model: tuple[RentModel, str], tmp_path: Path) -> None:
    _, endpoint = rent_model
    url = f"sqlite:///{tmp_path / 'runs.db'}"
    base = ["run", "--db", url, "--run-id", "r", "--lang", "en", "--task-ids", RENT.id, "--agent", "llm",
            "--base-url", endpoint]
    first = CliRunner().invoke(app, [*base, "--model", "model-a"])
    assert first.exit_code == 0, first.output
    again = CliRunner().invoke(app, [*base, "--model", "model-b", "--resume"])
    assert again.exit_code == 2 and 'model: stored "model-a", given "model-b"' in again.output


def test_trials_repeat_each_task_and_resume_per_trial(tmp_path: Path) -> None:
    store = RunStore(f"sqlite:///{tmp_path / 'runs.db'}")
    tasks = [TaskSet("banking", "en", load_tasks("en")[:3])]
    episodes = execute_run(store, "r", tasks, AgentSpec("noisy", noise=0.5, seed=1), trials=3)
    assert sorted((e.task_id, e.trial) for e in episodes) == sorted(
        (t.id, k) for t in tasks[0].tasks for k in range(3))
    by_trial = {k: [e.success for e in episodes if e.trial == k] for k in range(3)}
    assert len({tuple(v) for v in by_trial.values()}) > 1  # each trial draws its own mistakes
    assert len(execute_run(store, "r", tasks, AgentSpec("noisy", noise=0.5, seed=1), trials=3)) == 9
    pytest.importorskip("matplotlib")
    page = html_report(store, "r")
    outcomes: dict[str, list[bool]] = {}
    for episode in episodes:
        outcomes.setdefault(episode.task_id, []).append(episode.success)
    expected = sum(comb(sum(v), 3) / comb(3, 3) for v in outcomes.values()) / 3
    assert "<th>pass^3</th>" in page and f"{expected:.3f}" in page


def test_pass_hat_k_and_its_interval() -> None:
    assert task_pass_hat([True, True, False], 2) == pytest.approx(1 / 3)  # C(2,2)/C(3,2)
    assert task_pass_hat([True, False], 3) is None
    score, values = pass_hat({"a": [True, True], "b": [True, False], "c": [False, False]}, 1)
    assert score == pytest.approx(0.5) and values == [1.0, 0.5, 0.0]
    assert pass_hat({"a": [True, True], "b": [True, False]}, 2)[0] == pytest.approx(0.5)
    low, high = bootstrap_interval([1.0, 0.0] * 20) or (0, 0)
    assert 0.3 < low < 0.5 < high < 0.7 and bootstrap_interval([1.0, 0.0] * 20) == (low, high)  # seeded
    assert bootstrap_interval([1.0]) is None


def test_a_database_from_before_transcripts_and_trials_opens_and_resumes(tmp_path: Path) -> None:
    database = tmp_path / "old.db"
    with sqlite3.connect(database) as connection:  # the schema the previous release wrote
        connection.executescript(OLD_SCHEMA)
    store = RunStore(f"sqlite:///{database}")
    assert store.one_trial_per_task
    sets = [TaskSet("banking", "en", load_tasks("en")[:2])]
    execute_run(store, "old", sets, AgentSpec())
    with sqlite3.connect(database) as connection:
        connection.execute("update episodes set trial = NULL")  # as the old release left them
    episodes = execute_run(store, "old", [TaskSet("banking", "en", load_tasks("en")[:3])], AgentSpec())
    assert len(episodes) == 3 and all(e.success for e in episodes)
    assert store.messages(episodes[-1].id)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="one trial per task"):
        execute_run(store, "old", sets, AgentSpec(), trials=2)


def test_a_custom_agent_is_named_by_its_import_path(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'runs.db'}"
    result = CliRunner().invoke(app, ["run", "--db", url, "--lang", "en", "--limit", "2", "--agent",
                                      "tests.test_llm_runs:ToolCounter"])
    assert result.exit_code == 0, result.output
    store = RunStore(url)
    (run,) = store.runs()
    assert run.agent == "tests.test_llm_runs:ToolCounter"
    for episode in store.episodes(run.run_id):
        assistant = [m for m in store.messages(episode.id) if m.role == "assistant"]  # type: ignore[arg-type]
        assert assistant[-1].content.startswith("I was given ") and "OpenAI tools" in assistant[-1].content
    for bad, message in (("tests.test_llm_runs:Nope", "has no 'Nope'"), ("no_such_module:X", "cannot import"),
                         ("tests.test_llm_runs:", "package.module:Factory")):
        refused = CliRunner().invoke(app, ["run", "--db", url, "--agent", bad])
        assert refused.exit_code == 2 and message in refused.output, refused.output


class ToolCounter:
    """A plug-in agent for the test above: says how many tools it got, and in which format."""

    def __init__(self, task: Any) -> None:
        self.task = task

    def act(self, conversation: list[ChatMessage], tools: list[dict[str, Any]]) -> Turn:
        kind = "OpenAI tools" if all(t.get("type") == "function" for t in tools) else "other tools"
        return Turn(text=f"I was given {len(tools)} {kind}.")


OLD_SCHEMA = """
CREATE TABLE runs (run_id VARCHAR NOT NULL, created_at DATETIME NOT NULL, agent VARCHAR NOT NULL,
    config VARCHAR NOT NULL, PRIMARY KEY (run_id));
CREATE TABLE episodes (id INTEGER NOT NULL, run_id VARCHAR NOT NULL, task_set VARCHAR NOT NULL,
    task_id VARCHAR NOT NULL, category VARCHAR NOT NULL, success BOOLEAN NOT NULL, state_fraction FLOAT NOT NULL,
    process FLOAT NOT NULL, steps INTEGER NOT NULL, calls INTEGER NOT NULL, errors INTEGER NOT NULL,
    error_types VARCHAR NOT NULL, finished BOOLEAN NOT NULL, stop_reason VARCHAR NOT NULL, diff VARCHAR NOT NULL,
    finished_at DATETIME NOT NULL, error VARCHAR, result_record VARCHAR, PRIMARY KEY (id),
    UNIQUE (run_id, task_set, task_id), FOREIGN KEY(run_id) REFERENCES runs (run_id));
CREATE INDEX ix_episodes_run_id ON episodes (run_id);
CREATE TABLE scores (id INTEGER NOT NULL, run_id VARCHAR NOT NULL, task_set VARCHAR NOT NULL,
    category VARCHAR NOT NULL, metric VARCHAR NOT NULL, value FLOAT NOT NULL, PRIMARY KEY (id),
    FOREIGN KEY(run_id) REFERENCES runs (run_id));
CREATE TABLE calls (id INTEGER NOT NULL, episode_id INTEGER NOT NULL, seq INTEGER NOT NULL, tool VARCHAR,
    arguments VARCHAR NOT NULL, result VARCHAR NOT NULL, error_type VARCHAR, error_message VARCHAR,
    PRIMARY KEY (id), FOREIGN KEY(episode_id) REFERENCES episodes (id));
"""


def test_export_writes_every_episode_in_each_format_and_datasets_loads_them(
        rent_model: tuple[RentModel, str], tmp_path: Path) -> None:
    datasets = pytest.importorskip("datasets")
    pytest.importorskip("pyarrow")
    _, endpoint = rent_model
    url = f"sqlite:///{tmp_path / 'runs.db'}"
    store = RunStore(url)
    broken = TaskSet("banking", "en", [TASKS["banking_multi_step_0"]])
    execute_run(store, "r", [TaskSet("banking", "en", [RENT])], AgentSpec("llm", model="m", base_url=endpoint))
    # One episode whose endpoint is down: exported, marked, with no reward.
    execute_run(store, "r", [broken, TaskSet("banking", "en", [RENT])], AgentSpec("llm", model="m",
                base_url="http://127.0.0.1:9/v1", timeout=0.2, retries=0), force=True)
    execute_run(store, "oracle", [TaskSet("banking", "en", load_tasks("en")[:4])], AgentSpec())
    store.close()
    files = {}
    for fmt, name in (("openai-jsonl", "r.jsonl"), ("sharegpt", "r.sharegpt.jsonl"), ("parquet", "r.parquet")):
        files[fmt] = tmp_path / name
        result = CliRunner().invoke(app, ["export", "r", "--format", fmt, "--out", str(files[fmt]), "--db", url])
        assert result.exit_code == 0, result.output
        assert "wrote 2 episodes" in result.output
    loaded = datasets.load_dataset("json", data_files=str(files["openai-jsonl"]), split="train")
    assert loaded.num_rows == 2
    by_task = {row["metadata"]["task_id"]: row for row in loaded}
    solved, failed = by_task[RENT.id], by_task["banking_multi_step_0"]
    assert solved["reward"] == 1.0 and not solved["metadata"]["failed"]
    assert failed["reward"] is None and failed["metadata"]["failed"] and "EndpointError" in failed["metadata"]["error"]
    roles = [m["role"] for m in solved["messages"]]
    assert roles[:5] == ["system", "user", "assistant", "tool", "tool"] and roles[-1] == "assistant"
    assert [c["id"] for c in solved["messages"][2]["tool_calls"]] == ["call_a", "call_b", "call_c"]
    assert solved["messages"][3]["tool_call_id"] == "call_a"
    assert {t["function"]["name"] for t in solved["tools"]} >= {"login_bank", "transfer"}
    assert solved["metadata"]["prompt_tokens"] > 0 and solved["metadata"]["model"] == "m"
    parquet = datasets.load_dataset("parquet", data_files=str(files["parquet"]), split="train")
    assert parquet.num_rows == 2 and sorted(parquet["reward"], key=str) == sorted(loaded["reward"], key=str)
    assert json.loads(parquet[0]["tools"])[0]["type"] == "function"
    shared = datasets.load_dataset("json", data_files=str(files["sharegpt"]), split="train")
    turns = next(r for r in shared if r["metadata"]["task_id"] == RENT.id)["conversations"]
    assert [t["from"] for t in turns[:3]] == ["human", "function_call", "observation"]
    oracle = tmp_path / "oracle.jsonl"
    assert CliRunner().invoke(app, ["export", "oracle", "-o", str(oracle), "--db", url]).exit_code == 0
    rows = datasets.load_dataset("json", data_files=str(oracle), split="train")
    assert rows.num_rows == 4 and set(rows["reward"]) == {1.0}
    refused = CliRunner().invoke(app, ["export", "nope", "--db", url])
    assert refused.exit_code == 2 and "no run 'nope'" in refused.output


ACEBENCH = dataset_dir("acebench")


@pytest.mark.skipif(ACEBENCH is None, reason="ACEBench data not found (../shared/datasets or TOOLWORLDS_DATA)")
def test_acebench_runs_only_the_languages_its_data_holds_and_scores_without_its_defective_tasks(
        tmp_path: Path) -> None:
    assert ACEBENCH is not None
    english = ACEBENCH / "data_en"
    url = f"sqlite:///{tmp_path / 'runs.db'}"
    options = ["--categories", "multi_step,multi_turn", "--db", url, "--results", str(tmp_path / "results")]
    result = CliRunner().invoke(app, ["run", "--tasks", "acebench", "--data", str(english), "--run-id", "a",
                                      "--no-errata", *options])  # the data as published: errata correct these 9
    assert result.exit_code == 0, result.output
    store = RunStore(url)
    assert {e.task_set for e in store.episodes("a")} == {"acebench/en"}  # never the English tasks again as zh
    scores = {(s.task_set, s.category, s.metric): s.value for s in store.scores("a")}
    assert scores[("all", "all", "end_to_end")] < 1.0 and scores[("all", "all", "defective")] == 9
    assert scores[("all", "all", "end_to_end_clean")] == 1.0  # the oracle solves every task that can be solved
    run = store.run("a")
    assert run is not None and len(json.loads(run.config)["defects"]["acebench/en"]) == 9  # kept with the run
    folder = ACEBENCH.parent if (ACEBENCH.parent / "acebench").is_dir() else None
    if folder is not None and not (ACEBENCH / "data_zh").exists():  # the README's command, English data only
        plain = CliRunner().invoke(app, ["run", "--tasks", "acebench", "--run-id", "b", *options],
                                   env={"TOOLWORLDS_DATA": str(folder)})
        assert plain.exit_code == 0, plain.output
        assert "no data for zh" in plain.output
        assert {e.task_set for e in store.episodes("b")} == {"acebench/en"}
    refused = CliRunner().invoke(app, ["run", "--tasks", "acebench", "--data", str(english), "--lang", "zh",
                                       *options])
    assert refused.exit_code == 2 and "acebench/zh" in refused.output
