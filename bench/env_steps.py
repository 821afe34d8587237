"""Does a `ToolEnv` step cost more the longer the episode? CPU time per step early and late in one long episode.

Run: python bench/env_steps.py [--late 3000] [--window 200] [--rounds 5]
One banking episode of `--late + --window` steps, each step a read call (a text action, and an OpenAI
tool-call action in a second run; a third run observes every message each step, `observe="all"`, whose
new list per step grows with the episode); the baseline is the mean CPU time (`time.process_time`) of the
`--window` steps from step 10, ours the mean of the `--window` steps from step `--late`, and the ratio
ours/baseline is what a long episode costs per step beyond a short one (1.0: flat). The median over
`--rounds` episodes is printed. Before, the observation copied every past message each step: 46 us per
step at 100 steps, 172 at 1,000, 1,115 at 3,000.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console
from rich.table import Table

from toolworlds.env import ToolEnv

TASK = "banking_multi_step_4"
LOGIN = "[login_bank(customer_id='C001', password='eve2024')]"
READ_TEXT = "[get_balance(customer_id='C001', account_id='A001')]"
READ_NATIVE = {"role": "assistant", "content": None, "tool_calls": [
    {"id": "c", "type": "function",
     "function": {"name": "get_balance", "arguments": '{"customer_id": "C001", "account_id": "A001"}'}}]}


def one_episode(action: Any, early: int, late: int, window: int, observe: str) -> tuple[float, float]:
    """Mean CPU microseconds per step over [early, early+window) and [late, late+window)."""
    env = ToolEnv("banking", [TASK], max_steps=late + window + 2, observe=observe)
    env.reset(options={"task": TASK})
    env.step(LOGIN)
    means = []
    step = 1
    for start in (early, late):
        while step < start:
            env.step(action)
            step += 1
        begin = time.process_time()
        for _ in range(window):
            env.step(action)
        means.append((time.process_time() - begin) / window * 1e6)
        step += window
    return means[0], means[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--early", type=int, default=10)
    parser.add_argument("--late", type=int, default=3000)
    parser.add_argument("--window", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    table = Table(title=f"ToolEnv step cost, CPU time: step {args.late} (ours) vs step {args.early} (baseline)")
    for column in ("action", f"baseline: step {args.early}", f"ours: step {args.late}", "ratio"):
        table.add_column(column)
    for name, action, observe in (("text (bracket calls)", READ_TEXT, "new"), ("OpenAI tool call", READ_NATIVE, "new"),
                                  ("text, observe='all' (every message, each step)", READ_TEXT, "all")):
        runs = [one_episode(action, args.early, args.late, args.window, observe) for _ in range(args.rounds)]
        early = statistics.median(r[0] for r in runs)
        late = statistics.median(r[1] for r in runs)
        ratio = statistics.median(r[1] / r[0] for r in runs)
        table.add_row(name, f"{early:.1f} us", f"{late:.1f} us", f"{ratio:.2f}x")
    Console().print(table)


if __name__ == "__main__":
    main()
