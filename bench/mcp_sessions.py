"""Many MCP sessions alive in one `toolworlds serve` over streamable HTTP: memory per session and call
latency as the sessions grow (issue 41: 10,000 sessions, flat from 10 to 10,000).

Run: python bench/mcp_sessions.py [--sessions 10 100 1000 10000] [--calls 200]

Each session is opened with the whole handshake (initialize, then notifications/initialized) and kept
open (`--max-sessions` above the largest count, no idle timeout), so the server holds a world per
session, forked from its prebuilt one on open. At each count: the server's resident memory, the
memory per session above the first count, and the median round trip of a `tools/call` in one session.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))

import httpx2 as httpx
from hostile_mcp import HEADERS, ROOT, TASK, VERSION, call_message, environment, free_port, open_session


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


async def wait_listening(url: str, server: subprocess.Popen[bytes]) -> None:
    async with httpx.AsyncClient(timeout=5) as client:
        for _ in range(300):
            if server.poll() is not None:
                raise RuntimeError(f"server exited with {server.returncode}")
            try:
                await client.get(url)
                return
            except httpx.TransportError:
                await asyncio.sleep(0.1)
    raise RuntimeError("server did not listen")


async def round_trip_us(client: httpx.AsyncClient, url: str, session: str, calls: int) -> float:
    headers = {**HEADERS, "mcp-session-id": session, "mcp-protocol-version": VERSION}
    arguments: dict[str, Any] = {"customer_id": "C001", "account_id": "A001"}
    samples = []
    for number in range(calls):
        start = time.perf_counter_ns()
        answer = await client.post(url, json=call_message(number + 10, "get_balance", arguments), headers=headers)
        samples.append((time.perf_counter_ns() - start) / 1000)
        if answer.status_code != 200:
            raise RuntimeError(f"call refused: {answer.status_code} {answer.text[:200]}")
    return statistics.median(samples)


async def measure(counts: list[int], calls: int) -> list[tuple[int, int, float]]:
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    with tempfile.TemporaryFile() as errors:
        server = subprocess.Popen([sys.executable, "-m", "toolworlds.cli", "serve", "banking", "--task", TASK,
                                   "--transport", "http", "--port", str(port), "--max-sessions",
                                   str(max(counts) + 10)], cwd=ROOT, env=environment(), stderr=errors)
        rows = []
        try:
            await wait_listening(url, server)
            limits = httpx.Limits(max_connections=32, max_keepalive_connections=32)
            async with httpx.AsyncClient(timeout=60, limits=limits) as client:
                probe = await open_session(client, url)
                assert probe is not None
                headers = {**HEADERS, "mcp-session-id": probe, "mcp-protocol-version": VERSION}
                await client.post(url, json=call_message(1, "login_bank", {"customer_id": "C001",
                                                                           "password": "eve2024"}), headers=headers)
                opened = 1
                for count in counts:
                    while opened < count:
                        batch = min(32, count - opened)
                        made = await asyncio.gather(*(open_session(client, url) for _ in range(batch)))
                        if any(session is None for session in made):
                            raise RuntimeError("the server refused a session below its limit")
                        opened += batch
                    await round_trip_us(client, url, probe, 20)  # warm
                    rows.append((count, rss_kb(server.pid), await round_trip_us(client, url, probe, calls)))
                    print(f"  {count} sessions: {rows[-1][1] / 1024:.0f} MB, call p50 {rows[-1][2] / 1000:.2f} ms",
                          flush=True)
        finally:
            server.terminate()
            server.wait(timeout=60)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, nargs="+", default=[10, 100, 1000, 10000])
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()
    counts = sorted(set(args.sessions))
    started = time.monotonic()
    rows = asyncio.run(measure(counts, args.calls))
    print(f"\nMCP sessions held by one `toolworlds serve` over streamable HTTP ({time.monotonic() - started:.0f} s)")
    print(f"{'sessions':>9} {'server RSS (MB)':>16} {'KB/session above first':>23} {'call p50 (ms)':>14}")
    first_count, first_rss, first_call = rows[0]
    for count, rss, call in rows:
        per = (rss - first_rss) / (count - first_count) if count > first_count else 0.0
        print(f"{count:9d} {rss / 1024:16.1f} {per:23.1f} {call / 1000:14.2f}")
    last_call = rows[-1][2]
    print(f"call latency at {rows[-1][0]} sessions vs {first_count}: {last_call / first_call:.2f}x")


if __name__ == "__main__":
    main()
