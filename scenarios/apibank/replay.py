"""Replaying API-Bank's recorded calls statefully: one fresh world per dialogue.

Every recorded call runs in order with its recorded `param_dict`, and the envelope the
world produces is compared with the recorded one. Two kinds of recorded facts are fed
back so that replay can be exact: random ids (appointment ids, tokens), queued on the
app that draws them, and responses the reference fetched from the network or a model,
read from a cassette built from the dialogues.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from sandbox import CallRecord, World

from ..family import ReplayReport
from .accounts import RandomSource
from .checks import check_call, explain
from .dialogues import ApiCall, Dialogue, load_dialogues
from .knowledge import Cassette
from .world import apibank_world

RECORDED_APIS = ("ToolSearcher", "Dictionary", "Translate", "SearchEngine")
# APIs whose output is random: the app that draws it, and where the value sits in the output.
RANDOM_OUTPUTS = MappingProxyType({
    "AppointmentRegistration": ("Hospital", None),
    "RegisterUser": ("Accounts", "token"),
})


def envelope(world: World, record: CallRecord) -> dict[str, Any]:
    """The reference's result envelope for a call record."""
    spec = world.tools.get(record.tool or "")
    meta = getattr(spec.function, "__apibank__", {}) if spec is not None else {}
    raw = record.arguments if isinstance(record.arguments, dict) else {}
    if meta.get("echo") == "none":
        given: Any = None
    elif record.validated is None:
        given = raw
    else:
        validated = dict(record.validated)
        aliases = {}
        if spec is not None:
            for field, info in spec.args_model.model_fields.items():
                choices = getattr(info.validation_alias, "choices", None) or ()
                aliases.update({alias: field for alias in choices if isinstance(alias, str) and alias != field})
        given = {}
        for key in raw:
            name = aliases.get(key, key)
            if name in validated:
                given[key] = validated.pop(name)
        if meta.get("echo") != "given":
            given.update(validated)
    result: dict[str, Any] = {}
    if not meta.get("omit_name"):
        result["api_name"] = record.tool
    result["input"] = given
    result["output"] = record.result if record.ok else None
    result["exception"] = None if record.ok else record.error.message  # type: ignore[union-attr]
    return result


def build_cassette(dialogues: Iterable[Dialogue], apis: Sequence[str] = RECORDED_APIS) -> Cassette:
    """Recorded responses of the network- and model-backed APIs, from dialogues."""
    entries: dict[tuple[str, str], tuple[Any, str | None]] = {}
    for dialogue in dialogues:
        for call in dialogue.api_calls:
            if call.api_name in apis and call.result is not None:
                arguments = dict(call.result.get("input") or call.param_dict)
                if call.api_name == "Translate":
                    arguments = {"src": arguments.get("src"), "src_lang": arguments.get("src_lang"),
                                 "tgt_lang": arguments.get("tgt_lang")}
                entries[Cassette.key(call.api_name, arguments)] = (call.result.get("output"),
                                                                   call.result.get("exception"))
    return Cassette(entries)


def recorded_state(dialogues: Iterable[Dialogue]) -> dict[str, dict[str, Any]]:
    """Initial data the recordings were made against, where the shipped files have drifted.

    The recorded QueryScene outputs list scenes as they were (capitalised device names),
    and a recorded successful CancelTimedSwitch shows that its device had a switch at that
    time (under an old numeric id). Returned as `world.load` overrides to merge in.
    """
    scenes: dict[str, Any] = {}
    switches: dict[str, Any] = {}
    for dialogue in dialogues:
        for call in dialogue.api_calls:
            result = call.result or {}
            if result.get("exception") is not None:
                continue
            arguments = result.get("input") or call.param_dict
            if call.api_name == "QueryScene" and isinstance(result.get("output"), list):
                scenes[str(arguments.get("name", "")).strip().lower()] = result["output"]
            if call.api_name == "CancelTimedSwitch" and result.get("output") == "success":
                device = str(arguments.get("name", arguments.get("device_id", ""))).strip().lower()
                switches.setdefault(device, []).append({"time": arguments.get("time"), "on": True})
    return {"scenes": scenes, "switches": switches}


@dataclass(frozen=True)
class CallReplay:
    file: str
    index: int
    api_name: str
    exact: bool
    check: bool
    reason: str
    produced: dict[str, Any]
    recorded: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"file": self.file, "index": self.index, "api_name": self.api_name, "exact": self.exact,
                "check": self.check, "reason": self.reason}


def _normal(value: Any) -> Any:
    return json.loads(json.dumps(value, ensure_ascii=False, default=str))


def recorded_dialogues(data: str | Path, levels: tuple[int, ...] = (1, 2),
                       problems: list[str] | None = None) -> list[Dialogue]:
    """The dialogues of an API-Bank folder (or of its `lv1-lv2-samples` folder itself); files that
    cannot be read are problems added to `problems`, or a `ValueError` without it (`load_dialogues`)."""
    root = Path(data)
    return load_dialogues(root / "lv1-lv2-samples" if (root / "lv1-lv2-samples").is_dir() else root, levels,
                          problems)


def recording_world(data: str | Path, dialogues: Sequence[Dialogue], *, cassette: bool = True,
                    recorded_data: bool = True) -> World:
    """The world the recordings were made in: `init_database`, plus (optionally) the
    cassette of network/model answers and the initial data that has drifted since."""
    world = apibank_world(Path(data) / "init_database", cassette=build_cassette(dialogues) if cassette else None)
    if recorded_data:
        home = world.app("SmartHome").state.model_dump()
        overlay = recorded_state(dialogues)
        world.load({"SmartHome": {"scenes": {**home["scenes"], **overlay["scenes"]},
                                  "switches": {**home["switches"], **overlay["switches"]}}})
    return world


def queue_recorded_random(world: World, api_name: str, result: Mapping[str, Any]) -> None:
    """Queue the random value a recorded call drew (an id, a token), so the world draws it too."""
    source = RANDOM_OUTPUTS.get(api_name)
    output = result.get("output")
    if source is None or not output:
        return
    name, key = source
    value = output.get(key) if key and isinstance(output, Mapping) else output
    app = world.app(name)
    if isinstance(value, str) and isinstance(app, RandomSource):
        app.queue(value)


def replay_calls(world: World, calls: Iterable[ApiCall]) -> World:
    """Run recorded calls in `world`, in order, each drawing the random value it drew then."""
    for call in calls:
        queue_recorded_random(world, call.api_name, call.result or {})
        world.call(call.api_name, call.param_dict)
    return world


def replay(data: str | Path, *, cassette: bool = True, recorded_data: bool = True,
           levels: tuple[int, ...] = (1, 2), problems: list[str] | None = None) -> list[CallReplay]:
    """Replay every recorded call; `cassette` and `recorded_data` feed back what the
    recordings reveal (network/model answers, and initial data that has drifted since).
    Dialogue files that cannot be read are left out, each a problem added to `problems`
    (a `ValueError` without it)."""
    dialogues = recorded_dialogues(data, levels, problems)
    prototype = recording_world(data, dialogues, cassette=cassette, recorded_data=recorded_data)
    results = []
    for dialogue in dialogues:
        world = prototype.fork()
        for index, call in enumerate(dialogue.api_calls):
            expected = _normal(call.result or {})
            queue_recorded_random(world, call.api_name, expected)
            record = world.call(call.api_name, call.param_dict)
            produced = _normal(envelope(world, record))
            exact = produced == expected
            check = check_call(call.api_name, produced, expected)
            reason = "" if exact else explain(call.api_name, produced, expected)
            results.append(CallReplay(dialogue.file, index, call.api_name, exact, check, reason, produced, expected))
    return results


def apibank_folder(source: Path) -> Path:
    """`source` if it is an API-Bank folder; `LookupError` otherwise."""
    if not (source / "init_database").is_dir():
        raise LookupError(f"{source} is not an API-Bank folder (no init_database/)")
    return source


def replay_report(source: Path, lang: str, options: Mapping[str, Any]) -> ReplayReport:
    """Every recorded call replayed, summed per API: the family contract's `replay`.

    `options["recordings"]` (default True) feeds back what the recordings reveal; False is
    the fully offline figure.
    """
    apibank_folder(source)
    recordings = bool(options.get("recordings", True))
    problems: list[str] = []  # unreadable dialogue files: findings, while every other dialogue replays
    rows = replay(source, cassette=recordings, recorded_data=recordings, problems=problems)
    totals: Counter[str] = Counter()
    exact: Counter[str] = Counter()
    checked: Counter[str] = Counter()
    for row in rows:
        totals[row.api_name] += 1
        exact[row.api_name] += row.exact
        checked[row.api_name] += row.check
    names = sorted(totals, key=lambda n: (-totals[n], n))
    return ReplayReport(
        title="apibank replay", columns=("API", "calls", "exact", "check"),
        rows=[(name, str(totals[name]), str(exact[name]), str(checked[name])) for name in names],
        ok=[exact[name] == totals[name] for name in names],
        summary=f"{len(rows)} calls: {sum(exact.values())} reproduce exactly, "
                f"{sum(checked.values())} pass the check" + _left_out(problems),
        findings=problems + [f"{r.file}#{r.index} {r.api_name}: {r.reason}" for r in rows if not r.exact],
        records=[r.to_json() for r in rows], problems=problems,
    )


def _left_out(problems: list[str]) -> str:
    """The summary's note of dialogue files the replay could not read (none: nothing)."""
    if not problems:
        return ""
    more = f" (+{len(problems) - 3} more)" if len(problems) > 3 else ""
    return f"; left out, unreadable: {'; '.join(problems[:3])}{more}"
