"""A newcomer's first ten minutes, replayed on a fresh clone (issue 44): the light install, the main job,
and each thing that made a newcomer give up or trust a wrong reading, asserted as it behaves now.

Run: python scripts/newcomer.py [--keep]   (from a checkout; clones its HEAD into a temporary folder,
makes a venv there with the plain install, `pip install -e .`, and runs the commands a newcomer would).
It needs the package index (or pip's cache) and takes a few minutes, so it is a script, not a test; the
behaviours themselves are tested one by one in tests/. Prints one line per check and a timing table;
exits 1 if any check fails.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


class Newcomer:
    def __init__(self, home: Path) -> None:
        self.home = home
        self.clone = home / "toolworlds"
        self.bin = self.clone / ".venv" / "bin"
        self.failures: list[str] = []
        self.timings: list[tuple[str, float, float]] = []

    def sh(self, command: str, *, env: dict[str, str] | None = None, cwd: Path | None = None,
           timed: str | None = None) -> subprocess.CompletedProcess[str]:
        """`command` in bash with the clone's venv first on PATH and no COLUMNS (as in a pipe)."""
        environment = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "VIRTUAL_ENV", "PYTHONPATH")}
        environment["PATH"] = f"{self.bin}:{environment['PATH']}"
        environment.update(env or {})
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(["bash", "-c", command], cwd=cwd or self.clone, env=environment, text=True,
                              capture_output=True, timeout=1800, check=False)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if timed:
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            self.timings.append((timed, time.perf_counter() - start, cpu))
        return done

    def check(self, item: str, what: str, ok: Callable[[], bool]) -> None:
        try:
            passed = ok()
        except Exception as exc:  # a check that cannot even run is a failure, said in one line
            passed, what = False, f"{what} ({type(exc).__name__}: {exc})"
        print(f"{'PASS' if passed else 'FAIL'}  [{item}] {what}", flush=True)
        if not passed:
            self.failures.append(f"[{item}] {what}")


def run(home: Path) -> int:
    me = Newcomer(home)
    subprocess.run(["git", "clone", "-q", str(ROOT), str(me.clone)], check=True)
    install = me.sh("python3 -m venv .venv && . .venv/bin/activate && pip install -q -e .", timed="light install")
    me.check("1", "the README's first command installs the light package", lambda: install.returncode == 0)
    if install.returncode != 0:
        print(install.stderr[-2000:])
        return 1
    packages = me.sh("pip list --format json").stdout
    size = me.sh("du -sm .venv").stdout.split()[0]
    main = me.sh("toolworlds run", timed="main job (toolworlds run)")
    me.check("1", "the main job runs on the light install and prints whole tables in a pipe",
             lambda: main.returncode == 0 and "72 episodes stored, 0 failed" in main.stdout
             and any("category" in line and "failed" in line for line in main.stdout.splitlines()))
    me.check("9", "a finished run prints no resume hint", lambda: "--resume" not in main.stdout)

    work = home / "work"
    (work / "broken" / "possible_answer").mkdir(parents=True)
    (work / "broken" / "data_agent_multi_step.json").write_text('{"id": "t1", oops\n')
    (work / "broken" / "possible_answer" / "data_agent_multi_step.json").write_text("")
    (work / "empty").mkdir()
    broken = me.sh(f"toolworlds replay acebench --data {work / 'broken'}")
    me.check("2", "replay names a broken line and exits 1",
             lambda: broken.returncode == 1 and "data_agent_multi_step.json:1: not valid JSON" in broken.stderr)
    empty = me.sh(f"toolworlds replay acebench --data {work / 'empty'}")
    me.check("2", "replay of an empty folder is an error, not 0/0",
             lambda: empty.returncode != 0 and "0/0" not in empty.stdout)
    (work / "results").mkdir()
    (work / "results" / "data_normal_atom_bool_result.json").write_text("not json\n")
    data = os.environ.get("TOOLWORLDS_DATA") or str(ROOT.parent / "shared" / "datasets")  # the clone has none beside it
    scored = me.sh(f"toolworlds score acebench --results {work / 'results'}", env={"TOOLWORLDS_DATA": data})
    me.check("2", "score acebench names an unreadable result line and prints no 0.000 table",
             lambda: scored.returncode == 2 and "data_normal_atom_bool_result.json:1" in scored.stderr
             and "0.000" not in scored.stdout)

    as_json = me.sh("toolworlds report --format json")
    me.check("4", "report --format json gives rows with intervals and pass^k",
             lambda: as_json.returncode == 0 and "pass_hat" in json.loads(as_json.stdout)[-1])
    as_csv = me.sh("toolworlds report --format csv")
    me.check("4", "report --format csv has a header and one row per group",
             lambda: as_csv.returncode == 0 and as_csv.stdout.startswith("run,agent,model,task_set,category"))
    html = me.sh("toolworlds report --html page.html")
    me.check("5", "the HTML report without matplotlib names the extra to install",
             lambda: html.returncode == 2 and '".[report]"' in html.stderr)

    me.check("6", "OPENAI_API_KEY is documented with every other variable",
             lambda: "| `OPENAI_API_KEY` |" in (me.clone / "README.md").read_text())
    no_sdk = me.sh("toolworlds run --db sqlite:///llm.db --agent llm --model m --base-url http://127.0.0.1:9/v1")
    me.check("6", "a missing openai package is refused before a run is stored",
             lambda: no_sdk.returncode == 2 and "openai" in no_sdk.stderr and not (me.clone / "llm.db").exists())

    lifecycle = me.sh("toolworlds execute todo \"[add_task(title='milk')]\" '[complete_task(task_id=1)]' "
                      "'[complete_task(task_id=1)]' --json")
    me.check("7", "a lifecycle refusal names tools, not triggers",
             lambda: "tools that can move it now: reopen_task, archive_task" in lifecycle.stdout)
    turn = me.sh(".venv/bin/python -c \"from toolworlds.agents import Turn; "
                 "t = Turn(text='[add_task(title=\\'x\\')]'); print(len(t.calls))\"")
    me.check("7", "Turn(text=...) reads calls as runs do",
             lambda: turn.returncode == 0 and turn.stdout.strip() == "1")

    deep = me.sh("toolworlds run --tasks acebench", env={"TOOLWORLDS_DATA": str(work / "broken")})
    me.check("8", "TOOLWORLDS_DATA one level too deep names where it looked and what works",
             lambda: deep.returncode == 2 and "looked for" in deep.stderr)
    sample = me.sh("toolworlds run --tasks toolbench --db sqlite:///tb.db", env={"TOOLWORLDS_DATA": str(work)})
    me.check("8", "ToolBench runs on the bundled sample",
             lambda: sample.returncode == 0 and "8 episodes" in sample.stdout)

    path_db = me.sh("toolworlds report --db scratch.db")
    me.check("9", "--db with a path suggests the URL", lambda: "sqlite:///scratch.db" in path_db.stderr)
    missing = me.sh("toolworlds report --db sqlite:///missing.db")
    me.check("9", "report on a missing database creates no file",
             lambda: missing.returncode == 2 and not (me.clone / "missing.db").exists())
    typo = me.sh("toolworlds run --tasks acebnch")
    me.check("9", "a misspelled family gets a did-you-mean", lambda: "did you mean 'acebench'" in typo.stderr)
    limit = me.sh("toolworlds run --db sqlite:///limit.db --limit 4")
    me.check("9", "--limit says it applies per task set", lambda: "applies to each of the 2 task sets" in limit.stderr)
    export = me.sh("toolworlds export run-1")
    me.check("9", "export says 'wrote' once", lambda: export.stdout.count("wrote") == 1)
    ignored = me.sh("git check-ignore results/run-1/data_agent_multi_step_result.json run-1.jsonl toolworlds.db")
    me.check("9", "results/, run-1.jsonl and the database are ignored by git",
             lambda: ignored.returncode == 0 and len(ignored.stdout.split()) == 3)

    dev = me.sh('. .venv/bin/activate && pip install -q -e ".[dev]"', timed="dev install (test needs)")
    dev_size = me.sh("du -sm .venv").stdout.split()[0]
    me.check("1", "the README's second command installs what the tests need", lambda: dev.returncode == 0)

    print(f"\nlight install: {len(json.loads(packages))} packages, {size} MB; with the dev extra: {dev_size} MB")
    print(f"{'step':32} {'wall s':>8} {'CPU s':>8}")
    for name, wall, cpu in me.timings:
        print(f"{name:32} {wall:8.1f} {cpu:8.1f}")
    print(f"\n{len(me.failures)} failed" if me.failures else "\nevery check passed")
    return 1 if me.failures else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", action="store_true", help="keep the temporary clone and its venv")
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="toolworlds-newcomer-"))
    try:
        code = run(home)
    finally:
        if args.keep:
            print(f"kept {home}")
        else:
            shutil.rmtree(home, ignore_errors=True)
    sys.exit(code)


if __name__ == "__main__":
    main()
