"""verifiers' name for toolworlds' environment: `vf-eval toolworlds-verifiers --env.taskset.family banking`.

verifiers 0.4 finds a taskset by importing the top-level module its id names and taking the
`Taskset` (and `Env`) it exports in `__all__`; this module is that name for `toolworlds.verifiers`.
"""

from toolworlds.verifiers import ToolworldsEnv, ToolworldsTaskset

__all__ = ["ToolworldsEnv", "ToolworldsTaskset"]
