"""`ToolEnv` reset + step against the fork + execute it wraps, and the cost of making an environment.

Run: python bench/env_reset.py [--rounds 30] [--batch 200] [--envs 20]
- reset + step: `env.reset(options={"task": T})` then `env.step(<the task's first gold message>)`
  (ours) against `worlds.fork(T)` then `world.execute(<that message>)` (the baseline: what they
  wrap), on banking task T; target ours ≤ 1.5x. CPU time (`time.process_time`) per pair, batches
  of `--batch`, interleaved over `--rounds`; medians.
- the floor of reset + step: the fork and the execute, and what the two calls must hand back and no
  less, written out in a row (the world's work; the turn read from the text; the conversation's
  opening, call and result messages, the results as JSON; the API messages; the observations and
  info dicts), against the same baseline: what no `ToolEnv` can go below, timed in the same rounds.
- making an environment: `--envs` `ToolEnv("banking")` made in a row, as a vector of environments
  makes them (ours: the family's tasks and prebuilt worlds shared), against as many made each with
  its own `TaskWorlds("banking")` (the baseline: what every `ToolEnv("banking")` made before): CPU
  time, and the memory they hold (tracemalloc, in a pass of its own), per environment.
The machine load is printed with the figures, since other processes share the cores.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console
from rich.table import Table
from timing import interleaved_cpu_us

from toolworlds.agents import ChatMessage, Turn
from toolworlds.env import ToolEnv
from toolworlds.json_text import json_text
from toolworlds.llm import api_message
from toolworlds.prebuilt import TaskWorlds

TASK = "banking_multi_step_4"  # pay 1200 from A001 to A003


def made(make: Callable[[], ToolEnv], count: int) -> tuple[float, float, list[ToolEnv]]:
    """CPU ms (timed alone) and KB held (traced in a second pass) per environment, over `count` made in a row."""
    gc.collect()
    start = time.process_time()
    envs = [make() for _ in range(count)]
    elapsed = time.process_time() - start
    del envs
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    envs = [make() for _ in range(count)]
    held = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    return elapsed / count * 1000, held / count / 1024, envs


def floor_of(worlds: TaskWorlds, gold: str) -> Callable[[], object]:
    """Reset + step with nothing but what they must give: the fork, the opening message, the turn, the calls run,
    the assistant's and the results' messages, their API form, the observations and the info dicts."""
    task = worlds.task(TASK)
    prompt, tools = worlds.prompt(TASK, "native"), worlds.shared_offered(TASK)

    def floor() -> object:
        world = worlds.fork(TASK)
        opening = ChatMessage("user", task.question, source="task")
        reset = ({"messages": [{"role": "system", "content": prompt}, api_message(opening, "native")], "tools": tools},
                 {"task": task.id, "category": task.category, "steps": 0, "turns": 0, "stop_reason": "",
                  "protocol": "native"})
        turn = Turn.from_text(gold)
        records = world.execute(list(turn.calls))
        said = ChatMessage("assistant", gold, turn.calls, source="agent")
        answer = ChatMessage("tool", json_text([r.observation() for r in records]), source="world")
        info = {"task": task.id, "category": task.category, "steps": 1, "turns": 0, "stop_reason": "",
                "protocol": "native", "call_errors": [r.error.type for r in records if r.error is not None]}
        return reset, ({"messages": [api_message(said, "native"), api_message(answer, "native")], "tools": tools},
                       0.0, False, False, info)

    return floor


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--batch", type=int, default=200)
    parser.add_argument("--envs", type=int, default=20)
    args = parser.parse_args()
    ToolEnv("banking")  # the family's modules imported and its shared worlds made before timing
    own_ms, own_kb, _ = made(lambda: ToolEnv(TaskWorlds("banking")), args.envs)
    each_ms, each_kb, envs = made(lambda: ToolEnv("banking"), args.envs)
    env = envs[0]
    env.reset(options={"task": TASK})
    gold = env.task.paths[0][0]  # type: ignore[union-attr]
    worlds = env.worlds

    def ours() -> object:
        env.reset(options={"task": TASK})
        return env.step(gold)

    def baseline() -> object:
        return worlds.fork(TASK).execute(gold)

    floor = floor_of(worlds, gold)
    ours(), floor(), baseline()
    medians = interleaved_cpu_us({"ours": (ours, args.batch), "floor": (floor, args.batch),
                                  "baseline": (baseline, args.batch)}, rounds=args.rounds)
    ours_m, floor_m, base_m = medians["ours"], medians["floor"], medians["baseline"]
    table = Table(title=f"ToolEnv on banking ({TASK}), CPU time, medians of {args.rounds} interleaved rounds of "
                        f"{args.batch}, load {os.getloadavg()[0]:.2f}")
    for column in ("measure", "ours", "baseline", "ratio"):
        table.add_column(column)
    table.add_row("reset + step (ours) vs fork + execute (baseline)", f"{ours_m:.1f} us", f"{base_m:.1f} us",
                  f"{ours_m / base_m:.2f}x")
    table.add_row("  the floor: what reset + step must give, written out (ours) vs fork + execute (baseline)",
                  f"{floor_m:.1f} us", f"{base_m:.1f} us", f"{floor_m / base_m:.2f}x")
    table.add_row("  reset + step (ours) vs the floor (baseline)", f"{ours_m:.1f} us", f"{floor_m:.1f} us",
                  f"{ours_m / floor_m:.2f}x")
    table.add_row(f"ToolEnv('banking') made, shared worlds (ours) vs its own TaskWorlds (baseline), "
                  f"per env of {args.envs}: CPU", f"{each_ms:.3f} ms", f"{own_ms:.2f} ms", f"{each_ms / own_ms:.3f}x")
    table.add_row("  memory held per environment", f"{each_kb:,.1f} KB", f"{own_kb:,.1f} KB",
                  f"{each_kb / own_kb:.3f}x")
    Console().print(table)


if __name__ == "__main__":
    main()
