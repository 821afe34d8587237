"""The MCP server through the official SDK's own client: over stdio (a `toolworlds serve` process)
and over streamable HTTP on 127.0.0.1, with the control surface beside the endpoint."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from scenarios.banking.family import load_tasks
from toolworlds.cli import app

mcp = pytest.importorskip("mcp")
uvicorn = pytest.importorskip("uvicorn")

from toolworlds.hosting import SessionEnded, WorldHost  # noqa: E402
from toolworlds.mcp_server import SESSION_META_KEY, http_app  # noqa: E402

TASK = {task.id: task for task in load_tasks()}["banking_multi_step_4"]  # pay 1200 from A001 to A003
TOOLWORLDS = str(Path(sys.executable).parent / "toolworlds")
# The SDK's stdio client starts a server with a minimal environment: this checkout's code, wherever it is installed.
CHECKOUT = {"PYTHONPATH": str(Path(__file__).resolve().parents[1])}
# An episode as an agent would run it: a refused call (bad arguments), a read, then the gold path.
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("transfer", {"customer_id": "C001", "amount": "lots"}),
    ("login_bank", {"customer_id": "C001", "password": "eve2024"}),
    ("list_accounts", {"customer_id": "C001"}),
    ("transfer", {"customer_id": "C001", "from_account_id": "A001", "to_account_id": "A003", "amount": 1200,
                  "memo": "July rent"}),
]


def in_process() -> Any:
    """The same calls on the same task's world, without MCP in between."""
    world = TASK.world()
    for name, arguments in CALLS:
        world.call(name, arguments)
    return world


async def run_episode(client: Any) -> list[Any]:
    return [await client.call_tool(name, arguments) for name, arguments in CALLS]


def check_tools(listed: Any) -> None:
    world = TASK.world()
    assert [tool.name for tool in listed.tools] == list(world.tools)
    for tool in listed.tools:
        spec = world.tools[tool.name]
        assert tool.input_schema == spec.parameters
        assert tool.description == spec.description
        assert tool.annotations.read_only_hint is (not spec.mutates)
        assert tool.annotations.destructive_hint is (spec.mutates and spec.destructive)
        assert tool.annotations.idempotent_hint is (spec.mutates and spec.idempotent)
    by_name = {tool.name: tool for tool in listed.tools}
    assert {"list_accounts", "get_balance"} <= {t.name for t in listed.tools if t.annotations.read_only_hint}
    # Only calls that destroy or overwrite are destructive (before: every writing tool, deposit included).
    assert {name for name, t in by_name.items() if t.annotations.destructive_hint} >= {"transfer", "close_account"}
    assert not {name for name, t in by_name.items() if t.annotations.destructive_hint} & {"deposit", "open_account",
                                                                                         "login_bank", "add_reminder"}
    assert by_name["login_bank"].annotations.idempotent_hint and not by_name["transfer"].annotations.idempotent_hint
    assert by_name["transfer"].output_schema is not None and by_name["transfer"].output_schema["type"] == "object"


def check_results(results: list[Any]) -> None:
    assert [r.is_error for r in results] == [True, False, False, False]
    refusal = json.loads(results[0].content[0].text)
    assert refusal["error"] == "invalid_arguments"
    assert {d["parameter"] for d in refusal["details"]} >= {"amount", "from_account_id", "to_account_id"}
    assert json.loads(results[3].content[0].text)["balance"] == "10800.00"
    # The same JSON as structured content beside the text (the SDK's client has checked it against the
    # tool's output schema); a refusal's is its error object.
    assert [r.structured_content for r in results] == [json.loads(r.content[0].text) for r in results]


def test_stdio_server_runs_one_world_and_saves_it(tmp_path: Path) -> None:
    saved = tmp_path / "episode.json"
    params = mcp.StdioServerParameters(command=TOOLWORLDS, args=[
        "serve", "banking", "--task", TASK.id, "--save", str(saved)], env=CHECKOUT)

    async def session() -> list[Any]:
        async with mcp.Client(params) as client:
            check_tools(await client.list_tools())
            return await run_episode(client)

    results = asyncio.run(session())
    check_results(results)
    assert {r.meta[SESSION_META_KEY] for r in results} == {"stdio"}
    episode = json.loads(saved.read_text())
    world = in_process()
    assert episode["log"] == json.loads(json.dumps(world.log.to_list(), default=str))
    assert episode["state"] == world.state()
    assert episode["score"]["reward"] == 1.0 and episode["score"]["errors"] == {"invalid_arguments": 1}


@pytest.fixture
def served(request: pytest.FixtureRequest) -> Iterator[tuple[str, WorldHost]]:
    host = WorldHost("banking", task=TASK.id, **getattr(request, "param", {}))
    server = uvicorn.Server(uvicorn.Config(http_app(host), host="127.0.0.1", port=0, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}", host
    finally:
        server.should_exit = True
        thread.join()


def control(url: str, method: str = "GET", headers: dict[str, str] | None = None) -> tuple[int, Any]:
    request = urllib.request.Request(url, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def test_http_sessions_get_their_own_worlds(served: tuple[str, WorldHost]) -> None:
    url, host = served

    async def two_sessions() -> tuple[list[Any], Any]:
        async with mcp.Client(url + "/mcp") as agent, mcp.Client(url + "/mcp") as bystander:
            check_tools(await agent.list_tools())
            results = await run_episode(agent)
            seen = await bystander.call_tool("get_balance", {"customer_id": "C001", "account_id": "A001"})
            return results, seen

    results, seen = asyncio.run(two_sessions())
    check_results(results)
    assert seen.is_error and "not logged in" in json.loads(seen.content[0].text)["message"]  # not the agent's world
    session, other = results[0].meta[SESSION_META_KEY], seen.meta[SESSION_META_KEY]
    assert session != other

    world = in_process()
    base = f"{url}/control/sessions/{session}"
    assert control(base + "/log") == (200, json.loads(json.dumps(world.log.to_list(), default=str)))
    assert control(base + "/state") == (200, world.state())
    status, score = control(base + "/score")
    assert status == 200 and score["reward"] == 1.0 and score["process"] == 1.0
    status, diff = control(base + "/diff")
    assert {d["path"] for d in diff} >= {"Bank.accounts.A001.balance", "Bank.accounts.A003.balance"}
    status, overview = control(url + "/control")
    assert overview["task"]["id"] == TASK.id
    assert {s["session"]: s["calls"] for s in overview["sessions"]} == {session: 4, other: 1}

    assert control(base + "/reset", "POST")[0] == 200
    assert control(base + "/log") == (200, []) and control(base + "/state") == (200, TASK.world().state())
    assert control(f"{url}/control/sessions/{other}", "DELETE")[0] == 200
    assert control(f"{url}/control/sessions/{other}/state")[0] == 404
    assert host.sessions() == [{"session": session, "open": False, "ended": "was ended by its client", "calls": 0,
                                "errors": 0}]  # the same surface, in-process; the clients have left
    assert control(url + "/control", headers={"Host": "attacker.example"})[0] == 400


def test_http_refuses_a_sessionless_call_and_keeps_serving(served: tuple[str, WorldHost]) -> None:
    url, host = served

    async def pinned_then_normal() -> Any:
        async with mcp.Client(url + "/mcp", mode="2026-07-28") as sessionless:
            assert [t.name for t in (await sessionless.list_tools()).tools] == list(TASK.world().tools)
            with pytest.raises(mcp.MCPError, match="one world per MCP session"):
                await sessionless.call_tool("login_device", {})
        async with mcp.Client(url + "/mcp") as client:
            return await client.call_tool("no_such_tool", {"x": 1})

    result = asyncio.run(pinned_then_normal())
    assert result.is_error and json.loads(result.content[0].text)["error"] == "unknown_tool"
    assert host.sessions()[0]["errors"] == 1


def test_serve_over_http_from_the_command_line() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([TOOLWORLDS, "serve", "todo", "--transport", "http", "--port", str(port)],
                              stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not _up(port) or control(f"http://127.0.0.1:{port}/control")[0] != 200:
            assert time.monotonic() < deadline and server.poll() is None, "server did not come up"
            time.sleep(0.1)

        async def add() -> Any:
            async with mcp.Client(f"http://127.0.0.1:{port}/mcp") as client:
                return await client.call_tool("add_task", {"title": "milk"})

        result = asyncio.run(add())
        assert not result.is_error and json.loads(result.content[0].text) == {"id": 1, "status": "open"}
        session = result.meta[SESSION_META_KEY]
        status, state = control(f"http://127.0.0.1:{port}/control/sessions/{session}/state")
        assert status == 200 and state["Todo"]["tasks"][0]["title"] == "milk"
        assert control(f"http://127.0.0.1:{port}/control/sessions/{session}/score")[0] == 409  # no task served
    finally:
        server.terminate()
        server.wait(timeout=30)


def _up(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


@pytest.mark.parametrize(("arguments", "message"), [
    (["serve", "banking", "--transport", "smoke"], "unknown transport"),
    (["serve", "banking", "--coercion", "loose"], "unknown coercion"),
    (["serve", "banking", "--transport", "http", "--host", "0.0.0.0"], "loopback"),
    (["serve", "banking", "--task", "no_such_task"], "no task no_such_task"),
    (["serve", "nowhere"], "unknown world"),
    (["serve", "todo", "--transport", "http", "--save", "x.json"], "--save is for stdio"),
    (["serve", "banking", "--data", "tasks.json"], "give --task with them"),
    (["serve", "toolbench", "--filter-category", "finance"], "give --task with them"),
])
def test_serve_refuses_bad_options(arguments: list[str], message: str) -> None:
    result = CliRunner().invoke(app, arguments)
    assert result.exit_code == 2 and message in result.output


def test_a_session_keeps_what_the_log_keeps_of_a_refused_call() -> None:
    """A client's megabytes past a limit are refused and logged as a few KB; the session's record of what the
    agent asked (for process scoring) keeps that bounded copy too, and valid calls as they were sent."""
    host = WorldHost("banking", task=TASK.id)
    host.open("s")
    refused = host.call("s", "login_bank", {"customer_id": "x" * 1_000_000, "password": [0] * 200_000})
    assert refused.error is not None and refused.error.type == "invalid_arguments"
    host.call("s", "Bank." + "y" * 1_000, {})
    host.call("s", "login_bank", {"customer_id": "C001", "password": "eve2024"})
    asked = host._hosted("s").process
    assert [len(text) < 5_000 for text in asked] == [True, True, True]
    assert asked[2] == "[login_bank(customer_id='C001', password='eve2024')]"


def hostile_script() -> Any:
    """scripts/hostile_mcp.py, whose clients the tests below run in short."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("hostile_mcp", Path(__file__).resolve().parents[1] / "scripts"
                                                  / "hostile_mcp.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("run", range(5))
def test_a_stdio_client_that_goes_away_at_any_point_ends_its_session_and_the_save_is_written(tmp_path: Path,
                                                                                             run: int) -> None:
    """Before the handshake's answer, with answers unread, mid-request, mid-call, after reading: exit 0, no
    traceback, --save written (before: exit 1 with a BrokenPipeError traceback and no --save, 6 of 10)."""
    result = hostile_script().disconnect_once(run, tmp_path)
    assert (result["code"], result["traceback"], result["saved"]) == (0, False, True), result["stderr"]


def test_sessions_past_the_limit_are_refused_and_the_honest_session_keeps_its_world() -> None:
    """60 sessions against --max-sessions 10 beside an honest one that is silent while most come and go: every
    honest call gets its own world's answer (before, at the 1,024-world limit, a fresh world's)."""
    script = hostile_script()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([TOOLWORLDS, "serve", "banking", "--task", script.TASK, "--transport", "http",
                               "--port", str(port), "--max-sessions", "10"], stderr=subprocess.DEVNULL)
    try:
        counts, honest, kept = asyncio.run(script.crowd(f"http://127.0.0.1:{port}", 60, server))
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert honest == ["true"] * len(script.CALLS)
    assert counts["refused"] > 0 and counts["opened"] + counts["refused"] == 60 and kept == 10


def test_a_session_is_listed_from_its_initialisation_and_its_controller_can_reset_or_close_it(
        served: tuple[str, WorldHost]) -> None:
    url, host = served

    async def episode() -> tuple[Any, Any, Any]:
        async with mcp.Client(url + "/mcp") as client:
            status, overview = control(url + "/control")  # initialised, no call yet
            assert status == 200 and [s["calls"] for s in overview["sessions"]] == [0]
            session = overview["sessions"][0]["session"]
            assert control(f"{url}/control/sessions/{session}/state") == (200, TASK.world().state())
            assert control(f"{url}/control/sessions/{session}/reset", "POST")[0] == 200
            login = await client.call_tool(*CALLS[1])
            assert control(f"{url}/control/sessions/{session}", "DELETE")[0] == 200
            with pytest.raises(mcp.MCPError, match=r"was closed by its controller.*start a new session"):
                await client.call_tool(*CALLS[2])
            return session, login, overview

    session, login, _ = asyncio.run(episode())
    assert not login.is_error and login.meta[SESSION_META_KEY] == session
    assert host.sessions() == []


@pytest.mark.parametrize("served", [{"idle_timeout": 0.5}], indirect=True)
def test_an_idle_session_ends_and_its_next_call_is_refused_never_run_in_a_fresh_world(
        served: tuple[str, WorldHost]) -> None:
    url, host = served

    async def episode() -> Any:
        async with mcp.Client(url + "/mcp") as client:
            await client.call_tool(*CALLS[1])
            await asyncio.sleep(1.0)
            with pytest.raises(mcp.MCPError):  # the SDK no longer knows the session (404), or the host refuses it
                await client.call_tool(*CALLS[2])

    asyncio.run(episode())
    ended = [s for s in host.sessions() if not s["open"]]
    assert len(ended) == 1 and ended[0]["calls"] == 1  # its world is kept for the controller, as it was


def test_the_host_never_replaces_an_open_sessions_world() -> None:
    host = WorldHost("banking", task=TASK.id, max_sessions=2)
    host.open("honest")
    host.call("honest", *CALLS[1])
    for number in range(5):  # others open and end; the ended ones make room
        host.open(f"other-{number}")
        host.end(f"other-{number}", "was ended by its client")
    assert not host.call("honest", *CALLS[2]).error  # still logged in: its own world
    host.open("third")  # takes the place of the ended session
    host.open("fourth")  # only open sessions are kept: the one idle longest goes, and its next call says so
    with pytest.raises(SessionEnded, match=r"dropped while open.*--max-sessions.*start a new session"):
        host.call("honest", *CALLS[2])
    with pytest.raises(SessionEnded, match="never opened"):
        host.call("nobody", *CALLS[2])
    with pytest.raises(ValueError, match="--idle-timeout"):
        WorldHost("todo", idle_timeout=0)


def test_structured_results_match_the_declared_output_schemas_of_every_bundled_world() -> None:
    """Valid calls drawn for every tool of every fuzz target: each answer's structured content validates
    against its tool's output schema (a client refuses a result that does not)."""
    import random

    import jsonschema

    from sandbox.testing.fuzzing import ValuePool, harvest_pool, valid_arguments
    from scenarios.fuzz_targets import TARGETS
    from toolworlds.mcp_server import output_schema, structured

    checked = 0
    for build in TARGETS.values():
        world = build()
        rnd = random.Random(0)
        shapes = {spec.name: output_schema(spec) for spec in world.tools.values()}
        for _ in range(300):
            spec = rnd.choice(list(world.tools.values()))
            pool = ValuePool(*harvest_pool(world.state()))
            record = world.call(spec.name, valid_arguments(spec.parameters, rnd, pool))
            schema, wraps = shapes[spec.name]
            if record.error is None and schema is not None:
                jsonschema.validate(structured(record, wraps), schema)
                checked += 1
    assert checked > 500


def test_serve_coercion_strict_refuses_true_for_an_integer_and_lax_keeps_the_familys_way() -> None:
    async def delete_with_true(*options: str) -> Any:
        params = mcp.StdioServerParameters(command=TOOLWORLDS, args=["serve", "acebench", *options], env=CHECKOUT)
        async with mcp.Client(params) as client:
            return await client.call_tool("delete_reminder", {"reminder_id": True})

    strict = asyncio.run(delete_with_true("--coercion", "strict"))
    assert strict.is_error and strict.structured_content["error"] == "invalid_arguments"
    lax = asyncio.run(delete_with_true())
    assert not lax.is_error and "Reminder ID 1" in lax.structured_content["message"]
