"""`toolworlds serve`: a world over MCP, one world per session."""

import json
from pathlib import Path
from typing import Annotated

import typer

from .shared import app, errors, fail, said


@app.command()
def serve(
    family_name: Annotated[str, typer.Argument(metavar="FAMILY", help="World family (see `toolworlds worlds`).")],
    task: Annotated[str | None, typer.Option(help="Serve this task's world and score sessions against it.")] = None,
    data: Annotated[Path | None, typer.Option(help="With --task: the task data folder or file "
                                                   "(default: the family's own).")] = None,
    lang: Annotated[str, typer.Option(help="en or zh.")] = "en",
    seed: Annotated[int, typer.Option(help="Seed of the world every session starts from.")] = 0,
    transport: Annotated[str, typer.Option(help="stdio, or http (streamable HTTP).")] = "stdio",
    host: Annotated[str, typer.Option(help="http: loopback address to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="http: port to bind.")] = 8000,
    save: Annotated[Path | None, typer.Option(help="stdio: write the session's log, end state and score "
                                                   "here when the client disconnects.")] = None,
    max_sessions: Annotated[int, typer.Option(help="http: sessions open at once at most (one more is refused "
                                                   "with HTTP 503); worlds kept, open and ended.")] = 1024,
    idle_timeout: Annotated[float, typer.Option(help="http: seconds without a request after which a session "
                                                     "ends (its calls are then refused; 0: never).")] = 1800.0,
    filter_difficulty: Annotated[list[str] | None, typer.Option(
        help="With --task: the filters it is read under, as `run` reads --task-ids (toolbench: mcpbr's "
             "toolbench_N counts the tasks that pass them). Repeat for several.")] = None,
    filter_category: Annotated[list[str] | None, typer.Option(help="With --task: as --filter-difficulty.")] = None,
    filter_tags: Annotated[list[str] | None, typer.Option(help="With --task: as --filter-difficulty.")] = None,
    coercion: Annotated[str | None, typer.Option(help="The served world's coercion: lax (\"5\" passes for an "
                                                      "integer) or strict (exact types: \"5\" and true are refused "
                                                      "for an integer); default: the family's own.")] = None,
) -> None:
    """Serve a world over MCP, one world per session; reset, state, diff and score stay off the tool list."""
    if transport not in ("stdio", "http"):
        raise fail(f"unknown transport {transport!r}; use stdio or http")
    if coercion not in (None, "lax", "strict"):
        raise fail(f"unknown coercion {coercion!r}; use lax or strict")
    from ..task_options import OptionError, TaskOptions

    try:  # where and how --task is read, as `run` reads its tasks
        chosen = TaskOptions.checked(lang=lang, data=data, categories=filter_category, difficulties=filter_difficulty,
                                     tags=filter_tags)
    except OptionError as exc:
        raise fail(str(exc)) from None
    if (chosen.data is not None or chosen.categories or chosen.difficulties or chosen.tags) and task is None:
        raise fail("--data and the filters say where and how --task is read: give --task with them")
    if save is not None and transport != "stdio":
        raise fail("--save is for stdio; over http the /control routes give each session's log, state and score")
    try:
        from .. import mcp_server
    except ImportError:
        raise fail('serving MCP needs the mcp package: pip install -e ".[mcp]" in the toolworlds checkout') from None
    try:  # over stdio the process is the session: it does not idle out
        hosted = mcp_server.WorldHost(family_name, task=task, seed=seed, options=chosen, max_sessions=max_sessions,
                                      idle_timeout=(idle_timeout or None) if transport == "http" else None,
                                      coercion="strict" if coercion == "strict" else "lax" if coercion else None)
        if transport == "http":
            mcp_server.check_loopback(host)
    except (LookupError, ValueError) as exc:
        raise fail(said(exc)) from None
    if transport == "http":
        errors.print(f"serving {family_name} on http://{host}:{port}{mcp_server.MCP_PATH} "
                     f"(controller routes under /control)", highlight=False)
        mcp_server.serve_http(hosted, host, port)
        return
    import anyio

    anyio.run(mcp_server.serve_stdio, hosted)
    if save is not None:
        save.write_text(json.dumps(hosted.report(mcp_server.STDIO_SESSION), indent=2, ensure_ascii=False))

