"""The names of ACEBench's normal and special item categories.

They stand apart from `items`, which reads and runs those items, so that choosing which
categories a query means (and naming them in a score table) builds none of the item machinery.
"""

from __future__ import annotations

NORMAL_CATEGORIES = (
    "normal_atom_bool", "normal_atom_enum", "normal_atom_number", "normal_atom_list", "normal_atom_object_deep",
    "normal_atom_object_short", "normal_single_turn_single_function", "normal_single_turn_parallel_function",
    "normal_multi_turn_user_switch", "normal_multi_turn_user_adjust", "normal_similar_api", "normal_preference",
)
SPECIAL_CATEGORIES = ("special_incomplete", "special_error_param", "special_irrelevant")
