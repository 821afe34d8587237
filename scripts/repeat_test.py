"""Run one test many times, each in a fresh pytest process with a time limit, and count the hangs.

    python scripts/repeat_test.py [TEST_ID] --runs N [--timeout SECONDS]

TEST_ID defaults to the process backend's killed-worker test (issue 42: it hung in 3 of 13 runs).
A run that passes, fails or hangs (still running after --timeout: pytest-timeout ends it and says
"Timeout") is counted; the output of the first few that did not pass is printed. Exits 1 when any
run did not pass.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KILLED_WORKER = ("tests/test_process_backend.py::"
                 "test_an_episode_that_kills_its_worker_is_retried_then_stored_as_failed_and_no_other_is_charged")
SHOWN = 3  # outputs printed of runs that did not pass


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("test", nargs="?", default=KILLED_WORKER)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds one run may take (default %(default)s)")
    args = parser.parse_args(argv)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    counts = {"passed": 0, "failed": 0, "hung": 0}
    shown = 0
    started = time.monotonic()
    for run in range(1, args.runs + 1):
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x",
                   f"--timeout={args.timeout:g}", "--timeout-method=thread", args.test]
        try:
            result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True,
                                    timeout=args.timeout + 60)
            output, code = result.stdout + result.stderr, result.returncode
        except subprocess.TimeoutExpired as exc:  # pytest-timeout itself did not end it
            output, code = f"{exc}", -1
        kind = "passed" if code == 0 else "hung" if code == -1 or "Timeout" in output else "failed"
        counts[kind] += 1
        if kind != "passed" and shown < SHOWN:
            shown += 1
            print(f"--- run {run}: {kind} ---\n{output[-4000:]}", flush=True)
        if run % 10 == 0 or run == args.runs:
            print(f"{run} runs: {counts['passed']} passed, {counts['failed']} failed, {counts['hung']} hung "
                  f"({time.monotonic() - started:.0f} s)", flush=True)
    return 0 if counts["passed"] == args.runs else 1


if __name__ == "__main__":
    sys.exit(main())
