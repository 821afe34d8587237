"""toolworlds tasks for inspect_ai: `inspect eval toolworlds/banking --model ...`.

Optional: needs `inspect_ai` (`pip install -e ".[inspect]"`). The package registers this module
under inspect_ai's entry point, so `inspect eval` finds `toolworlds/acebench`,
`toolworlds/apibank`, `toolworlds/banking` and `toolworlds/toolbench` by name; `-T lang=zh`,
`-T tasks=ID,ID`, `-T categories=...`, `-T limit=N` and `-T data=PATH` choose the task set.

Each sample is one task. Its setup forks the task's prebuilt world for that sample alone and
binds the task's tools to it (any inspect agent that uses `state.tools` acts on that world), for
tasks of the native protocol; ACEBench's tasks list their tools in the prompt, as its runs do;
the default solver then plays the episode as `toolworlds run` does: each model message goes to
the world whole (its tool calls in order, or calls written as text in the bracket protocol of
ACEBench's prompts), and on multi-turn tasks the scripted user answers the model's words. The
scorer is the runner's: `reward` 1.0 when the end state is the task's ground truth (or the
family's own scorer says solved), `process` the milestone accuracy, the parts in the metadata.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageTool,
    ChatMessageUser,
)
from inspect_ai.scorer import Score, Scorer, Target, accuracy, mean, scorer, stderr
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.tool import ToolDef, ToolParams

from scenarios.family import TaskQuery

from .prebuilt import TaskWorlds
from .sessions import EpisodeSession

# The sample metadata key naming the task a sample plays.
TASK_KEY = "toolworlds_task"


def family_task(family: str, tasks: str | list[str] | None = None, lang: str = "en",
                categories: str | list[str] | None = None, limit: int | None = None, data: str | None = None,
                max_steps: int = 64, max_turns: int = 10, seed: int = 0) -> Task:
    """An inspect `Task` of a family's tasks (all, or those chosen), one sample each.

    `tasks` and `categories` are lists or comma-separated text (as `-T` gives them); `limit`
    keeps at most that many tasks, taken evenly across categories; `data` reads the tasks
    from a file or folder (as `toolworlds run --data`).
    """
    query = TaskQuery(lang=lang, data=Path(data) if data else None, categories=_names(categories),
                      task_ids=_names(tasks), limit=limit)
    worlds = TaskWorlds(family, query.task_ids or None, lang, seed, query.data)
    chosen = worlds.family.tasks(query).tasks if (query.categories or limit is not None) else worlds.tasks.values()
    samples = [Sample(input=entry.question or entry.id, id=entry.id,
                      metadata={TASK_KEY: entry.id, "family": family, "lang": lang, "category": entry.category})
               for entry in chosen]
    if not samples:
        raise LookupError(f"{family}/{lang}: no task matches {query}")
    sessions: dict[str, EpisodeSession] = {}  # per sample (its state's uuid), from setup to scorer

    @solver
    def bind_world() -> Solver:
        """A fresh world for the sample; the conversation opens as a run's does; tools bound to it."""
        async def solve(state: TaskState, generate: Generate) -> TaskState:
            session = sessions[state.uuid] = EpisodeSession(worlds, state.metadata[TASK_KEY], max_steps=max_steps,
                                                            max_turns=max_turns)
            state.messages = [_inspect_message(message) for message in session.opening()]
            if session.protocol == "native":  # bracket-protocol tasks list their tools in the prompt, as runs do
                state.tools = [_tool(session, spec["function"]) for spec in session.tools]
            return state
        return solve

    @solver
    def play_episode() -> Solver:
        """The model's messages go to the world whole, until the episode ends or a limit of inspect's."""
        async def solve(state: TaskState, generate: Generate) -> TaskState:
            session = sessions[state.uuid]
            while not session.over and not state.completed:
                state = await generate(state, tool_calls="none")
                answers = session.send(_openai_message(state.output.message))
                names = {call.id: call.function for call in state.output.message.tool_calls or []}
                state.messages.extend(_inspect_message(answer, names) for answer in answers)
            return state
        return solve

    @scorer(metrics={"reward": [accuracy(), stderr()], "process": [mean()]})
    def world_score() -> Scorer:
        """The runner's score of the sample's world as the episode left it."""
        async def score(state: TaskState, target: Target) -> Score:
            session = sessions.pop(state.uuid, None)
            if session is None:
                raise RuntimeError(f"sample {state.sample_id} has no world to score: the task's setup did not run")
            parts = session.score()
            value = {"reward": parts["reward"]}
            if parts["process"] is not None:
                value["process"] = float(parts["process"])
            explanation = (f"end state {'matches' if parts['end_state'] else 'differs from'} the ground truth "
                           f"({parts['calls']} calls; episode: {session.stop_reason or 'not ended'})")
            return Score(value=value, answer=session.stop_reason, explanation=explanation,
                         metadata=json.loads(json.dumps(parts, default=str)))
        return score

    return Task(dataset=samples, setup=bind_world(), solver=play_episode(), scorer=world_score())


@task
def acebench(tasks: str | list[str] | None = None, lang: str = "en", categories: str | list[str] | None = None,
             limit: int | None = None, data: str | None = None, max_steps: int = 64, max_turns: int = 10) -> Task:
    """ACEBench: agent tasks (multi-step, multi-turn) and single-reply items (normal, special)."""
    return family_task("acebench", tasks, lang, categories, limit, data, max_steps, max_turns)


@task
def banking(tasks: str | list[str] | None = None, lang: str = "en", categories: str | list[str] | None = None,
            limit: int | None = None, data: str | None = None, max_steps: int = 64, max_turns: int = 10) -> Task:
    """The banking world's bundled tasks (multi-step and multi-turn)."""
    return family_task("banking", tasks, lang, categories, limit, data, max_steps, max_turns)


@task
def apibank(tasks: str | list[str] | None = None, lang: str = "en", categories: str | list[str] | None = None,
            limit: int | None = None, data: str | None = None, max_steps: int = 64, max_turns: int = 10) -> Task:
    """API-Bank's dialogues (`data` or TOOLWORLDS_DATA points at the benchmark's files)."""
    return family_task("apibank", tasks, lang, categories, limit, data, max_steps, max_turns)


@task
def toolbench(tasks: str | list[str] | None = None, lang: str = "en", categories: str | list[str] | None = None,
              limit: int | None = None, data: str | None = None, max_steps: int = 64, max_turns: int = 10) -> Task:
    """ToolBench queries over their data-defined tools."""
    return family_task("toolbench", tasks, lang, categories, limit, data, max_steps, max_turns)


def _names(value: str | list[str] | tuple[str, ...] | None) -> tuple[str, ...]:
    if value is None:
        return ()
    items = value.split(",") if isinstance(value, str) else value
    return tuple(item.strip() for item in items if item.strip())


def _tool(session: EpisodeSession, function: dict[str, Any]) -> ToolDef:
    """One of the task's tools, acting on this sample's world only (one call is one message)."""
    name = str(function["name"])

    async def run(**kwargs: Any) -> str:
        return session.call(name, kwargs)

    parameters = ToolParams.model_validate(function.get("parameters") or {"type": "object"})
    for parameter, schema in parameters.properties.items():
        if not schema.description:  # inspect refuses a tool with an undescribed parameter; some tasks have them
            schema.description = parameter
    return ToolDef(run, name=name, description=str(function.get("description") or name), parameters=parameters)


def _openai_message(message: ChatMessageAssistant) -> dict[str, Any]:
    """An inspect assistant message in the OpenAI shape `EpisodeSession.send` reads. Arguments
    inspect could not parse go on as text that is not JSON, so the world answers with a parse error."""
    calls = [{"id": call.id, "type": "function",
              "function": {"name": call.function,
                           "arguments": json.dumps(call.arguments, ensure_ascii=False, default=str)
                           if call.parse_error is None else f"unreadable: {call.parse_error}"}}
             for call in message.tool_calls or []]
    return {"role": "assistant", "content": message.text, "tool_calls": calls}


def _inspect_message(message: dict[str, Any], names: dict[str, str] | None = None) -> ChatMessage:
    content = str(message["content"])
    if message["role"] == "system":
        return ChatMessageSystem(content=content)
    if message["role"] == "tool":
        call_id = message.get("tool_call_id")
        return ChatMessageTool(content=content, tool_call_id=call_id, function=(names or {}).get(str(call_id)))
    if message["role"] == "assistant":
        return ChatMessageAssistant(content=content)
    return ChatMessageUser(content=content)
