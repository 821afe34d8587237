"""ACEBench's normal and special checkers, multi-turn scoring, summaries and overall score.

Two modes:
- `compat` reproduces the reference's verdicts item by item, quirks included (whitespace
  stripped even inside strings, top-level numbers and booleans never compared, `number`
  read as int, nested values compared as `str()` substrings, non-one-to-one matching...).
  Model output is still never evaluated: the reference's parse, which `eval`s arithmetic,
  is emulated on numeric literals only.
- `strict` applies the same rules with those bugs fixed: values compared by value and
  structure at every level, empty containers allowed, one-to-one matching of parallel
  calls, JSON tool calls accepted, phrases matched case-insensitively.

docs/evaluators.md lists every difference between the two.
"""

from __future__ import annotations

import ast
import itertools
import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

from sandbox import Call, ParseError, parse_message
from sandbox.comparison import compare_states
from sandbox.parsing import render_calls
from scenarios.acebench.family import FAMILY

from .process import acebench_process
from .results import ResultsRequest, ScoreTable

Mode = Literal["compat", "strict"]

NORMAL_CATEGORIES = (
    "normal_atom_bool", "normal_atom_enum", "normal_atom_number", "normal_atom_list", "normal_atom_object_deep",
    "normal_atom_object_short", "normal_single_turn_single_function", "normal_single_turn_parallel_function",
    "normal_multi_turn_user_switch", "normal_multi_turn_user_adjust", "normal_similar_api", "normal_preference",
)
SPECIAL_CATEGORIES = ("special_incomplete", "special_error_param", "special_irrelevant")
AGENT_CATEGORIES = ("agent_multi_turn", "agent_multi_step")
WEIGHTS = (("normal", 0.578), ("special", 0.2676), ("agent", 0.1545))

INCOMPLETE_PHRASE = "Missing necessary parameters"
ERROR_PHRASE = "There is incorrect value"
IRRELEVANT_PHRASE = "the limitations of the function"


@dataclass(frozen=True)
class Verdict:
    valid: bool
    error_type: str = ""
    detail: str = ""

    def to_dict(self, item_id: str) -> dict[str, Any]:
        return {"id": item_id, "valid": self.valid, "error_type": self.error_type, "detail": self.detail}


PASS = Verdict(True)


class _Fail(Exception):
    def __init__(self, error_type: str, detail: str = "") -> None:
        super().__init__(detail)
        self.verdict = Verdict(False, error_type, detail)


# ---------------------------------------------------------------------------------------------
# Parsing model output
# ---------------------------------------------------------------------------------------------

_MAX_DEPTH = 32
_UNDECODABLE = "Invalid syntax. Failed to decode AST."  # the reference's words for any undecodable output


def decode_compat(output: str) -> list[tuple[str, dict[str, Any]]]:
    """The reference's decode: whitespace removed, a list/tuple/set of keyword calls.

    Conversions follow the reference (bare names become strings, any unary operator
    negates, nested calls become {name: kwargs}, subscripts their source text); its
    `eval` of binary operators is emulated on numeric literals only.
    """
    text = "".join(str(output).split())
    if len(text) > 100_000:
        raise _Fail("wrong_output_format", "output too long")
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise _Fail("wrong_output_format", _UNDECODABLE) from None
    node = tree.body
    if not isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        raise _Fail("wrong_output_format", _UNDECODABLE)
    calls = []
    for element in node.elts:
        if not isinstance(element, ast.Call):
            raise _Fail("wrong_output_format", _UNDECODABLE)
        name = _dotted(element.func)
        arguments = {kw.arg: _compat_value(kw.value, text, 0) for kw in element.keywords if kw.arg is not None}
        calls.append((name, arguments))
    return calls


def _dotted(node: ast.expr) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        raise _Fail("wrong_output_format", _UNDECODABLE)
    parts.append(node.id)
    return ".".join(reversed(parts))


def _compat_value(node: ast.expr, text: str, depth: int) -> Any:
    if depth > _MAX_DEPTH:
        raise _Fail("wrong_output_format", "nested too deeply")
    if isinstance(node, ast.Constant):
        return "..." if node.value is Ellipsis else node.value
    if isinstance(node, ast.UnaryOp):
        if isinstance(node.operand, ast.Constant) and isinstance(node.operand.value, (int, float)):
            return -node.operand.value
        raise _Fail("wrong_output_format", _UNDECODABLE)
    if isinstance(node, ast.List):
        return [_compat_value(e, text, depth + 1) for e in node.elts]
    if isinstance(node, ast.Tuple):
        return tuple(_compat_value(e, text, depth + 1) for e in node.elts)
    if isinstance(node, ast.Dict):
        return {_compat_value(k, text, depth + 1) if k is not None else None: _compat_value(v, text, depth + 1)
                for k, v in zip(node.keys, node.values, strict=True)}
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Call):
        kwargs = {kw.arg: _compat_value(kw.value, text, depth + 1) for kw in node.keywords if kw.arg}
        return {_dotted(node.func): kwargs}
    if isinstance(node, ast.BinOp):
        return _arithmetic(node, depth)
    if isinstance(node, ast.Subscript):
        return ast.get_source_segment(text, node) or ""
    raise _Fail("wrong_output_format", _UNDECODABLE)


_OPERATORS = MappingProxyType({
    ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b, ast.FloorDiv: lambda a, b: a // b, ast.Mod: lambda a, b: a % b,
})


def _arithmetic(node: ast.expr, depth: int) -> int | float:
    """What the reference's `eval` of a binary operator gives, for numeric literals only."""
    if depth > _MAX_DEPTH:
        raise _Fail("wrong_output_format", "nested too deeply")
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _arithmetic(node.operand, depth + 1)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        left, right = _arithmetic(node.left, depth + 1), _arithmetic(node.right, depth + 1)
        try:
            result = _OPERATORS[type(node.op)](left, right)
        except (ZeroDivisionError, OverflowError):
            raise _Fail("wrong_output_format", _UNDECODABLE) from None
        if isinstance(result, int) and abs(result) > 10**18:
            raise _Fail("wrong_output_format", "number too large")
        return result
    raise _Fail("wrong_output_format", _UNDECODABLE)


def decode_strict(output: str) -> list[tuple[str, dict[str, Any]]]:
    try:
        return [(call.name, call.arguments) for call in parse_message(str(output)).calls]
    except ParseError as exc:
        raise _Fail("wrong_output_format", exc.message) from None


# ---------------------------------------------------------------------------------------------
# Normal checker, compat mode
# ---------------------------------------------------------------------------------------------

_TYPES = MappingProxyType({
    "string": str, "integer": int, "int": int, "number": int, "float": float, "boolean": bool, "array": list,
    "list": list, "tuple": list, "list(string)": list, "list(enum)": list, "objectArray": list, "object": dict,
    "dict": dict, "any": str,
})
_NESTED = ("array", "tuple", "list(string)", "list(enum)", "object", "objectArray")
_SUFFIX = re.compile(r"_\d+$")
_STRIP = str.maketrans("", "", " ,./-_*^")


def standardize(text: str) -> str:
    return text.translate(_STRIP).lower().replace("'", '"')


def _find_description(functions: Sequence[Mapping[str, Any]], key: str) -> Mapping[str, Any] | None:
    for function in functions:
        if function.get("name", "") in key:
            return function
    return None


def compat_normal(functions: Sequence[Mapping[str, Any]], calls: list[tuple[str, dict[str, Any]]],
                  answer: Mapping[str, Any]) -> Verdict:
    if len(calls) != len(answer):
        return Verdict(False, "wrong functions number", f"expected {len(answer)} calls, got {len(calls)}")
    expected_names = [_SUFFIX.sub("", key) for key in answer]
    model_names = [name for name, _ in calls]
    for name in model_names:
        if name not in expected_names:
            return Verdict(False, "function_mismatch", f"extra function detected: {name} is not in the ground truth")
    for name in expected_names:
        if name not in model_names:
            return Verdict(False, "function_mismatch", f"extra function detected: {name} is not in the ground truth")
    if Counter(model_names) != Counter(expected_names):
        return Verdict(False, "function_mismatch", "incorrect count")
    for key, name in zip(answer, expected_names, strict=True):
        schema = _find_description(functions, key)
        if schema is None:
            return Verdict(False, "wrong_function_name", f"no tool description matches {key}")
        last = Verdict(False, "simple_function_checker:unclear", "wrong_function")
        for model_name, arguments in calls:
            if model_name != name:
                last = Verdict(False, "simple_function_checker:unclear", "wrong_function")
                continue
            last = _compat_call(schema, arguments, answer[key])
            if last.valid:
                break
        if not last.valid:
            return last
    return PASS


def _compat_call(schema: Mapping[str, Any], arguments: dict[str, Any], expected: Any) -> Verdict:
    parameters = schema.get("parameters", {}) or {}
    properties = parameters.get("properties", {}) or {}
    if arguments == {} and parameters == {}:
        return PASS
    if (arguments == {}) != (parameters == {}):
        return Verdict(False, "wrong_param")
    if expected == properties:
        return PASS
    if expected == {} or not isinstance(expected, dict):
        return Verdict(False, "wrong_param")
    for required in parameters.get("required", []):
        if required not in arguments:
            return Verdict(False, "lack_args", f"missing required parameter {required}")
    for name, value in arguments.items():
        if name not in properties or name not in expected:
            return Verdict(False, "addition_args", f"unexpected parameter {name}")
        declared = properties[name].get("type", "string")
        python_type = _TYPES.get(declared)
        if python_type is None:
            return Verdict(False, "type_error", f"unknown schema type {declared}")
        inner = None
        if declared in _NESTED:
            items = properties[name].get("items")
            if isinstance(items, dict) and "type" in items:
                inner = _TYPES.get(items["type"], dict)
            else:
                inner = str if ("string" in declared or "enum" in declared) else dict
        if declared == "tuple" and isinstance(value, tuple):
            value = list(value)
        if declared == "float" and type(value) is int:
            value = float(value)
        if isinstance(value, tuple):
            value = list(value)
        want = expected[name]
        ok, is_variable = _type_check(value, want, python_type, inner)
        if not ok:
            return Verdict(False, "type_error", f"wrong type for {name}")
        if is_variable:
            continue
        if python_type is dict:
            verdict = _dict_check(value, want)
        elif python_type is list and inner is dict:
            verdict = _list_dict_check(value, want)
        elif python_type is str:
            verdict = PASS if standardize(want) in standardize(value) else Verdict(
                False, "value_error:string", f"wrong value for {name}")
        elif python_type is list:
            verdict = PASS if _std_list(value) == _std_list(want) else Verdict(
                False, "value_error:list/tuple", f"wrong value for {name}")
        else:
            verdict = PASS  # int, float and bool values are never compared by the reference
        if not verdict.valid:
            return verdict
    return PASS


def _type_check(value: Any, expected: Any, python_type: type, inner: type | None) -> tuple[bool, bool]:
    is_variable = expected != "" and type(expected) is not python_type
    if value in ("true", "false") and isinstance(value, str):
        value = value == "true"
    if type(value) is python_type:
        if inner is None:
            return True, is_variable
        for element in expected if isinstance(expected, (list, dict, tuple)) else []:
            if not isinstance(element, list):
                return True, is_variable
        return (bool(expected) if isinstance(expected, (list, dict)) else True), is_variable
    if type(value) is type(expected) or value == expected:
        return True, True
    return False, is_variable


def _std_list(values: Any) -> Any:
    return [standardize(v) if isinstance(v, str) else v for v in values] if isinstance(values, list) else values


def _nested_std(value: Any) -> Any:
    if value in ("true", "false") and isinstance(value, str):
        return value == "true"
    return standardize(value) if isinstance(value, str) else value


def _dict_check(value: Any, expected: Any) -> Verdict:
    if not isinstance(value, dict) or not isinstance(expected, dict) or len(value) != len(expected):
        return Verdict(False, "value_error", "dict keys differ")
    for key in value:
        if key not in expected:
            return Verdict(False, "value_error", f"unexpected key {key}")
    for key, want in expected.items():
        if key not in value:
            return Verdict(False, "value_error", f"missing key {key}")
        have = value[key]
        if isinstance(want, dict):
            verdict = _dict_check(have, want)
            if not verdict.valid:
                return verdict
            continue
        if str(_nested_std(want)) not in str(_nested_std(have)):
            return Verdict(False, "value_error", f"wrong value for {key}")
    return PASS


def _list_dict_check(value: Any, expected: Any) -> Verdict:
    if not isinstance(value, list) or not isinstance(expected, list) or len(value) != len(expected):
        return Verdict(False, "value_error:list_dict_count", "list lengths differ")
    for have, want in zip(value, expected, strict=True):
        verdict = _dict_check(have, want)
        if not verdict.valid:
            return verdict
    return PASS


# ---------------------------------------------------------------------------------------------
# Normal checker, strict mode
# ---------------------------------------------------------------------------------------------


def strict_normal(functions: Sequence[Mapping[str, Any]], calls: list[tuple[str, dict[str, Any]]],
                  answer: Mapping[str, Any]) -> Verdict:
    tool_names = {f.get("name") for f in functions}
    expected = [(key if key in tool_names else _SUFFIX.sub("", key), args) for key, args in answer.items()]
    if len(calls) != len(expected):
        return Verdict(False, "wrong functions number", f"expected {len(expected)} calls, got {len(calls)}")
    if Counter(n for n, _ in calls) != Counter(n for n, _ in expected):
        missing = Counter(n for n, _ in expected) - Counter(n for n, _ in calls)
        extra = Counter(n for n, _ in calls) - Counter(n for n, _ in expected)
        return Verdict(False, "function_mismatch", f"missing {sorted(missing)}, unexpected {sorted(extra)}")
    schemas = {f.get("name"): f for f in functions}
    outcomes = [[_strict_call(schemas.get(name), args, want) if name == want_name else Verdict(False, "name")
                 for name, args in calls] for want_name, want in expected]
    for assignment in itertools.permutations(range(len(calls))):
        if all(outcomes[i][j].valid for i, j in enumerate(assignment)):
            return PASS
        if len(calls) > 7:
            break  # a greedy fallback keeps huge outputs cheap
    for i, row in enumerate(outcomes):
        if not any(v.valid for v in row):
            first = next((v for v in row if v.error_type != "name"), row[0])
            return Verdict(False, first.error_type, f"call {expected[i][0]}: {first.detail}")
    return Verdict(False, "value_error", "no one-to-one assignment of calls to expected calls")


def _strict_call(schema: Mapping[str, Any] | None, arguments: dict[str, Any], expected: Mapping[str, Any]) -> Verdict:
    parameters = (schema or {}).get("parameters", {}) or {}
    try:
        _strict_object(arguments, expected, parameters, "")
    except _Fail as exc:
        return exc.verdict
    return PASS


def _strict_object(value: Any, expected: Any, schema: Mapping[str, Any], path: str) -> None:
    """Keys in the answer must be given unless optional; keys not in the answer must not be.

    The schema's `required` is enforced at the top level only, as the benchmark does:
    its answers sometimes leave out nested keys that their schemas mark required.
    """
    if not isinstance(value, dict):
        raise _Fail("type_error", f"{path or 'arguments'} should be an object")
    properties = schema.get("properties") or {}
    required = set(schema.get("required") or []) if not path else set()
    for key in required:
        if key not in value:
            raise _Fail("lack_args", f"missing required {path + key}")
    for key in value:
        if key not in expected:
            raise _Fail("addition_args", f"unexpected {path + key}")
    for key, want in expected.items():
        if key not in value:
            if key in required:
                raise _Fail("lack_args", f"missing required {path + key}")
            continue  # a parameter the schema does not require, left out, at any depth
        _strict_value(value[key], want, properties.get(key) or {}, path + key)


def _strict_value(value: Any, expected: Any, schema: Mapping[str, Any], path: str) -> None:
    if isinstance(expected, dict):
        _strict_object(value, expected, schema, path + ".")
    elif isinstance(expected, (list, tuple)):
        if not isinstance(value, (list, tuple)) or len(value) != len(expected):
            raise _Fail("value_error:list/tuple", f"{path}: expected {len(expected)} elements")
        items = schema.get("items") or {}
        for index, (have, want) in enumerate(zip(value, expected, strict=True)):
            _strict_value(have, want, items, f"{path}[{index}]")
    elif isinstance(expected, bool):
        have = value if isinstance(value, bool) else {"true": True, "false": False}.get(str(value).lower())
        if have is not expected:
            raise _Fail("value_error", f"{path}: expected {expected}")
    elif isinstance(expected, (int, float)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value != expected:
            raise _Fail("value_error", f"{path}: expected {expected!r}, got {value!r}")
    elif isinstance(expected, str):
        if not isinstance(value, str) or standardize(expected) not in standardize(value):
            raise _Fail("value_error:string", f"{path}: expected {expected!r}, got {value!r}")
    elif expected is None and value is not None:
        raise _Fail("value_error", f"{path}: expected null")


# ---------------------------------------------------------------------------------------------
# Special categories
# ---------------------------------------------------------------------------------------------


def special(category: str, output: str, answer: Any, mode: Mode) -> Verdict:
    text = str(output)
    haystack = text.lower() if mode == "strict" else text

    def has(needle: str) -> bool:
        return (needle.lower() if mode == "strict" else needle) in haystack

    if "incomplete" in category:
        for api, names in (answer or {}).items():
            if not has(INCOMPLETE_PHRASE):
                return Verdict(False, "error_detection", f"no '{INCOMPLETE_PHRASE}'")
            if not has(api):
                return Verdict(False, "error_correction", f"the API {api} is not named")
            for name in names:
                if not has(name.strip() if mode == "strict" else name):
                    return Verdict(False, "error_correction", f"the parameter {name} is not named")
        return PASS
    if "error" in category:
        for parameter, values in (answer or {}).items():
            if not has(ERROR_PHRASE):
                return Verdict(False, "error_detection", f"no '{ERROR_PHRASE}'")
            if mode == "strict" and not has(parameter):
                return Verdict(False, "error_correction", f"the parameter {parameter} is not named")
            for value in values:
                if str(value) not in text:
                    return Verdict(False, "error_correction", f"the value {value} is not named")
        return PASS
    if not has(IRRELEVANT_PHRASE):
        return Verdict(False, "error_detection", f"no '{IRRELEVANT_PHRASE}'")
    return PASS


# ---------------------------------------------------------------------------------------------
# Items, categories and the summary
# ---------------------------------------------------------------------------------------------


def check_item(category: str, functions: Sequence[Mapping[str, Any]], output: Any, answer: Any,
               mode: Mode = "compat") -> Verdict:
    """One item's verdict; never raises, whatever the model wrote."""
    try:
        if category.startswith("special"):
            return special(category, output if isinstance(output, str) else json.dumps(output), answer, mode)
        calls = (decode_compat if mode == "compat" else decode_strict)(output if isinstance(output, str)
                                                                         else json.dumps(output))
        alternatives = answer if isinstance(answer, list) else [answer]
        check = compat_normal if mode == "compat" else strict_normal
        first: Verdict | None = None
        for alternative in alternatives:
            if not isinstance(alternative, Mapping):
                continue
            verdict = check(functions, calls, alternative)
            if verdict.valid:
                return verdict
            first = first or verdict
        return first or Verdict(False, "wrong_param", "no usable possible answer")
    except _Fail as exc:
        return exc.verdict
    except (RecursionError, MemoryError, TypeError, ValueError, KeyError, AttributeError) as exc:
        return Verdict(False, "checker_error", f"{type(exc).__name__}: {exc}")


@dataclass
class CategoryScore:
    category: str
    accuracy: float
    total: int
    items: list[dict[str, Any]] = field(default_factory=list)
    process: float | None = None


def score_category(category: str, prompts: Sequence[Mapping[str, Any]], answers: Sequence[Mapping[str, Any]],
                   results: Mapping[str, Any], mode: Mode = "compat") -> CategoryScore:
    """Score one category; results maps item id to the model's raw output."""
    answers_by_id = {a.get("id"): a for a in answers}
    items = []
    for prompt in prompts:
        item_id = prompt.get("id", "")
        answer = answers_by_id.get(item_id, {}).get("ground_truth")
        if item_id not in results:
            verdict = Verdict(False, "missing_result", "no result for this item")
        else:
            verdict = check_item(category, prompt.get("function") or [], results[item_id], answer, mode)
        items.append(verdict.to_dict(item_id))
    if "multi_turn" in category and category.startswith("normal"):
        conversations: dict[str, list[bool]] = {}
        for item in items:
            conversations.setdefault(item["id"].rsplit("_", 2)[-2] if item["id"].count("_") >= 2 else item["id"],
                                     []).append(item["valid"])
        ends = [all(turns) for turns in conversations.values()]
        accuracy = round(sum(ends) / len(ends), 3) if ends else 0.0
        process = round(sum(sum(t) / len(t) for t in conversations.values()) / len(conversations), 3) if ends else 0.0
        return CategoryScore(category, accuracy, len(conversations), items, process)
    correct = sum(item["valid"] for item in items)
    accuracy = correct / len(items) if items else 0.0
    if not category.startswith("special"):
        accuracy = round(accuracy, 3)
    return CategoryScore(category, accuracy, len(items), items)


def score_agent(prompts: Sequence[Mapping[str, Any]], answers: Sequence[Mapping[str, Any]],
                results: Mapping[str, Mapping[str, Any]], category: str, mode: Mode = "compat") -> CategoryScore:
    """End-to-end (end state) and process accuracy of agent results `{id, result, process}`.

    compat: the reference's rules (a class count mismatch fails; expected classes whose
    name is misspelled are never compared). strict: misspelled classes are compared with
    the closest real class, and process matching ignores quote style and spacing.
    """
    answers_by_id = {a.get("id"): a for a in answers}
    items, processes = [], []
    for prompt in prompts:
        item_id = prompt.get("id", "")
        answer = answers_by_id.get(item_id, {})
        expected = answer.get("ground_truth") or []
        expected = expected if isinstance(expected, list) else [expected]
        outcome = results.get(item_id)
        if not isinstance(outcome, Mapping):
            items.append(Verdict(False, "missing_result", "no result for this item").to_dict(item_id))
            processes.append(0.0)
            continue
        state = outcome.get("result") or []
        if not isinstance(state, list) or len(state) != len(expected):
            verdict = Verdict(False, "wrong number of class", f"expected {len(expected)} classes")
        else:
            comparison = compare_states(expected, state, mode="acebench",
                                        misspelled="skip" if mode == "compat" else "match")
            verdict = PASS if comparison.equal else Verdict(False, "end_state", str(comparison.diff)[:500])
        milestones = answer.get("mile_stone") or []
        paths = milestones if milestones and isinstance(milestones[0], list) else [milestones]
        process = outcome.get("process") or []
        processes.append(1.0 if verdict.valid else acebench_process(paths, [str(p) for p in process],
                                                                    canonical=mode == "strict"))
        items.append(verdict.to_dict(item_id))
    total = len(items)
    accuracy = round(sum(i["valid"] for i in items) / total, 3) if total else 0.0
    process_accuracy = round(sum(processes) / total, 3) if total else 0.0
    return CategoryScore(category, accuracy, total, items, process_accuracy)


def score_directory(data: Path, results: Path, mode: Mode = "compat") -> dict[str, CategoryScore]:
    """Every category with a result file `data_<category>_result.json` under `results`."""
    scores: dict[str, CategoryScore] = {}
    for category in NORMAL_CATEGORIES + SPECIAL_CATEGORIES + AGENT_CATEGORIES:
        result_file = results / f"data_{category}_result.json"
        prompt_file = data / f"data_{category}.json"
        answer_file = data / "possible_answer" / f"data_{category}.json"
        if not (result_file.is_file() and prompt_file.is_file() and answer_file.is_file()):
            continue
        rows = read_jsonl(result_file)
        prompts, answers = read_jsonl(prompt_file), read_jsonl(answer_file)
        if category.startswith("agent"):
            by_id = {r.get("id"): r for r in rows if isinstance(r, dict)}
            scores[category] = score_agent(prompts, answers, by_id, category, mode)
        else:
            by_id = {r.get("id"): r.get("result") for r in rows if isinstance(r, dict)}
            scores[category] = score_category(category, prompts, answers, by_id, mode)
    return scores


def summarize(scores: Mapping[str, float]) -> dict[str, float]:
    """Group means (missing categories count as 0) and the weighted overall score."""
    def mean(names: Iterable[str]) -> float:
        values = [scores.get(name, 0.0) for name in names]
        return round(sum(values) / len(values), 3)

    summary = {
        "atom": mean(NORMAL_CATEGORIES[:6]),
        "single_turn": mean(NORMAL_CATEGORIES[6:8]),
        "multi_turn": mean(NORMAL_CATEGORIES[8:10]),
        "normal": mean(NORMAL_CATEGORIES),
        "special": mean(SPECIAL_CATEGORIES),
        "agent": mean(AGENT_CATEGORIES),
    }
    summary["overall"] = round(sum(summary[group] * weight for group, weight in WEIGHTS), 3)
    return summary


def render_answer(answer: Any) -> str:
    """A possible answer written as a model would write it (Python literals)."""
    chosen = answer[0] if isinstance(answer, list) else answer
    return render_calls([Call(_SUFFIX.sub("", name), args) for name, args in chosen.items()])


def canonical_special(category: str, answer: Any) -> str:
    """The output the benchmark's prompt asks for, for a special item."""
    if "incomplete" in category:
        api, names = next(iter(answer.items()))
        return f'["Missing necessary parameters ({", ".join(n.strip() for n in names)}) for the api ({api})"]'
    if "error" in category:
        parts = "; ".join(f"There is incorrect value ({v[0]}) for the parameters ({k}) in the conversation history."
                          for k, v in answer.items())
        return f'["{parts}"]'
    return '["Due to the limitations of the function, I cannot solve this problem."]'


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """JSON lines; a malformed line becomes an empty record (its item then scores as missing)."""
    rows: list[dict[str, Any]] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            row = {}
        rows.append(row if isinstance(row, dict) else {})
    return rows


SUMMARY_GROUPS = ("atom", "single_turn", "multi_turn", "normal", "special", "agent", "overall")


def score_results(request: ResultsRequest) -> ScoreTable:
    """`toolworlds score acebench`: every category with a result file, the group means and overall."""
    if request.mode not in ("compat", "strict"):
        raise ValueError("--mode must be compat or strict")
    root = FAMILY.data_source(request.data)
    folder = root / f"data_{request.lang}" if (root / f"data_{request.lang}").is_dir() else root
    if not request.results.is_dir():
        raise ValueError(f"{request.results} is not a folder")
    scores = score_directory(folder, request.results, request.mode)  # type: ignore[arg-type]
    if not scores:
        raise ValueError(f"no result files (data_<category>_result.json) in {request.results} match the data "
                         f"in {folder}")
    summary = summarize({name: s.accuracy for name, s in scores.items()})
    categories = tuple(
        (name, f"{s.accuracy:.3f}" + (f" (process {s.process:.3f})" if s.process is not None else ""), str(s.total))
        for name, s in scores.items()
    )
    groups = tuple((group, f"{summary[group]:.3f}", "") for group in SUMMARY_GROUPS)
    payload = {"mode": request.mode, "summary": summary,
               "categories": {name: {"accuracy": s.accuracy, "total": s.total, "process": s.process,
                                     "items": s.items} for name, s in scores.items()}}
    return ScoreTable(f"ACEBench ({request.lang}, {request.mode})", ("category", "accuracy", "items"),
                      (categories, groups), payload, frozenset({"normal", "special", "agent", "overall"}))
