"""API-Bank's level-3 scenes as runnable multi-turn tasks.

A scene (`lv3-samples/*.txt`) is a first utterance, the user's Key Info (an account, facts
such as dates and names) and the calls a good assistant makes. The reference has no
runner for them (its simulator is a person typing); here the scene is an episode: the
assistant sees only ToolSearcher's description (`prompts.level3_prompt`) and finds the other
APIs itself, the user states the first utterance, and the Key Info is what the user knows.
The scripted user says both at once; an LLM user (`--user llm`) follows the scene's rules
(`prompts.LEVEL3_USER_PROMPT`) and gives the facts as asked.

The scene's world is `apibank_world` over the folder's init_database, with the Key Info's
accounts loaded (and a "Current balance" set as that user's bank balance). Some gold calls
cannot succeed as written, and a model that does the right thing would be marked wrong
against them, so they are repaired (`repaired_calls`; each repair is reported): Shopping and
Financial Management use tokens no account has, right after the gold GetUserToken returned
the Key Info token; Health Management writes its health data as a dict and queries with
date-only bounds. The gold calls, replayed in a fresh scene world, give the
envelopes the agent's calls are checked against (`evaluators.apibank.level3`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sandbox import World
from sandbox.parsing import Call, render_calls

from .dialogues import ApiCall, Level3Scene, load_level3
from .extraction import call_span
from .prompts import LEVEL3_OPENER, LEVEL3_USER_PROMPT, level3_prompt
from .replay import envelope
from .world import apibank_world
from .world_base import WorldBase

_ACCOUNT = re.compile(r'"(?P<name>[^"\s]+)"\s*:\s*(?P<body>\{[^{}]*\})')
_BALANCE = re.compile(r"current balance:\s*(?P<amount>\d+(?:\.\d+)?)", re.IGNORECASE)


def key_info_accounts(key_info: str) -> dict[str, dict[str, Any]]:
    """The accounts a scene's Key Info spells out (`"JohnDoe": {"password": ..., ...}`)."""
    accounts = {}
    for match in _ACCOUNT.finditer(key_info):
        try:
            record = json.loads(match.group("body"))
        except json.JSONDecodeError:
            continue
        if isinstance(record, dict) and isinstance(record.get("token"), str):
            accounts[match.group("name")] = record
    return accounts


def key_info_balance(key_info: str) -> float | None:
    found = _BALANCE.search(key_info)
    return float(found.group("amount")) if found else None


@dataclass(frozen=True, eq=False)
class Level3Task:
    """One level-3 scene: a conversation with a user, scored by the calls made in it."""

    scene: Level3Scene
    base: WorldBase
    calls: tuple[ApiCall, ...]  # the gold calls, repaired, each with its envelope as `result`
    ground_truth: dict[str, Any]  # the end state the gold calls leave
    repairs: tuple[str, ...] = ()
    category: str = "level-3"
    multi_turn: bool = True

    protocol = "bracket"
    user_opener = LEVEL3_OPENER

    @property
    def id(self) -> str:
        return self.scene.file.removesuffix(".txt")

    @property
    def question(self) -> str:
        """What the scripted user says: the first utterance, and everything it knows."""
        return f"{self.scene.first_utterance}\n\nKey Info:\n{self.scene.key_info}"

    @property
    def system_prompt(self) -> str:
        return level3_prompt()

    @property
    def user_prompt(self) -> str:
        return LEVEL3_USER_PROMPT.format(scene=self.scene.scene, first_utterance=self.scene.first_utterance,
                                         key_info=self.scene.key_info)

    @property
    def functions(self) -> list[dict[str, Any]]:
        return [{"name": "ToolSearcher"}]

    @property
    def paths(self) -> list[list[str]]:
        return [[render_calls([Call(c.api_name, dict(c.param_dict))]) for c in self.calls]]

    def calls_in(self, reply: str) -> str | None:
        """Task hook: the part of a reply that is a request (the first bracketed call, as the
        reference's simulator finds it), or None when the reply is words to the user."""
        return call_span(reply)

    def world(self, seed: int = 0) -> World:
        """The scene's world. `seed` is not used: every scene forks the base world (seed 0), so an
        episode draws the ids the gold replay drew (AppointmentRegistration's)."""
        return scene_world(self.base, self.scene)

    def end_state(self, world: World) -> dict[str, Any]:
        return scene_state(world)

    def result_record(self, world: World, process: list[str]) -> dict[str, Any]:
        """The scene's line of the level-3 results: every call made, with its envelope."""
        made = [{"api_name": record.tool, "envelope": json.loads(json.dumps(envelope(world, record), default=str))}
                for record in world.log if record.tool is not None]
        return {"scene": self.id, "calls": made, "process": list(process)}


def init_database_world(data: Path) -> World:
    """The world of a data folder's init_database, for `WorldBase`."""
    return apibank_world(data / "init_database")


def scene_world(base: WorldBase, scene: Level3Scene) -> World:
    """init_database with the scene's Key Info accounts (and balance) loaded."""
    world = base.fork()
    accounts = key_info_accounts(scene.key_info)
    if not accounts:
        return world
    balances = dict(world.app("BankAccounts").dump()["balances"])
    balance = key_info_balance(scene.key_info)
    if balance is not None:
        for name in accounts:
            balances[name] = dict(balances.get(name, {}), balance=balance)
    world.load({"Accounts": {"accounts": dict(world.app("Accounts").dump()["accounts"], **accounts)},
                "BankAccounts": {"balances": balances}})
    return world


def scene_state(world: World) -> dict[str, Any]:
    """What a scene's end state is compared on: the apps that any API can change (the
    knowledge and service tables only answer, and are large)."""
    changing = {spec.app for spec in world.tools.values() if spec.mutates}
    return {name: world.app(name).dump() for name in world.apps if name in changing}


_DATE_ONLY = re.compile(r"\d{4}-\d{1,2}-\d{1,2}")


def _repair(call: ApiCall, tokens: dict[str, str]) -> tuple[ApiCall, list[str]]:
    """One gold call in the form its API takes, and what was changed (nothing, usually)."""
    arguments = dict(call.param_dict)
    changes: list[str] = []
    token = arguments.get("token")
    if isinstance(token, str) and token not in tokens and len(tokens) == 1:
        (arguments["token"],) = tokens
        changes.append(f"token {token!r} is no account's: the scene user's {arguments['token']!r}")
    data = arguments.get("health_data")
    if isinstance(data, dict):
        arguments["health_data"] = [{"name": name, "value": value} for name, value in data.items()]
        changes.append("health_data written as a dict: the same items as the API's list of {name, value}")
    for name in ("start_time", "end_time"):
        value = arguments.get(name)
        if call.api_name == "QueryHealthData" and isinstance(value, str) and _DATE_ONLY.fullmatch(value):
            arguments[name] = f"{value} {'00:00:00' if name == 'start_time' else '23:59:59'}"
            changes.append(f"{name} {value!r} has no time of day: the whole day")
    return call.model_copy(update={"param_dict": arguments}), changes


def repaired_calls(scene: Level3Scene) -> tuple[list[ApiCall], list[str]]:
    """The scene's gold calls in the form their APIs take, and a note per repair: a token no
    account has becomes the scene user's (when the Key Info names exactly one), health data
    written as a dict becomes the API's list, a date-only query bound covers the whole day."""
    tokens = {record["token"]: name for name, record in key_info_accounts(scene.key_info).items()}
    calls: list[ApiCall] = []
    repairs: list[str] = []
    for index, call in enumerate(scene.calls):
        repaired, changes = _repair(call, tokens)
        repairs.extend(f"{scene.file}#{index} {call.api_name}: {change}" for change in changes)
        calls.append(repaired)
    return calls, repairs


def gold_replay(base: WorldBase, scene: Level3Scene, calls: list[ApiCall]
                ) -> tuple[tuple[ApiCall, ...], dict[str, Any]]:
    """The gold calls replayed in a fresh scene world: each carrying the envelope it produced,
    and the end state they leave."""
    world = scene_world(base, scene)
    done = []
    for call in calls:
        record = world.call(call.api_name, call.param_dict)
        result = json.loads(json.dumps(envelope(world, record), default=str))
        done.append(call.model_copy(update={"result": result}))
    return tuple(done), scene_state(world)


@dataclass
class SceneLoad:
    tasks: list[Level3Task] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def read_scenes(data: Path) -> SceneLoad:
    """The level-3 scenes of an API-Bank folder as tasks; unreadable call lines are problems.

    A scene with no first utterance or no gold call is a problem and no task: its user would open
    with nothing, and with nothing to make it would count as solved whatever the agent did."""
    loaded = SceneLoad()
    if not (data / "lv3-samples").is_dir():
        return loaded
    base = WorldBase(data, init_database_world)
    for scene in load_level3(data, loaded.problems):
        loaded.problems.extend(f"{scene.file}: {problem}" for problem in scene.problems)
        missing = [what for what, empty in (
            ("no first utterance (a 'First Utterance:' line)", not scene.first_utterance),
            ("no gold call (an 'API Calls:' heading and call lines)", not scene.calls)) if empty]
        if missing:
            loaded.problems.append(f"{scene.file}: left out: {'; '.join(missing)}")
            continue
        calls, repairs = repaired_calls(scene)
        loaded.notes.extend(repairs)
        gold, end_state = gold_replay(base, scene, calls)
        loaded.tasks.append(Level3Task(scene, base, gold, end_state, tuple(repairs)))
    return loaded
