"""Runs against an endpoint that misbehaves in every way: each episode is stored with its error, the run exits 0."""

from __future__ import annotations

import json
import sqlite3
import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sandbox.comparison import compare_states
from scenarios.banking.family import load_tasks
from toolworlds.cli import app
from toolworlds.runner import AgentSpec, TaskSet, execute_run
from toolworlds.store import EpisodeRow, RunStore
from toolworlds.transcript import replay

from .browser import render
from .fake_chat import Response, say, serve, tool_call

pytest.importorskip("openai")
pytestmark = pytest.mark.long_running  # collected first: see tests/conftest.py

# Seconds per request in these tests: long enough that no other reply (a megabyte one too) times out by
# accident on a busy machine (0.3 s once did, at load 10-13); the "timeout" reply waits four times as long.
TIMEOUT = 1.0
HUGE = "9" * 5000
DEPOSIT = {"customer_id": "C001", "account_id": "A001"}


def _model_output(kind: str) -> Response:
    """A well-delivered reply whose content is hostile: the world must refuse it, the episode go on."""
    if kind == "huge number (tool call)":
        return tool_call("deposit", '{"customer_id": "C001", "account_id": "A001", "amount": ' + HUGE + "}")
    if kind == "huge number (text)":
        return say(f"[deposit(customer_id='C001', account_id='A001', amount={HUGE})]")
    if kind == "deep nesting (tool call)":
        return tool_call("deposit", '{"amount": ' + "[" * 10_000 + "]" * 10_000 + "}")
    if kind == "deep nesting (text)":
        return say("[deposit(amount=" + "[" * 10_000 + "]" * 10_000 + ")]")
    if kind == "megabyte string":
        return tool_call("deposit", json.dumps({**DEPOSIT, "amount": "1" + "0" * 1_000_000}))
    if kind == "surrogates":
        return tool_call("deposit", '{"customer_id": "C\\ud800", "account_id": "A001", "amount": 5}')
    if kind == "megabyte text":
        return say("blah " * 200_000)
    raise AssertionError(kind)


# What the failing replies ask the SDK to wait before its retry: the retry is what is tested, not the SDK's
# own back-off of half a second and more, which made most of these tests' time.
RETRY_AFTER_MS = 20


def _delivery(kind: str) -> Response:
    """A reply that is no chat completion at all, or none in time (the client waits `TIMEOUT`)."""
    if kind == "HTTP 500":
        return Response(b'{"error": {"message": "internal error"}}', status=500, retry_after_ms=RETRY_AFTER_MS)
    if kind == "HTTP 429":
        return Response(b'{"error": {"message": "slow down"}}', status=429, retry_after_ms=RETRY_AFTER_MS)
    if kind == "timeout":
        return Response(b"{}", delay=TIMEOUT * 4)
    if kind == "HTML":
        return Response(b"<html><body><h1>502 Bad Gateway</h1></body></html>", content_type="text/html")
    if kind == "non-JSON":
        return Response(b"this is { not json")
    if kind == "invalid UTF-8":
        return Response(b'{"id": "x", "object": "chat.completion", "created": 0, "model": "m", "choices": '
                     b'[{"index": 0, "message": {"role": "assistant", "content": "\xff\xfe\xc0"}, '
                     b'"finish_reason": "stop"}]}')
    if kind == "empty choices":
        return Response(b'{"id": "x", "object": "chat.completion", "created": 0, "model": "m", "choices": []}')
    if kind == "no message":
        return Response(b'{"id": "x", "object": "chat.completion", "created": 0, "model": "m", "choices": [{}]}')
    raise AssertionError(kind)


MODEL_OUTPUT = ("huge number (tool call)", "huge number (text)", "deep nesting (tool call)", "deep nesting (text)",
                "megabyte string", "surrogates", "megabyte text")
DELIVERY = ("HTTP 500", "HTTP 429", "timeout", "HTML", "non-JSON", "invalid UTF-8", "empty choices", "no message")
KINDS = ("healthy", "flaky", *MODEL_OUTPUT, *DELIVERY)


class HostileEndpoint:
    """Answers each task in its own hostile way, chosen by the task's instruction (its first user message)."""

    def __init__(self, tasks: list[Any]) -> None:
        self.kinds = {task.question: KINDS[index % len(KINDS)] for index, task in enumerate(tasks)}
        self.requests: Counter[str] = Counter()
        self.lock = threading.Lock()
        self.healed = False  # when True every task gets healthy answers (for --retry-failed)

    def kind_of(self, task: Any) -> str:
        return self.kinds[task.question]

    def __call__(self, body: dict[str, Any]) -> Response:
        question = next(m["content"] for m in body["messages"] if m["role"] == "user")
        kind = "healthy" if self.healed else self.kinds.get(question, "healthy")
        with self.lock:
            self.requests[question] += 1
            first = self.requests[question] == 1
        # Once the world has answered (in a tool message, or for calls written as text in a user message), the
        # model is done: a hostile text reply is not sent again until the step limit, each resending the history.
        answered = any(m["role"] == "tool" or (m["role"] == "user" and m["content"].startswith("execution result:"))
                       for m in body["messages"])
        if kind == "flaky" and first:
            # Retried by the SDK, after the pause the endpoint asks for.
            return Response(b'{"error": {"message": "overloaded"}}', status=503, retry_after_ms=RETRY_AFTER_MS)
        if kind in DELIVERY:
            return _delivery(kind)
        if answered or kind in ("healthy", "flaky"):
            if answered:
                return say("Done.")
            return tool_call("get_balance", json.dumps(DEPOSIT))
        return _model_output(kind)


TASKS = load_tasks("en")
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def endpoint() -> Iterator[tuple[HostileEndpoint, str]]:
    hostile = HostileEndpoint(TASKS)
    with serve(hostile) as url:
        yield hostile, url + "/v1"


def stored(db: Path, run_id: str | None = None) -> list[EpisodeRow]:
    store = RunStore(f"sqlite:///{db}")
    try:
        if run_id is None:
            (run,) = store.runs()
            run_id = run.run_id
        return store.episodes(run_id)
    finally:
        store.close()


def check_episodes(episodes: list[EpisodeRow], hostile: HostileEndpoint) -> None:
    by_task = {e.task_id: e for e in episodes}
    assert len(episodes) == len(TASKS) == len(by_task)
    for task in TASKS:
        episode, kind = by_task[task.id], hostile.kind_of(task)
        if kind in DELIVERY:
            assert episode.error is not None and episode.error.startswith("agent: EndpointError"), (kind, episode)
            assert not episode.success and episode.stop_reason == "agent failed"
        else:
            assert episode.error is None, (kind, episode.error)
        if kind in MODEL_OUTPUT and kind != "megabyte text":
            types = json.loads(episode.error_types)
            assert types.get("parse_error", 0) + types.get("invalid_arguments", 0) >= 1, (kind, types)
    reasons = {hostile.kind_of(t): by_task[t.id].error for t in TASKS if hostile.kind_of(t) in DELIVERY}
    assert "HTTP 500" in reasons["HTTP 500"] and "2 tries" in reasons["HTTP 500"]
    assert "HTTP 429" in reasons["HTTP 429"]
    assert "timed out" in reasons["timeout"]
    assert "no choices" in reasons["empty choices"] and "no message" in reasons["no message"]
    assert "not a chat completion" in reasons["HTML"] and "unreadable" in reasons["non-JSON"]


def test_every_hostile_reply_is_an_error_of_its_own_episode_and_the_run_exits_0(
        endpoint: tuple[HostileEndpoint, str], tmp_path: Path) -> None:
    hostile, url = endpoint
    db = tmp_path / "runs.db"
    # The endpoint plays the agent only: the scripted user keeps each hostile reply in its own agent turn.
    command = ["run", "--agent", "llm", "--model", "m", "--base-url", url, "--lang", "en", "--db", f"sqlite:///{db}",
               "--timeout", str(TIMEOUT), "--retries", "1", "--run-id", "hostile", "--user", "scripted"]
    result = CliRunner().invoke(app, command)
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    episodes = stored(db)
    check_episodes(episodes, hostile)
    failed = sum(e.error is not None for e in episodes)
    assert f"{len(TASKS)} episodes stored, {failed} failed" in result.output
    assert "--run-id hostile --resume" in result.output and "--retry-failed" in result.output
    assert "--agent llm --model m --base-url" in result.output  # the resume command carries the configuration
    with sqlite3.connect(db) as connection:  # whatever the model sent, the stored text is valid UTF-8
        for (text,) in connection.execute("select arguments || result || coalesce(error_message, '') from calls"):
            text.encode("utf-8")
            assert len(text) < 50_000

    # rescore: every stored transcript, the failed ones' too, scored again to the same scores; nothing asked.
    asked = sum(hostile.requests.values())
    rescored = CliRunner().invoke(app, ["rescore", "hostile", "--new-run-id", "rescored", "--db", f"sqlite:///{db}"])
    assert rescored.exit_code == 0, rescored.output
    assert f"{len(TASKS)} episodes stored, {len(TASKS)} scored again, {len(TASKS)} with the same scores" \
           in rescored.output and "replay differs" not in rescored.output
    again_scored = {e.task_id: e for e in stored(db, "rescored")}
    for episode in episodes:
        twin = again_scored[episode.task_id]
        assert (twin.success, twin.state_fraction, twin.process, twin.diff, twin.error) == (
            episode.success, episode.state_fraction, episode.process, episode.diff, episode.error)

    # --resume skips failed episodes: nothing is run, nothing is asked of the endpoint.
    again = CliRunner().invoke(app, [*command, "--resume"])
    assert again.exit_code == 0, again.output
    assert sum(hostile.requests.values()) == asked
    assert [(e.id, e.error) for e in stored(db, "hostile")] == [(e.id, e.error) for e in episodes]

    # --retry-failed runs exactly the failed ones again, now that the endpoint behaves.
    hostile.healed = True
    retried = CliRunner().invoke(app, [*command, "--resume", "--retry-failed"])
    assert retried.exit_code == 0, retried.output
    after = stored(db, "hostile")
    assert len(after) == len(TASKS) and all(e.error is None for e in after)
    kept = {e.task_id: e.id for e in episodes if e.error is None}
    assert {e.task_id: e.id for e in after if e.task_id in kept} == kept  # the healthy ones were not rerun
    assert f"{len(TASKS)} episodes stored, 0 failed" in retried.output


def test_a_72_episode_run_over_a_hostile_endpoint_is_whole_checked_replayable_and_comparable(
        tmp_path: Path) -> None:
    """The issue's bar: every hostile reply on some of 72 tasks (two workers), every episode stored and the
    run exits 0; a resume with another model is refused; stored transcripts replay to the stored outcome;
    a second model's run beside it in one HTML report with drill-down, rendered in headless Chromium."""
    everything = [*TASKS, *load_tasks("zh")]
    hostile = HostileEndpoint(everything)
    db = tmp_path / "runs.db"
    with serve(hostile) as root:
        url = root + "/v1"
        common = ["--agent", "llm", "--base-url", url, "--db", f"sqlite:///{db}", "--timeout", str(TIMEOUT),
                  "--retries", "1", "--user", "scripted"]
        result = CliRunner().invoke(app, ["run", *common, "--model", "model-a", "--run-id", "a", "--workers", "2"])
        assert result.exit_code == 0, result.output
        assert "BrokenProcessPool" not in result.output and "Traceback" not in result.output
        store = RunStore(f"sqlite:///{db}")
        episodes = store.episodes("a")
        assert len(episodes) == 72 == len({(e.task_set, e.task_id) for e in episodes})
        check_episodes([e for e in episodes if e.task_set == "banking/en"], hostile)
        failed = [e for e in episodes if e.error is not None]
        kinds = {(f"banking/{t.lang}", t.id): hostile.kind_of(t) for t in everything}
        assert len(failed) == sum(kind in DELIVERY for kind in kinds.values()) > 0, [
            (kinds[(e.task_set, e.task_id)], e.error) for e in failed if kinds[(e.task_set, e.task_id)] not in DELIVERY]
        assert all(e.error and e.error.startswith("agent: EndpointError") for e in failed)

        refused = CliRunner().invoke(app, ["run", *common, "--model", "model-b", "--run-id", "a", "--resume"])
        assert refused.exit_code == 2 and 'model: stored "model-a", given "model-b"' in refused.output

        tasks = {(f"banking/{t.lang}", t.id): t for t in everything}
        replayed = 0
        for episode in episodes:
            if episode.error is not None:
                continue
            task = tasks[(episode.task_set, episode.task_id)]
            world, records = replay(task, store.messages(episode.id))  # type: ignore[arg-type]
            again = compare_states(task.ground_truth, task.end_state(world), mode="exact")
            assert again.diff.to_json() == episode.diff and again.equal == episode.success, episode.task_id
            assert [(r.tool, r.error and r.error.type) for r in records] == [
                (c.tool, c.error_type) for c in store.calls(episode.id)], episode.task_id  # type: ignore[arg-type]
            replayed += 1
        assert replayed == len(episodes) - len(failed)

        hostile.healed = True
        second = CliRunner().invoke(app, ["run", *common, "--model", "model-b", "--run-id", "b"])
        assert second.exit_code == 0, second.output
    page = tmp_path / "report.html"
    shown = CliRunner().invoke(app, ["report", "--db", f"sqlite:///{db}", "--run-id", "a", "--run-id", "b",
                                     "--html", str(page)])
    assert shown.exit_code == 0, shown.output
    text = page.read_text()
    assert "a: llm(model-a)" in text and "b: llm(model-b)" in text and "w/o defects" in text
    assert text.count("<details") == 144 and 'href="#ep-a-' in text and 'href="#ep-b-' in text
    assert "EndpointError" in text and "tool result [call_1]" in text
    shot = ROOT / "test-artifacts" / "report-two-runs.png"  # kept as the test's artefact
    dom = render(page, shot, "1400,1800")
    assert shot.stat().st_size > 30_000  # tables and plots, not a blank page
    assert dom.count("<img") == 2 and "Scores side by side" in dom and "End-to-end accuracy per category" in dom


def test_a_refused_connection_fails_each_episode_and_the_run_ends(tmp_path: Path) -> None:
    import socket

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    store = RunStore(f"sqlite:///{tmp_path / 'runs.db'}")
    spec = AgentSpec("llm", model="m", base_url=f"http://127.0.0.1:{port}/v1", timeout=TIMEOUT, retries=0)
    episodes = execute_run(store, "down", [TaskSet("banking", "en", TASKS[:3])], spec)
    assert len(episodes) == 3
    assert all(e.error is not None and "connection failed" in e.error for e in episodes)
    scores = {(s.task_set, s.metric): s.value for s in store.scores("down")}
    assert scores[("all", "failed")] == 3 and scores[("all", "end_to_end")] == 0


def test_an_episode_that_cannot_even_start_is_stored_as_failed(tmp_path: Path) -> None:
    class Broken:
        id, category, question = "broken", "multi_step", "?"
        functions: list[Any] = []

        def world(self, seed: int = 0) -> Any:
            raise RecursionError("no world for you")

    store = RunStore(f"sqlite:///{tmp_path / 'runs.db'}")
    (episode,) = execute_run(store, "r", [TaskSet("banking", "en", [Broken()])], AgentSpec(), workers=0)
    assert episode.error is not None and "RecursionError: no world for you" in episode.error
    assert episode.stop_reason == "run failed"
