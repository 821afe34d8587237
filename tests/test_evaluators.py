"""Evaluators: ACEBench compat/strict, process, end state, ToolBench metrics."""

from __future__ import annotations

import copy
import datetime
import graphlib
import itertools
import json
import random
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel
from typer.testing import CliRunner

from evaluators.acebench import (
    NORMAL_CATEGORIES,
    SPECIAL_CATEGORIES,
    canonical_special,
    check_item,
    read_jsonl,
    render_answer,
    score_category,
    summarize,
)
from evaluators.process import acebench_process
from evaluators.toolbench import score_sequence
from sandbox import App, Call, StateModel, export, render_calls, tool
from sandbox.calllog import CallRecord
from sandbox.comparison import compare_states
from sandbox.testing import arguments as drawn_arguments
from scenarios.datasets import dataset_dir
from toolworlds.cli import app

ACE = dataset_dir("acebench")
needs_data = pytest.mark.skipif(ACE is None, reason="ACEBench data not found (../shared/datasets or TOOLWORLDS_DATA)")
EN = ACE / "data_en" if ACE else Path("missing")

# Perfect-answer results the reference gives (behavioural spec, section 5.2, row (a)).
REFERENCE_VALID = {
    "normal_atom_bool": 50, "normal_atom_enum": 50, "normal_atom_list": 50, "normal_atom_number": 50,
    "normal_atom_object_deep": 33, "normal_atom_object_short": 50, "normal_single_turn_single_function": 92,
    "normal_single_turn_parallel_function": 86, "normal_multi_turn_user_adjust": 110,
    "normal_multi_turn_user_switch": 86, "normal_preference": 49, "normal_similar_api": 48,
    "special_incomplete": 49, "special_error_param": 50, "special_irrelevant": 50,
}


def load(category: str) -> tuple[list[dict], list[dict]]:
    return read_jsonl(EN / f"data_{category}.json"), read_jsonl(EN / "possible_answer" / f"data_{category}.json")


def perfect(category: str, answers: list[dict]) -> dict[str, str]:
    if category.startswith("special"):
        return {a["id"]: canonical_special(category, a["ground_truth"]) for a in answers}
    return {a["id"]: render_answer(a["ground_truth"]) for a in answers}


@needs_data
@pytest.mark.parametrize("mode", ["compat", "strict"])
def test_perfect_answers_score_as_the_reference_says(mode: str) -> None:
    accuracies = {}
    for category in NORMAL_CATEGORIES + SPECIAL_CATEGORIES:
        prompts, answers = load(category)
        scored = score_category(category, prompts, answers, perfect(category, answers), mode)  # type: ignore[arg-type]
        valid = sum(item["valid"] for item in scored.items)
        if mode == "compat":
            assert valid == REFERENCE_VALID[category], category
        else:
            assert valid == len(scored.items), (category, [i for i in scored.items if not i["valid"]][:2])
        accuracies[category] = scored.accuracy
    summary = summarize(accuracies)
    if mode == "compat":
        assert (summary["normal"], summary["special"]) == (0.907, 0.993)
        assert accuracies["normal_multi_turn_user_adjust"] == 0.76
        assert accuracies["normal_multi_turn_user_switch"] == 0.74
    else:
        assert (summary["normal"], summary["special"]) == (1.0, 1.0)


def perturb_all(category: str, change: Any) -> tuple[int, int, int]:
    """(applicable, compat passes, strict passes) over items whose exact answer passes in compat."""
    prompts, answers = load(category)
    counts = [0, 0, 0]
    for prompt, answer in zip(prompts, answers, strict=True):
        truth = answer["ground_truth"]
        if check_item(category, prompt["function"], render_answer(truth), truth, "compat").valid is False:
            continue
        first = copy.deepcopy(truth[0] if isinstance(truth, list) else truth)
        changed = change(first, prompt["function"])
        if changed is None:
            continue
        output = changed if isinstance(changed, str) else render_answer(changed)
        counts[0] += 1
        counts[1] += check_item(category, prompt["function"], output, truth, "compat").valid
        counts[2] += check_item(category, prompt["function"], output, truth, "strict").valid
    return counts[0], counts[1], counts[2]


def _first_top(answer: dict, kinds: tuple[type, ...]) -> tuple[str, str] | None:
    for call, arguments in answer.items():
        for key, value in arguments.items():
            if isinstance(value, kinds) and not (bool not in kinds and isinstance(value, bool)):
                return call, key
    return None


def change_number(answer: dict, functions: list) -> dict | None:
    spot = _first_top(answer, (int, float))
    if spot is None:
        return None
    value = answer[spot[0]][spot[1]]
    answer[spot[0]][spot[1]] = value + (7 if isinstance(value, int) else 1.5)
    return answer


def flip_bool(answer: dict, functions: list) -> dict | None:
    spot = _first_top(answer, (bool,))
    if spot is None:
        return None
    answer[spot[0]][spot[1]] = not answer[spot[0]][spot[1]]
    return answer


def int_as_string(answer: dict, functions: list) -> dict | None:
    spot = _first_top(answer, (int,))
    if spot is None:
        return None
    answer[spot[0]][spot[1]] = str(answer[spot[0]][spot[1]])
    return answer


def change_string(answer: dict, functions: list) -> dict | None:
    spot = _first_top(answer, (str,))
    if spot is None:
        return None
    answer[spot[0]][spot[1]] = "zzzz unrelated"
    return answer


def wrong_name(answer: dict, functions: list) -> dict | None:
    name = next(iter(answer))
    answer[name + "X"] = answer.pop(name)
    return answer


def drop_optional(answer: dict, functions: list) -> dict | None:
    for call, arguments in answer.items():
        schema = next((f for f in functions if f["name"] in call), None)
        required = set((schema or {}).get("parameters", {}).get("required", []))
        for key in list(arguments):
            if key not in required:
                del arguments[key]
                return answer if arguments else None
    return None


def reorder(answer: dict, functions: list) -> str | None:
    if len(answer) < 2:
        return None
    return render_answer(dict(reversed(list(answer.items()))))


@needs_data
@pytest.mark.parametrize(
    ("category", "change", "applicable", "compat_all_pass", "strict_all_pass"),
    [
        # (applicable counts are the reference probe's, behavioural spec section 5.2)
        ("normal_atom_number", change_number, 42, True, False),  # top-level numbers are never compared
        ("normal_atom_bool", flip_bool, 32, True, False),  # nor booleans
        ("normal_atom_number", int_as_string, 40, False, False),  # a type error either way
        ("normal_single_turn_single_function", change_string, None, False, False),
        ("normal_atom_enum", wrong_name, 50, False, False),
        ("normal_atom_enum", drop_optional, 35, True, False),  # strict: an answer key left out is a subset
        ("normal_atom_bool", drop_optional, 33, True, False),
        ("normal_single_turn_parallel_function", reorder, 86, True, True),
    ],
)
def test_perturbation_verdicts(category: str, change: Any, applicable: int | None, compat_all_pass: bool,
                               strict_all_pass: bool) -> None:
    found, compat, strict = perturb_all(category, change)
    assert found > 0 and (applicable is None or found == applicable)
    assert compat == (found if compat_all_pass else 0), (found, compat)
    assert strict == (found if strict_all_pass else 0), (found, strict)


# -- compat vs strict, one difference at a time (no data needed) -------------------------------------

TOOL = {"name": "plan_trip", "parameters": {"type": "dict", "required": ["city"], "properties": {
    "city": {"type": "string"}, "days": {"type": "integer"}, "budget": {"type": "number"},
    "vegan": {"type": "boolean"}, "tags": {"type": "array", "items": {"type": "string"}},
    "extras": {"type": "array"},
    "prefs": {"type": "object", "properties": {"stops": {"type": "array"}, "pace": {"type": "string"},
                                               "level": {"type": "integer"}}}}}}


def verdicts(output: str, answer: dict, category: str = "normal_atom_list", tools: list | None = None) -> tuple:
    tools = tools or [TOOL]
    return (check_item(category, tools, output, answer, "compat").valid,
            check_item(category, tools, output, answer, "strict").valid)


@pytest.mark.parametrize(
    ("output", "answer", "expected"),
    [
        ("[plan_trip(city='Rome', days=9)]", {"plan_trip": {"city": "Rome", "days": 5}}, (True, False)),
        ("[plan_trip(city='Rome', vegan=False)]", {"plan_trip": {"city": "Rome", "vegan": True}}, (True, False)),
        ("[plan_trip(city='Rome', budget=99)]", {"plan_trip": {"city": "Rome", "budget": 12.5}}, (True, False)),
        ("[plan_trip(city='Rome', prefs={'stops': ['St Peter', 'Forum']})]",
         {"plan_trip": {"city": "Rome", "prefs": {"stops": ["St Peter", "Forum"]}}}, (False, True)),
        ("[plan_trip(city='Rome', tags=[])]", {"plan_trip": {"city": "Rome", "tags": []}}, (False, True)),
        ("[plan_trip(city='Rome', extras=['wifi'])]", {"plan_trip": {"city": "Rome", "extras": ["wifi"]}},
         (False, True)),
        ("[plan_trip(city='Rome', prefs={'level': 100})]", {"plan_trip": {"city": "Rome", "prefs": {"level": 10}}},
         (True, False)),
        ("[plan_trip(city='Rome', prefs={'pace': 'slow'})]",
         {"plan_trip": {"city": "Rome", "prefs": {"pace": "slow", "level": 2}}}, (False, False)),
        ('[{"name": "plan_trip", "arguments": {"city": "Rome"}}]', {"plan_trip": {"city": "Rome"}}, (False, True)),
        ("[plan_trip(city='New York City')]", {"plan_trip": {"city": "New York"}}, (True, False)),
        ("[plan_trip(city='  new   YORK ')]", {"plan_trip": {"city": "New York"}}, (True, True)),
        ("[plan_trip(city='Rome')]", {"plan_trip": {"city": "Rome", "days": 5}}, (True, False)),
        ("[plan_trip(city='York')]", {"plan_trip": {"city": "New York"}}, (False, False)),
        ("[plan_trip(city='Rome', days='5')]", {"plan_trip": {"city": "Rome", "days": 5}}, (False, False)),
        ("[plan_trip(city='Rome', days=2+3)]", {"plan_trip": {"city": "Rome", "days": 5}}, (True, False)),
    ],
)
def test_each_compat_strict_difference(output: str, answer: dict, expected: tuple) -> None:
    assert verdicts(output, answer) == expected


def test_one_to_one_matching_of_parallel_calls() -> None:
    answer = {"plan_trip_1": {"city": "Rome", "days": 2}, "plan_trip_2": {"city": "Rome", "days": 3}}
    output = "[plan_trip(city='Rome', days=2), plan_trip(city='Rome', days=2)]"
    assert verdicts(output, answer) == (True, False)
    assert verdicts("[plan_trip(city='Rome', days=3), plan_trip(city='Rome', days=2)]", answer) == (True, True)


CITIES = ["Rome", "Paris", "Oslo", "Lima", "Cairo", "Tokyo", "Quito", "Dakar", "Hanoi", "Accra", "Delhi", "Seoul"]


@pytest.mark.parametrize("count", [7, 8, 9, 12])
def test_strict_matches_any_number_of_parallel_calls_in_any_order(count: int) -> None:
    answer = {f"plan_trip_{i + 1}": {"city": city} for i, city in enumerate(CITIES[:count])}
    shuffled = CITIES[:count][1::2] + CITIES[:count][::2]
    output = "[" + ", ".join(f"plan_trip(city='{city}')" for city in reversed(shuffled)) + "]"
    assert check_item("normal_single_turn_parallel_function", [TOOL], output, answer, "strict").valid
    # The answer asks for the first city twice; the output names it once and once a city asked for by
    # none: each answer call has a candidate, but the two asking for the first city share it.
    twice = {**answer, "plan_trip_2": {"city": CITIES[0]}}
    crowded = output.replace(f"'{CITIES[1]}'", "'Nowhere'")
    verdict = check_item("normal_single_turn_parallel_function", [TOOL], crowded, twice, "strict")
    assert (verdict.valid, verdict.detail) == (False, "no one-to-one assignment of calls to expected calls")


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 7).flatmap(lambda n: st.lists(st.lists(st.booleans(), min_size=n, max_size=n),
                                                    min_size=n, max_size=n)))
def test_the_one_to_one_matching_agrees_with_trying_every_permutation(accepts: list[list[bool]]) -> None:
    from evaluators.acebench.normal_strict import _perfect_matching

    accepted = [[j for j, ok in enumerate(row) if ok] for row in accepts]
    every_order = any(all(accepts[i][j] for i, j in enumerate(order))
                      for order in itertools.permutations(range(len(accepts))))
    assert _perfect_matching(accepted) == every_order


def test_tool_names_ending_in_digits() -> None:
    tool = {"name": "personalized_learning_1", "parameters": {"type": "dict", "required": [], "properties": {
        "topic": {"type": "string"}}}}
    answer = {"personalized_learning_1": {"topic": "math"}}
    assert verdicts("[personalized_learning_1(topic='math')]", answer, tools=[tool]) == (False, True)


@pytest.mark.parametrize(
    ("category", "output", "answer", "expected"),
    [
        ("special_irrelevant", "The limitations of the function prevent this.", "x", (False, True)),
        ("special_irrelevant", "Due to the limitations of the function, I cannot solve this problem.", "x",
         (True, True)),
        ("special_error_param", "There is incorrect value (123India) for the parameters (dish_count)",
         {"country_name": ["123India"]}, (True, False)),
        ("special_error_param", "There is incorrect value (123India) for the parameters (country_name)",
         {"country_name": ["123India"]}, (True, True)),
        ("special_incomplete", "Missing necessary parameters (propertyDetails) for the api (Rent)",
         {"Rent": ["propertyDetails "]}, (False, True)),
        ("special_incomplete", "missing necessary parameters (a) for the api (Rent)", {"Rent": ["a"]},
         (False, True)),
    ],
)
def test_special_variants(category: str, output: str, answer: Any, expected: tuple) -> None:
    assert (check_item(category, [], output, answer, "compat").valid,
            check_item(category, [], output, answer, "strict").valid) == expected


def test_overall_uses_the_reference_weights() -> None:
    scores = {name: 0.927 for name in NORMAL_CATEGORIES}
    scores.update({name: 0.933 for name in SPECIAL_CATEGORIES})
    scores.update({"agent_multi_turn": 0.715, "agent_multi_step": 0.715})
    assert summarize(scores)["overall"] == 0.896
    assert summarize({})["overall"] == 0.0  # missing categories count as 0


class Prefs(BaseModel):
    stops: list[Any] = []
    pace: str = ""
    level: int = 0


NO_PREFS = Prefs()


class Trips(App[StateModel]):
    """The Python twin of TOOL, so the property-testing kit can draw its calls."""

    @tool(mutates=False)
    def plan_trip(self, city: str, days: int = 1, budget: float = 0.0, vegan: bool = False,
                  tags: list[str] = [], extras: list[Any] = [], prefs: Prefs = NO_PREFS) -> str:  # noqa: B006
        """Plan a trip.

        Args:
            city: Where to.
            days: How long.
            budget: How much.
            vegan: Vegan food only.
            tags: Labels.
            extras: Anything else.
            prefs: Preferences.
        """
        return city


PLAN_TRIP = Trips().tool_specs["plan_trip"]
# Calls of TOOL as a model would write them: well-formed, with arguments of the declared types.
plan_trip_calls = drawn_arguments(PLAN_TRIP).map(lambda args: [Call("plan_trip", args)])


def test_the_python_twin_exports_as_tool() -> None:
    exported = export(PLAN_TRIP, "jsonschema")["parameters"]
    assert exported["required"] == TOOL["parameters"]["required"]
    assert {k: v["type"] for k, v in exported["properties"].items()} == {
        k: v["type"] for k, v in TOOL["parameters"]["properties"].items()}


def _blank_text(value: Any) -> bool:
    if isinstance(value, str):
        return not value.strip()
    if isinstance(value, dict):
        return any(_blank_text(v) for v in value.values())
    return isinstance(value, (list, tuple)) and any(_blank_text(v) for v in value)


@settings(max_examples=150, deadline=None)
@given(plan_trip_calls, st.booleans())
def test_a_perfect_answer_drawn_by_the_kit_is_valid(drawn: list[Call], as_json: bool) -> None:
    output = render_calls(drawn)
    answer = {call.name: call.arguments for call in drawn}
    assume(not _blank_text(answer))  # an empty gold string is matched by nothing in strict mode (its own test)
    assert check_item("normal_atom_list", [TOOL], output, answer, "strict").valid, output
    scalars = all(isinstance(v, (str, int, float, bool)) for v in drawn[0].arguments.values())
    # The reference turns the strings "true" and "false" into booleans before checking types
    # (../shared/specs/acebench-eval.md), so compat mode marks a text parameter holding one as a wrong type.
    booleans_as_text = any(v in ("true", "false") and isinstance(v, str) for v in drawn[0].arguments.values())
    if scalars and not booleans_as_text:  # compat also marks nested values and JSON output wrong (see above)
        assert check_item("normal_atom_list", [TOOL], output, answer, "compat").valid, output


@settings(max_examples=300, deadline=None)
@given(st.one_of(plan_trip_calls.map(render_calls), st.text(max_size=200),
                 st.from_regex(r"\[[a-z_]{1,8}\((\w=[^)]{0,12})?\)\]", fullmatch=True),
                 st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                              lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=3), c, max_size=3),
                              max_leaves=10)),
       st.sampled_from(["normal_atom_list", "normal_multi_turn_user_adjust", "special_incomplete",
                        "special_error_param", "special_irrelevant"]),
       st.sampled_from(["compat", "strict"]))
# Right answers, so each category's checks below run on a valid verdict as well as the drawn ones.
@example("[plan_trip(city='Rome')]", "normal_atom_list", "strict")
@example("[plan_trip(city='Rome')]", "normal_multi_turn_user_adjust", "compat")
@example("Missing necessary parameters (city) for the api (plan_trip)", "special_incomplete", "compat")
@example("There is incorrect value (Rme) for the parameters (city)", "special_error_param", "strict")
@example("Due to the limitations of the function, I cannot solve this problem.", "special_irrelevant", "compat")
def test_scorers_never_raise_on_model_output(output: Any, category: str, mode: str) -> None:
    answers = {"special_incomplete": {"plan_trip": ["city"]}, "special_error_param": {"city": ["Rme"]},
               "special_irrelevant": "x"}
    verdict = check_item(category, [TOOL], output, answers.get(category, {"plan_trip": {"city": "Rome"}}),
                         mode)  # type: ignore[arg-type]
    if not verdict.valid:
        return
    # Only text can be right, and only text that says what the answer needs (drawn output rarely does).
    assert isinstance(output, str)
    if category.startswith("normal"):  # the one right call: plan_trip with city Rome
        assert "plan_trip" in output and "rome" in output.lower()
    elif category == "special_incomplete":  # names the missing parameter
        assert "city" in output
    elif category == "special_error_param":  # names the wrong value
        assert "Rme" in output
    else:  # irrelevant: declines, calling nothing
        assert "plan_trip(" not in output


@needs_data
def test_score_cli_writes_the_table_and_json(tmp_path: Path) -> None:
    results = tmp_path / "results"
    results.mkdir()
    for category in ("normal_atom_bool", "special_irrelevant"):
        _, answers = load(category)
        lines = [json.dumps({"id": i, "result": r}) for i, r in perfect(category, answers).items()]
        (results / f"data_{category}_result.json").write_text("\n".join(lines) + "\n")
    out = tmp_path / "scores.json"
    shown = CliRunner().invoke(app, ["score", "acebench", "--results", str(results), "--json", str(out)])
    assert shown.exit_code == 0, shown.output
    assert "overall" in shown.output and "normal_atom_bool" in shown.output
    data = json.loads(out.read_text())
    assert data["categories"]["normal_atom_bool"]["accuracy"] == 1.0
    assert set(data["categories"]["special_irrelevant"]["items"][0]) == {"id", "valid", "error_type", "detail"}
    bad = CliRunner().invoke(app, ["score", "acebench", "--results", str(tmp_path / "nope")])
    assert bad.exit_code == 2 and bad.output.startswith("error:")


# -- process, end state, ToolBench ------------------------------------------------------------------------


def test_process_is_a_greedy_in_order_prefix_match() -> None:
    path = ["[a()]", "[b()]", "[c()]"]
    assert acebench_process([path], ["[a()]", "[x()]", "[b()]", "[c()]"]) == 1.0
    assert acebench_process([path], ["[b()]", "[a()]", "[c()]"]) == 0.333  # after b is missed, c cannot count
    assert acebench_process([path, ["[b()]"]], ["[b()]"]) == 1.0
    assert acebench_process([path], [" [a()] "]) == 0.333
    assert acebench_process([path], ['[a()]', "[ b( ) ]"], canonical=True) == 0.667


def test_state_comparison_modes() -> None:
    expected = [{"BaseApi": {"wifi": True}}, {"ReminderAPI": {"reminder_list": {"1": {"title": "x"}}}}]
    actual = [{"BaseApi": {"wifi": True, "logged_in": True}},
              {"ReminderApi": {"reminder_list": {"1": {"title": "y"}, "2": {"title": "z"}}}}]
    assert compare_states(expected, actual, "acebench", misspelled="skip").equal
    matched = compare_states(expected, actual, "acebench")
    assert not matched.equal and "misspelled" in matched.notes[0]
    assert [d.path for d in matched.diff.differences] == ["ReminderApi.reminder_list.1.title"]
    assert not compare_states({"A": {"x": 1}}, {"A": {"x": 1, "y": 2}}, "exact").equal
    assert compare_states({"A": {"x": 1}}, {"A": {"x": 1.0}}, "exact").equal


def test_acebench_comparison_of_class_names_that_are_not_text_is_unequal() -> None:
    for expected, actual in (([{"A": {"x": 1}}], [{1: {"x": 1}}]), ([{1: {"x": 1}}], [{"A": {"x": 1}}])):
        assert not compare_states(expected, actual, "exact").equal
        compared = compare_states(expected, actual, "acebench")
        assert not compared.equal and any("no class of that name" in note for note in compared.notes)
    assert compare_states([{1: {"x": 1}}], [{1: {"x": 1}, "A": {}}], "acebench").equal  # matches itself


def test_acebench_comparison_reads_non_objects_as_unequal_and_compat_reads_a_class_first() -> None:
    expected = [{"BaseApi": {"wifi": True}}]
    for garbage in ([1, 2], ["x", None], "BaseApi", 5):
        for misspelled in ("skip", "match"):
            compared = compare_states(expected, garbage, "acebench", misspelled=misspelled)
            assert not compared.equal and compared.notes, (garbage, misspelled)
    twice = [{"BaseApi": {"wifi": False}}, {"BaseApi": {"wifi": True}}]
    assert not compare_states(expected, twice, "acebench", misspelled="skip").equal  # the first, as the reference
    assert compare_states(expected, twice[::-1], "acebench", misspelled="skip").equal
    assert compare_states(expected, twice, "acebench").equal  # strict reading unchanged: the last


def test_toolbench_metrics() -> None:
    expected = [{"name": "search"}, {"name": "book"}]
    assert score_sequence(expected, '[{"name": "search"}, {"name": "book"}]').resolved
    swapped = score_sequence(expected, '[{"name": "book"}, {"name": "search"}]')
    assert not swapped.resolved and swapped.tool_selection_accuracy == 1.0
    fenced = score_sequence(expected, 'Plan:\n```json\n[{"name": "search"}, "junk"]\n```')
    assert fenced.agent_tools == ["search", ""] and fenced.tool_selection_accuracy == 0.5
    nothing = score_sequence(expected, "I would search and then book.")
    assert not nothing.resolved and nothing.tool_selection_accuracy is None
    assert score_sequence([], "[]").error == "No ground truth available"


# -- structured process (milestones DAG) -----------------------------------------------------------------


def banking_log(*messages: str) -> list:
    from scenarios.banking import banking_world

    world = banking_world(initial_config={"BaseApi": {"wifi": True, "logged_in": True}})
    for message in messages:
        world.execute(message)
    return list(world.log)


def plain_similarity(expected: Any, actual: Any, tolerance: float) -> float:
    """Milestone value similarity read plainly, by the abstract types alone: what the evaluator's shortcuts
    for common types must agree with."""
    from collections.abc import Mapping

    from evaluators.acebench.normalise import fold_text

    if isinstance(expected, bool) or isinstance(actual, bool):
        return 1.0 if expected is actual else 0.0
    if isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
        if expected == actual:
            return 1.0
        return 1.0 if tolerance and abs(actual - expected) <= tolerance * max(abs(expected), 1e-12) else 0.0
    if isinstance(expected, str) and isinstance(actual, str):
        return 1.0 if fold_text(expected) == fold_text(actual) else 0.0
    if isinstance(expected, Mapping) and isinstance(actual, Mapping):
        if not expected:
            return 1.0 if not actual else 0.0
        return sum(plain_similarity(v, actual[k], tolerance) if k in actual else 0.0
                   for k, v in expected.items()) / len(expected)
    if isinstance(expected, (list, tuple)) and isinstance(actual, (list, tuple)):
        if len(expected) != len(actual):
            return 0.0
        if not expected:
            return 1.0
        return sum(plain_similarity(e, a, tolerance) for e, a in zip(expected, actual, strict=True)) / len(expected)
    return 1.0 if expected == actual else 0.0


_SIMILAR_LEAVES = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from([0.0, 1.0, 2.5, -1.0]),
                            st.sampled_from(["a", "A", " a", "it's", 'it"s']))
_SIMILAR_VALUES = st.recursive(_SIMILAR_LEAVES, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.lists(inner, max_size=3).map(tuple),
    st.dictionaries(st.sampled_from(["a", "b", 1]), inner, max_size=3)), max_leaves=8)


@settings(max_examples=300, deadline=None)
@given(_SIMILAR_VALUES, _SIMILAR_VALUES, st.sampled_from([0.0, 0.5]))
@example("a", " A", 0.0)
@example({"a": "it's", 1: [2, True]}, {"a": 'it"s', 1: [3, 1]}, 0.5)
@example(1, True, 0.0)
@example(2, 2.0, 0.0)
def test_milestone_value_similarity_reads_common_types_as_the_plain_reading_does(
        expected: Any, actual: Any, tolerance: float) -> None:
    from evaluators.milestones import value_similarity

    assert value_similarity(expected, actual, tolerance) == plain_similarity(expected, actual, tolerance)
    assert value_similarity(expected, expected, tolerance) == plain_similarity(expected, expected, tolerance)


def test_milestones_follow_the_dag_and_report_each_match() -> None:
    from evaluators.milestones import Milestone, evaluate_process

    milestones = [
        Milestone("login", "login_bank", {"customer_id": "C001"}),
        Milestone("pay", "transfer", {"to_account_id": "A003", "amount": 100}, after=("login",)),
        Milestone("check", "get_balance", {"account_id": "A001"}, after=("pay",)),
    ]
    good = banking_log("[login_bank(customer_id='C001', password='eve2024')]",
                       "[transfer(customer_id='C001', from_account_id='A001', to_account_id='A003', amount=100)]",
                       "[get_balance(customer_id='C001', account_id='A001')]")
    report = evaluate_process(milestones, good)
    assert report.score == 1.0 and [m.call_seq for m in report.milestones] == [0, 1, 2]
    # the balance check before the payment does not count: it must come after "pay"
    early = banking_log("[login_bank(customer_id='C001', password='eve2024')]",
                        "[get_balance(customer_id='C001', account_id='A001')]",
                        "[transfer(customer_id='C001', from_account_id='A001', to_account_id='A003', amount=100)]")
    assert evaluate_process(milestones, early).score == round(2 / 3, 4)


def test_milestone_similarity_modes() -> None:
    from evaluators.milestones import Milestone, evaluate_process

    log = banking_log("[login_bank(customer_id='C001', password='eve2024')]",
                      "[transfer(customer_id='C001', from_account_id='A001', to_account_id='A003', amount=101, "
                      "memo='Rent')]")
    subset = Milestone("pay", "transfer", {"amount": 100, "memo": "rent"})
    assert evaluate_process([subset], log).milestones[0].similarity == 0.5  # memo matches, amount does not
    tolerant = Milestone("pay", "transfer", {"amount": 100, "memo": "rent"}, tolerance=0.05)
    assert evaluate_process([tolerant], log).score == 1.0
    exact = Milestone("pay", "transfer", {"amount": 101, "memo": "Rent"}, match="exact")
    assert evaluate_process([exact], log).score == round(2 / 5, 4)  # three arguments it did not expect


def test_minefields_zero_the_score() -> None:
    from evaluators.milestones import Milestone, Minefield, evaluate_process

    log = banking_log("[login_bank(customer_id='C001', password='eve2024')]",
                      "[withdraw(customer_id='C001', account_id='A002', amount=10)]")
    milestones = [Milestone("login", "login_bank", {"customer_id": "C001"})]
    assert evaluate_process(milestones, log).score == 1.0
    report = evaluate_process(milestones, log, minefields=[Minefield("no-savings", "withdraw",
                                                                      {"account_id": "A002"})])
    assert report.score == 0.0 and report.minefields_hit == ("no-savings",)
    state_mine = Minefield("frozen", path="Bank.accounts.A002.status", value="frozen")
    assert evaluate_process(milestones, log, minefields=[state_mine],
                            end_state={"Bank": {"accounts": {"A002": {"status": "open"}}}}).score == 1.0


def test_milestone_definitions_are_checked() -> None:
    import graphlib

    from evaluators.milestones import Milestone, evaluate_process

    with pytest.raises(ValueError, match="unknown"):
        evaluate_process([Milestone("a", "x", after=("zzz",))], [])
    with pytest.raises(graphlib.CycleError):
        evaluate_process([Milestone("a", "x", after=("b",)), Milestone("b", "x", after=("a",))], [])


def record(seq: int, tool: str, arguments: dict[str, Any]) -> CallRecord:
    return CallRecord(seq, tool, None, arguments, arguments, None, None, False, datetime.datetime(2024, 7, 14))


def test_milestones_partly_matched_by_every_call_are_matched_at_once() -> None:
    """Six independent milestones, twenty calls each a third right for every one of them (audit r06):
    the search tried every way to give calls to milestones, 42 s for these twenty."""
    from evaluators.milestones import Milestone, evaluate_process

    people = ["Frank", "Helen", "Isaac", "Jack", "Grace", "Eve"]
    milestones = [Milestone(f"m{i}", "send_message", {"sender_name": "Grace", "receiver_name": person,
                                                      "message": f"note {i}"}) for i, person in enumerate(people)]
    log = [record(k, "send_message", {"sender_name": "Grace", "receiver_name": "Bob", "message": f"wrong {k}"})
           for k in range(20)]
    report = evaluate_process(milestones, log)
    assert report.score == 0.3333
    # Equal similarities: each milestone, in order, takes the latest call still free.
    assert [(m.similarity, m.call_seq) for m in report.milestones] == [(0.333333, 19 - i) for i in range(6)]


@st.composite
def milestone_problems(draw: st.DrawFn) -> tuple[list[Any], list[CallRecord]]:
    """A few milestones (independent, or with drawn `after` edges) and a short log. Similarities are
    quarters (four arguments, each right or wrong), so every sum is exact."""
    from evaluators.milestones import Milestone

    keys = ("a", "b", "c", "d")
    ordered = draw(st.booleans())
    milestones = []
    for k in range(draw(st.integers(0, 5))):
        after = tuple(f"m{j}" for j in range(k) if ordered and draw(st.booleans()))
        arguments = {key: draw(st.integers(0, 1)) for key in keys}
        milestones.append(Milestone(f"m{k}", draw(st.sampled_from(["f", "f", "g"])), arguments, after=after))
    log = [record(seq, draw(st.sampled_from(["f", "f", "g"])), {key: draw(st.integers(0, 1)) for key in keys})
           for seq in range(draw(st.integers(0, 5)))]
    return draw(st.permutations(milestones)), log


def every_assignment_oracle(milestones: list[Any], log: list[CallRecord]) -> dict[str, int | None]:
    """The matching `evaluate_process` must find, by trying every assignment: the greatest total similarity
    (each call used once, a milestone matched only after all it comes `after`); among equal totals, the
    first with milestones in topological order, each preferring its calls by similarity, then the later."""
    from evaluators.milestones import call_similarity

    order = list(graphlib.TopologicalSorter({m.id: set(m.after) for m in milestones}).static_order())
    by_id = {m.id: m for m in milestones}
    similarity = {name: [call_similarity(by_id[name], r) for r in log] for name in order}
    preferences = {name: [i for _, i in sorted(((s, i) for i, s in enumerate(similarity[name]) if s > 0),
                                               reverse=True)] + [None] for name in order}
    best: tuple[Fraction, tuple[int, ...]] | None = None
    chosen: dict[str, int | None] = {}
    for choice in itertools.product(*(preferences[name] for name in order)):
        pick = dict(zip(order, choice, strict=True))
        used = [i for i in choice if i is not None]
        if len(used) != len(set(used)) or not all(
                all(pick[before] is not None and pick[before] < i for before in by_id[name].after)
                for name, i in pick.items() if i is not None):
            continue
        key = (sum((Fraction(similarity[n][i]) for n, i in pick.items() if i is not None), Fraction(0)),
               tuple(-preferences[name].index(pick[name]) for name in order))
        if best is None or key > best:
            best, chosen = key, pick
    return chosen


@settings(max_examples=200, deadline=None)
@given(milestone_problems())
def test_milestone_matching_is_the_best_assignment_found_by_trying_every_one(
        problem: tuple[list[Any], list[CallRecord]]) -> None:
    from evaluators.milestones import evaluate_process

    milestones, log = problem
    expected = every_assignment_oracle(milestones, log)
    report = evaluate_process(milestones, log)
    assert {m.id: m.call_seq for m in report.milestones} == expected


def test_strict_special_reads_parameter_and_api_names_whole() -> None:
    answer = {"Shop_search": ["sort"]}
    paper = '["Missing necessary parameters (sort by) for the api (Shop_search)"]'
    right = '["Missing necessary parameters (sort) for the api (Shop_search)"]'
    longer_api = '["Missing necessary parameters (sort) for the api (Shop_searchAll)"]'
    assert check_item("special_incomplete", [], paper, answer, "compat").valid  # the reference: substrings
    assert not check_item("special_incomplete", [], paper, answer, "strict").valid
    assert check_item("special_incomplete", [], right, answer, "strict").valid
    assert check_item("special_incomplete", [], right.lower(), answer, "strict").valid
    assert check_item("special_incomplete", [], longer_api, answer, "compat").valid
    verdict = check_item("special_incomplete", [], longer_api, answer, "strict")
    assert (verdict.valid, verdict.error_type) == (False, "error_correction")


def test_render_answer_keeps_a_suffix_that_is_part_of_a_real_tool_name() -> None:
    answer = {"perception_check_1": {"x": 1}, "lookup_1": {"q": "a"}, "lookup_2": {"q": "b"}}
    functions = [{"name": "perception_check_1"}, {"name": "perception_check_2"}, {"name": "lookup"}]
    assert render_answer(answer, functions) == "[perception_check_1(x=1), lookup(q='a'), lookup(q='b')]"
    assert render_answer(answer) == "[perception_check(x=1), lookup(q='a'), lookup(q='b')]"  # no names known


def test_strict_summary_weighs_what_was_scored_and_names_what_was_not() -> None:
    from evaluators.acebench import AGENT_CATEGORIES, missing_categories

    counts = {**dict.fromkeys(NORMAL_CATEGORIES, 50), "normal_single_turn_single_function": 100,
              "normal_single_turn_parallel_function": 100, **dict.fromkeys(SPECIAL_CATEGORIES, 50),
              "agent_multi_turn": 30, "agent_multi_step": 20}
    every = dict.fromkeys(counts, 0.9) | dict.fromkeys(SPECIAL_CATEGORIES, 0.6)
    # With every category scored at the benchmark's own sizes, strict weights are the reference's constants.
    assert abs(summarize(every, "strict", counts)["overall"] - summarize(every)["overall"]) <= 0.001
    partial = {name: every[name] for name in NORMAL_CATEGORIES + SPECIAL_CATEGORIES}
    strict = summarize(partial, "strict", counts)
    assert "agent" not in strict
    assert strict["overall"] == round((0.9 * 700 ** 0.5 + 0.6 * 150 ** 0.5) / (700 ** 0.5 + 150 ** 0.5), 3)
    assert summarize(partial)["agent"] == 0.0  # compat counts the unscored group as 0
    assert missing_categories(partial) == list(AGENT_CATEGORIES)


def test_canonical_process_reads_agent_messages_as_runs_read_replies() -> None:
    """Strict (canonical) process accuracy scores the calls a run executed: a thinking block or Hermes tags
    around the calls do not cost the step; compat keeps comparing the text as written."""
    from evaluators.process import acebench_process

    paths = [["[login_device()]", "[send_message(sender_name='Eve', receiver_name='Frank', message='hi')]"]]
    written = ["<think>first the device</think>[login_device()]",
               '<tool_call>{"name": "send_message", "arguments": {"message": "hi", "receiver_name": "Frank", '
               '"sender_name": "Eve"}}</tool_call>']
    assert acebench_process(paths, written, canonical=True) == 1.0
    assert acebench_process(paths, written) == 0.0
    assert acebench_process(paths, ["<think>", "[login_device()]"], canonical=True) == 0.5


def test_min_cost_matching_finds_the_least_total_cost_of_every_small_matrix() -> None:
    """Against brute force over every assignment: square and wide matrices, sparse rows, ties (seeded)."""
    from evaluators.matching import min_cost_matching

    rnd = random.Random(43)
    for _ in range(3000):
        rows, columns = rnd.randint(1, 4), rnd.randint(1, 5)
        if rows > columns:
            rows, columns = columns, rows
        costs = [{c: rnd.randint(0, 6) for c in range(columns) if c == r or rnd.random() < 0.7}
                 for r in range(rows)]
        owners = min_cost_matching(costs, columns)
        taken = {row: column for column, row in enumerate(owners) if row is not None}
        assert sorted(taken) == list(range(rows)) and all(taken[r] in costs[r] for r in taken)
        best = min(sum(costs[r][c] for r, c in enumerate(pick)) for pick in itertools.permutations(range(columns), rows)
                   if all(c in costs[r] for r, c in enumerate(pick)))
        assert sum(costs[r][taken[r]] for r in taken) == best, costs
