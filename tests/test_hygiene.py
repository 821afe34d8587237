"""Project rules that code review alone would let slip."""

from __future__ import annotations

import ast
import importlib
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("sandbox", "scenarios", "evaluators", "toolworlds")
_MUTABLE_CALLS = {"list", "dict", "set", "defaultdict", "OrderedDict", "Counter", "deque"}


def _python(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    """`code` run by a fresh interpreter (what a module imports shows only in a process of its own)."""
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=True, cwd=ROOT)


def _module_level_mutables(path: Path) -> list[str]:
    found = []
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if all(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                continue  # the export list is read by tools, never written
            value = node.value
            mutable = isinstance(value, (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp,
                                         ast.SetComp))
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
                mutable = mutable or value.func.id in _MUTABLE_CALLS
            if mutable:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def test_no_module_level_mutable_state() -> None:
    offenders = [hit for package in PACKAGES for path in (ROOT / package).rglob("*.py")
                 for hit in _module_level_mutables(path)]
    assert offenders == [], "module-level mutable containers are shared by every world"


def test_no_eval_or_exec_in_package_code() -> None:
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                    assert node.func.id not in ("eval", "exec"), f"{path}:{node.lineno}"


def test_core_import_stays_light() -> None:
    code = (
        "import sys, sandbox, scenarios.todo\n"
        "heavy = [m for m in ('deepdiff', 'sqlmodel', 'sqlalchemy', 'typer', 'rich') if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    out = _python(code)
    assert out.stdout.strip() == ""


def test_the_engine_imports_no_layer_above_it() -> None:
    code = ("import sys, sandbox\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('scenarios', 'evaluators', 'toolworlds')))")
    out = _python(code)
    assert out.stdout.strip() == "[]"


def test_every_toolworlds_export_resolves() -> None:
    import toolworlds

    assert sorted(toolworlds.__all__) == sorted(toolworlds._EXPORTS)
    for name in toolworlds.__all__:
        assert getattr(toolworlds, name) is not None, name


def test_import_sandbox_builds_nothing_until_a_name_is_used() -> None:
    """Reading a message needs no pydantic (its import and model building are most of a cold start);
    a world does."""
    code = ("import sys, sandbox\n"
            "print(sorted(m for m in sys.modules if m.startswith(('sandbox.', 'pydantic'))))\n"
            "from sandbox import parse_message\n"
            "print('pydantic' in sys.modules, parse_message(\"[f(a=1)]\").calls[0].arguments)\n"
            "from sandbox import World\n"
            "print('pydantic' in sys.modules)\n")
    out = _python(code)
    assert out.stdout.splitlines() == ["[]", "False {'a': 1}", "True"]


def test_every_sandbox_export_resolves() -> None:
    import sandbox

    assert sorted(sandbox.__all__) == sorted(sandbox._LAZY)
    for name in sandbox.__all__:
        assert getattr(sandbox, name) is getattr(importlib.import_module(sandbox._LAZY[name], "sandbox"), name)
    assert set(sandbox.__all__) <= set(dir(sandbox))


# What `toolworlds replay acebench` has no use for: the other families, the run machinery and its
# store, the LLM client and agents, the scorers, ACEBench's normal and special items, the heavy
# optional libraries (state diagrams, deep diffs, retrieval, text similarity), and rich's emoji codes
# (the table is data, printed as Text).
_NOT_ON_THE_REPLAY_PATH = (
    "scenarios.todo", "scenarios.banking", "scenarios.apibank", "scenarios.toolbench", "scenarios.acebench.items",
    "evaluators", "toolworlds.runner", "toolworlds.store", "toolworlds.episodes", "toolworlds.llm",
    "toolworlds.agents", "toolworlds.users", "sqlalchemy", "sqlmodel", "openai", "httpx", "transitions.extensions",
    "deepdiff", "rank_bm25", "rouge_score", "rouge", "rich._emoji_codes", "sandbox.replies", "sandbox.chat",
)


def _one_task_folder(folder: Path, wifi_after: bool) -> Path:
    """An ACEBench-format folder holding one agent task: turn Wi-Fi on, with `wifi_after` as its ground truth."""
    (folder / "possible_answer").mkdir(parents=True)
    task = {"id": "agent_multi_step_0", "question": "Turn on Wi-Fi.", "initial_config": {},
            "involved_classes": ["BaseApi"], "function": []}
    answer = {"id": "agent_multi_step_0", "ground_truth": [{"BaseApi": {"wifi": wifi_after, "logged_in": True}}],
              "mile_stone": ["[turn_on_wifi()]"]}
    (folder / "data_agent_multi_step.json").write_text(json.dumps(task) + "\n")
    (folder / "possible_answer" / "data_agent_multi_step.json").write_text(json.dumps(answer) + "\n")
    return folder


def test_the_replay_path_imports_only_what_it_uses(tmp_path: Path) -> None:
    data = _one_task_folder(tmp_path / "data", wifi_after=True)
    code = ("import sys\n"
            "from toolworlds.cli import main\n"
            "sys.argv = ['toolworlds', 'replay', 'acebench', '--data', sys.argv[1], '--json', sys.argv[2]]\n"
            "try:\n"
            "    main()\n"
            "except SystemExit as done:\n"
            "    assert not done.code, done.code\n"
            "import tokenize\n"
            "from sandbox.parsing import _simple_pattern\n"
            "print(tokenize._compile.cache_info().currsize, _simple_pattern.cache_info().currsize, file=sys.stderr)\n"
            "print(' '.join(sorted(sys.modules)), file=sys.stderr)\n")
    out = _python(code, str(data), str(tmp_path / "rows.json"))
    assert "reproduced 1/1 tasks" in out.stdout
    assert [row["id"] for row in json.loads((tmp_path / "rows.json").read_text())] == ["agent_multi_step_0"]
    compiled, loaded = out.stderr.split("\n", 1)
    # Nothing reads a signature from its text (pydantic does for a builtin default factory, compiling the
    # tokenizer's patterns), and bracket messages compile at most the fast lane's list pattern (a flat
    # one-call message needs neither it nor the bare-call one).
    tokenizer, simple = compiled.split()
    assert tokenizer == "0" and simple in ("0", "1")
    assert "scenarios.acebench.replay" in loaded.split()
    unneeded = [name for name in loaded.split() if name.startswith(_NOT_ON_THE_REPLAY_PATH)]
    assert unneeded == []


def test_the_command_line_process_exits_with_the_commands_code(tmp_path: Path) -> None:
    """The entry point's end-of-process step (`main`) keeps each command's exit code: doctor's 1 for a finding."""
    command = [sys.executable, "-m", "toolworlds.cli", "doctor", "acebench", "--data"]
    good = subprocess.run([*command, str(_one_task_folder(tmp_path / "good", wifi_after=True))], cwd=ROOT,
                          capture_output=True, text=True)
    bad = subprocess.run([*command, str(_one_task_folder(tmp_path / "bad", wifi_after=False))], cwd=ROOT,
                         capture_output=True, text=True)
    assert (good.returncode, bad.returncode) == (0, 1), (good.stderr, bad.stderr)
    assert "1 rows: 0 reproduce, 1 finding(s)" in bad.stdout


def test_the_entry_point_freezes_the_command_line_and_runs_commands_with_the_collector_on() -> None:
    """`main` imports the command line with the cycle collector paused and freezes it; a command then runs with
    the collector as it was (on), `replay` alone pausing it again for its own bounded work."""
    code = ("import gc, sys\n"
            "from toolworlds.cli import app, main\n"
            "@app.command()\n"
            "def probe() -> None:\n"
            "    print(gc.isenabled(), gc.get_freeze_count() > 0)\n"
            "sys.argv = ['toolworlds', 'probe']\n"
            "main()\n")
    assert _python(code).stdout.split() == ["True", "True"]


def test_drawing_the_command_line_builds_no_model() -> None:
    """`import toolworlds.cli` imports no command (its `main` does, with the cycle collector paused), and the
    app with its commands is typer, rich and the registry's names: no engine, no family, no pydantic."""
    code = ("import sys, toolworlds.cli\n"
            "assert 'typer' not in sys.modules and 'toolworlds.cli.shared' not in sys.modules\n"
            "from toolworlds.cli import app\n"
            "assert type(app).__name__ == 'Typer' and 'toolworlds.cli.worlds' in sys.modules\n"
            "light = ('sandbox.schemas', 'scenarios.family', 'scenarios.registry')\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pydantic', 'docstring_parser', 'evaluators')\n"
            "             or m.startswith(('sandbox.', 'scenarios.')) and m not in light))\n")
    out = _python(code)
    assert out.stdout.strip() == "[]"
