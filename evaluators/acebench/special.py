"""The special categories: did the model say a parameter is missing, a value wrong, or the
request out of the tools' reach, and name what it should?"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from scenarios.acebench.answers import ERROR_PHRASE, INCOMPLETE_PHRASE, IRRELEVANT_PHRASE

from .normalise import fold_text
from .verdicts import PASS, Mode, Verdict


def special(category: str, output: str, answer: Any, mode: Mode,
            functions: Sequence[Mapping[str, Any]] = ()) -> Verdict:
    """compat: case-sensitive substrings of the raw text, as the reference checks them.

    strict: the phrase (folded as free text), and exactly the names the answer expects in the
    parenthesised lists the prompt asks for, no more and no fewer: the missing parameters and the
    API for an incomplete request, the parameters and their wrong values for an incorrect one.
    A reply that also calls one of the item's tools hedges between refusing and answering, and
    fails every special category.
    """
    if mode == "strict":
        return _strict_special(category, str(output), answer, functions)
    text = str(output)
    if "incomplete" in category:
        for api, names in (answer or {}).items():
            if INCOMPLETE_PHRASE not in text:
                return Verdict(False, "error_detection", f"no '{INCOMPLETE_PHRASE}'")
            if api not in text:
                return Verdict(False, "error_correction", f"the API {api} is not named")
            for name in names:
                if name not in text:
                    return Verdict(False, "error_correction", f"the parameter {name} is not named")
        return PASS
    if "error" in category:
        for _parameter, values in (answer or {}).items():
            if ERROR_PHRASE not in text:
                return Verdict(False, "error_detection", f"no '{ERROR_PHRASE}'")
            for value in values:
                if str(value) not in text:
                    return Verdict(False, "error_correction", f"the value {value} is not named")
        return PASS
    if IRRELEVANT_PHRASE not in text:
        return Verdict(False, "error_detection", f"no '{IRRELEVANT_PHRASE}'")
    return PASS


def _strict_special(category: str, text: str, answer: Any, functions: Sequence[Mapping[str, Any]]) -> Verdict:
    folded = fold_text(text)
    called = _called_tool(text, functions)
    if called:
        return Verdict(False, "tool_call", f"the reply also calls {called}")
    if "incomplete" in category:
        if fold_text(INCOMPLETE_PHRASE) not in folded:
            return Verdict(False, "error_detection", f"no '{INCOMPLETE_PHRASE}'")
        wanted = {fold_text(str(n)) for api, names in (answer or {}).items() for n in [api, *names]}
        named = {fold_text(name) for group in _PARENTHESISED.findall(text) for name in group.split(",")
                 if name.strip()}
        return _same_names(wanted, named)
    if "error" in category:
        if fold_text(ERROR_PHRASE) not in folded:
            return Verdict(False, "error_detection", f"no '{ERROR_PHRASE}'")
        wanted = {fold_text(str(v)) for parameter, values in (answer or {}).items() for v in [parameter, *values]}
        named = {fold_text(group) for group in _PARENTHESISED.findall(text) if group.strip()}
        return _same_names(wanted, named)
    if fold_text(IRRELEVANT_PHRASE) not in folded:
        return Verdict(False, "error_detection", f"no '{IRRELEVANT_PHRASE}'")
    return PASS


def _same_names(wanted: set[str], named: set[str]) -> Verdict:
    """The parenthesised names must be exactly the expected ones: a missing one is not reported, an
    extra one is a guess (listing every parameter would otherwise name the missing ones)."""
    if "" in wanted:
        return Verdict(False, "empty_gold", "the answer names an empty parameter or value")
    if wanted - named:
        return Verdict(False, "error_correction", f"not named: {', '.join(sorted(wanted - named))}")
    if named - wanted:
        return Verdict(False, "error_correction", f"named but not expected: {', '.join(sorted(named - wanted))}")
    return PASS


_PARENTHESISED = re.compile(r"\(([^()]*)\)")


def _called_tool(text: str, functions: Sequence[Mapping[str, Any]]) -> str:
    """The first of the item's tools the text calls (its name followed by an opening parenthesis), or ""."""
    for function in functions:
        name = function.get("name") if isinstance(function, Mapping) else None
        if isinstance(name, str) and name and re.search(rf"(?<![\w.]){re.escape(name)}\s*\(", text):
            return name
    return ""
