"""`RunOptions` owns every check of `toolworlds run` and the `--config` merge; a Python caller builds one and
runs it with `toolworlds.run`, and gets what the command stores."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from toolworlds import OptionError, RunOptions, run
from toolworlds.cli import app
from toolworlds.launch import plan_run
from toolworlds.store import RunStore
from toolworlds.task_selection import select_task_sets

REFUSED = [
    ({"agent": "gpt"}, "unknown agent 'gpt'"),
    ({"agent": "no_such_module:Factory"}, "no_such_module"),
    ({"agent": "llm"}, "--agent llm needs --model and --base-url"),
    ({"user": "llm"}, "--user llm needs --user-model and --user-base-url"),
    ({"user": "robot"}, "unknown user simulator 'robot'; use auto, scripted or llm"),
    ({"protocol": "xml"}, "unknown protocol 'xml'; use native or bracket"),
    ({"backend": "slurm"}, "unknown backend 'slurm'; use process or ray"),
    ({"resume": True}, "--resume needs the --run-id"),
    ({"retry_failed": True}, "--retry-failed continues a run"),
    ({"force": True}, "--force overrides a resume's configuration check"),
    ({"noise": float("nan")}, "--noise must be a finite number, not nan"),
    ({"temperature": float("inf")}, "--temperature must be a finite number, not inf"),
    ({"timeout": float("inf")}, "--timeout must be a finite number"),
    ({"noise": 2.0}, "--noise: Input should be less than or equal to 1"),
    ({"trials": 0}, "--trials: Input should be greater than or equal to 1"),
    ({"episode_timeout": 5.0, "workers": 0}, "--episode-timeout is kept by the process backend's pool"),
    ({"episode_timeout": 5.0, "backend": "ray"}, "--episode-timeout is kept by the process backend's pool"),
    ({"address": "auto"}, "--address names a Ray cluster: give it with --backend ray"),
    ({"backend": "ray", "workers": 0}, "--workers 0 runs episodes in this process"),
    ({"tasks": ["banking", "acebench"], "data": "x"}, "--data names one family's tasks"),
    ({"no_such_option": 1}, "--no-such-option: Extra inputs are not permitted"),
]


@pytest.mark.parametrize(("values", "message"), REFUSED, ids=[message[:30] for _, message in REFUSED])
def test_each_check_refuses_in_one_line(values: dict[str, Any], message: str) -> None:
    with pytest.raises(OptionError) as refused:
        RunOptions.checked(**values)
    assert message in str(refused.value) and "\n" not in str(refused.value)
    with pytest.raises(ValidationError):  # built directly, the same check is pydantic's error
        RunOptions(**values)


def test_the_checks_let_the_options_they_refuse_alone_through() -> None:
    fine = RunOptions(agent="llm", model="m", base_url="http://127.0.0.1:9/v1", user="llm", protocol="bracket",
                      resume=True, run_id="r", retry_failed=True, force=True, backend="ray", address="auto",
                      episode_timeout=None, noise=0.0, temperature=0.5)
    assert fine.agent_spec().describe().startswith("llm") and fine.agent_spec().protocol == "bracket"
    assert RunOptions(episode_timeout=5.0, workers=2).make_backend().__class__.__name__ == "ProcessBackend"


def test_lists_are_read_as_the_command_line_gives_them() -> None:
    options = RunOptions(tasks="banking", lang=["en zh", "en,zh"], task_ids=["a,b", "c"], categories="x,y",
                         levels=(1, 2), difficulties=["easy"], limit=3)
    assert options.tasks == ("banking",) and options.lang == ("en", "zh") and options.task_ids == ("a", "b", "c")
    query = options.query()
    assert query.categories == ("x", "y", "level-1", "level-2") and query.difficulties == ("easy",)
    assert query.limit == 3 and query.errata is True
    assert RunOptions(tasks=["generated:/tmp/made.jsonl"]).data == Path("/tmp/made.jsonl")  # resumes read it again


def test_a_config_file_fills_what_the_options_leave_unset(tmp_path: Path) -> None:
    config = tmp_path / "mcpbr.yaml"
    config.write_text("benchmark: [banking]\ndata: tasks\nsample_size: 5\nfilter_category: [a, b]\n"
                      "filter_difficulty: hard\nfilter_tags: [rest]\ntask_ids: [7, x]\nmodel: some-model\n")
    from_file = RunOptions(config=config)
    assert from_file.tasks == ("banking",) and from_file.data == tmp_path / "tasks" and from_file.limit == 5
    assert from_file.categories == ("a", "b") and from_file.difficulties == ("hard",) and from_file.tags == ("rest",)
    assert from_file.task_ids == ("7", "x") and from_file.config_ignored == ("model",)
    flags = RunOptions(config=config, tasks=["acebench"], data=Path("/elsewhere"), limit=2, categories=["c"],
                       difficulties=["easy"], tags=["x"], task_ids=["t"])
    assert (flags.tasks, flags.data, flags.limit, flags.categories, flags.difficulties, flags.tags,
            flags.task_ids) == (("acebench",), Path("/elsewhere"), 2, ("c",), ("easy",), ("x",), ("t",))
    hub = tmp_path / "hub.json"
    hub.write_text(json.dumps({"dataset": "org/name"}))
    assert RunOptions(config=hub).data == Path("hf:org/name")


@pytest.mark.parametrize(("text", "message"), [
    ("sample_size: -2\n", "config bad.yaml: sample_size"), ("sample_size: true\n", "sample_size"),
    ("filter_tags: {a: 1}\n", "filter_tags must be a text or a list of texts"),
    ("- a list\n", "expected a mapping"), ("data: x\ndataset: y\n", "not both"), ("data: [1]\n", "data"),
    ("benchmark: [\n", "not valid YAML"),
])
def test_a_config_file_of_the_wrong_shape_is_named(tmp_path: Path, text: str, message: str) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(text)
    with pytest.raises(OptionError) as refused:
        RunOptions.checked(config=bad)
    assert message in str(refused.value) and "\n" not in str(refused.value)
    with pytest.raises(OptionError, match="cannot read config"):
        RunOptions.checked(config=tmp_path / "absent.yaml")


def test_task_selection_and_the_store_checks_refuse_before_anything_runs(tmp_path: Path) -> None:
    with pytest.raises(OptionError, match="did you mean 'acebench'"):
        select_task_sets(RunOptions(tasks=["acebnch"]))
    with pytest.raises(OptionError, match="banking has no 'fr' tasks"):
        select_task_sets(RunOptions(lang=["fr"]))
    store = RunStore(f"sqlite:///{tmp_path / 'runs.db'}")
    with pytest.raises(OptionError, match=r"no run 'typo' in .* to resume"):
        plan_run(RunOptions(resume=True, run_id="typo", lang=["en"], limit=1), store)
    planned = plan_run(RunOptions(lang=["en", "zh"], limit=1, run_id="p"), store)
    assert [s.name for s in planned.task_sets] == ["banking/en", "banking/zh"]
    assert planned.notes == ["--limit 1 applies to each of the 2 task sets (banking/en, banking/zh)"]
    assert store.episodes("p") == []  # planning stores nothing
    store.close()


def test_a_python_built_run_stores_and_scores_what_the_command_does(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    options = RunOptions(tasks=["banking"], lang=["en"], limit=3, agent="oracle", db=db, run_id="py", workers=0)
    done = run(options)
    assert done.run_id == "py" and [s.name for s in done.task_sets] == ["banking/en"]
    assert len(done.episodes) == 3 and all(e.success and e.error is None for e in done.episodes)
    overall = {row.metric: row.value for row in done.scores if row.task_set == "all"}
    assert overall["end_to_end"] == 1.0 and overall["episodes"] == 3
    with pytest.raises(OptionError, match="run 'py' already exists"):
        run(options)
    again = run(options.model_copy(update={"resume": True}))  # nothing pending: the stored episodes come back
    assert [e.id for e in again.episodes] == [e.id for e in done.episodes]
    command = CliRunner().invoke(app, ["run", "--tasks", "banking", "--lang", "en", "--limit", "3", "--db", db,
                                       "--run-id", "cli", "--workers", "0"], env={"COLUMNS": "200"})
    assert command.exit_code == 0, command.output
    store = RunStore(db)
    stored = {run_id: json.loads(store.run(run_id).config) for run_id in ("py", "cli")}  # type: ignore[union-attr]
    assert stored["py"] == stored["cli"]  # the same options make the same run
    assert [e.task_id for e in store.episodes("py")] == [e.task_id for e in store.episodes("cli")]
    store.close()


def test_repeated_trials_in_an_old_store_are_refused_by_the_runner_in_one_line(tmp_path: Path,
                                                                                monkeypatch: Any) -> None:
    """The check lives once, in the runner; the command prints it as any refusal."""
    monkeypatch.setattr("toolworlds.store._trial_in_unique_key", lambda engine: False)  # a store from before trials
    result = CliRunner().invoke(app, ["run", "--db", f"sqlite:///{tmp_path / 'r.db'}", "--lang", "en", "--limit",
                                      "1", "--trials", "2", "--workers", "0"])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "one trial per task" in result.output and result.output.startswith("error:")


def test_tool_env_and_the_world_host_read_tasks_as_a_run_does() -> None:
    from toolworlds.env import ToolEnv
    from toolworlds.hosting import WorldHost
    from toolworlds.options import TaskOptions

    zh = RunOptions(lang=["zh"], limit=1, protocol="bracket")
    env = ToolEnv("banking", options=zh)
    assert env.protocol == "bracket" and env.worlds.lang == "zh"
    _, info = env.reset(seed=0)
    assert info["protocol"] == "bracket"
    first = env.task_ids[0]
    assert ToolEnv("banking", options=TaskOptions(task_ids=[first])).task_ids == [first]
    with pytest.raises(OptionError, match="unknown protocol 'xml'; use native or bracket"):
        ToolEnv("banking", protocol="xml")
    with pytest.raises(OptionError, match="one language, not en, zh"):
        ToolEnv("banking", options=TaskOptions(lang=["en", "zh"]))
    task_id = select_task_sets(RunOptions(lang=["zh"], limit=1)).task_sets[0].tasks[0].id
    host = WorldHost("banking", task=task_id, options=TaskOptions(lang="zh", categories=["multi_turn", "multi_step"]))
    assert host.task is not None and host.task.id == task_id
