"""A seeded sample of mutants over the modules whose tests must pin behaviour; prints the kill rate.

Mutation testing asks whether the tests notice when the code is changed: a mutant (a `<` made
`<=`, a `+` made `-`, a condition negated) that no test fails on is a behaviour nobody checks.
cosmic-ray makes and runs the mutants; this script chooses which. All mutants of four modules take
hours on two cores, so it draws a seeded sample per module, marks the rest skipped in cosmic-ray's
session, and runs only the tests that exercise that module for each mutant.

It works in a temporary copy of the tracked files, so the checkout is never mutated. cosmic-ray
lives in a venv of its own (it is not a dependency of ours); the tests run with the project's Python:

    python3 -m venv /work/venvs/house && /work/venvs/house/bin/pip install cosmic-ray
    /work/venvs/house/bin/python scripts/mutation_sample.py --python /work/venv/bin/python

Prints one row per module (sampled, killed, survived, kill rate) and every survivor's diff;
exits 1 when the overall kill rate is under `--target` (85%).
"""

from __future__ import annotations

import argparse
import ast
import os
import random
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from cosmic_ray.work_db import WorkDB, use_db
from cosmic_ray.work_item import TestOutcome, WorkerOutcome, WorkItem, WorkResult

ROOT = Path(__file__).resolve().parents[1]

# Identity and equality swapped: equivalent, so not sampled, where the right side is None, a type, a
# named constant or a literal (`kind is str`, `value is _UNSURE`, `kind == _DICT`, `column != -1`): types,
# None and sentinels are only equal to themselves, and CPython keeps one object per small integer and per
# identifier-like string literal, so for those `==` and `is` are the same test.
IDENTITY_MADE_EQUALITY = frozenset({
    "core/ReplaceComparisonOperator_Is_Eq", "core/ReplaceComparisonOperator_IsNot_NotEq",
    "core/ReplaceComparisonOperator_Eq_Is", "core/ReplaceComparisonOperator_NotEq_IsNot",
})
_TYPES = frozenset({"str", "int", "float", "bool", "bytes", "dict", "list", "tuple", "set", "frozenset", "type"})

# Each module sampled, with the tests that exercise it (the whole suite per mutant would take days).
MODULES: dict[str, tuple[str, ...]] = {
    "sandbox/journal.py": ("tests/test_state.py", "tests/test_world.py", "tests/test_structural_sharing.py",
                           "tests/test_journal_origins.py"),
    "sandbox/limit_walk.py": ("tests/test_limits.py", "tests/test_bad_input.py"),
    "evaluators/matching.py": ("tests/test_evaluators.py", "tests/test_tracker_bugs.py"),
    "sandbox/arguments.py": ("tests/test_fast_arguments.py", "tests/test_bad_input.py", "tests/test_limits.py"),
}


@dataclass
class Tally:
    module: str
    sampled: int = 0
    killed: int = 0
    survived: int = 0
    incompetent: int = 0  # mutants cosmic-ray could not run (no verdict either way)

    @property
    def rate(self) -> float:
        judged = self.killed + self.survived
        return self.killed / judged if judged else 1.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sample", type=int, default=12, help="mutants drawn per module (default 12)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--python", default=sys.executable, help="the interpreter the tests run with")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds one mutant's tests may take")
    parser.add_argument("--target", type=float, default=0.85)
    parser.add_argument("--module", action="append", choices=sorted(MODULES), help="only these (repeatable)")
    args = parser.parse_args()
    cosmic_ray = Path(sys.executable).with_name("cosmic-ray")
    if not cosmic_ray.exists():
        parser.error(f"run this with the Python of cosmic-ray's venv ({cosmic_ray} not found)")
    tallies: list[Tally] = []
    survivors: list[str] = []
    with tempfile.TemporaryDirectory(prefix="mutation-sample-") as scratch:
        copy = Path(scratch) / "repo"
        _copy_tracked(copy)
        for module in args.module or list(MODULES):
            tally, diffs = _sample_module(copy, module, args, cosmic_ray)
            tallies.append(tally)
            survivors.extend(diffs)
    total = Tally("all", *(sum(getattr(t, f) for t in tallies) for f in ("sampled", "killed", "survived",
                                                                          "incompetent")))
    print(f"{'module':<26} {'sampled':>7} {'killed':>6} {'survived':>8} {'no verdict':>10} {'kill rate':>9}")
    for tally in (*tallies, total):
        print(f"{tally.module:<26} {tally.sampled:>7} {tally.killed:>6} {tally.survived:>8} "
              f"{tally.incompetent:>10} {tally.rate:>9.1%}")
    for diff in survivors:
        print("\nsurvived:\n" + diff)
    return 0 if total.rate >= args.target else 1


def _copy_tracked(target: Path) -> None:
    """The checkout's tracked files as they are now (edits included), without its caches and data."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, check=True, capture_output=True).stdout
    for name in filter(None, listed.decode().split("\0")):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)


Span = tuple[tuple[int, int], tuple[int, int]]


def _annotation_spans(path: Path) -> list[Span]:
    """Where the module's annotations that Python never evaluates are: under `from __future__ import
    annotations`, those of functions (parameters, returns, locals) and module-level names. A mutant
    there is equivalent, so it is not sampled. Class-level annotations stay: pydantic and dataclasses
    read those."""
    tree = ast.parse(path.read_text())
    postponed = any(isinstance(node, ast.ImportFrom) and node.module == "__future__"
                    and any(alias.name == "annotations" for alias in node.names) for node in tree.body)
    if not postponed:
        return []
    found: list[ast.expr | None] = [node.annotation for node in tree.body if isinstance(node, ast.AnnAssign)]
    for function in ast.walk(tree):
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.append(function.returns)
            found.extend(node.annotation for node in ast.walk(function) if isinstance(node, (ast.arg, ast.AnnAssign)))
    return [((a.lineno, a.col_offset), (a.end_lineno, a.end_col_offset)) for a in found
            if a is not None and a.end_lineno is not None and a.end_col_offset is not None]


def _identity_test_spans(path: Path) -> list[Span]:
    """Where the module's `is`, `is not`, `==` and `!=` operators stand whose right side is None, a type, a
    named constant, a small integer or an identifier-like string."""
    spans: list[Span] = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.Compare):
            continue
        left = node.left
        for op, right in zip(node.ops, node.comparators, strict=True):
            if isinstance(op, (ast.Is, ast.IsNot, ast.Eq, ast.NotEq)) and _identity_like(right) \
                    and left.end_lineno is not None and left.end_col_offset is not None:
                spans.append(((left.end_lineno, left.end_col_offset), (right.lineno, right.col_offset)))
            left = right
    return spans


def _identity_like(node: ast.expr) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand  # -1
    if isinstance(node, ast.Constant):
        value = node.value
        return value is None or (type(value) is int and -5 <= value <= 256) or (
            type(value) is str and value.isidentifier())
    if isinstance(node, ast.Name):
        name = node.id.lstrip("_")
        return node.id in _TYPES or name[:1].isupper()  # a class, or a constant such as _UNSURE
    return False


def _what(item: WorkItem) -> list[tuple[str, int, tuple[int, ...]]]:
    return [(m.operator_name, m.occurrence, tuple(m.start_pos)) for m in item.mutations]


def _within(position: tuple[int, int], spans: list[Span]) -> bool:
    return any(start <= tuple(position) < end for start, end in spans)


def _sample_module(copy: Path, module: str, args: argparse.Namespace, cosmic_ray: Path) -> tuple[Tally, list[str]]:
    tests = " ".join(MODULES[module])
    command = f"{shlex.quote(args.python)} -m pytest -x -q -p no:cacheprovider {tests}"
    name = module.replace("/", "_").removesuffix(".py")
    config, session = copy / f"{name}.toml", copy / f"{name}.sqlite"
    config.write_text(
        "[cosmic-ray]\n"
        f"module-path = {module!r}\n"
        f"timeout = {args.timeout}\n"
        "excluded-modules = []\n"
        f"test-command = {command!r}\n"
        "\n[cosmic-ray.distributor]\nname = \"local\"\n"
    )
    subprocess.run([str(cosmic_ray), "init", str(config), str(session)], cwd=copy, check=True)
    unevaluated, identity_tests = _annotation_spans(copy / module), _identity_test_spans(copy / module)
    with use_db(str(session), WorkDB.Mode.open) as db:
        items = list(db.pending_work_items)
        # In the order of what each mutant is (cosmic-ray's job ids are random), so a seed names one sample.
        candidates = sorted((item for item in items if not any(
            _within(m.start_pos, unevaluated)
            or (m.operator_name in IDENTITY_MADE_EQUALITY and _within(m.start_pos, identity_tests))
            for m in item.mutations)), key=_what)
        jobs = [item.job_id for item in candidates]
        chosen = set(random.Random(f"{args.seed}:{module}").sample(jobs, min(args.sample, len(jobs))))
        skipped = [item.job_id for item in items if item.job_id not in chosen]
        db.set_multiple_results(skipped, WorkResult(output="not in the sample", worker_outcome=WorkerOutcome.SKIPPED))
    print(f"{module}: {len(chosen)} of {len(jobs)} mutants ({len(items) - len(jobs)} more left out: in annotations "
          f"never evaluated, or identity made equality), tests: {tests}", file=sys.stderr, flush=True)
    subprocess.run([str(cosmic_ray), "exec", str(config), str(session)], cwd=copy, check=True,
                   env={**os.environ, "PYTHONPATH": str(copy)})
    tally, diffs = Tally(module, sampled=len(chosen)), []
    with use_db(str(session), WorkDB.Mode.open) as db:
        for item, result in db.completed_work_items:
            if item.job_id not in chosen:
                continue
            if result.worker_outcome != WorkerOutcome.NORMAL:
                tally.incompetent += 1
            elif result.test_outcome == TestOutcome.SURVIVED:
                tally.survived += 1
                diffs.append(result.diff or item.job_id)
            elif result.test_outcome == TestOutcome.KILLED:
                tally.killed += 1
            else:
                tally.incompetent += 1
    return tally, diffs


if __name__ == "__main__":
    sys.exit(main())
