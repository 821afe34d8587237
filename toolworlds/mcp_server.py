"""An MCP server for a world: every tool with its schema and annotations, one world per session.

Optional: needs the `mcp` package (`pip install -e ".[mcp]"` in the toolworlds checkout). Built on
the official SDK's low-level `Server`, so each `tools/call` is one `World.call` in the session's
world: refusals, invalid arguments and unknown tools come back as results with `isError: true` and
the structured error text, so the model can correct itself.

Sessions: over stdio the process is the session (its client started it). Over streamable
HTTP a session is the SDK's `Mcp-Session-Id`, which exists only in the handshake era of the
protocol; the 2026-07-28 revision has no sessions, so this server advertises the handshake
versions in `server/discover` (an `auto` client then opens a session) and refuses a
sessionless `tools/call` with an error that says how to connect.

Reset, state, diff, log and score are not tools, since an agent must not reset its own
episode: over HTTP they are routes under `/control` on the same server (127.0.0.1 only);
in-process they are the `WorldHost` methods.

A session's world is made when the session opens (its `initialize` is answered with an
`Mcp-Session-Id`), so `/control` lists it before its first call, and it ends when its client
ends it (DELETE), when the SDK expires it (idle), or when its controller closes it. The SDK
admits at most `host.max_sessions` open sessions (a client asking for one more gets HTTP 503)
and expires sessions idle for `host.idle_timeout` seconds (their ID then answers HTTP 404); a
tool call in a session whose world is gone gets a JSON-RPC error naming why, never a fresh world.
"""

from __future__ import annotations

import copy
import ipaddress
import json
from collections.abc import Callable
from typing import Any

import anyio
import mcp_types as types
import uvicorn
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from sandbox.calllog import CallRecord
from sandbox.chat import result_text
from sandbox.schemas import output_schema as result_schema_of
from sandbox.tools import ToolSpec

from .hosting import SessionEnded, WorldHost

STDIO_SESSION = "stdio"
SESSION_META_KEY = "toolworlds/session"  # in each tools/call result's _meta: which world the call ran in
MCP_PATH = "/mcp"

SessionOf = Callable[[ServerRequestContext[Any, Any]], str]


def mcp_tool(spec: ToolSpec, result_schema: dict[str, Any] | None = None) -> types.Tool:
    """A tool as MCP lists it: read-only tools say so; of the others, those whose calls may destroy or
    overwrite are marked destructive and those a repeat leaves as they were idempotent (as each tool
    declares, `sandbox.tool`); no tool reaches outside its simulated world. The result's JSON Schema is
    given where the tool declares its return type (`result_schema`, from `output_schema`)."""
    return types.Tool(
        name=spec.name,
        description=spec.description,
        input_schema=spec.parameters,
        output_schema=result_schema,
        annotations=types.ToolAnnotations(read_only_hint=not spec.mutates,
                                          destructive_hint=spec.mutates and spec.destructive,
                                          idempotent_hint=spec.mutates and spec.idempotent,
                                          open_world_hint=False),
    )


def output_schema(spec: ToolSpec) -> tuple[dict[str, Any] | None, bool]:
    """MCP's `outputSchema` for the tool, and whether it wraps the result: the schema of its declared result
    type (`sandbox.schemas.output_schema`, the one owner of a tool's result shape), which MCP wants to be an
    object, so any other type is the object `{"result": ...}` (and `structured` wraps every value of that
    tool). None where the tool declares no shape (bare `dict`, `list`, `Any` or none)."""
    declared = result_schema_of(spec)
    if declared is None:
        return None, False
    if declared.get("type") == "object":
        return copy.deepcopy(declared), False
    wrapped: dict[str, Any] = {"type": "object", "properties": {"result": copy.deepcopy(declared)},
                               "required": ["result"]}
    return wrapped, True


def structured(record: CallRecord, wraps: bool) -> dict[str, Any]:
    """The call's result as MCP's `structuredContent` (the JSON the text holds): an object as it is, any other
    value (or every value, when the tool's schema wraps its type) as `{"result": value}`; a refusal as the
    error object its text holds."""
    if record.error is not None:
        refusal: dict[str, Any] = json.loads(result_text(record))
        return refusal
    value = json.loads(json.dumps(record.result, ensure_ascii=False, default=str))
    return {"result": value} if wraps or not isinstance(value, dict) else value


def http_session(ctx: ServerRequestContext[Any, Any]) -> str:
    """The `Mcp-Session-Id` a streamable-HTTP request carries; an MCP error when it has none."""
    request = ctx.request
    session = request.headers.get("mcp-session-id") if isinstance(request, Request) else None
    if not session:
        raise MCPError(code=types.INVALID_REQUEST,
                       message="toolworlds keeps one world per MCP session, and this request has none: connect "
                               "with the initialize handshake (the default client mode 'auto' does; a client "
                               "pinned to protocol 2026-07-28 has no sessions)")
    return session


def build_server(host: WorldHost, session_of: SessionOf, *, handshake_only: bool = False) -> Server[Any]:
    """The SDK server for `host`; `session_of` names the session (the world) a request belongs to."""
    shapes = {spec.name: output_schema(spec) for spec in host.tools}
    tools = [mcp_tool(spec, shapes[spec.name][0]) for spec in host.tools]
    wrapping = {name for name, (_, wraps) in shapes.items() if wraps}  # their structured results: {"result": ...}

    async def list_tools(ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
                         ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
                        ) -> types.CallToolResult:
        session = session_of(ctx)
        try:
            record = host.call(session, params.name, params.arguments if params.arguments is not None else {})
        except SessionEnded as exc:
            raise MCPError(code=types.INVALID_REQUEST, message=str(exc)) from None
        return types.CallToolResult(content=[types.TextContent(type="text", text=result_text(record))],
                                    structured_content=structured(record, record.tool in wrapping),
                                    is_error=record.error is not None, _meta={SESSION_META_KEY: session})

    server: Server[Any] = Server(f"toolworlds-{host.family}", version="0.1.0",
                                 instructions=host.describe(), on_list_tools=list_tools, on_call_tool=call_tool)
    if handshake_only:
        async def discover(ctx: ServerRequestContext[Any, Any], params: types.RequestParams) -> types.DiscoverResult:
            return types.DiscoverResult(supported_versions=list(HANDSHAKE_PROTOCOL_VERSIONS),
                                        capabilities=server.get_capabilities())

        server.add_request_handler("server/discover", types.RequestParams, discover)
    return server


async def serve_stdio(host: WorldHost) -> None:
    """Serve `host` on this process's stdin/stdout until the client closes them or goes away. A client
    that goes away mid-call (a broken pipe) ends the session, as closing stdin does: it is no error here."""
    server = build_server(host, lambda ctx: STDIO_SESSION)
    host.open(STDIO_SESSION)
    try:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())
    except* (BrokenPipeError, ConnectionResetError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        pass
    finally:
        host.end(STDIO_SESSION, "ended: its client closed the connection")


def check_loopback(address: str) -> None:
    """Servers bind the loopback interface only; anything else is refused."""
    if address == "localhost":
        return
    try:
        ip = ipaddress.IPv4Address(address)
    except ValueError:
        raise ValueError(f"--host must be a loopback IPv4 address such as 127.0.0.1, not {address!r}") from None
    if not ip.is_loopback:
        raise ValueError(f"--host must be a loopback address (127.0.0.0/8), not {address}")


def http_app(host: WorldHost, address: str = "127.0.0.1") -> ASGIApp:
    """The MCP endpoint at `/mcp` and the control routes under `/control`, answering loopback Host names only."""
    check_loopback(address)
    server = build_server(host, http_session, handshake_only=True)
    # Plain JSON answers rather than an SSE stream per call: a tool call sends no progress or
    # log notifications, and the stream's setup is a third of a call's round trip.
    app: Starlette = server.streamable_http_app(streamable_http_path=MCP_PATH, host=address, json_response=True,
                                                custom_starlette_routes=control_routes(host),
                                                max_sessions=host.max_sessions, session_idle_timeout=host.idle_timeout)
    return TrustedHostMiddleware(SessionWatch(app, host), allowed_hosts=sorted({"127.0.0.1", "localhost", address}))


class SessionWatch:
    """Tells the host when a streamable-HTTP session opens and ends, from the requests and answers at `/mcp`:
    an answer carrying an `Mcp-Session-Id` to a request that had none opens that session (before the client
    reads the answer, so its world is there for its first call); a DELETE answered with success ends it, and
    so does an answer of 404 (the SDK no longer knows the session: it expired)."""

    def __init__(self, app: ASGIApp, host: WorldHost) -> None:
        self.app, self.host = app, host

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] != MCP_PATH:
            await self.app(scope, receive, send)
            return
        session = Headers(scope=scope).get("mcp-session-id")
        status = 0

        async def watch(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                opened = Headers(raw=message.get("headers", [])).get("mcp-session-id")
                if session is None and opened and status < 400:
                    self.host.open(opened)
            await send(message)

        if session is not None:
            self.host.touch(session)
        try:
            await self.app(scope, receive, watch)
        finally:
            if session is not None and scope["method"] == "DELETE" and 200 <= status < 300:
                self.host.end(session, "was ended by its client")
            elif session is not None and status == 404:
                self.host.end(session, "was ended by the MCP transport (expired, or unknown to it)")


def serve_http(host: WorldHost, address: str = "127.0.0.1", port: int = 8000) -> None:
    """Serve `host` over streamable HTTP until interrupted."""
    uvicorn.run(http_app(host, address), host=address, port=port, log_level="warning")


# -- the control surface -------------------------------------------------------------------


def control_routes(host: WorldHost) -> list[Route]:
    """`/control` routes: what a controller (a trainer, an evaluator) may do and an agent may not."""

    def known(request: Request) -> str | None:
        session = request.path_params["session"]
        return session if session in host else None

    async def overview(request: Request) -> JSONResponse:
        return JSONResponse({"family": host.family, "task": host.task_summary(), "sessions": host.sessions()})

    async def session_report(request: Request) -> JSONResponse:
        session = known(request)
        if session is None:
            return _missing(request)
        return JSONResponse(host.report(session))

    def read(view: Callable[[str], Any]) -> Callable[[Request], Any]:
        async def endpoint(request: Request) -> JSONResponse:
            session = known(request)
            if session is None:
                return _missing(request)
            try:
                return JSONResponse(view(session))
            except LookupError as exc:
                return JSONResponse({"error": str(exc.args[0])}, status_code=409)

        return endpoint

    async def reset(request: Request) -> JSONResponse:
        session = known(request)
        if session is None:
            return _missing(request)
        host.reset(session)
        return JSONResponse({"session": session, "reset": True})

    async def close(request: Request) -> JSONResponse:
        session = request.path_params["session"]
        if not host.close(session):
            return _missing(request)
        return JSONResponse({"session": session, "closed": True})

    base = "/control/sessions/{session}"
    return [
        Route("/control", overview, methods=["GET"]),
        Route(base, session_report, methods=["GET"]),
        Route(base, close, methods=["DELETE"]),
        Route(base + "/state", read(host.state), methods=["GET"]),
        Route(base + "/log", read(host.log), methods=["GET"]),
        Route(base + "/diff", read(host.diff), methods=["GET"]),
        Route(base + "/score", read(host.score), methods=["GET"]),
        Route(base + "/reset", reset, methods=["POST"]),
    ]


def _missing(request: Request) -> JSONResponse:
    return JSONResponse({"error": f"no session {request.path_params['session']!r}"}, status_code=404)
