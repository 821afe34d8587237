"""ToolBench as a world family: tasks, mcpbr's filters and verdicts, executable tools, runs and scoring.

Every task file here is written by the test, in the dataset's shape (`tools` and
`ground_truth` as objects or as JSON text). The seed examples are the ones mcpbr's
ToolBench documentation gives (London weather; restaurants then weather, reversed and
with a tool missing; an answer with no readable calls) and must come out key for key.
"""

from __future__ import annotations

import json
import pickle
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from evaluators.task_score import episode_scorer, score_task
from evaluators.toolbench import (
    NO_CALLS,
    check_arguments,
    extract_calls,
    judge_episode,
    read_answers,
    score_episode,
    score_sequence,
)
from scenarios.family import TaskQuery
from scenarios.registry import family
from scenarios.toolbench import ResponseCache, ToolBenchTask, choose, read_tasks, simulated_response
from tests.fake_chat import chat_endpoint
from toolworlds.agents import Turn
from toolworlds.cli import app
from toolworlds.episodes import run_episode
from toolworlds.llm import ChatClient, LLMAgent
from toolworlds.runner import AgentSpec, TaskSet, execute_run
from toolworlds.store import RunStore

WEATHER = {"name": "get_weather", "description": "Current conditions at a place",
           "parameters": {"type": "object", "required": ["location"], "properties": {
               "location": {"type": "STRING", "description": "City and country"},
               "units": {"type": "string", "enum": ["metric", "imperial"]}}}}
FORECAST = {"name": "get_forecast", "description": "Weather over the next days",
            "parameters": {"type": "object", "required": ["location"], "properties": {
                "location": {"type": "string"}, "days": {"type": "NUMBER"}}}}
CONVERT = {"name": "convert_units", "description": "Convert between measurement units"}
TIMEZONE = {"name": "get_timezone", "description": "Time zone of a place",
            "parameters": {"type": "object", "properties": {"location": {"type": "string"}}, "required": []}}
RESTAURANTS = {"name": "search_restaurants", "description": "Restaurants near a place (REST api)",
               "parameters": {"type": "object", "required": ["location"], "properties": {
                   "location": {"type": "string"}, "type": {"type": "string"}}}}
STOCKS = {"name": "stock_quote", "description": "Latest price of a stock ticker",
          "parameters": {"type": "object", "required": ["symbol"], "properties": {
              "symbol": {"type": "string"}, "from": {"type": "DATE (YYYY-MM-DD)"}, "api-key": {"type": "string"}}}}

LONDON_CALLS = [{"name": "get_weather", "parameters": {"location": "London, UK", "units": "metric"}}]
DINNER_CALLS = [
    {"name": "search_restaurants", "parameters": {"location": "Central Park, New York", "type": "restaurant"}},
    {"name": "get_weather", "parameters": {"location": "New York", "units": "imperial"}},
]

# The seed's output dicts, key for key (mcpbr docs: toolbench.md, "Example Output").
SEED_LONDON = {"resolved": True, "tool_selection_accuracy": 1.0,
               "expected_tools": ["get_weather"], "agent_tools": ["get_weather"]}
SEED_REVERSED = {"resolved": False, "tool_selection_accuracy": 1.0,
                 "expected_tools": ["search_restaurants", "get_weather"],
                 "agent_tools": ["get_weather", "search_restaurants"]}
SEED_MISSING = {"resolved": False, "tool_selection_accuracy": 0.5,
                "expected_tools": ["search_restaurants", "get_weather"], "agent_tools": ["search_restaurants"]}
SEED_UNPARSEABLE = {"resolved": False, "error": "Could not extract tool calls from solution"}


def rows() -> list[dict[str, Any]]:
    """Six tasks in the dataset's shape; the second and fifth carry their lists as JSON text."""
    return [
        {"id": 101, "query": "Get the current weather forecast for London, UK in metric units.", "category": "weather",
         "difficulty": "easy", "tools": [WEATHER, FORECAST, CONVERT, TIMEZONE], "ground_truth": LONDON_CALLS},
        {"id": 102, "query": "Find restaurants near Central Park in New York, then check the weather.",
         "category": "food_and_weather", "difficulty": "Medium", "tools": json.dumps([RESTAURANTS, WEATHER]),
         "ground_truth": json.dumps(DINNER_CALLS)},
        {"id": 103, "query": "Quote AAPL since 2024-01-02.", "category": "Finance", "difficulty": "hard",
         "tools": [STOCKS, CONVERT],
         "ground_truth": [{"name": "stock_quote", "parameters": {"symbol": "AAPL", "from": "2024-01-02",
                                                                 "api-key": "k"}}]},
        {"id": 104, "query": "What is the five-day forecast for Oslo?", "category": "weather", "difficulty": "EASY",
         "tools": [FORECAST, TIMEZONE],
         "ground_truth": [{"name": "get_forecast", "parameters": {"location": "Oslo", "days": "5"}},
                          {"name": "get_timezone", "parameters": {}}]},
        {"id": 105, "query": "Convert 20 celsius.", "category": "personal_finance", "difficulty": "medium",
         "tools": json.dumps([CONVERT, "currency_rates"]),
         "ground_truth": json.dumps([{"name": "convert_units", "parameters": {"value": 20}},
                                     {"name": "currency_rates"}])},
        {"id": 106, "query": "Where can I eat in Rome?", "category": "Food", "difficulty": "easy",
         "tools": [RESTAURANTS], "ground_truth": [{"name": "search_restaurants", "parameters": {"location": "Rome"}}]},
    ]


def write(path: Path, records: list[Any], fmt: str | None = None) -> Path:
    fmt = fmt or path.suffix.lstrip(".")
    if fmt == "jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in records))
    elif fmt == "json":
        path.write_text(json.dumps(records))
    elif fmt in ("parquet", "structs"):  # lists as JSON text, or as arrow structs (one schema for every row)
        pyarrow = pytest.importorskip("pyarrow", reason="parquet task files need pyarrow")
        import pyarrow.parquet as parquet

        def column(value: Any) -> Any:
            if fmt == "structs":
                return json.loads(value) if isinstance(value, str) else value
            return value if isinstance(value, str) else json.dumps(value)

        table = [{**r, "tools": column(r["tools"]), "ground_truth": column(r["ground_truth"])} for r in records]
        parquet.write_table(pyarrow.Table.from_pylist(table), path)
    return path


@pytest.fixture
def task_file(tmp_path: Path) -> Path:
    return write(tmp_path / "tasks.jsonl", rows())


@pytest.fixture
def tasks(task_file: Path) -> list[ToolBenchTask]:
    loaded = read_tasks(task_file)
    assert loaded.problems == []
    return loaded.tasks


class Says:
    """An agent that sends one fixed message, then answers in prose."""

    def __init__(self, message: str) -> None:
        self.message, self.sent = message, False

    def act(self, conversation: Any, tools: Any) -> Turn:
        if self.sent:
            return Turn(text="done")
        self.sent = True
        return Turn.from_text(self.message)


# -- tasks -------------------------------------------------------------------------------------------------------


def test_fields_are_read_whether_lists_arrive_as_objects_or_as_json_text(tasks: list[ToolBenchTask]) -> None:
    assert [t.id for t in tasks] == [f"toolbench_{i}" for i in range(6)]
    assert [t.source_id for t in tasks] == ["101", "102", "103", "104", "105", "106"]
    dinner = tasks[1]
    assert dinner.expected_calls == DINNER_CALLS and [f["name"] for f in dinner.functions] == [
        "search_restaurants", "get_weather"]
    assert dinner.category == "food_and_weather" and dinner.difficulty == "Medium"
    assert tasks[4].functions[1] == {"name": "currency_rates", "description": "", "parameters": {
        "type": "object", "properties": {}, "required": [], "additionalProperties": True}}
    shown = tasks[0].functions[0]["parameters"]
    assert shown["properties"]["location"]["type"] == "string" and shown["required"] == ["location"]


@pytest.mark.parametrize("fmt", ["json", "jsonl", "parquet", "structs"])
def test_json_jsonl_and_parquet_files_give_the_same_tasks(tmp_path: Path, tasks: list[ToolBenchTask],
                                                          fmt: str) -> None:
    records = rows() if fmt != "structs" else [r for r in rows() if r["id"] != 105]  # arrow: no mixed lists
    expected = tasks if fmt != "structs" else [t for t in tasks if t.source_id != "105"]
    loaded = read_tasks(write(tmp_path / f"copy.{'parquet' if fmt == 'structs' else fmt}", records, fmt))
    assert loaded.problems == []
    assert [(t.query, t.functions, t.expected_calls) for t in loaded.tasks] == [
        (t.query, t.functions, t.expected_calls) for t in expected]


def test_bad_rows_are_problems_and_the_rest_still_load(tmp_path: Path) -> None:
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join([json.dumps(rows()[0]), "{not json", json.dumps([1, 2]),
                               json.dumps({"query": "x", "tools": "[oops"}),
                               json.dumps({"query": "x", "tools": [{"description": "no name"}]}),
                               json.dumps({"query": "x", "tools": 7}),
                               json.dumps({"id": "7", "conversations": [{"from": "user", "value": "hi"}]}),
                               json.dumps(rows()[5])]) + "\n")
    loaded = read_tasks(path)
    assert [t.id for t in loaded.tasks] == ["toolbench_0", "toolbench_7"]  # ids count every row
    assert len(loaded.problems) == 6
    assert any("ToolBench conversation (id, conversations)" in p for p in loaded.problems)
    assert any("mixed.jsonl:2: not valid JSON" in p for p in loaded.problems)
    assert any("'tools' is text but not valid JSON" in p for p in loaded.problems)
    assert any("without a string 'name'" in p for p in loaded.problems)


UNUSABLE_NAMES = [  # (what holds the name, the name): NUL, and lone surrogates of both halves
    ("tool", "get\x00weather"), ("tool", "get\udc80weather"), ("bare tool", "news\ud800"),
    ("parameter", "loc\x00ation"), ("parameter", "loc\udfffation"), ("required", "units\x00"),
    ("nested", "ci\ud83dty"),
]


def tool_named(where: str, name: str) -> Any:
    if where == "tool":
        return {**WEATHER, "name": name}
    if where == "bare tool":
        return name
    parameters = json.loads(json.dumps(WEATHER["parameters"])) if isinstance(WEATHER.get("parameters"), dict) else {}
    parameters.setdefault("properties", {})
    if where == "parameter":
        parameters["properties"][name] = {"type": "string"}
    elif where == "required":
        parameters["required"] = [name]
    else:
        parameters["properties"]["place"] = {"type": "object", "properties": {name: {"type": "string"}}}
    return {**WEATHER, "parameters": parameters}


@pytest.mark.parametrize(("where", "name"), UNUSABLE_NAMES)
def test_a_tool_or_parameter_name_no_text_can_carry_is_a_load_problem_naming_the_task(
        tmp_path: Path, where: str, name: str) -> None:
    """A name holding NUL or a lone surrogate: before, the row loaded as a task whose world could not be
    built (28 of 164 hostile rows), and `doctor toolbench` died with a traceback."""
    path = tmp_path / "names.jsonl"
    hostile = {**rows()[0], "instance_id": "hostile", "tools": [tool_named(where, name)]}
    path.write_text("\n".join(json.dumps(row) for row in [rows()[0], hostile, rows()[5]]) + "\n")
    loaded = read_tasks(path)
    assert [t.id for t in loaded.tasks] == ["toolbench_0", "toolbench_2"]
    assert len(loaded.problems) == 1 and "hostile" in loaded.problems[0] and "names.jsonl:2" in loaded.problems[0]
    assert "NUL character" in loaded.problems[0] or "lone surrogate" in loaded.problems[0]
    for task in loaded.tasks:
        task.world()  # every task that loads has a world
    shown = CliRunner().invoke(app, ["doctor", "toolbench", "--data", str(path)])
    assert shown.exit_code == 1 and isinstance(shown.exception, SystemExit | None), shown.output  # no traceback
    assert "hostile" in shown.output


def test_doctor_reports_a_world_that_cannot_be_built_as_a_finding(tmp_path: Path, task_file: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    import scenarios.toolbench.tasks as toolbench_tasks

    def broken(tools: Any) -> Any:
        raise TypeError("a schema pydantic refuses")

    monkeypatch.setattr(toolbench_tasks, "tool_specs", broken)
    shown = CliRunner().invoke(app, ["doctor", "toolbench", "--data", str(task_file)])
    assert shown.exit_code == 1 and isinstance(shown.exception, SystemExit | None), shown.output
    assert "its world cannot be built from its tools: TypeError: a schema pydantic refuses" in " ".join(
        shown.output.split())


def test_rows_json_cannot_read_are_problems_naming_their_file(tmp_path: Path) -> None:
    """An integer past Python's 4,300 digits (a plain ValueError from `json`, in a line or a whole file),
    a byte that is not UTF-8, and a parquet file pyarrow cannot open (an ArrowInvalid) are problems."""
    lines = tmp_path / "lines.jsonl"
    lines.write_bytes(b"\n".join([json.dumps(rows()[0]).encode(), b'{"query": ' + b"9" * 5000 + b"}",
                                  b'{"query": "caf\xe9"}', b"[" * 100_000, json.dumps(rows()[5]).encode()]) + b"\n")
    loaded = read_tasks(lines)
    assert loaded.problems == ["lines.jsonl:2: not valid JSON (an integer too long to read)",
                               "lines.jsonl:3: not valid UTF-8 (byte 0xe9 at column 15)",
                               "lines.jsonl:4: not valid JSON (nested too deeply to read)"]
    assert [t.source_id for t in loaded.tasks] == ["101", "106"]
    whole = tmp_path / "whole.json"
    whole.write_text("[" + "9" * 5000 + "]")
    assert read_tasks(whole).problems == ["whole.json: not valid JSON (an integer too long to read)"]
    pytest.importorskip("pyarrow", reason="parquet task files need pyarrow")
    (tmp_path / "empty.parquet").write_bytes(b"")
    (tmp_path / "corrupt.parquet").write_bytes(b"PAR1 not really")
    for name in ("empty.parquet", "corrupt.parquet"):
        (problem,) = read_tasks(tmp_path / name).problems
        assert problem.startswith(f"{name}: not a readable parquet file ("), problem


def test_a_repeated_instance_id_is_a_problem_and_the_first_row_is_kept(tmp_path: Path) -> None:
    """Episodes and results are matched by task id: a second task of an id would replace the first's."""
    first, second, third = ({**row, "instance_id": "same"} for row in rows()[:3])
    loaded = read_tasks(write(tmp_path / "dup.jsonl", [first, second, rows()[3], third]))
    assert loaded.problems == ["dup.jsonl:2: duplicate id same (first at dup.jsonl:1)",
                               "dup.jsonl:4: duplicate id same (first at dup.jsonl:1)"]
    assert [(t.id, t.source_id) for t in loaded.tasks] == [("same", "101"), ("toolbench_2", "104")]


def test_a_sample_larger_than_any_source_takes_every_task(task_file: Path) -> None:
    """`-n 99999999999999999999999` (or such a `sample_size`) is past what `islice` takes."""
    loaded = family("toolbench").tasks(TaskQuery(data=task_file, limit=99999999999999999999999))
    assert len(loaded.tasks) == 6 and loaded.problems == []
    assert len(read_tasks(task_file, stop_after=-1).tasks) == 0


def test_a_folder_is_read_file_by_file_and_numbered_throughout(tmp_path: Path) -> None:
    write(tmp_path / "a.json", rows()[:2])
    write(tmp_path / "b.jsonl", rows()[2:4])
    (tmp_path / "notes.txt").write_text("not a task file")
    loaded = read_tasks(tmp_path)
    assert [t.source_id for t in loaded.tasks] == ["101", "102", "103", "104"]
    assert [t.id for t in loaded.tasks] == [f"toolbench_{i}" for i in range(4)]
    with pytest.raises(LookupError, match="does not exist"):
        read_tasks(tmp_path / "missing.jsonl")


def test_a_hugging_face_dataset_is_read_by_name_with_the_datasets_package(tmp_path: Path) -> None:
    pytest.importorskip("datasets", reason="reading hf:NAME needs the datasets package")
    folder = tmp_path / "hub_copy"  # a dataset folder, loaded by the real library without a network
    folder.mkdir()
    write(folder / "train.jsonl", [{**r, "tools": json.dumps(r["tools"]) if not isinstance(r["tools"], str)
                                    else r["tools"],
                                    "ground_truth": json.dumps(r["ground_truth"])
                                    if not isinstance(r["ground_truth"], str) else r["ground_truth"]}
                                   for r in rows()])
    loaded = read_tasks(f"hf:{folder}", hf_cache_dir=tmp_path / "hf_cache")
    assert loaded.problems == [] and len(loaded.tasks) == 6
    assert loaded.tasks[1].expected_calls == DINNER_CALLS
    with pytest.raises(LookupError, match="cannot load"):
        read_tasks(f"hf:{folder}:no_such_split", hf_cache_dir=tmp_path / "hf_cache")


# -- mcpbr's filters ---------------------------------------------------------------------------------------------


def ids(tasks: list[ToolBenchTask], **query: Any) -> list[str]:
    return [t.source_id for t in choose(tasks, TaskQuery(**query))]


def test_difficulty_is_an_exact_match_in_any_case(tasks: list[ToolBenchTask]) -> None:
    assert ids(tasks, difficulties=("easy",)) == ["101", "104", "106"]
    assert ids(tasks, difficulties=("MEDIUM", "Hard")) == ["102", "103", "105"]
    assert ids(tasks, difficulties=("eas",)) == []  # not a substring match


def test_category_is_a_substring_match_and_any_value_counts(tasks: list[ToolBenchTask]) -> None:
    assert ids(tasks, categories=("finance",)) == ["103", "105"]  # "Finance" and "personal_finance"
    assert ids(tasks, categories=("WEATHER",)) == ["101", "102", "104"]  # "food_and_weather" too
    assert ids(tasks, categories=("food", "fin")) == ["102", "103", "105", "106"]
    assert ids(tasks, categories=("sports",)) == []


def test_tags_must_all_appear_in_the_tools_text(tasks: list[ToolBenchTask]) -> None:
    assert ids(tasks, tags=("rest",)) == ["102", "106"]  # "(REST api)" in a tool description
    assert ids(tasks, tags=("rest", "WEATHER")) == ["102"]  # AND: both must appear
    assert ids(tasks, tags=("rest", "stock")) == []
    assert ids(tasks, tags=("currency_rates",)) == ["105"]  # a bare tool name is part of the text


def test_the_sample_is_taken_after_filtering(tasks: list[ToolBenchTask]) -> None:
    assert ids(tasks, limit=2) == ["101", "102"]
    assert ids(tasks, difficulties=("easy",), limit=2) == ["101", "104"]
    assert ids(tasks, categories=("weather",), difficulties=("easy",), tags=("forecast",)) == ["101", "104"]
    assert ids(tasks, task_ids=("103", "toolbench_5")) == ["103", "106"]


def test_under_filters_toolbench_n_is_mcpbrs_numbering_and_the_dataset_id_names_its_row(
        tasks: list[ToolBenchTask]) -> None:
    """mcpbr numbers its instances after its filters (`toolbench_<position>`), which is the id it hands an MCP
    server; under the same filters, that id names the same task here, and so does the dataset's id."""
    assert ids(tasks, categories=("finance",)) == ["103", "105"]
    assert ids(tasks, categories=("finance",), task_ids=("toolbench_0",)) == ["103"]  # mcpbr's first, row 2
    assert ids(tasks, categories=("finance",), task_ids=("toolbench_1", "101")) == ["105"]  # 101 is filtered out
    assert ids(tasks, categories=("finance",), task_ids=("toolbench_2",)) == []  # two pass the filter
    assert ids(tasks, task_ids=("toolbench_2",)) == ["103"]  # no filter: the row, mcpbr's numbering too


def test_serve_and_run_read_a_task_id_alike(tmp_path: Path, task_file: Path) -> None:
    """`serve --task` takes what `run --task-ids` takes: the dataset's id, and mcpbr's `toolbench_N` under the
    same filters (before, serve refused the dataset's id and served row N whatever the filters)."""
    from typer.testing import CliRunner

    from toolworlds.cli import app
    from toolworlds.hosting import WorldHost

    finance = TaskQuery(categories=("finance",))
    for named in ("103", "toolbench_0"):
        host = WorldHost("toolbench", task=named, data=task_file, narrow=finance)
        assert host.task is not None and host.task.source_id == "103"
    assert WorldHost("toolbench", task="toolbench_0", data=task_file).task.source_id == "101"
    with pytest.raises(LookupError, match="no task toolbench_7"):
        WorldHost("toolbench", task="toolbench_7", data=task_file, narrow=finance)
    database = f"sqlite:///{tmp_path / 'runs.db'}"
    result = CliRunner().invoke(app, ["run", "--db", database, "--tasks", "toolbench", "--data", str(task_file),
                                      "--filter-category", "finance", "--task-ids", "toolbench_1"])
    assert result.exit_code == 0 and "1 episodes stored" in result.output, result.output
    import sqlite3

    with sqlite3.connect(tmp_path / "runs.db") as connection:
        assert connection.execute("select task_id from episodes").fetchall() == [("toolbench_4",)]  # row 105


def test_the_family_applies_the_filters_and_reads_no_further_than_an_unfiltered_sample(task_file: Path) -> None:
    toolbench = family("toolbench")
    loaded = toolbench.tasks(TaskQuery(data=task_file, categories=("weather",), limit=2))
    assert [t.source_id for t in loaded.tasks] == ["101", "102"]
    with_bad_tail = task_file.parent / "tail.jsonl"
    with_bad_tail.write_text(task_file.read_text() + "{broken\n")
    assert toolbench.tasks(TaskQuery(data=with_bad_tail, limit=3)).problems == []  # stopped before the bad line
    assert toolbench.tasks(TaskQuery(data=with_bad_tail, tags=("x",))).problems != []
    for other in ("acebench", "banking"):
        with pytest.raises(LookupError, match="carry no difficulties"):
            family(other).tasks(TaskQuery(difficulties=("easy",)))


# -- the problem statement ---------------------------------------------------------------------------------------


def test_the_prompt_states_the_query_the_tools_and_the_json_format(tasks: list[ToolBenchTask]) -> None:
    london = tasks[0]
    assert london.problem_statement == (
        "Use the available tools to complete this task:\n\n"
        "Get the current weather forecast for London, UK in metric units.\n\n"
        "Available tools:\n"
        "  - get_weather: Current conditions at a place\n"
        "  - get_forecast: Weather over the next days\n"
        "  - convert_units: Convert between measurement units\n"
        "  - get_timezone: Time zone of a place\n")
    assert london.question.startswith(london.problem_statement.rstrip() + "\n\nInstructions:\n")
    assert "JSON array" in london.question and "'name'" in london.question and "'parameters'" in london.question
    assert "  - currency_rates\n" in tasks[4].problem_statement  # a tool known by name only
    many = ToolBenchTask(id="t", query=None, tools=[f"tool_{i}" for i in range(12)], ground_truth=[])
    assert "No query provided" in many.question
    assert "tool_9" in many.question and "tool_10" not in many.question  # ten tools listed at most


# -- the world ---------------------------------------------------------------------------------------------------


def test_tools_check_arguments_against_the_task_schema(tasks: list[ToolBenchTask]) -> None:
    world = tasks[0].world()
    bad = world.call("get_weather", {"units": "kelvin", "city": "Paris"})
    assert bad.error is not None and bad.error.type == "invalid_arguments"
    assert {d["parameter"]: d["type"] for d in bad.error.details} == {
        "location": "missing", "units": "literal_error", "city": "extra_forbidden"}
    assert world.state() == {"ToolBench": {"calls": []}}  # a refused call changes nothing
    assert world.call("get_forecast", {"location": "Oslo", "days": "5"}).validated == {"location": "Oslo", "days": 5.0}
    assert world.call("get_forecast", {"location": 7}).error.type == "invalid_arguments"  # type: ignore[union-attr]
    assert world.call("nope", {}).error.type == "unknown_tool"  # type: ignore[union-attr]
    odd = tasks[2].world().call("stock_quote", {"symbol": "AAPL", "from": "2024-01-02", "api-key": "k"})
    assert odd.ok and odd.validated == {"symbol": "AAPL", "from": "2024-01-02", "api-key": "k"}
    anything = tasks[0].world().call("convert_units", {"value": 1, "whatever": [1]})  # no schema: any object
    assert anything.ok and anything.validated == {"value": 1, "whatever": [1]}
    listed = tasks[0].world()
    assert listed.call("get_weather", [1, 2]).error.type == "invalid_arguments"  # type: ignore[arg-type,union-attr]


def test_answers_are_deterministic_and_logged(tasks: list[ToolBenchTask]) -> None:
    first, second = tasks[0].world(), tasks[0].world()
    arguments = {"location": "London, UK", "units": "metric"}
    a, b = first.call("get_weather", arguments), second.call("get_weather", dict(reversed(arguments.items())))
    assert a.result == b.result and a.result["error"] == "" and a.result["response"]["api"] == "get_weather"
    assert json.dumps(a.result) == json.dumps(simulated_response("toolbench_0", 0, "get_weather", arguments))
    assert simulated_response("toolbench_0", 1, "get_weather", arguments) != a.result
    assert simulated_response("toolbench_1", 0, "get_weather", arguments) != a.result
    assert first.call("get_weather", {"location": "Paris"}).result != a.result
    assert [r.tool for r in first.log] == ["get_weather", "get_weather"]
    assert tasks[0].end_state(first) == [{"name": "get_weather", "parameters": arguments},
                                         {"name": "get_weather", "parameters": {"location": "Paris"}}]
    fork = first.fork()
    fork.call("get_timezone", {})
    assert len(tasks[0].end_state(first)) == 2 and len(tasks[0].end_state(fork)) == 3


def test_a_stabletoolbench_cache_supplies_recorded_answers(tmp_path: Path) -> None:
    api_file = tmp_path / "data" / "tool_response_cache" / "Weather" / "weatherapi_for_Weather" / "get_weather.json"
    api_file.parent.mkdir(parents=True)
    recorded = {"error": "", "response": "{'temp_c': 11, 'condition': 'Light rain'}"}
    api_file.write_text(json.dumps({str({"location": "London, UK", "units": "metric"}): recorded,
                                    "not a dict literal": {"error": "", "response": "x"}}))
    named = {**WEATHER, "name": "get_weather_for_weatherapi"}
    write(tmp_path / "data" / "tasks.jsonl", [{**rows()[0], "tools": [WEATHER, named]}])
    task = read_tasks(tmp_path / "data").tasks[0]
    world = task.world()
    assert world.call("get_weather", {"units": "metric", "location": "London, UK"}).result == recorded  # any order
    assert world.call("get_weather_for_weatherapi", {"location": "London, UK", "units": "metric"}).result == recorded
    assert world.call("get_weather", {"location": "Paris"}).result["response"]["simulated"] is True
    single = ResponseCache(api_file)
    assert single.lookup("get_weather", {"location": "London, UK", "units": "metric"}) == recorded
    assert single.lookup("get_forecast", {"location": "London, UK"}) is None
    with pytest.raises(FileNotFoundError):
        ResponseCache(tmp_path / "nowhere")
    copied = pickle.loads(pickle.dumps(task))  # as a worker process receives it
    assert copied.world().call("get_weather", {"location": "London, UK", "units": "metric"}).result == recorded



def test_a_cache_file_that_cannot_be_read_answers_nothing_and_a_byte_order_mark_is_no_obstacle(
        tmp_path: Path) -> None:
    """A cache file holding a 5,000-digit integer made a lookup raise (`json.loads` refuses it with a plain
    `ValueError`): like any file that is not JSON it now supplies no answers. One saved with a byte-order
    mark supplied none either; it is read as the JSON it holds."""
    folder = tmp_path / "Weather" / "weatherapi_for_Weather"
    folder.mkdir(parents=True)
    key = str({"location": "Oslo"})
    (folder / "huge.json").write_text(json.dumps({key: {"error": "", "response": 0}}).replace("0}", "9" * 5000 + "}"))
    (folder / "bom.json").write_bytes(b"\xef\xbb\xbf" + json.dumps({key: {"error": "", "response": "ok"}}).encode())
    (folder / "latin.json").write_bytes(b'{"x": "caf\xe9"}')
    cache = ResponseCache(tmp_path)
    assert cache.lookup("huge", {"location": "Oslo"}) is None
    assert cache.lookup("latin", {"location": "Oslo"}) is None
    assert cache.lookup("bom", {"location": "Oslo"}) == {"error": "", "response": "ok"}

# -- mcpbr's verdict: the seed examples --------------------------------------------------------------------------


def exactly(verdict: dict[str, Any], expected: dict[str, Any]) -> bool:
    """Equal, with the same keys in the same order and the same types."""
    return json.dumps(verdict) == json.dumps(expected) and verdict == expected


def test_the_seed_examples_reproduce_mcpbrs_output_dicts() -> None:
    london = json.dumps(LONDON_CALLS)
    assert exactly(score_sequence(LONDON_CALLS, london).to_dict(), SEED_LONDON)
    reversed_calls = json.dumps(list(reversed(DINNER_CALLS)))
    assert exactly(score_sequence(DINNER_CALLS, reversed_calls).to_dict(), SEED_REVERSED)
    missing = json.dumps(DINNER_CALLS[:1])
    assert exactly(score_sequence(DINNER_CALLS, missing).to_dict(), SEED_MISSING)
    prose = "I would search for restaurants and then check the weather."
    assert exactly(score_sequence(DINNER_CALLS, prose).to_dict(), SEED_UNPARSEABLE)
    assert exactly(score_sequence([], london).to_dict(), {"resolved": False, "error": "No ground truth available"})


def test_the_seed_examples_come_out_the_same_when_the_calls_run_in_a_world(tasks: list[ToolBenchTask]) -> None:
    london, dinner = tasks[0], tasks[1]
    cases = [(london, json.dumps(LONDON_CALLS), SEED_LONDON),
             (dinner, json.dumps(list(reversed(DINNER_CALLS))), SEED_REVERSED),
             (dinner, json.dumps(DINNER_CALLS[:1]), SEED_MISSING),
             (dinner, "I would search for restaurants and then check the weather.", SEED_UNPARSEABLE)]
    for task, message, expected in cases:
        world, _ = run_episode(task, Says(message))
        verdict, _ = judge_episode(task, world)
        assert exactly(verdict.to_dict(), expected), message


def test_answers_are_read_in_mcpbrs_three_steps() -> None:
    call = {"name": "get_weather", "parameters": {"location": "London, UK"}}
    assert extract_calls(json.dumps(call)) == [call]  # 1: the whole answer as one object
    assert extract_calls(json.dumps([call, "junk", 3])) == [call]  # ... or a list, keeping its objects
    assert extract_calls(f"Calls:\n```json\n{json.dumps([call])}\n```") == [call]  # 2: a ```json block
    assert extract_calls(f"```\n{json.dumps(call)}\n```") == [call]  # ... or a bare ``` block
    two = f"```json\nnot json\n```\nthen\n```json\n{json.dumps([call])}\n```"
    assert extract_calls(two) == [call]  # the first block that parses
    assert extract_calls(f"```json {json.dumps([call])}```") == []  # a block needs its line breaks
    assert extract_calls("42") == [] and extract_calls(None) == []  # 3: nothing readable
    fenced_junk = score_sequence([call], 'Plan:\n```json\n[{"name": "get_weather"}, "junk"]\n```')
    assert fenced_junk.agent_tools == ["get_weather", ""] and not fenced_junk.resolved
    assert score_sequence([call], "[]").to_dict() == {"resolved": False, "error": NO_CALLS}


def test_the_argument_check_compares_each_call_after_normalisation() -> None:
    expected = DINNER_CALLS
    same = [
        {"name": "search_restaurants", "parameters": {"type": " Restaurant", "location": "central  park, NEW YORK"}},
        {"name": "get_weather", "arguments": json.dumps({"location": "New York", "units": "imperial", "extra": None})},
    ]
    checked = check_arguments(expected, same)
    assert checked.accuracy == 1.0 and checked.exact
    wrong = check_arguments(expected, [same[0], {"name": "get_weather", "parameters": {"location": "Boston"}}])
    assert wrong.accuracy == 0.5 and not wrong.exact
    assert wrong.calls[1].differing == ("location", "units")
    assert not check_arguments(expected, [*same, same[0]]).exact  # an extra call
    assert check_arguments(expected, list(reversed(same))).accuracy == 0.0
    numbers = [{"name": "f", "parameters": {"n": 5, "flag": True}}]
    assert check_arguments(numbers, [{"name": "f", "parameters": {"n": "5.0", "flag": True}}]).exact
    assert not check_arguments(numbers, [{"name": "f", "parameters": {"n": 5, "flag": 1}}]).exact
    assert check_arguments([], same).accuracy == 0.0


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.text(max_size=120), st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["name", "parameters", "x"]),
                                                                inner, max_size=3), max_leaves=12)))
@example('[{"name": "get_weather", "n": ' + "1" * 5_000 + "}]")  # Python will not convert the integer
@example("[" * 100_000)  # nesting past the decoder's stack
def test_scoring_never_raises_on_any_answer(answer: Any) -> None:
    text = answer if isinstance(answer, str) else json.dumps(answer)
    for response in (text, f"```json\n{text}\n```"):
        verdict = score_sequence(DINNER_CALLS, response)
        assert set(verdict.to_dict()) in ({"resolved", "error"}, {"resolved", "tool_selection_accuracy",
                                                                  "expected_tools", "agent_tools"})
        calls = extract_calls(response)
        assert 0.0 <= check_arguments(DINNER_CALLS, calls).accuracy <= 1.0


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(["get_weather", "get_forecast", "convert_units", "get_timezone", "nope"]),
       st.dictionaries(st.sampled_from(["location", "units", "days", "value", "api-key"]),
                       st.none() | st.integers() | st.text(max_size=5) | st.lists(st.integers(), max_size=2),
                       max_size=4))
def test_the_world_never_raises_and_refused_calls_change_nothing(name: str, arguments: dict[str, Any]) -> None:
    world = ToolBenchTask(id="h", query="q", tools=[WEATHER, FORECAST, CONVERT, TIMEZONE], ground_truth=[]).world()
    before = world.state()
    record = world.call(name, arguments)
    assert (world.state() == before) == (record.error is not None)


# -- runs and the score command ----------------------------------------------------------------------------------


def test_episodes_are_scored_by_the_familys_own_scorer(tasks: list[ToolBenchTask]) -> None:
    assert episode_scorer("toolbench") is score_episode
    assert episode_scorer("no-such") is score_task
    world, _ = run_episode(tasks[1], Says(json.dumps(DINNER_CALLS[:1])))
    scored = score_episode(tasks[1], world, [], "exact")
    assert (scored.success, scored.process, scored.state_fraction) == (False, 0.5, 0.5)
    assert [(d.path, d.kind) for d in scored.diff.differences] == [("calls[1]", "missing")]


def test_an_oracle_run_resolves_every_task_with_full_tool_selection(tmp_path: Path, task_file: Path,
                                                                    tasks: list[ToolBenchTask]) -> None:
    store = RunStore(f"sqlite:///{tmp_path / 'runs.db'}")
    episodes = execute_run(store, "oracle", [TaskSet("toolbench", "en", tasks, "exact")], AgentSpec("oracle"))
    assert len(episodes) == 6 and all(e.success for e in episodes)
    assert all(e.process == 1.0 and e.state_fraction == 1.0 and e.errors == 0 for e in episodes)
    overall = {s.metric: s.value for s in store.scores("oracle") if s.task_set == "all"}
    assert overall["end_to_end"] == 1.0 and overall["process"] == 1.0
    for task in tasks:  # the same, as mcpbr's verdict on each episode's calls
        world, _ = run_episode(task, AgentSpec("oracle").build(task))
        verdict, arguments = judge_episode(task, world)
        assert verdict.resolved and verdict.tool_selection_accuracy == 1.0 and arguments.exact
    noisy = execute_run(store, "noisy", [TaskSet("toolbench", "en", tasks, "exact")],
                        AgentSpec("noisy", noise=0.9, seed=3))
    assert not all(e.success for e in noisy)
    parallel = execute_run(store, "noisy-2", [TaskSet("toolbench", "en", read_tasks(task_file).tasks, "exact")],
                           AgentSpec("noisy", noise=0.9, seed=3), workers=2)  # tasks cross process boundaries
    assert sorted((e.task_id, e.success, e.process, e.diff) for e in parallel) == sorted(
        (e.task_id, e.success, e.process, e.diff) for e in noisy)
    store.close()


def test_doctor_names_gold_calls_the_tasks_own_tools_refuse(tmp_path: Path, task_file: Path) -> None:
    clean = CliRunner().invoke(app, ["doctor", "toolbench", "--data", str(task_file)])
    assert clean.exit_code == 0, clean.output
    defective = [*rows(),
                 {**rows()[0], "ground_truth": [{"name": "get_weather", "parameters": {"units": "kelvin"}}]},
                 {**rows()[0], "ground_truth": [{"name": "get_news", "parameters": {}}]},
                 {**rows()[0], "ground_truth": []}]
    shown = CliRunner().invoke(app, ["doctor", "toolbench", "--data", str(write(tmp_path / "bad.json", defective))])
    assert shown.exit_code == 1
    text = " ".join(shown.output.split())
    assert "toolbench_6 (bad.json[7]): get_weather: invalid arguments" in text
    assert "toolbench_7 (bad.json[8]): get_news: unknown tool" in text
    assert "toolbench_8 (bad.json[9]): no ground truth" in text and "2 finding(s)" in text


def test_cli_run_with_flags_and_with_a_config_file(tmp_path: Path, task_file: Path) -> None:
    runner = CliRunner()
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    shown = runner.invoke(app, ["run", "--tasks", "toolbench", "--data", str(task_file), "--db", db,
                                "--filter-category", "weather", "--filter-difficulty", "easy", "-n", "1"])
    assert shown.exit_code == 0, shown.output
    assert "toolbench/en" in shown.output and "1.000" in shown.output
    config = tmp_path / "mcpbr.yaml"
    config.write_text("benchmark: toolbench\ndata: tasks.jsonl\nsample_size: 5\nfilter_category: [food, finance]\n"
                      "filter_tags:\n  - rest\ntimeout_seconds: 300\nmodel: some-model\n")
    store = RunStore(db)
    by_config = runner.invoke(app, ["run", "--config", str(config), "--db", db, "--run-id", "from-yaml"])
    assert by_config.exit_code == 0, by_config.output
    assert "not used by toolworlds: model, timeout_seconds" in by_config.output
    assert sorted(e.task_id for e in store.episodes("from-yaml")) == ["toolbench_1", "toolbench_5"]
    json_config = tmp_path / "mcpbr.json"
    json_config.write_text(json.dumps({"benchmark": ["toolbench"], "data": str(tmp_path / "tasks.jsonl"),
                                       "filter_difficulty": "hard"}))
    flags_win = runner.invoke(app, ["run", "--config", str(json_config), "--db", db, "--run-id", "flags",
                                    "--filter-difficulty", "medium"])
    assert flags_win.exit_code == 0, flags_win.output
    assert sorted(e.task_id for e in store.episodes("flags")) == ["toolbench_1", "toolbench_4"]
    store.close()
    bad = tmp_path / "bad.yaml"
    for text, message in (("sample_size: -2\n", "sample_size"), ("filter_tags: {a: 1}\n", "filter_tags"),
                          ("- a list\n", "mapping"), ("data: x\ndataset: y\n", "not both")):
        bad.write_text(text)
        failed = runner.invoke(app, ["run", "--config", str(bad), "--db", db])
        assert failed.exit_code == 2 and failed.output.startswith("error:") and message in failed.output
    refused = runner.invoke(app, ["run", "--tasks", "banking", "--filter-tags", "x", "--db", db])
    assert refused.exit_code == 2 and "carry no tags" in refused.output
    other = tmp_path / "banking.yaml"  # the same keys for any family; categories match exactly there
    other.write_text("benchmark: banking\nfilter_category: multi_turn\nsample_size: 1\n")
    generic = runner.invoke(app, ["run", "--config", str(other), "--db", db, "--run-id", "banking"])
    assert generic.exit_code == 0, generic.output
    store = RunStore(db)
    assert sorted((e.task_set, e.category) for e in store.episodes("banking")) == [
        ("banking/en", "multi_turn"), ("banking/zh", "multi_turn")]
    store.close()


def test_cli_score_prints_the_table_and_writes_every_verdict(tmp_path: Path, task_file: Path) -> None:
    answers = tmp_path / "answers.jsonl"
    answers.write_text("".join(json.dumps(line) + "\n" for line in [
        {"instance_id": "toolbench_0", "solution": json.dumps(LONDON_CALLS)},
        {"instance_id": "toolbench_1", "solution": f"```json\n{json.dumps(list(reversed(DINNER_CALLS)))}\n```"},
        {"id": "103", "response": "I cannot help with that."},
        {"task_id": "toolbench_5", "solution": [{"name": "search_restaurants", "parameters": {"location": "rome"}}]},
    ]))
    out = tmp_path / "scores.json"
    shown = CliRunner().invoke(app, ["score", "toolbench", "--data", str(task_file), "--results", str(answers),
                                     "--json", str(out)])
    assert shown.exit_code == 0, shown.output
    assert "category weather" in shown.output and "difficulty Medium" in shown.output
    data = json.loads(out.read_text())
    results = {item["instance_id"]: item["result"] for item in data["items"]}
    assert exactly(results["toolbench_0"], SEED_LONDON) and exactly(results["toolbench_1"], SEED_REVERSED)
    assert exactly(results["toolbench_2"], SEED_UNPARSEABLE)
    assert data["overall"] == {"n": 4, "resolved": 0.5, "tool_selection_accuracy": 0.75, "argument_accuracy": 0.5,
                               "errors": 1}
    assert data["categories"]["weather"]["n"] == 1 and data["difficulties"]["easy"]["resolved"] == 1.0
    assert data["items"][3]["arguments"]["exact"] is True
    for extra, message in ((["--mode", "strict"], "compat"), (["--lang", "zh"], "languages")):
        failed = CliRunner().invoke(app, ["score", "toolbench", "--data", str(task_file), "--results", str(answers),
                                          *extra])
        assert failed.exit_code == 2 and message in failed.output
    stray = tmp_path / "stray.json"
    stray.write_text(json.dumps({"toolbench_99": "[]"}))
    failed = CliRunner().invoke(app, ["score", "toolbench", "--data", str(task_file), "--results", str(stray)])
    assert failed.exit_code == 2 and "toolbench_99" in failed.output


def test_a_results_file_the_json_decoder_refuses_names_its_line(tmp_path: Path) -> None:
    """An integer past Python's 4,300 digits is refused by `json.loads` with a plain `ValueError`, not a
    `JSONDecodeError`: the file's line is still named, in our words."""
    answers = tmp_path / "answers.jsonl"
    answers.write_text(json.dumps({"instance_id": "toolbench_0", "solution": "[]"}) + "\n" + "9" * 5000 + "\n")
    with pytest.raises(ValueError, match=r"^answers\.jsonl:2: not valid JSON \(an integer too long to read\)$"):
        read_answers(answers)
    whole = tmp_path / "whole.json"
    whole.write_text("9" * 5000)
    with pytest.raises(ValueError, match=r"^whole\.json:1: not valid JSON \(an integer too long to read\)$"):
        read_answers(whole)


def model_answering_in_json(body: dict[str, Any]) -> dict[str, Any]:
    """A fake model that follows the prompt: a fenced JSON array of calls, then a short answer."""
    prompt = body["messages"][1]["content"]
    if len(body["messages"]) > 2:
        return {"role": "assistant", "content": "Found restaurants; it will be cool in New York."}
    assert "Available tools:\n  - search_restaurants:" in prompt and "JSON array" in prompt
    assert [t["function"]["name"] for t in body["tools"]] == ["search_restaurants", "get_weather"]
    return {"role": "assistant", "content": f"```json\n{json.dumps(DINNER_CALLS)}\n```"}


@pytest.fixture
def json_answering_model() -> Iterator[str]:
    with chat_endpoint(model_answering_in_json) as url:
        yield url


def test_an_llm_answering_in_the_prompted_format_runs_its_calls_in_the_world(json_answering_model: str,
                                                                            tasks: list[ToolBenchTask]) -> None:
    pytest.importorskip("openai")
    agent = LLMAgent(ChatClient(json_answering_model, "fake-model", api_key="test"))
    world, episode = run_episode(tasks[1], agent)
    assert [r.tool for r in episode.records] == ["search_restaurants", "get_weather"]
    assert all(r.ok for r in episode.records) and episode.stop_reason == "agent answered"
    verdict, arguments = judge_episode(tasks[1], world)
    assert verdict.resolved and verdict.tool_selection_accuracy == 1.0 and arguments.exact


def test_a_fresh_clone_runs_toolbench_on_the_bundled_sample(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No data anywhere: `toolworlds run --tasks toolbench` runs the eight bundled sample tasks, the oracle
    solves each, and `doctor` finds every gold path reproduces."""
    from typer.testing import CliRunner

    from toolworlds.cli import app

    monkeypatch.setenv("TOOLWORLDS_DATA", str(tmp_path))
    doctor = CliRunner().invoke(app, ["doctor", "toolbench"])
    assert doctor.exit_code == 0 and "8 rows: 8 reproduce, 0 finding(s)" in doctor.output, doctor.output
    ran = CliRunner().invoke(app, ["run", "--tasks", "toolbench", "--db", f"sqlite:///{tmp_path / 'r.db'}"],
                             env={"COLUMNS": "300"})
    assert ran.exit_code == 0 and "8 episodes stored, 0 failed" in ran.output, ran.output
    assert "│ all          │ all              │ 8 │      1.000 │" in ran.output
