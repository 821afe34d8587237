"""How well `calls(world)` serves a world: what share of drawn calls pass validation and succeed.

A property test whose calls are mostly rejected at the door only ever tests the door.
`survey` runs drawn call sequences in fresh worlds and counts each call's outcome, per
tool, so a world author can see which parameters still need a `Ref`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from .arguments import calls
from .outcomes import outcome

if TYPE_CHECKING:
    from ..world import World


@dataclass
class Survey:
    """Outcome counts of drawn calls, overall and per tool."""

    outcomes: Counter[str] = field(default_factory=Counter)
    per_tool: dict[str, Counter[str]] = field(default_factory=dict)

    @property
    def calls(self) -> int:
        return sum(self.outcomes.values())

    @property
    def valid(self) -> float:
        """Share of calls that passed validation (everything but `invalid`)."""
        return 1 - self.outcomes["invalid"] / self.calls if self.calls else 0.0

    @property
    def succeeded(self) -> float:
        """Share of calls the world carried out (neither invalid, refused nor crashed)."""
        return self.outcomes["succeeded"] / self.calls if self.calls else 0.0

    def add(self, tool: str, result: str) -> None:
        self.outcomes[result] += 1
        self.per_tool.setdefault(tool, Counter())[result] += 1


def survey(factory: Callable[[], World], *, sequences: int = 50, steps: int = 50,
           tools: Sequence[str] | None = None, references: bool = True) -> Survey:
    """Run `sequences` drawn call sequences of `steps` calls, each in a fresh world, and count outcomes.

    Draws are derandomized, so the same world and code give the same figures.
    `references=False` draws from the parameters' types alone (see `calls`).
    """
    found = Survey()

    @settings(max_examples=sequences, derandomize=True, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(st.data())
    def run(data: st.DataObject) -> None:
        world = factory()
        drawn = calls(world, tools, references=references)
        for _ in range(steps):
            call = data.draw(drawn)
            record = world.call(call.name, call.arguments)
            found.add(call.name, outcome(world, record))

    run()
    return found
