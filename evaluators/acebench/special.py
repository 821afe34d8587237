"""The special categories: did the model say a parameter is missing, a value wrong, or the
request out of the tools' reach, and name what it should?"""

from __future__ import annotations

import re
from typing import Any

from scenarios.acebench.answers import ERROR_PHRASE, INCOMPLETE_PHRASE, IRRELEVANT_PHRASE

from .verdicts import PASS, Mode, Verdict


def special(category: str, output: str, answer: Any, mode: Mode) -> Verdict:
    """compat: case-sensitive substrings of the raw text, as the reference checks them.

    strict: the phrases case-insensitively, and the missing parameters and the API read as
    whole names from the parenthesised lists the prompt asks for, so "(sort by)" does not
    name a missing "sort" and "Planner_makeX" does not name "Planner_make"; an incorrect
    value must be reported with its parameter's name.
    """
    text = str(output)
    haystack = text.lower() if mode == "strict" else text

    def has(needle: str) -> bool:
        return (needle.lower() if mode == "strict" else needle) in haystack

    if "incomplete" in category:
        named = _parenthesised_names(text) if mode == "strict" else frozenset()

        def names_it(name: str) -> bool:
            return name.strip().lower() in named if mode == "strict" else name in text

        for api, names in (answer or {}).items():
            if not has(INCOMPLETE_PHRASE):
                return Verdict(False, "error_detection", f"no '{INCOMPLETE_PHRASE}'")
            if not names_it(api):
                return Verdict(False, "error_correction", f"the API {api} is not named")
            for name in names:
                if not names_it(name):
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


_PARENTHESISED = re.compile(r"\(([^()]*)\)")


def _parenthesised_names(text: str) -> frozenset[str]:
    """Every name listed in parentheses, e.g. "(a, b)" and "(Api)": trimmed, lower-cased."""
    return frozenset(name.strip().lower() for group in _PARENTHESISED.findall(text)
                     for name in group.split(",") if name.strip())


