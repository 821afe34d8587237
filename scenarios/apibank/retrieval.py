"""How often ToolSearcher picks what the reference's model picked, in the recorded dialogues.

A recorded retrieval is a ToolSearcher call of a dialogue with its recorded output: the
API the reference's embedding model chose for those keywords (the last element when the
output also carries GetUserToken). Agreement is measured with the search alone, never the
cassette, which would answer every recorded query with its own recording.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .api_common import ApiError
from .dialogues import Dialogue
from .toolsearch import ToolRanker, search_tools


@dataclass(frozen=True)
class Retrieval:
    file: str
    keywords: str
    recorded: str
    found: str | None  # None when the search found nothing

    @property
    def agrees(self) -> bool:
        return self.found == self.recorded


def _api_name(output: object) -> str | None:
    match = output[-1] if isinstance(output, list) and output else output
    name = match.get("name") if isinstance(match, dict) else None
    return name if isinstance(name, str) else None


def recorded_retrievals(dialogues: Iterable[Dialogue]) -> list[tuple[str, str, str]]:
    """(file, keywords, recorded API) for every ToolSearcher call with a recorded choice."""
    found = []
    for dialogue in dialogues:
        for call in dialogue.api_calls:
            if call.api_name != "ToolSearcher" or not call.result:
                continue
            keywords, recorded = call.param_dict.get("keywords"), _api_name(call.result.get("output"))
            if isinstance(keywords, str) and recorded is not None:
                found.append((dialogue.file, keywords, recorded))
    return found


def retrievals(dialogues: Iterable[Dialogue], ranker: ToolRanker) -> list[Retrieval]:
    """Every recorded retrieval next to what `ranker` finds for the same keywords."""
    rows = []
    for file, keywords, recorded in recorded_retrievals(dialogues):
        try:
            found = _api_name(search_tools(keywords, 1, ranker))
        except ApiError:
            found = None
        rows.append(Retrieval(file, keywords, recorded, found))
    return rows
