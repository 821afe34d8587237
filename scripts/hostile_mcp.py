"""Hostile clients against `toolworlds serve`, through its real entry point (issue 42).

    python scripts/hostile_mcp.py disconnects [--runs 50]
    python scripts/hostile_mcp.py sessions [--sessions 2000] [--limit 100]

`disconnects` starts `toolworlds serve banking --task ... --save FILE` over stdio N times and
goes away at a different point each time: before the handshake's answer, mid-request (half a
line written), right after sending a call (its answer unread), after reading some answers.
Each run counts the server's exit code, whether its stderr holds a traceback, and whether
--save was written as JSON. Exits 1 unless every run exited 0, without a traceback, with --save.

`sessions` serves the same task over streamable HTTP with `--max-sessions LIMIT` and opens
SESSIONS other sessions beside one honest session, which logs in, is silent while 60% of the
others come and go, then finishes its episode. Each other session makes one call; half of them then end
themselves (DELETE), a quarter go away mid-call (their connection closed before the answer) and a
quarter are abandoned open. The honest session must get each call's true answer (the same as in a
world of its own) or an explicit refusal (a JSON-RPC error or an HTTP error naming the
session), never an answer from a fresh world. Exits 1 on any answer from a wrong world.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx2 as httpx
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from sandbox.chat import result_text
from scenarios.banking.family import load_tasks

ROOT = Path(__file__).resolve().parents[1]
TASK = "banking_multi_step_4"
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("login_bank", {"customer_id": "C001", "password": "eve2024"}),
    ("list_accounts", {"customer_id": "C001"}),
    ("get_balance", {"customer_id": "C001", "account_id": "A001"}),
    ("transfer", {"customer_id": "C001", "from_account_id": "A001", "to_account_id": "A003", "amount": 1200,
                  "memo": "July rent"}),
    ("get_balance", {"customer_id": "C001", "account_id": "A001"}),
]
VERSION = HANDSHAKE_PROTOCOL_VERSIONS[-1]
INITIALIZE = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
              "params": {"protocolVersion": VERSION, "capabilities": {},
                         "clientInfo": {"name": "hostile", "version": "0"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def call_message(request_id: int, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": name,
                                                                                  "arguments": arguments}}


def environment() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}


def expected_texts() -> list[str]:
    """What each honest call answers in a world of its own."""
    world = {task.id: task for task in load_tasks()}[TASK].world()
    return [result_text(world.call(name, arguments)) for name, arguments in CALLS]


# -- stdio: clients that go away ----------------------------------------------------------


def disconnect_once(run: int, folder: Path) -> dict[str, Any]:
    saved = folder / f"episode-{run}.json"
    errors = (folder / f"stderr-{run}.txt").open("w+b")
    server = subprocess.Popen([sys.executable, "-m", "toolworlds.cli", "serve", "banking", "--task", TASK,
                               "--save", str(saved)], cwd=ROOT, env=environment(), stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=errors)
    assert server.stdin is not None and server.stdout is not None

    def send(message: dict[str, Any]) -> None:
        assert server.stdin is not None
        server.stdin.write(json.dumps(message).encode() + b"\n")
        server.stdin.flush()

    point = run % 5
    answered = 0
    try:
        send(INITIALIZE)
        if point != 0:  # 0: away before the handshake's answer
            server.stdout.readline()
            send(INITIALIZED)
            for request_id, (name, arguments) in enumerate(CALLS[:1 + run % len(CALLS)], start=1):
                send(call_message(request_id, name, arguments))
                if point == 1:  # answers never read: the server writes into a pipe nobody reads
                    continue
                server.stdout.readline()
                answered += 1
            if point == 2:  # half a request, then away
                server.stdin.write(b'{"jsonrpc": "2.0", "id": 99, "method": "tools/ca')
                server.stdin.flush()
            elif point == 3:  # a call, and away before its answer
                send(call_message(99, "list_accounts", {"customer_id": "C001"}))
    except BrokenPipeError:
        pass
    server.stdout.close()  # the client is gone: its end of both pipes closes
    server.stdin.close()
    try:
        code: int | None = server.wait(timeout=60)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()
        code = None
    errors.seek(0)
    text = errors.read().decode(errors="replace")
    errors.close()
    try:
        episode = json.loads(saved.read_text())
        saved_ok = episode["task"] == TASK and isinstance(episode["log"], list)
    except (OSError, ValueError, KeyError):
        saved_ok = False
    return {"point": point, "answered": answered, "code": code, "saved": saved_ok, "stderr": text[-2000:],
            "traceback": "Traceback" in text or "Exception ignored" in text}


def disconnects(runs: int) -> int:
    results = []
    with tempfile.TemporaryDirectory() as folder:
        for run in range(runs):
            results.append(disconnect_once(run, Path(folder)))
    bad = [r for r in results if r["code"] != 0 or r["traceback"] or not r["saved"]]
    print(f"{runs} disconnects: exit 0 {sum(r['code'] == 0 for r in results)}, "
          f"hung {sum(r['code'] is None for r in results)}, tracebacks {sum(r['traceback'] for r in results)}, "
          f"--save written {sum(r['saved'] for r in results)}")
    for result in bad[:3]:
        print(f"--- point {result['point']}: exit {result['code']}, saved {result['saved']}\n{result['stderr']}")
    return 1 if bad else 0


# -- streamable HTTP: one honest session among many ---------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def open_session(client: httpx.AsyncClient, url: str) -> str | None:
    """A session, after the whole handshake; None when the server refuses one (HTTP 503 at the limit)."""
    answer = await client.post(url, json=INITIALIZE, headers=HEADERS)
    if answer.status_code != 200:
        return None
    session = answer.headers["mcp-session-id"]
    await client.post(url, json=INITIALIZED, headers={**HEADERS, "mcp-session-id": session,
                                                      "mcp-protocol-version": VERSION})
    return session


HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


async def sessions(count: int, limit: int, idle: float) -> int:
    port = free_port()
    # The server's stderr goes to a file: a pipe nobody reads fills with the SDK's warnings and stops the server.
    with tempfile.TemporaryFile() as errors:
        server = subprocess.Popen([sys.executable, "-m", "toolworlds.cli", "serve", "banking", "--task", TASK,
                                   "--transport", "http", "--port", str(port),
                                   *(["--max-sessions", str(limit)] if limit else []),
                                   *(["--idle-timeout", f"{idle:g}"] if idle else [])],
                                  cwd=ROOT, env=environment(), stderr=errors)
        started = time.monotonic()
        try:
            counts, honest, kept = await crowd(f"http://127.0.0.1:{port}", count, server)
        finally:
            server.terminate()
            server.wait(timeout=30)
        errors.seek(0)
        tracebacks = errors.read().decode(errors="replace").count("Traceback")
    print(f"{count} sessions against --max-sessions {limit}{f' --idle-timeout {idle:g}' if idle else ''} "
          f"({time.monotonic() - started:.0f} s): "
          f"{counts['opened']} opened ({counts['ended']} ended by their client, {counts['dropped']} gone mid-call), "
          f"{counts['refused']} refused (503); "
          f"worlds kept at the end {kept}; honest session: {', '.join(honest)}; server tracebacks {tracebacks}")
    return 1 if "wrong world" in honest else 0


async def crowd(base: str, count: int, server: subprocess.Popen[bytes]) -> tuple[dict[str, int], list[str], int]:
    """The honest session and `count` others against the server at `base`: what became of the others, the
    verdict on each honest call, and how many worlds the server kept at the end."""
    url = base + "/mcp"
    expected = expected_texts()
    counts = {"opened": 0, "refused": 0, "ended": 0, "dropped": 0}
    honest: list[str] = []
    async with httpx.AsyncClient(timeout=60) as client:
        deadline = time.monotonic() + 60
        while True:
            try:
                await client.get(base + "/control")
                break
            except httpx.TransportError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise SystemExit("the server did not come up") from None
                await asyncio.sleep(0.1)
        mine = await open_session(client, url)
        assert mine is not None

        async def hostile(number: int) -> None:
            session = await open_session(client, url)
            if session is None:
                counts["refused"] += 1
                return
            counts["opened"] += 1
            headers = {**HEADERS, "mcp-session-id": session, "mcp-protocol-version": VERSION}
            if number % 4 == 2:  # a call, and away before its answer (the connection closes mid-call)
                try:
                    await client.post(url, json=call_message(1, *CALLS[2]), headers=headers, timeout=0.0005)
                except httpx.TimeoutException:
                    counts["dropped"] += 1
                return
            await client.post(url, json=call_message(1, *CALLS[2]), headers=headers)
            if number % 2:
                await client.delete(url, headers={"mcp-session-id": session, "mcp-protocol-version": VERSION})
                counts["ended"] += 1

        async def honest_calls(calls: int) -> None:
            for _ in range(calls):
                step = len(honest)
                name, arguments = CALLS[step]
                answer = await client.post(url, json=call_message(step + 1, name, arguments),
                                           headers={**HEADERS, "mcp-session-id": mine, "mcp-protocol-version": VERSION})
                honest.append(verdict(answer, expected[step]))

        # The honest client logs in, then is silent while 60% of the others come and go, then finishes.
        plan = {0: 2, (count * 3) // 5: 1, count: len(CALLS) - 3}  # after this many others: its next calls
        batch = 20
        for start in range(0, count + 1, batch):
            for at, calls in plan.items():
                if start <= at < start + batch:
                    await honest_calls(calls)
            await asyncio.gather(*(hostile(n) for n in range(start, min(count, start + batch))))
        kept = len((await client.get(base + "/control")).json()["sessions"])
    return counts, honest, kept


def verdict(answer: httpx.Response, expected: str) -> str:
    """'true' (the answer its own world gives), 'refused' (an explicit error), or 'wrong world'."""
    if answer.status_code != 200:
        return f"refused (HTTP {answer.status_code})"
    body = answer.json()
    if "error" in body:
        return "refused (" + str(body["error"].get("message", ""))[:80] + ")"
    text = "".join(part.get("text", "") for part in body["result"]["content"])
    return "true" if text == expected else "wrong world"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    away = commands.add_parser("disconnects")
    away.add_argument("--runs", type=int, default=50)
    many = commands.add_parser("sessions")
    many.add_argument("--sessions", type=int, default=2000)
    many.add_argument("--limit", type=int, default=100, help="--max-sessions (0: the server's default)")
    many.add_argument("--idle-timeout", type=float, default=0.0, help="--idle-timeout (0: the server's default)")
    args = parser.parse_args(argv)
    if args.command == "disconnects":
        return disconnects(args.runs)
    return asyncio.run(sessions(args.sessions, args.limit, args.idle_timeout))


if __name__ == "__main__":
    sys.exit(main())
