"""Property-testing kit for worlds: hypothesis strategies and a state machine for any world.

    from sandbox.testing import arguments, calls, invalid_arguments, world_machine

- `arguments(spec)`: argument dicts that pass the tool's validation by construction;
  `invalid_arguments(spec)`: ones that do not, each labelled with what is wrong.
- `calls(world)`: tool calls drawn against the world's current state; parameters marked
  with a `sandbox.Ref` mostly name things that exist.
- `world_machine(factory, invariants=[...])`: a hypothesis state machine that runs drawn
  calls and checks the engine's promises (atomic failures, same calls same bytes,
  isolated forks, exact restores) and your invariants after every step.
- `outcome(world, record)`: whether a call was invalid, refused, crashed or succeeded;
  `survey(factory)`: those outcomes over many drawn call sequences.

The fuzzer lives here too (`sandbox.testing.fuzzing`, run by `scripts/fuzz.py`): seeded valid,
boundary and hostile calls and messages for any world, each checked against the engine's promises.

Needs hypothesis (the `testing` extra); `import sandbox` never imports it.
"""

from .arguments import arguments, calls, parameters
from .invalid import Invalid, invalid_arguments
from .machine import world_machine
from .outcomes import Outcome, outcome
from .survey import Survey, survey

__all__ = ["Invalid", "Outcome", "Survey", "arguments", "calls", "invalid_arguments", "outcome", "parameters",
           "survey", "world_machine"]
