"""A short variant of `bench/real_model.py` (which runs a fixed suite against a real model): its banking
group against a local endpoint that writes what small models write, through the script itself. The table
counts the replies read as calls and as answers, the answers holding call-shaped text, the replies cut
off at --max-tokens, and the corpus keeps every reply with where it came from."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.fake_chat import chat_endpoint

SCRIPT = Path(__file__).resolve().parents[1] / "bench" / "real_model.py"
HERMES = ('<tool_call>\n{"name": "get_balance", "arguments": {"customer_id": "C001", "account_id": "A001"}}\n'
          '</tool_call>')


def small_model(body: dict[str, Any]) -> dict[str, Any]:
    """A native call, then a call written as Hermes text (read or not, depending on the reader), then an
    answer; the simulated user says it is done."""
    if body.get("tools") is None:  # the user simulator: its request, then it is done
        said = "Please check my balance." if len(body["messages"]) <= 2 else "finish conversation"
        return {"role": "assistant", "content": said}
    replies = sum(1 for m in body["messages"] if m["role"] == "assistant")
    if replies == 0:
        return {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {
            "name": "login_bank", "arguments": '{"customer_id": "C001", "password": "x"}'}}]}
    if replies == 1:
        return {"role": "assistant", "content": HERMES}
    return {"role": "assistant", "content": "Done."}


def test_the_bench_prints_what_the_runs_read_and_keeps_every_reply(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.jsonl"
    figures = tmp_path / "figures.json"
    with chat_endpoint(small_model) as url:
        done = subprocess.run(
            [sys.executable, str(SCRIPT), "--base-url", url, "--model", "m", "--groups", "banking",
             "--db", f"sqlite:///{tmp_path / 'bench.db'}", "--corpus", str(corpus), "--json", str(figures),
             "--max-tokens", "64"],
            capture_output=True, text=True, timeout=300, env={**os.environ, "COLUMNS": "250"})
    assert done.returncode == 0, done.stderr
    assert "a real model through toolworlds runs" in done.stdout and "call-shaped answers" in done.stdout
    row = json.loads(figures.read_text())["banking"]
    assert row["episodes"] == 5 and row["failed"] == 0
    assert row["calls"] >= 5  # the native call of each episode, and the Hermes text where it is read
    assert row["answers"] + row["calls"] == sum(1 for line in corpus.read_text().splitlines()
                                                if json.loads(line)["role"] == "agent")
    # Each episode's Hermes reply is either read as a call or counted as a call-shaped answer: never lost.
    assert row["calls"] - 5 + row["call_shaped_answers"] == 5
    lines = [json.loads(line) for line in corpus.read_text().splitlines()]
    assert {line["source"].split("/")[0] for line in lines} == {"banking"}
    assert any(line["text"] == HERMES for line in lines)
    assert any(line.get("tool_calls") for line in lines)  # a native reply keeps its calls
    again = subprocess.run([sys.executable, str(SCRIPT), "--base-url", "http://127.0.0.1:9/v1", "--model", "m",
                            "--db", f"sqlite:///{tmp_path / 'bench.db'}", "--report"],
                           capture_output=True, text=True, timeout=120, env={**os.environ, "COLUMNS": "250"})
    assert again.returncode == 0 and "banking" in again.stdout  # the stored runs' table, nothing sent
