"""The toolworlds command line, driven in-process."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from toolworlds.cli import app

runner = CliRunner()


def test_worlds_lists_the_bundled_families() -> None:
    result = runner.invoke(app, ["worlds"])
    assert result.exit_code == 0
    assert "todo" in result.stdout and "Todo" in result.stdout


def test_tools_exports_each_format() -> None:
    for fmt, key in (("openai", "function"), ("anthropic", "input_schema"), ("acebench", "parameters")):
        result = runner.invoke(app, ["tools", "todo", "--format", fmt])
        assert result.exit_code == 0, result.output
        assert key in json.loads(result.stdout)[0]


def test_execute_runs_messages_and_prints_json() -> None:
    result = runner.invoke(app, ["execute", "todo", "[add_task(title='milk')]", "[complete_task(task_id=1)]",
                                 "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [r["tool"] for r in data["log"]] == ["add_task", "complete_task"]
    assert data["state"]["Todo"]["tasks"][0]["status"] == "done"


def test_errors_are_one_line_without_traceback() -> None:
    for args in (["tools", "nope"], ["tools", "todo", "--format", "yaml"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 2
        assert "Traceback" not in result.output
        assert result.output.strip().startswith("error:")
