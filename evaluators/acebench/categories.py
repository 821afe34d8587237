"""ACEBench's categories, its output phrases and its overall weights."""

from __future__ import annotations

from scenarios.acebench.answers import ERROR_PHRASE, INCOMPLETE_PHRASE, IRRELEVANT_PHRASE
from scenarios.acebench.categories import NORMAL_CATEGORIES, SPECIAL_CATEGORIES

AGENT_CATEGORIES = ("agent_multi_turn", "agent_multi_step")
WEIGHTS = (("normal", 0.578), ("special", 0.2676), ("agent", 0.1545))

__all__ = ["AGENT_CATEGORIES", "ERROR_PHRASE", "INCOMPLETE_PHRASE", "IRRELEVANT_PHRASE", "NORMAL_CATEGORIES",
           "SPECIAL_CATEGORIES", "WEIGHTS"]
