"""`ToolEnv` against gymnasium's own checker, and the TRL environment against transformers' schema reader."""

from __future__ import annotations

import asyncio
import inspect
import json
import tempfile
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from sandbox.errors import ParseError
from sandbox.parsing import parse_calls
from sandbox.schemas import openai_tools
from sandbox.world import World
from scenarios.acebench.world import APP_CLASSES, acebench_world
from scenarios.apibank.world import apibank_world
from scenarios.banking.world import CLASSES, banking_world
from scenarios.todo import todo_world
from toolworlds.agents import END, OracleAgent, ToolCall, Turn
from toolworlds.episode_score import episode_score
from toolworlds.episodes import run_episode
from toolworlds.prebuilt import TaskWorlds

gymnasium = pytest.importorskip("gymnasium")
pytestmark = pytest.mark.long_running  # every bundled task, three ways (~30 s): collected first, see tests/conftest.py

from toolworlds.env import ToolEnv, trl_dataset, trl_environment, trl_environments, trl_reward  # noqa: E402
from toolworlds.signatures import OfferedTool, python_name_problems, tool_method  # noqa: E402

STEP, TURN = "banking_multi_step_4", "banking_multi_turn_2"  # pay the rent; deposit and pay off the loan


def test_gymnasium_env_checker_passes_without_warnings() -> None:
    from gymnasium.utils.env_checker import check_env

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(ToolEnv("banking"), skip_render_check=True)
        check_env(ToolEnv("banking", [TURN], lang="zh"), skip_render_check=True)


@pytest.mark.parametrize(("family", "tasks"), [("acebench", ["normal_atom_bool_0", "agent_multi_turn_0"]),
                                               ("apibank", None)])
def test_gymnasium_env_checker_passes_on_the_dataset_families(family: str, tasks: list[str] | None) -> None:
    from gymnasium.utils.env_checker import check_env

    try:
        env = ToolEnv(family, tasks)
    except LookupError as exc:
        pytest.skip(f"{exc} (../shared/datasets or TOOLWORLDS_DATA)")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env, skip_render_check=True)


def play(env: ToolEnv, messages: Sequence[str]) -> list[tuple[Any, ...]]:
    return [env.step(message) for message in messages]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_gold_paths_earn_the_reward_and_match_run_episode(lang: str) -> None:
    env = ToolEnv("banking", lang=lang)
    for task_id in env.task_ids:
        observation, info = env.reset(options={"task": task_id})
        task = env.task
        assert task is not None and info["task"] == task_id
        system, *opening = observation["messages"]
        assert system["role"] == "system" and opening == [{"role": "user", "content": task.question}]
        assert observation["tools"] == env.tools == openai_tools(task.functions)
        steps = play(env, [*task.paths[0], "All done."])
        assert [s[1] for s in steps[:-1]] == [0.0] * len(task.paths[0])
        _, reward, terminated, truncated, info = steps[-1]
        assert (reward, terminated, truncated) == (1.0, True, False), task_id
        assert info["score"]["end_state"] and info["score"]["process"] == 1.0
        world, episode = run_episode(task, OracleAgent(task))
        assert env.world.state() == world.state()
        assert info["stop_reason"] == episode.stop_reason


def test_reset_forks_the_prebuilt_world_and_starts_over() -> None:
    env = ToolEnv("banking", [STEP])
    env.reset()
    first, start = env.world, env.worlds.start(STEP)
    pristine = start.state()
    play(env, env.task.paths[0])  # type: ignore[union-attr]
    assert env.world.state() != pristine and start.state() == pristine  # the prebuilt world is untouched
    observation, _ = env.reset()
    assert env.world is not first and env.worlds.start(STEP) is start  # a new fork of the same prebuilt world
    assert env.world.state() == pristine and len(env.world.log) == 0
    assert observation == env.reset()[0]


def test_openai_tool_call_actions_get_answered_by_id() -> None:
    env = ToolEnv("banking", [STEP])
    env.reset()
    login = {"id": "c1", "type": "function",
             "function": {"name": "login_bank", "arguments": '{"customer_id": "C001", "password": "eve2024"}'}}
    broken = {"id": "c2", "type": "function", "function": {"name": "get_balance", "arguments": '{"customer_id": '}}
    observation, reward, terminated, truncated, info = env.step(
        {"role": "assistant", "content": None, "tool_calls": [login, broken]})
    assert reward == 0.0
    assistant, first, second = observation["messages"]  # what the step added
    assert assistant["tool_calls"][0]["function"]["name"] == "login_bank"
    assert (first["tool_call_id"], second["tool_call_id"]) == ("c1", "c2")
    assert json.loads(first["content"])["status"] is True
    assert json.loads(second["content"]) == {"error": "parse_error", "details": [],
                                             "message": "arguments of get_balance are not valid JSON"}
    assert info["call_errors"] == ["parse_error"] and not (terminated or truncated)
    openai_types = pytest.importorskip("openai.types.chat")
    from pydantic import TypeAdapter

    TypeAdapter(list[openai_types.ChatCompletionMessageParam]).validate_python(observation["messages"])



class SendsOnce:
    """A run's agent that sends one message of native tool calls, then answers."""

    def __init__(self, calls: list[dict[str, Any]]) -> None:
        self.calls, self.sent = calls, False

    def act(self, conversation: Any, tools: Any) -> Turn:
        if self.sent:
            return Turn(text="done")
        self.sent = True
        return Turn(tool_calls=tuple(ToolCall(c["id"], c["function"]["name"], c["function"]["arguments"])
                                     for c in self.calls))


@pytest.mark.parametrize("arguments", [
    ['{"customer_id": "C001", "password": "eve2024"}', '{"customer_id": ', "[1, 2]", "", '"{}"', "null"],
    ['{"customer_id": "C001", "password": "eve2024"}', '{"customer_id": ' + "1" * 100 + "}"],
    ['{"customer_id": "C001", "password": "eve2024"}', '{"customer_id": ' + "1" * 5_000 + "}"],
    ["[" * 100_000],
])
def test_native_calls_are_answered_alike_by_the_env_a_run_and_the_world(arguments: list[str]) -> None:
    """One reader of structured calls: the same message gets the same answers, call by call, whether an RL
    loop steps it, a run's native protocol sends it, or a caller hands it to `World.run_openai`. (Before,
    cut-off JSON was `invalid_arguments` in the env and the world, and `parse_error` in a run.)"""
    names = ["login_bank", "get_balance", "list_accounts", "nope", "login_bank", "get_balance"]
    calls = [{"id": f"c{i}", "type": "function", "function": {"name": names[i], "arguments": text}}
             for i, text in enumerate(arguments)]
    env = ToolEnv("banking", [STEP])
    env.reset()
    observation, *_ = env.step({"role": "assistant", "content": None, "tool_calls": calls})
    by_env = [(m["tool_call_id"], m["content"]) for m in observation["messages"] if m["role"] == "tool"]
    run_world, episode = run_episode(env.task, SendsOnce(calls), world=env.worlds.fork(STEP))
    by_run = [(m.tool_call_id, m.content) for m in episode.messages if m.role == "tool"]
    world = env.worlds.fork(STEP)
    by_world = [(m["tool_call_id"], m["content"]) for m in world.run_openai(calls)]
    assert by_env == by_run == by_world
    assert len(by_env) == len(calls) and env.world.state() == run_world.state() == world.state()
    if len(arguments) == 6:
        errors = [json.loads(content).get("error") for _, content in by_env]
        assert errors == [None, "parse_error", "parse_error", "unknown_tool", "parse_error", "invalid_arguments"]


def test_model_written_arguments_never_break_a_step() -> None:
    """Argument text nested past the JSON decoder's stack or holding an integer Python will not convert, and a
    message of more calls than `max_calls`: each call gets an error result answering its id, nothing ran.
    (Before, the first two raised out of `step` and the third failed pairing answers to calls.) The flood ends
    the episode, as it ends a run's: going on would send every call back with each later request."""
    env = ToolEnv("banking", [STEP])
    env.reset()
    start = env.world.state()
    for arguments in ("[" * 100_000, '{"customer_id": ' + "1" * 5_000 + "}"):
        call = {"id": "c1", "type": "function", "function": {"name": "login_bank", "arguments": arguments}}
        observation, _, terminated, truncated, info = env.step({"role": "assistant", "content": None,
                                                                "tool_calls": [call]})
        answer = observation["messages"][-1]
        refusal = json.loads(answer["content"])
        assert answer["tool_call_id"] == "c1" and refusal["error"] == "parse_error"
        assert refusal["details"][0]["limit"] in ("max_message_chars", "max_int_digits")
        assert not (terminated or truncated)
    calls = [{"id": f"c{i}", "type": "function", "function": {"name": "login_bank", "arguments": "{}"}}
             for i in range(env.world.limits.max_calls + 1)]
    observation, _, terminated, truncated, info = env.step({"role": "assistant", "content": None, "tool_calls": calls})
    answers = observation["messages"][-len(calls):]
    assert [a["tool_call_id"] for a in answers] == [c["id"] for c in calls]
    refusal = "more than 256 calls in one message (limit max_calls)"
    assert {json.loads(a["content"])["message"] for a in answers} == {refusal}
    assert info["call_errors"] == ["parse_error"] and info["stop_reason"] == "call limit"
    assert terminated and not truncated
    assert env.world.state() == start


def test_step_limit_truncates_with_a_reward_and_its_parts() -> None:
    env = ToolEnv("banking", [STEP], max_steps=3)
    env.reset()
    steps = play(env, ["[login_bank(customer_id='C001', password='wrong')]", "[get_balance()]",
                       "[list_accounts(customer_id='C001')]"])
    assert [(s[2], s[3]) for s in steps] == [(False, False), (False, False), (False, True)]
    score = steps[-1][4]["score"]
    assert steps[-1][1] == 0.0 == score["reward"] and 0 < score["state_fraction"] < 1
    assert [s[4]["call_errors"] for s in steps] == [[], ["invalid_arguments"], ["precondition_failed"]]
    assert score["errors"] == {"invalid_arguments": 1, "precondition_failed": 1} and score["calls"] == 3
    with pytest.raises(RuntimeError, match="episode is over"):
        env.step("anything")


def test_groups_start_together_and_stay_independent() -> None:
    env = ToolEnv("banking")
    members = env.group(TURN, 4, seed=7)
    worlds = [m.world for m in members]
    assert len({id(w) for w in worlds}) == 4 and len({json.dumps(w.state(), sort_keys=True) for w in worlds}) == 1
    members[0].step("[login_bank(customer_id='C001', password='eve2024')]")
    assert members[0].world.state() != members[1].world.state() == members[2].world.state()
    assert all(m.worlds is env.worlds for m in members)  # one prebuilt world per task, shared


def test_async_reset_and_step_gather_on_one_loop() -> None:
    class SlowUser:
        def __init__(self, task: Any) -> None:
            self.task = task

        async def respond(self, conversation: Any) -> str:
            await asyncio.sleep(0)
            return END if any(m.role == "assistant" for m in conversation) else self.task.question

    async def episode(env: ToolEnv) -> float:
        await env.areset(options={"task": TURN})
        reward = 0.0
        for message in [*env.task.paths[0], "Done."]:  # type: ignore[union-attr]
            _, r, terminated, _, _ = await env.astep(message)
            reward += float(r)
        assert terminated
        return reward

    async def all_of_them() -> list[float]:
        return await asyncio.gather(*(episode(ToolEnv("banking", user=SlowUser)) for _ in range(3)))

    assert asyncio.run(all_of_them()) == [1.0, 1.0, 1.0]


def test_families_scored_by_their_own_episode_scorer(tmp_path: Path) -> None:
    from tests.test_toolbench import rows, write

    tasks = write(tmp_path / "tasks.jsonl", rows())
    env = ToolEnv("toolbench", data=tasks)  # ToolBench scores the call log, not an end state
    for task_id in env.task_ids:
        env.reset(options={"task": task_id})
        *_, (_, reward, terminated, _, info) = play(env, [*env.task.paths[0], "Done."])  # type: ignore[union-attr]
        assert (reward, terminated, info["score"]["errors"]) == (1.0, True, {}), task_id
    env.reset(options={"task": env.task_ids[0]})
    _, reward, terminated, _, _ = env.step("I cannot help with that.")
    assert (reward, terminated) == (0.0, True)
    with pytest.raises(ValueError, match="cannot name the parameter 'from'"):
        trl_environment("toolbench", data=tasks)  # ToolBench's data-defined tools need not be Python names
    first = rows()[0]
    changed = {**first, "id": 999, "tools": [{**first["tools"][0], "description": "Another weather tool."}]}
    clash = write(tmp_path / "clash.jsonl", [first, changed])
    with pytest.raises(ValueError, match="differs between tasks"):
        trl_environment("toolbench", data=clash)  # one method cannot describe two different tools


def test_unknown_tasks_and_bad_actions_are_refused() -> None:
    with pytest.raises(LookupError, match="no task"):
        ToolEnv("banking", ["nope"])
    with pytest.raises(LookupError, match="no runnable tasks of its own: it is the engine's example world"):
        ToolEnv("todo")
    env = ToolEnv("banking", [STEP])
    with pytest.raises(ValueError, match="not one of"):
        env.reset(options={"task": TURN})
    env.reset()
    _, reward, terminated, _, info = env.step(42)  # said what it was, and counted as saying nothing
    assert info["action_error"].startswith("an action is") and terminated and reward == 0.0


# -- TRL ---------------------------------------------------------------------------------------

# What a Python signature cannot say, and `World.call` still enforces.
WORLD_ONLY = {"default", "minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
              "pattern", "format", "additionalProperties", "properties", "required", "title"}
SHARED = {"type", "enum", "items", "anyOf", "description", "nullable"}


def canonical(node: dict[str, Any]) -> dict[str, Any]:
    """A parameter schema's meaning, whichever way a union is spelled (anyOf, a type list, nullable)."""
    types: set[str] = set()
    enum, items, nullable = None, None, bool(node.get("nullable"))
    for option in node.get("anyOf", [node]):
        assert set(option) - SHARED <= WORLD_ONLY, option
        kind = option.get("type", [])
        for one in kind if isinstance(kind, list) else [kind]:
            nullable = nullable or one == "null"
            types |= {one} - {"null"}
        enum = tuple(option["enum"]) if "enum" in option else enum
        items = canonical(option["items"]) if "items" in option else items
    return {"types": sorted(types), "enum": enum, "items": items, "nullable": nullable,
            "description": " ".join(str(node.get("description", "")).split())}


def assert_same_schema(read: dict[str, Any], own: dict[str, Any]) -> None:
    assert read["type"] == own["type"] == "function"
    read, own = read["function"], own["function"]
    assert (read["name"], read["description"]) == (own["name"], own["description"])
    read_params, own_params = read["parameters"], own["parameters"]
    assert set(read_params.get("required", [])) == set(own_params["required"]), own["name"]
    assert list(read_params["properties"]) == list(own_params["properties"]), own["name"]
    for name, schema in own_params["properties"].items():
        assert canonical(read_params["properties"][name]) == canonical(schema), (own["name"], name)


WORLDS = {
    "todo": todo_world, "acebench": lambda: acebench_world(list(APP_CLASSES)),
    "banking": lambda: banking_world(CLASSES), "apibank": apibank_world, "apibank-3": lambda: apibank_world(level=3),
}


@pytest.mark.parametrize("name", sorted(WORLDS))
def test_tool_signatures_read_back_as_the_worlds_own_schemas(name: str) -> None:
    from transformers.utils import get_json_schema

    world = WORLDS[name]()
    for spec, own in zip(world.tools.values(), world.schemas("openai"), strict=True):
        assert_same_schema(get_json_schema(tool_method(spec, lambda *a: "")), own)


def test_trl_environment_has_the_shape_trl_expects() -> None:
    from transformers.utils import get_json_schema

    environment_class = trl_environment("banking")
    environment = environment_class()  # TRL builds it with no arguments
    worlds = ToolEnv("banking").worlds
    offered = {s["function"]["name"]: s for s in worlds.offered_union(list(worlds.tasks))}
    tools = {name: method for name, method in inspect.getmembers(environment, predicate=inspect.ismethod)
             if name not in ("reset", "get_reward") and not name.startswith("_")}  # TRL's own rule
    assert set(offered) == set(tools) and {"reset", "get_reward"} <= set(dir(environment))
    for name, method in tools.items():
        assert method.__name__ == name
        assert_same_schema(get_json_schema(method), offered[name])

    observation, _ = ToolEnv("banking").reset(options={"task": TURN})
    row_prompt = [dict(m) for m in observation["messages"]]
    row_prompt[-1]["content"] = ""
    assert environment.reset(task=TURN, prompt=row_prompt) == observation["messages"][-1]["content"]
    # With TRL's default prompt (no system message), the system prompt comes first in the text.
    assert environment.reset(task=TURN, prompt=[{"role": "user", "content": ""}]) == "\n\n".join(
        m["content"] for m in observation["messages"])
    assert environment.get_reward() == 0.0
    refused = json.loads(environment.deposit(customer_id="C002", account_id="A003", amount="lots"))
    assert refused["error"] == "invalid_arguments"
    for message in worlds.task(TURN).paths[0]:  # the gold path, as a model's tool calls
        for call in parse_calls(message):
            assert "error" not in json.loads(getattr(environment, call.name)(**call.arguments))
    assert environment.get_reward() == 1.0

    environment.reset(task=TURN)  # the same instance, fully restored
    assert environment.get_reward() == 0.0 and len(environment._env.world.log) == 0


def banking_schema(name: str) -> dict[str, Any]:
    return next(s for s in banking_world(CLASSES).schemas("openai") if s["function"]["name"] == name)


def test_trl_environment_stops_at_the_step_limit() -> None:
    environment = trl_environment("banking", [STEP], max_steps=2)()
    environment.reset()
    environment.login_device()
    environment.login_device()
    assert json.loads(environment.login_device())["error"] == "episode_over"


# -- every bundled task, three ways --------------------------------------------------------------

# (family, lang): the tasks a user gets without naming a file; ACEBench and API-Bank read the datasets folder.
BUNDLED = [("banking", "en"), ("banking", "zh"), ("acebench", "en"), ("acebench", "zh"), ("apibank", "en"),
           ("toolbench", "en")]


def bundled_worlds(family: str, lang: str, tmp_path: Path) -> TaskWorlds:
    if family == "toolbench":  # no bundled task file: the test suite's own sample rows
        from tests.test_toolbench import rows, write

        return TaskWorlds(family, lang=lang, data=write(tmp_path / "tasks.jsonl", rows()))
    try:
        return TaskWorlds(family, lang=lang)
    except LookupError as exc:
        pytest.skip(f"{family}/{lang}: {exc} (../shared/datasets or TOOLWORLDS_DATA)")


def gold_calls(message: str) -> list[Any]:
    try:
        return list(parse_calls(message))
    except ParseError:
        return []  # an answer in words


def calls_made(world: Any) -> list[tuple[Any, ...]]:
    """What the world ran, call by call: from the same start, the same calls make the same end state."""
    return [(r.tool, r.arguments, r.error) for r in world.log]


def offered_names(observation: dict[str, Any]) -> set[str]:
    return {tool["function"]["name"] for tool in observation["tools"]}


def _played_through_the_env(env: ToolEnv, task: Any, replay: dict[str, Any], run_world: World) -> set[str]:
    """The task's gold path played through `ToolEnv.step`, scored and called as the run did; the gold
    path's tools the reset observation does not offer (API-Bank level 3 finds them with ToolSearcher)."""
    observation, _ = env.reset(options={"task": task.id})
    assert observation["messages"][0]["role"] == "system" and observation["messages"][0]["content"]
    assert observation["messages"][1]["role"] in ("user", "assistant") and len(observation["messages"]) >= 2
    assert observation in env.observation_space
    called = {call.name for message in task.paths[0] for call in gold_calls(message)}
    missing = called - offered_names(observation)
    if missing:  # API-Bank level 3: the tools are found with ToolSearcher, as the benchmark asks
        assert task.category == "level-3" and "ToolSearcher" in offered_names(observation), (task.id, missing)
    info: dict[str, Any] = {}
    for message in [*task.paths[0], END]:
        if env.over:
            break
        *_, info = env.step(message)
    assert env.over and info["score"] == replay, task.id
    assert calls_made(env.world) == calls_made(run_world), task.id
    return missing


def _played_through_trl(environment: Any, replying: Any, task: Any, missing: set[str], replay: dict[str, Any],
                        run_world: World, offered: set[str], opening: str) -> str:
    """The task's gold path through TRL's tool dispatch (or, for words, `trl_reward`): which way it went."""
    prompt = environment.reset(task=task.id)
    assert prompt and prompt in opening
    assert {name for name, _ in inspect.getmembers(environment, inspect.ismethod)
            if not name.startswith("_") and name not in ("reset", "get_reward")} == offered
    calls = [call for message in task.paths[0] for call in gold_calls(message)]
    if not calls:  # words: only a reward function sees them (trl_reward, with reply_reward=True)
        assert not hasattr(replying, "get_reward")
        replying.reset(task=task.id)
        completion = [{"role": "assistant", "content": message} for message in task.paths[0]]
        assert trl_reward([completion], environments=[replying]) == [replay["reward"]], task.id
        return "trl_reward_words"
    if missing:
        return "trl_searched"  # TRL offers the task's tools; those the searcher reveals are not methods
    for call in calls:
        getattr(environment, call.name)(**call.arguments)
    assert environment.get_reward() == replay["reward"], task.id
    assert calls_made(environment._env.world) == calls_made(run_world), task.id
    return "trl_equal"


@pytest.mark.parametrize(("family", "lang"), BUNDLED)
def test_gold_paths_score_alike_through_the_env_trl_and_a_run(family: str, lang: str, tmp_path: Path) -> None:
    """Every bundled task's gold path, played through `ToolEnv.step` and through TRL's tool dispatch (the
    class `trl_environments` gives for its tool set, called as TRL calls it), scores what the oracle run
    scores in-process; the reset observation holds a system prompt, the opening and every tool the gold path
    calls. Tasks whose gold answer is words cannot go through tools and are counted, not played, there."""
    worlds = bundled_worlds(family, lang, tmp_path)
    env = ToolEnv(worlds)
    nameable = [task_id for task_id in worlds.tasks if not any(
        python_name_problems(OfferedTool.from_openai(tool)) for tool in worlds.offered(task_id))]
    classes = trl_environments(family, nameable, lang=lang, data=worlds.data)
    by_reply = trl_environments(family, nameable, lang=lang, data=worlds.data, reply_reward=True)
    by_task = {task_id: key for key, cls in classes.items() for task_id in cls.task_ids}
    counts = {"tasks": 0, "env_equal": 0, "trl_equal": 0, "trl_reward_words": 0, "trl_searched": 0, "trl_unnameable": 0,
              "searched": 0}
    for task_id in worlds.tasks:
        task = worlds.task(task_id)
        run_world, episode = run_episode(task, OracleAgent(task), world=worlds.fork(task_id))
        replay = episode_score(family, task, run_world, episode.process, episode.records, worlds.mode)
        missing = _played_through_the_env(env, task, replay, run_world)
        counts["searched"] += bool(missing)
        counts["env_equal"] += 1
        counts["tasks"] += 1
        if task_id not in by_task:  # ToolBench's tools are data: a parameter may be called `from`
            counts["trl_unnameable"] += 1
            continue
        observation = env.reset(options={"task": task_id})[0]
        opening = "\n\n".join(m["content"] for m in observation["messages"])
        key = by_task[task_id]
        counts[_played_through_trl(classes[key](), by_reply[key](), task, missing, replay, run_world,
                                   offered_names(observation), opening)] += 1
    print(f"\n{family}/{lang}: {counts}")
    assert counts["tasks"] == len(worlds.tasks) > 0


# -- gymnasium: ids, vector environments, every action -----------------------------------------

class SdkMessage:
    """An SDK-style assistant message (attributes, not keys)."""

    def __init__(self, content: Any, tool_calls: Any = None) -> None:
        self.content, self.tool_calls = content, tool_calls


LOGIN_CALL = {"id": "c1", "type": "function",
              "function": {"name": "login_bank", "arguments": {"customer_id": "C001", "password": "eve2024"}}}
# Every kind of action the action space accepts, and some it does not: none may raise out of a step.
ACTIONS: list[Any] = [
    "[login_bank(customer_id='C001', password='eve2024')]",
    {"role": "assistant", "content": [{"type": "text", "text": "[login_bank(customer_id='C001', "},
                                      {"type": "text", "text": "password='eve2024')]"}]},
    {"role": "assistant", "content": [{"type": "image_url", "image_url": {"url": "data:,"}}], "tool_calls": None},
    {"role": "assistant", "content": None, "tool_calls": [LOGIN_CALL]},
    {"content": 7}, {"tool_calls": 5}, {"tool_calls": "nonsense"}, {"tool_calls": [{"function": None}]},
    {"role": "assistant", "content": None, "tool_calls": [{"function": {"name": "x", "arguments": {1j: 2}}}]},
    SdkMessage([{"type": "text", "text": "All done."}]), SdkMessage(None, [LOGIN_CALL]),
    42, None, b"bytes", ["a", "list"],
]


def test_tools_and_spaces_are_there_before_reset() -> None:
    env = ToolEnv("banking")
    names = {tool["function"]["name"] for tool in env.tools}
    assert {"login_bank", "get_balance", "deposit"} <= names and env.observation_space.contains(
        {"messages": [{"role": "user", "content": "hi"}], "tools": env.tools})
    assert env.action_space.contains("hello") and env.tools == ToolEnv("banking").tools


def test_gymnasium_ids_make_and_make_vec() -> None:
    env = gymnasium.make("toolworlds/banking-v0", tasks=[STEP])
    observation, info = env.reset(seed=3)
    assert info["task"] == STEP and observation["messages"][0]["role"] == "system"
    assert gymnasium.make("toolworlds.env:toolworlds/banking-v0", lang="zh").unwrapped.worlds.lang == "zh"
    with pytest.raises(LookupError, match="example world"):
        gymnasium.make("toolworlds/todo-v0")
    vector = gymnasium.make_vec("toolworlds/banking-v0", num_envs=2, vectorization_mode="async", tasks=[STEP])
    observations, _ = vector.reset(seed=0)
    assert len(observations) == 2 and observations[0]["tools"]
    vector.close()


@pytest.mark.parametrize("vector_class", ["SyncVectorEnv", "AsyncVectorEnv"])
def test_vector_envs_with_defaults_take_every_action(vector_class: str) -> None:
    """Default arguments (AsyncVectorEnv: shared memory, which the conversation space fills with JSON),
    every action the space accepts and some it does not: each batch steps, nothing raises, and the
    observations are the ones a single environment gives."""
    make = getattr(gymnasium.vector, vector_class)
    vector = make([lambda: ToolEnv("banking", [STEP], max_steps=4)] * 2)
    single = ToolEnv("banking", [STEP], max_steps=4)
    try:
        observations, _ = vector.reset(seed=1)
        expected, _ = single.reset(seed=1)
        assert list(observations) == [expected, expected]
        for action in ACTIONS:
            observations, *_ = vector.step((action, ACTIONS[0]))
            assert len(observations) == 2 and all(o in single.observation_space for o in observations)
    finally:
        vector.close()


def test_a_big_observation_crosses_shared_memory_whole() -> None:
    """An observation larger than its shared-memory slot goes through a file, not cut."""
    from toolworlds.spaces import SLOT_BYTES

    vector = gymnasium.vector.AsyncVectorEnv([lambda: ToolEnv("banking", [STEP])] * 2)
    try:
        vector.reset(seed=0)
        answer = "x" * (SLOT_BYTES + 10)
        observations, *_ = vector.step((answer, "short"))
        assert observations[0]["messages"][-1]["content"] == answer
        assert observations[1]["messages"][-1]["content"] == "short"
    finally:
        vector.close()


def test_a_text_message_over_the_call_limit_ends_the_episode_as_a_native_one_does() -> None:
    env = ToolEnv("banking", [STEP])
    env.reset()
    limit = env.world.limits.max_calls
    text = "[" + ", ".join("login_device()" for _ in range(limit + 1)) + "]"
    _, _, terminated, truncated, info = env.step(text)
    assert info["stop_reason"] == "call limit" and info["call_errors"] == ["parse_error"]
    assert terminated and not truncated


# -- TRL datasets and one real training step ----------------------------------------------------


def test_trl_dataset_makes_each_group_one_task_with_its_own_tools() -> None:
    datasets = pytest.importorskip("datasets", reason="trl_dataset builds a datasets.Dataset")
    dataset = trl_dataset("banking", [STEP, TURN], repeats=3)
    assert isinstance(dataset, datasets.Dataset) and dataset.num_rows == 6
    assert dataset["task"] == [STEP] * 3 + [TURN] * 3  # a GRPO group of 3 is one task
    classes = trl_environments("banking", [STEP, TURN])
    for row in dataset:
        environment = classes[row["environment"]]()
        observation, _ = ToolEnv("banking", protocol="native").reset(options={"task": row["task"]})
        assert row["prompt"][:-1] == observation["messages"][:-1] and row["prompt"][-1]["content"] == ""
        last = environment.reset(**row)  # TRL appends this to the prompt's last message
        assert [*row["prompt"][:-1], {**row["prompt"][-1], "content": last}] == observation["messages"]
        assert environment._env.task.id == row["task"]
        methods = {name for name, _ in inspect.getmembers(environment, inspect.ismethod)
                   if not name.startswith("_") and name not in ("reset", "get_reward")}
        assert methods == {tool["function"]["name"] for tool in observation["tools"]}
    assert trl_dataset("banking", [STEP])["prompt"] == trl_dataset("banking", [STEP])["prompt"]  # no unseeded draw


@pytest.mark.trl_training
def test_one_grpo_step_trains_on_a_trl_dataset_group() -> None:
    """Opt in: `python -m pytest -m trl_training tests/test_env.py` in a venv with trl and torch (not in the
    dev extra). One real GRPOTrainer step (scripts/trl_grpo_step.py, a tiny random model built offline):
    the group's rollouts all ran the row's task, and TRL rendered exactly that task's tools."""
    pytest.importorskip("trl", reason="the GRPO step needs trl and torch: pip install trl in a venv of its own")
    import importlib.util

    spec = importlib.util.spec_from_file_location("trl_grpo_step", Path(__file__).parents[1] / "scripts"
                                                  / "trl_grpo_step.py")
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        trainer = script.grpo_step("banking", [STEP], 2, Path(tempfile.mkdtemp()))
    assert trainer.state.global_step == 1
    assert [env._env.task.id for env in trainer.environments] == [STEP, STEP]
    offered = {tool["function"]["name"] for tool in ToolEnv("banking").worlds.offered(STEP)}
    (rendered,) = trainer._env_tools.values()  # one tool set: one environment class
    assert {tool.__name__ for tool in rendered} == offered


def test_environments_of_a_family_share_its_tasks_and_prebuilt_worlds_and_stay_apart() -> None:
    first, second = ToolEnv("banking"), ToolEnv("banking", ["banking_multi_step_4"])
    assert first.worlds is second.worlds  # one TaskWorlds per family, language, seed and data
    assert ToolEnv("banking", lang="zh").worlds is not first.worlds
    with pytest.raises(LookupError, match="has no task nope"):
        ToolEnv("banking", ["nope"])
    task = "banking_multi_step_4"
    first.reset(options={"task": task})
    pristine = json.dumps(second.reset(options={"task": task})[0]["messages"])
    first.step("[login_bank(customer_id='C001', password='eve2024')]")
    assert first.world.state() != second.world.state()  # a fork each: one's calls are not the other's
    assert json.dumps(ToolEnv("banking").reset(options={"task": task})[0]["messages"]) == pristine
    assert len(first.worlds.fork(task).log) == 0  # the prebuilt world itself is never acted on
