"""ACEBench's possible answers written as a model would write them (what an oracle replies).

Normal answers map each function to its arguments; a function called twice appears as
`name_1`, `name_2`, and the suffix is dropped unless the key is itself a tool's name (zh
has tools called `perception_check_1`). Special answers become the phrase the prompt asks
for (`scenarios.acebench.prompts`), naming what the checker looks for.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from sandbox import Call
from sandbox.parsing import render_calls

SUFFIX = re.compile(r"_\d+$")
INCOMPLETE_PHRASE = "Missing necessary parameters"
ERROR_PHRASE = "There is incorrect value"
IRRELEVANT_PHRASE = "the limitations of the function"


def render_answer(answer: Any, functions: Sequence[Mapping[str, Any]] = ()) -> str:
    """A possible answer (the first, when there are alternatives) written as bracket calls."""
    chosen = answer[0] if isinstance(answer, list) else answer
    names = {f.get("name") for f in functions}
    return render_calls([Call(name if name in names else SUFFIX.sub("", name), args) for name, args in chosen.items()])


def canonical_special(category: str, answer: Any) -> str:
    """The output the benchmark's prompt asks for, for a special item."""
    if "incomplete" in category:
        api, names = next(iter(answer.items()))
        return f'["{INCOMPLETE_PHRASE} ({", ".join(n.strip() for n in names)}) for the api ({api})"]'
    if "error" in category:
        parts = "; ".join(f"{ERROR_PHRASE} ({v[0]}) for the parameters ({k}) in the conversation history."
                          for k, v in answer.items())
        return f'["{parts}"]'
    return f'["Due to {IRRELEVANT_PHRASE}, I cannot solve this problem."]'


def possible_reply(category: str, answer: Any, functions: Sequence[Mapping[str, Any]] = ()) -> str:
    """What a model that knows the possible answer replies to a normal or special item."""
    if category.startswith("special"):
        return canonical_special(category, answer)
    return render_answer(answer, functions)
