"""The normal checker with the reference's bugs fixed (strict mode).

A value passes only by equalling the gold after the normalisation `normalise.py` states:
text by `fold_text` equality (never a substring), numbers and dates by value, booleans as
booleans; a value of another type (a number written as text, a boolean for a number) fails,
and so does every gold string that is empty. Objects must give every key of the answer and
no other; lists match element by element; parallel calls are matched one-to-one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from ..matching import min_cost_matching
from .normal_compat import SUFFIX
from .normalise import is_number, same_number, same_text
from .verdicts import PASS, CheckFailure, Verdict


def strict_normal(functions: Sequence[Mapping[str, Any]], calls: list[tuple[str, dict[str, Any]]],
                  answer: Mapping[str, Any]) -> Verdict:
    tool_names = {f.get("name") for f in functions}
    expected = [(key if key in tool_names else SUFFIX.sub("", key), args) for key, args in answer.items()]
    if len(calls) != len(expected):
        return Verdict(False, "wrong functions number", f"expected {len(expected)} calls, got {len(calls)}")
    if Counter(n for n, _ in calls) != Counter(n for n, _ in expected):
        missing = Counter(n for n, _ in expected) - Counter(n for n, _ in calls)
        extra = Counter(n for n, _ in calls) - Counter(n for n, _ in expected)
        return Verdict(False, "function_mismatch", f"missing {sorted(missing)}, unexpected {sorted(extra)}")
    schemas = {f.get("name"): f for f in functions}
    outcomes = [[_strict_call(schemas.get(name), args, want) if name == want_name else Verdict(False, "name")
                 for name, args in calls] for want_name, want in expected]
    if _perfect_matching([[j for j, verdict in enumerate(row) if verdict.valid] for row in outcomes]):
        return PASS
    for i, row in enumerate(outcomes):
        if not any(v.valid for v in row):
            first = next((v for v in row if v.error_type != "name"), row[0])
            return Verdict(False, first.error_type, f"call {expected[i][0]}: {first.detail}")
    return Verdict(False, "value_error", "no one-to-one assignment of calls to expected calls")


def _perfect_matching(accepted: Sequence[Sequence[int]]) -> bool:
    """Whether each expected call (row) can have its own model call among those it accepts.

    A least-cost matching where an accepted call costs nothing and each row has a column of its own
    standing for "no call" that costs one: every row is matched at cost 0 exactly when a one-to-one
    assignment exists. Polynomial, so parallel calls match in any order, however many.
    """
    calls = 1 + max((call for row in accepted for call in row), default=-1)
    costs = [dict.fromkeys(row, 0) | {calls + index: 1} for index, row in enumerate(accepted)]
    owners = min_cost_matching(costs, calls + len(accepted))
    return all(owner is None for owner in owners[calls:])


def _strict_call(schema: Mapping[str, Any] | None, arguments: dict[str, Any], expected: Mapping[str, Any]) -> Verdict:
    parameters = (schema or {}).get("parameters", {}) or {}
    try:
        _strict_object(arguments, expected, parameters, "")
    except CheckFailure as exc:
        return exc.verdict
    return PASS


def _strict_object(value: Any, expected: Any, schema: Mapping[str, Any], path: str) -> None:
    """Every key of the answer must be given, and no other key, at every depth.

    An answer lists the parameters the request determines; leaving one out (even one the schema
    calls optional) is a different call, and a key the answer does not list is one the request did
    not ask for. The schema's `required` is checked at the top level, for the error's sake.
    """
    if not isinstance(value, dict):
        raise CheckFailure("type_error", f"{path or 'arguments'} should be an object")
    properties = schema.get("properties") or {}
    required = set(schema.get("required") or []) if not path else set()
    missing = sorted(required - set(value), key=str)
    if missing:
        raise CheckFailure("lack_args", f"missing required {path}{missing[0]}")
    for key in value:
        if key not in expected:
            raise CheckFailure("addition_args", f"unexpected {path}{key}")
    for key, want in expected.items():
        if key not in value:
            raise CheckFailure("lack_args", f"missing {path}{key}")
        _strict_value(value[key], want, properties.get(key) or {}, f"{path}{key}")


def _strict_value(value: Any, expected: Any, schema: Mapping[str, Any], path: str) -> None:
    if isinstance(expected, dict):
        _strict_object(value, expected, schema, path + ".")
    elif isinstance(expected, (list, tuple)):
        if not isinstance(value, (list, tuple)) or len(value) != len(expected):
            raise CheckFailure("value_error:list/tuple", f"{path}: expected {len(expected)} elements")
        items = schema.get("items") or {}
        for index, (have, want) in enumerate(zip(value, expected, strict=True)):
            _strict_value(have, want, items, f"{path}[{index}]")
    elif isinstance(expected, bool):
        if not isinstance(value, bool) or value is not expected:
            raise CheckFailure("value_error", f"{path}: expected {expected}, got {value!r}")
    elif is_number(expected):
        if not is_number(value) or not same_number(expected, value):
            raise CheckFailure("value_error", f"{path}: expected {expected!r}, got {value!r}")
    elif isinstance(expected, str):
        if not expected.strip():
            raise CheckFailure("empty_gold", f"{path}: the answer's value is empty, so nothing can match it")
        if not isinstance(value, str) or not same_text(expected, value):
            raise CheckFailure("value_error:string", f"{path}: expected {expected!r}, got {value!r}")
    elif expected is None:
        if value is not None:
            raise CheckFailure("value_error", f"{path}: expected null")
    else:
        raise CheckFailure("value_error", f"{path}: the answer holds a {type(expected).__name__}, not a JSON value")
