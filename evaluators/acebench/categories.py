"""ACEBench's categories, its output phrases and its overall weights."""

from __future__ import annotations

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
