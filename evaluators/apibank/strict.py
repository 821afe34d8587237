"""API-Bank's strict verdict on a call: equality after the stated normalisation, never the
reference's leniency (docs/evaluators.md, rule K1).

The reference's per-API checks (`scenarios.apibank.checks`, what compat uses) accept a content field
sharing more than half its words with the gold's and leave some fields out of the comparison; a
reward built on them pays for a call that is only half right. Strict compares every input field, as
strict ACEBench compares values (`evaluators.acebench.normalise`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..acebench.normalise import fold_text, gold_moment, is_number, iso_moment, same_number


def strict_input(produced: Mapping[str, Any], expected: Mapping[str, Any]) -> bool:
    """Strict: the call's input is the gold's, field for field, after the stated normalisation
    (docs/evaluators.md: text folded, numbers by value, ISO dates by value, booleans only as
    booleans); no field more or fewer. The reference's checks accept a content field sharing half
    its words with the gold's and ignore some fields altogether; strict accepts neither."""
    given, gold = produced.get("input") or {}, expected.get("input") or {}  # None: an API without parameters
    if not isinstance(given, dict) or not isinstance(gold, dict) or set(given) != set(gold):
        return False
    return all(_same_value(gold[name], given[name]) for name in gold)


def _same_value(gold: Any, given: Any) -> bool:
    if isinstance(gold, bool) or isinstance(given, bool):
        return type(gold) is type(given) and gold == given
    if is_number(gold) or is_number(given):
        return is_number(gold) and is_number(given) and same_number(gold, given)
    if isinstance(gold, str) and isinstance(given, str):
        moment = gold_moment(gold)
        if moment is not None:
            return iso_moment(given) == moment
        return fold_text(gold) == fold_text(given)
    return bool(gold == given)
