"""Integrations benchmark: an MCP tool call's round trip (stdio, streamable HTTP) against an
in-process `World.call`, and `ToolEnv` reset+step throughput on the banking world.

Run: python bench/integrations.py [--calls 500]
The MCP servers are `toolworlds serve` processes and the client is the official SDK's, so a
round trip is what an MCP host pays: JSON-RPC framing, the transport, validation, the call.
ToolEnv runs in this one process, so its figures are per core. The machine load is printed
beside the figures, since other processes share the cores.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mcp import Client, StdioServerParameters
from rich.console import Console
from rich.table import Table
from timing import p50_p90, per_op_us

from toolworlds.env import ToolEnv

TASK = "banking_multi_step_4"  # pay 1200 from A001 to A003
LOGIN = ("login_bank", {"customer_id": "C001", "password": "eve2024"})
READ = ("get_balance", {"customer_id": "C001", "account_id": "A001"})
TOOLWORLDS = str(Path(sys.executable).parent / "toolworlds")


async def round_trips(client: Client, calls: int) -> list[float]:
    """Microseconds per call_tool, after a warm-up."""
    await client.call_tool(*LOGIN)
    for _ in range(50):
        await client.call_tool(*READ)
    samples = []
    for _ in range(calls):
        start = time.perf_counter_ns()
        result = await client.call_tool(*READ)
        samples.append((time.perf_counter_ns() - start) / 1000)
        assert not result.is_error
    return samples


def over_stdio(calls: int) -> list[float]:
    async def run() -> list[float]:
        async with Client(StdioServerParameters(command=TOOLWORLDS, args=["serve", "banking", "--task", TASK])) as c:
            return await round_trips(c, calls)

    return asyncio.run(run())


def over_http(calls: int) -> list[float]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([TOOLWORLDS, "serve", "banking", "--task", TASK, "--transport", "http",
                               "--port", str(port)], stderr=subprocess.DEVNULL)
    try:
        while True:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if server.poll() is not None:
                sys.exit("the HTTP server did not start")
            time.sleep(0.1)

        async def run() -> list[float]:
            async with Client(f"http://127.0.0.1:{port}/mcp") as c:
                return await round_trips(c, calls)

        return asyncio.run(run())
    finally:
        server.terminate()
        server.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=500, help="timed MCP calls per transport")
    args = parser.parse_args()
    load_before = os.getloadavg()

    env = ToolEnv("banking")
    env.reset(options={"task": TASK})
    gold = env.task.paths[0]  # type: ignore[union-attr]
    world = env.worlds.fork(TASK)
    world.call(*LOGIN)
    baseline, _ = per_op_us(lambda: world.call(*READ))

    def reset() -> Any:
        return env.reset(options={"task": TASK})

    def reset_step() -> Any:
        env.reset(options={"task": TASK})
        return env.step(gold[0])

    def episode() -> Any:
        env.reset(options={"task": TASK})
        for message in gold:
            env.step(message)
        return env.step("Done.")  # ends the episode: end state scored

    reset_us, _ = per_op_us(reset, batch=100, rounds=30)
    reset_step_us, reset_step_p90 = per_op_us(reset_step, batch=100, rounds=30)
    episode_us, _ = per_op_us(episode, batch=20, rounds=30)
    stdio = p50_p90(over_stdio(args.calls))
    http = p50_p90(over_http(args.calls))
    load_after = os.getloadavg()

    table = Table(title=f"integrations: banking task {TASK} ({os.cpu_count()} cores)")
    for column in ("measure", "p50", "p90", "vs World.call"):
        table.add_column(column)
    table.add_row("World.call in-process (get_balance)", f"{baseline:.1f} us", "-", "1x")
    for name, (p50, p90) in (("MCP call_tool over stdio", stdio), ("MCP call_tool over streamable HTTP", http)):
        table.add_row(name, f"{p50 / 1000:.2f} ms", f"{p90 / 1000:.2f} ms", f"{p50 / baseline:,.0f}x")
    table.add_row("ToolEnv.reset (fork + opening message)", f"{reset_us:.1f} us", "-", f"{reset_us / baseline:.1f}x")
    table.add_row("ToolEnv reset + one step (a gold call)", f"{reset_step_us:.1f} us", f"{reset_step_p90:.1f} us",
                  f"{reset_step_us / baseline:.1f}x")
    table.add_row("  = reset+step per second, one core", f"{1e6 / reset_step_us:,.0f} /s", "-", "-")
    table.add_row(f"ToolEnv whole episode ({len(gold)} calls + answer, scored)", f"{episode_us:.1f} us", "-",
                  f"{episode_us / baseline:.1f}x")
    table.add_row("  = episodes per second, one core", f"{1e6 / episode_us:,.0f} /s", "-", "-")
    Console().print(table)
    print(f"load average (1, 5, 15 min) before: {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f}; "
          f"after: {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f}")


if __name__ == "__main__":
    main()
