"""An MCP tool call over streamable HTTP: `toolworlds serve` against the same SDK's one-tool server.

Run: python bench/mcp_http.py [--calls 300] [--rounds 5]

Both servers are separate processes on 127.0.0.1 and both are called by the official SDK's client,
so the difference is what toolworlds adds on the server side: its session bookkeeping, the world's
validated, journaled, logged call, structured content and the result's JSON. The baseline is an
`MCPServer` with one tool of the same signature returning the same reply, computed by nothing.
Rounds alternate between the two servers; printed per server: the client's median round trip (wall)
and the server process's CPU per call (`/proc/PID/stat`), and the ratios. Issue 41's target is
<= 1.2x, measured on a quiet machine: the load average is printed beside the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

from mcp import Client

ROOT = Path(__file__).resolve().parents[1]
TOOLWORLDS = str(Path(sys.executable).parent / "toolworlds")
TASK = "banking_multi_step_4"
LOGIN = ("login_bank", {"customer_id": "C001", "password": "eve2024"})
READ = ("get_balance", {"customer_id": "C001", "account_id": "A001"})

BASELINE = '''
import sys
from mcp.server.mcpserver import MCPServer

server = MCPServer("one-tool")

@server.tool()
def get_balance(customer_id: str, account_id: str) -> dict:
    """The balance of one of the customer's accounts."""
    return {"account_id": account_id, "balance": "2500.00", "currency": "EUR"}

@server.tool()
def login_bank(customer_id: str, password: str) -> dict:
    """Log in."""
    return {"customer_id": customer_id, "logged_in": True}

server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[1]))
'''


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a process so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_for(port: int, process: subprocess.Popen[bytes], seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server on port {port} exited with {process.returncode}")
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise RuntimeError(f"server on port {port} did not listen within {seconds:g} s")


async def calls(url: str, count: int, pid: int) -> tuple[float, float]:
    """Median microseconds per round trip, and the server's CPU microseconds per call, over `count` calls."""
    async with Client(url) as client:
        await client.call_tool(*LOGIN)
        for _ in range(20):
            await client.call_tool(*READ)
        samples = []
        before = cpu_seconds(pid)
        for _ in range(count):
            start = time.perf_counter_ns()
            result = await client.call_tool(*READ)
            samples.append((time.perf_counter_ns() - start) / 1000)
            assert not result.is_error, result
        cpu = (cpu_seconds(pid) - before) / count * 1e6
    return statistics.median(samples), cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    ours_port, base_port = free_port(), free_port()
    ours = subprocess.Popen([TOOLWORLDS, "serve", "banking", "--task", TASK, "--transport", "http", "--port",
                             str(ours_port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = subprocess.Popen([sys.executable, "-c", BASELINE, str(base_port)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        wait_for(ours_port, ours)
        wait_for(base_port, base)
        walls: dict[str, list[float]] = {"toolworlds serve": [], "SDK one-tool server": []}
        cpus: dict[str, list[float]] = {"toolworlds serve": [], "SDK one-tool server": []}
        for _ in range(args.rounds):
            for name, port, process in (("toolworlds serve", ours_port, ours),
                                        ("SDK one-tool server", base_port, base)):
                wall, cpu = asyncio.run(calls(f"http://127.0.0.1:{port}/mcp", args.calls, process.pid))
                walls[name].append(wall)
                cpus[name].append(cpu)
    finally:
        for process in (ours, base):
            process.terminate()
            process.wait(timeout=10)
    print(f"MCP call_tool over streamable HTTP, {args.rounds} rounds x {args.calls} calls "
          f"(load average {os.getloadavg()[0]:.2f})")
    print(f"{'server':24} {'round trip p50 (us)':>20} {'server CPU/call (us)':>21}")
    for name in walls:
        print(f"{name:24} {statistics.median(walls[name]):20.0f} {statistics.median(cpus[name]):21.0f}")
    ours_wall, base_wall = (statistics.median(walls[n]) for n in walls)
    ours_cpu, base_cpu = (statistics.median(cpus[n]) for n in cpus)
    print(f"{'ratio':24} {ours_wall / base_wall:19.2f}x {ours_cpu / base_cpu:20.2f}x   (target <= 1.2x)")


if __name__ == "__main__":
    main()
