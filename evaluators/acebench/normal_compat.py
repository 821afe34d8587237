"""The normal checker as the reference runs it, quirks included (compat mode).

Whitespace is stripped even inside strings, top-level numbers and booleans are never
compared, `number` is read as int, nested values are compared as `str()` substrings, and
parallel calls are matched without one-to-one assignment. docs/evaluators.md lists each.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

from scenarios.acebench.answers import SUFFIX

from .verdicts import PASS, Verdict

_TYPES = MappingProxyType({
    "string": str, "integer": int, "int": int, "number": int, "float": float, "boolean": bool, "array": list,
    "list": list, "tuple": list, "list(string)": list, "list(enum)": list, "objectArray": list, "object": dict,
    "dict": dict, "any": str,
})
_NESTED = ("array", "tuple", "list(string)", "list(enum)", "object", "objectArray")
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
    expected_names = [SUFFIX.sub("", key) for key in answer]
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
    """One call against one expected call: the gates on empty and required arguments, then each parameter."""
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
        verdict = _compat_parameter(name, value, properties[name], expected[name])
        if not verdict.valid:
            return verdict
    return PASS


def _compat_parameter(name: str, value: Any, declaration: Mapping[str, Any], want: Any) -> Verdict:
    """One parameter: its declared type first, then its value, as far as the reference compares values."""
    declared = declaration.get("type", "string")
    python_type = _TYPES.get(declared)
    if python_type is None:
        return Verdict(False, "type_error", f"unknown schema type {declared}")
    inner = _inner_type(declared, declaration) if declared in _NESTED else None
    if declared == "float" and type(value) is int:
        value = float(value)
    if isinstance(value, tuple):
        value = list(value)
    ok, is_variable = _type_check(value, want, python_type, inner)
    if not ok:
        return Verdict(False, "type_error", f"wrong type for {name}")
    if is_variable:
        return PASS
    if python_type is dict:
        return _dict_check(value, want)
    if python_type is list and inner is dict:
        return _list_dict_check(value, want)
    if python_type is str:
        return PASS if standardize(want) in standardize(value) else Verdict(
            False, "value_error:string", f"wrong value for {name}")
    if python_type is list:
        return PASS if _std_list(value) == _std_list(want) else Verdict(
            False, "value_error:list/tuple", f"wrong value for {name}")
    return PASS  # int, float and bool values are never compared by the reference


def _inner_type(declared: str, declaration: Mapping[str, Any]) -> type:
    """The element type of a nested parameter: its `items` type, else what its type name suggests."""
    items = declaration.get("items")
    if isinstance(items, dict) and "type" in items:
        return _TYPES.get(items["type"], dict)
    return str if ("string" in declared or "enum" in declared) else dict


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

