"""A real model through the real run machinery: what it writes, and what the runs read of it.

Run: python bench/real_model.py --base-url http://127.0.0.1:8089/v1 --model qwen [--groups apibank,...]

A short fixed suite (the first tasks of each category, spread as `--limit` spreads them):
banking 5 (en), ACEBench normal 10 / special 3 / agent 2 (en), API-Bank levels 1-2, 4 samples. Each
group is one run (`execute_run` in this process, the LLM agent and, for multi-turn tasks, the LLM user,
as `toolworlds run --agent llm` runs them), stored in `--db`. Per group it prints: episodes, solved,
the agent's replies read as calls, read as answers, answers holding call-shaped text outside single-reply
tasks (a call the run did not read, ending a turn or the episode: the number the readers must bring to
0; a single reply is scored as written), replies cut off at `--max-tokens`, calls the
world refused as unreadable (`parse_error`), and the model's share of the wall time (the requests'
latency over the group's wall time). Nothing here is timed for speed: the endpoint is the subject.

`--corpus FILE` writes every model reply as one JSON line `{"text", "source", ...}` (source:
`family/category/task id`), for the reply readers' tests; with `--server-log FILE` (the recipe server's
raw log, `../shared/real-model/README.md`) the text is the model's raw output, the `<tool_call>` tags a
server's parser removes included, matched to the requests in the order they were sent (this script
must then be the server's only client). `--report` prints the tables of runs already stored in `--db`
(a suite cut short keeps every finished episode).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console
from rich.table import Table

from scenarios.acebench.categories import NORMAL_CATEGORIES, SPECIAL_CATEGORIES
from scenarios.family import TaskQuery
from scenarios.registry import family
from toolworlds.runner import AgentSpec, TaskSet, execute_run
from toolworlds.store import RunStore


@dataclass(frozen=True)
class Group:
    """One part of the suite: a family's tasks of some categories, at most `limit` of them."""

    name: str
    family: str
    categories: tuple[str, ...]
    limit: int


SUITE = (
    Group("apibank", "apibank", ("level-1-api", "level-1-response", "level-2-api", "level-2-response"), 4),
    Group("acebench-normal", "acebench", NORMAL_CATEGORIES, 10),
    Group("acebench-special", "acebench", SPECIAL_CATEGORIES, 3),
    Group("acebench-agent", "acebench", ("multi_step", "multi_turn"), 2),
    Group("banking", "banking", (), 5),
)

# Text that looks like a tool call in some model's format: what an answer should not hold.
CALL_SHAPED = re.compile(
    r"<tool_call>|<function=|\[TOOL_CALLS\]|\"name\"\s*:\s*\"|\[\s*[A-Za-z_][\w.]*\s*\(|^\s*[A-Za-z_][\w.]*\s*\(\w+\s*=",
    re.MULTILINE)


def task_sets(group: Group, data: Path | None) -> list[TaskSet]:
    entry = family(group.family)
    loaded = entry.tasks(TaskQuery(lang="en", data=data if group.family != "banking" else None,
                                   categories=group.categories, limit=group.limit))
    if loaded.problems:
        raise SystemExit(f"{group.name}: " + "; ".join(loaded.problems[:3]))
    return [TaskSet(group.family, "en", loaded.tasks, entry.end_state_mode)]


def group_figures(store: RunStore, run_id: str, max_tokens: int | None) -> dict[str, Any]:
    """What the stored run says the model wrote and what the run read of it. The wall time is the run's,
    from its start to its last episode stored (a run continued later counts the pause too)."""
    episodes = store.episodes(run_id)
    figures: dict[str, Any] = {"episodes": len(episodes), "solved": sum(e.success for e in episodes),
                               "failed": sum(e.error is not None for e in episodes), "calls": 0, "answers": 0,
                               "call_shaped_answers": 0, "truncated": 0, "parse_errors": 0, "model_s": 0.0,
                               "stopped_length": sum(e.stop_reason == "length" for e in episodes)}
    for episode in episodes:
        assert episode.id is not None
        figures["parse_errors"] += sum(c.error_type == "parse_error" for c in store.calls(episode.id))
        for message in store.messages(episode.id):
            figures["model_s"] += (message.latency_ms or 0) / 1000
            if message.role != "assistant" or message.source != "agent":
                continue
            if message.tool_calls or message.call_text is not None:
                figures["calls"] += 1
            else:
                figures["answers"] += 1
                # A single reply is scored as written whatever it holds; elsewhere an answer holding a call
                # ended its turn (or episode) on a call that never ran.
                if episode.stop_reason != "single reply":
                    figures["call_shaped_answers"] += bool(CALL_SHAPED.search(message.content))
            if max_tokens is not None and (message.completion_tokens or 0) >= max_tokens:
                figures["truncated"] += 1
    run = store.run(run_id)
    wall = None
    if run is not None and episodes:
        last = max(e.finished_at for e in episodes)
        wall = (last.replace(tzinfo=None) - run.created_at.replace(tzinfo=None)).total_seconds()
    figures["wall_s"] = wall
    figures["model_share"] = figures["model_s"] / wall if wall else None
    return figures


def print_table(rows: dict[str, dict[str, Any]], console: Console) -> None:
    table = Table(title="a real model through toolworlds runs")
    columns = ("group", "episodes", "solved", "failed", "read as calls", "read as answers", "call-shaped answers",
               "truncated", "parse errors", "model s", "wall s", "model share")
    for column in columns:
        table.add_column(column, justify="left" if column == "group" else "right")
    for name, f in rows.items():
        truncated = str(f["truncated"]) + (f" ({f['stopped_length']} ended)" if f["stopped_length"] else "")
        table.add_row(name, str(f["episodes"]), str(f["solved"]), str(f["failed"]), str(f["calls"]),
                      str(f["answers"]), str(f["call_shaped_answers"]), truncated, str(f["parse_errors"]),
                      f"{f['model_s']:.0f}", "-" if f["wall_s"] is None else f"{f['wall_s']:.0f}",
                      "-" if f["model_share"] is None else f"{f['model_share']:.0%}")
    console.print(table)


def corpus_lines(store: RunStore, run_ids: Sequence[tuple[str, str]], raw: list[str] | None) -> list[dict[str, Any]]:
    """Every model reply of the runs, in the order the requests were sent, with where it came from; the raw
    server text in place of what the endpoint returned when `raw` (one per request, same order) fits."""
    lines: list[dict[str, Any]] = []
    for group, run_id in run_ids:
        for episode in sorted(store.episodes(run_id), key=lambda e: e.id or 0):
            assert episode.id is not None
            for message in store.messages(episode.id):
                if message.latency_ms is None:  # not written by a model
                    continue
                line: dict[str, Any] = {"text": message.content, "source": f"{group}/{episode.category}/"
                                                                         f"{episode.task_id}",
                                        "role": "agent" if message.source == "agent" else "user"}
                if message.tool_calls and message.call_text is None:
                    line["tool_calls"] = json.loads(message.tool_calls)
                line["completion_tokens"] = message.completion_tokens
                lines.append(line)
    if raw is not None:  # each reply's raw text: the next log line that reads as it (a request given up leaves one)
        position = unmatched = 0
        for line in lines:
            for ahead in range(position, min(position + 4, len(raw))):
                if _same_reply(raw[ahead], line):
                    line["text"] = raw[ahead]
                    line.pop("tool_calls", None)
                    position = ahead + 1
                    break
            else:
                unmatched += 1
        if unmatched:
            print(f"note: {unmatched} replies not found in the server log are kept as the endpoint returned them",
                  file=sys.stderr)
    return lines


def _same_reply(raw: str, line: dict[str, Any]) -> bool:
    """Whether a raw server reply is the one a stored message holds: the same text, or, for calls the
    server's parser took out, text holding each call's name."""
    if "tool_calls" in line:
        return all(call["name"] in raw for call in line["tool_calls"])
    return raw.strip() == line["text"].strip() or (bool(line["text"].strip()) and line["text"].strip() in raw)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--data", type=Path, default=None, help="benchmark data folder (default: the data folder)")
    parser.add_argument("--db", default="sqlite:///real_model.db")
    parser.add_argument("--run-prefix", default="real")
    parser.add_argument("--groups", default=",".join(g.name for g in SUITE),
                        help="comma-separated: " + ", ".join(g.name for g in SUITE))
    parser.add_argument("--max-tokens", type=int, default=384)
    parser.add_argument("--max-steps", type=int, default=10)
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per request")
    parser.add_argument("--protocol", default="", help="native or bracket (default: each task's own)")
    parser.add_argument("--report", action="store_true", help="only print the tables of runs stored in --db")
    parser.add_argument("--retry-failed", action="store_true", help="run episodes stored as failed again")
    parser.add_argument("--corpus", type=Path, default=None)
    parser.add_argument("--server-log", type=Path, default=None)
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    options = parser.parse_args()
    wanted = [g for g in SUITE if g.name in options.groups.split(",")]
    unknown = set(options.groups.split(",")) - {g.name for g in SUITE}
    if unknown:
        raise SystemExit(f"unknown group(s): {', '.join(sorted(unknown))}")
    console = Console()
    store = RunStore(options.db)
    spec = AgentSpec(kind="llm", model=options.model, base_url=options.base_url, timeout=options.timeout,
                     retries=1, temperature=0.0, max_tokens=options.max_tokens, max_steps=options.max_steps,
                     protocol=options.protocol)
    rows: dict[str, dict[str, Any]] = {}
    runs: list[tuple[str, str]] = []
    for group in wanted:
        run_id = f"{options.run_prefix}-{group.name}"
        if not options.report:
            execute_run(store, run_id, task_sets(group, options.data), spec, workers=0,
                        retry_failed=options.retry_failed,
                        on_done=lambda o: print(f"  {o.episode['task_id']}: {o.episode['stop_reason']}",
                                                file=sys.stderr, flush=True))
        elif store.run(run_id) is None:
            continue
        runs.append((group.name, run_id))
        rows[group.name] = group_figures(store, run_id, options.max_tokens)
        print_table(rows, console)
    if options.json is not None:
        options.json.write_text(json.dumps(rows, indent=2))
    if options.corpus is not None:
        raw = None
        if options.server_log is not None:
            raw = [json.loads(line)["raw"] for line in options.server_log.read_text().splitlines() if line.strip()]
        lines = corpus_lines(store, runs, raw)
        options.corpus.parent.mkdir(parents=True, exist_ok=True)
        options.corpus.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines),
                                  encoding="utf-8")
        console.print(f"wrote {len(lines)} replies to {options.corpus}")
    store.close()


if __name__ == "__main__":
    main()
