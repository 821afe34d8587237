"""Verified task generation: seeded tasks for a world family, each proven solvable before it is kept.

A family's generator (`TaskGenerator`) proposes candidates: an instruction a person would write, the
world's starting configuration, the gold calls, and the facts the end state must show. This module
owns everything after that, the same for every family:

* **verification**: each candidate's gold path is replayed, message by message as the oracle agent
  sends it (bracket text through `World.execute`), in a fresh world; it is kept only if every call
  succeeds, the end state differs from the start, and every fact the generator expects holds. A special
  case (ACEBench's missing detail, wrong value or request no tool serves) makes no call; it is kept only
  if its answer names a tool and parameters the offered tools really have.
* **dedup**: a candidate whose (instruction, end state) pair was kept already is dropped.
* **determinism**: one `random.Random` seeded from (family, seed, difficulty, language), no clock and
  no other randomness, so the same arguments give the same bytes.
* **the file**: JSON lines, a header first (format, generator version, family, seed, difficulty,
  language, counts, why candidates were dropped, and each distinct tool list once), then one task per
  line. `read_generated` reads one back, naming every line it cannot use.

Difficulty is one knob, documented per level in `LEVELS` (and docs/generation.md); a generator
reads it as it likes, within that meaning.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol

from .jsonlines import DataFileError, decoded_lines, read_bytes
from .request_phrases import (
    ASKS,
    IN_ORDER,
    JOINERS,
    LAST,
    NOT_VERBS,
    OPENERS,
    ZH_AFTER,
    ZH_AGAIN,
    ZH_ENDS,
    ZH_NOT_AFTER_AGAIN,
    ZH_QUOTE,
)

if TYPE_CHECKING:
    from sandbox import Call, World

FORMAT = "toolworlds-generated"
FORMAT_VERSION = 1

LEVELS: Mapping[int, str] = MappingProxyType({
    1: "one request (one or two state-changing calls); everything named as the call needs it",
    2: "two requests; things named as the user knows them, so a lookup comes first",
    3: "three state-changing calls or more; the output of one call is an argument of a later one",
    4: "more state-changing calls, with dependencies; a precondition the instruction does not mention, "
       "and distractor tools offered",
    5: "the most state-changing calls, as at 4; and ACEBench's special cases (a required detail missing, "
       "a value that is wrong, a request no tool serves), scored as ACEBench scores them",
})
SPECIAL_CATEGORIES = ("special_incomplete", "special_error_param", "special_irrelevant")
SPECIAL_SHARE = 0.05  # of the top level's candidates: few enough that the noisy agent (which passes them) does worst


class GenerationError(ValueError):
    """Generation could not give what was asked (an unknown level or language, too few candidates kept)."""


@dataclass(frozen=True)
class Candidate:
    """One proposed task, before verification.

    `path` is the gold path: one tuple of calls per agent message. `expect` holds facts the end
    state must show, as dotted paths into the merged end state (`"Bank.accounts.A001.balance"`),
    computed by the generator from its own reading of the rules, so a replay that "succeeds" into
    the wrong state is caught. A special case has `special` (ACEBench's possible answer: the API and
    its missing parameters, the wrong values by parameter, or `{}` for a request no tool serves)
    and no path.
    """

    category: str
    question: str
    classes: tuple[str, ...]
    config: Mapping[str, Any]
    path: tuple[tuple[Call, ...], ...] = ()
    expect: Mapping[str, Any] = field(default_factory=dict)
    special: Mapping[str, Any] | None = None


def draws_special(rng: random.Random, difficulty: int, share: float = SPECIAL_SHARE) -> bool:
    """Whether the next candidate is one of ACEBench's special cases: only at the top level (below it
    nothing is drawn, so the lower levels' streams do not depend on this), one in `1 / share` there.
    Drawn once per candidate, before its draft: a redrawn draft keeps the decision."""
    return difficulty >= max(LEVELS) and rng.random() < share


def special_category(rng: random.Random, incomplete: float, wrong: float) -> str:
    """Which special case, by one draw: a missing detail below `incomplete`, a wrong value below `wrong`
    (cumulative), else a request no tool serves."""
    roll = rng.random()
    return SPECIAL_CATEGORIES[0] if roll < incomplete else SPECIAL_CATEGORIES[1] if roll < wrong \
        else SPECIAL_CATEGORIES[2]


class SpecialCaseHooks:
    """The task hooks of a generated task that may be one of ACEBench's special cases, for any family's task
    class (put it first among the bases): a special case is answered in one reply (`single_reply`) under
    ACEBench's special-category prompt, changes nothing, and is judged by that reply
    (`evaluators.acebench.episode.score_episode`, which a family names as its scorer), its ground truth
    ACEBench's possible answer. Any other task is its base class's, unchanged."""

    if TYPE_CHECKING:
        category: str
        lang: str
        functions: list[dict[str, Any]]
        ground_truth: Any

    @property
    def special(self) -> bool:
        return self.category.startswith("special")

    @property
    def single_reply(self) -> bool:
        return self.special

    @property
    def system_prompt(self) -> str | None:
        if self.special:
            from .acebench.prompts import single_reply_prompt

            return single_reply_prompt(self.category, self.lang, self.functions)
        return getattr(super(), "system_prompt", None)

    @property
    def user_prompt(self) -> str | None:
        return None if self.special else getattr(super(), "user_prompt", None)

    def end_state(self, world: Any) -> Any:
        """A special case's end state is not compared: its reply is."""
        return self.ground_truth if self.special else super().end_state(world)  # type: ignore[misc]


class TaskGenerator(Protocol):
    """What a family gives to have its tasks generated (see docs/generation.md)."""

    @property
    def family(self) -> str:
        """The family's name in the registry (or `world:package.module:factory`)."""
        ...

    @property
    def version(self) -> str:
        """Changes whenever the same arguments would give other tasks."""
        ...

    @property
    def languages(self) -> tuple[str, ...]: ...

    def propose(self, rng: random.Random, difficulty: int, lang: str) -> Candidate:
        """One candidate of this difficulty, drawn from `rng` only."""
        ...

    def world(self, candidate: Candidate, lang: str) -> World:
        """A fresh world in the candidate's starting configuration."""
        ...

    def end_state(self, world: World, candidate: Candidate) -> Any:
        """The world's state as the family's tasks record their ground truth (JSON data)."""
        ...

    def task(self, record: Mapping[str, Any], functions: list[dict[str, Any]], lang: str) -> Any:
        """A runnable task (the `Task` protocol) from one line of a generated file."""
        ...


@dataclass
class GeneratedSet:
    """A generated task set: the header (metadata, counts, tool lists) and the task records."""

    header: dict[str, Any]
    records: list[dict[str, Any]]

    def lines(self) -> Iterator[str]:
        yield json.dumps(self.header, ensure_ascii=False, sort_keys=True)
        for record in self.records:
            yield json.dumps(record, ensure_ascii=False, sort_keys=True)

    def write(self, path: Path) -> None:
        with path.open("w", encoding="utf-8") as out:
            for line in self.lines():
                out.write(line + "\n")


def generate(generator: TaskGenerator, n: int, seed: int = 0, difficulty: int = 1, lang: str = "en",
             *, max_tries: int | None = None) -> GeneratedSet:
    """`n` verified, distinct tasks; the same arguments give the same records, byte for byte.

    Raises `GenerationError` for a level or language the generator lacks, or when `max_tries`
    candidates (default: 20 per task asked, at least 200) leave fewer than `n` kept.
    """
    if difficulty not in LEVELS:
        raise GenerationError(f"difficulty must be one of {', '.join(map(str, LEVELS))}, not {difficulty}")
    if lang not in generator.languages:
        raise GenerationError(f"{generator.family} generates {', '.join(generator.languages)} tasks, not {lang!r}")
    if n < 1:
        raise GenerationError(f"n must be at least 1, not {n}")
    rng = random.Random(f"{generator.family}:{random_stream(generator)}:{seed}:{difficulty}:{lang}")
    limit = max_tries if max_tries is not None else max(200, 20 * n)
    dropped: Counter[str] = Counter()
    seen: set[bytes] = set()
    toolsets: dict[str, list[dict[str, Any]]] = {}
    known: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    records: list[dict[str, Any]] = []
    tries = 0
    while len(records) < n:
        if tries >= limit:
            raise GenerationError(f"{generator.family}: {tries} candidates gave {len(records)} verified tasks of "
                                  f"the {n} asked (dropped: {dict(dropped)})")
        tries += 1
        candidate = generator.propose(rng, difficulty, lang)
        outcome = verify(generator, candidate, lang, known)
        if isinstance(outcome, str):
            dropped[outcome] += 1
            continue
        ground_truth, paths, functions = outcome
        key = hashlib.blake2b(json.dumps([candidate.question, ground_truth], sort_keys=True,
                                         ensure_ascii=False).encode(), digest_size=16).digest()
        if key in seen:
            dropped["duplicate"] += 1
            continue
        seen.add(key)
        toolset = toolset_key(functions)
        toolsets.setdefault(toolset, functions)
        records.append({
            "id": f"{generator.family}_gen_d{difficulty}_{lang}_{seed}_{len(records)}",
            "category": candidate.category, "question": candidate.question,
            "initial_config": _plain(candidate.config), "involved_classes": list(candidate.classes),
            "toolset": toolset, "ground_truth": ground_truth, "paths": paths, "difficulty": difficulty,
        })
    header = {
        "format": FORMAT, "format_version": FORMAT_VERSION, "generator": f"{generator.family}/{generator.version}",
        "family": generator.family, "seed": seed, "difficulty": difficulty, "lang": lang, "n": n,
        "candidates": tries, "dropped": dict(sorted(dropped.items())), "toolsets": toolsets,
    }
    return GeneratedSet(header, records)


def random_stream(generator: TaskGenerator) -> str:
    """The version whose random stream the generator draws from: its `stream` when it has one, else its
    version. A new version that changes only some levels' tasks keeps the old stream, so the levels it
    leaves alone give the same bytes as before (banking's and ACEBench's levels 1 to 3 in version 2)."""
    return str(getattr(generator, "stream", None) or generator.version)


Verified = tuple[Any, list[list[str]], list[dict[str, Any]]]


def verify(generator: TaskGenerator, candidate: Candidate, lang: str,
           known: dict[tuple[str, ...], list[dict[str, Any]]] | None = None) -> Verified | str:
    """(ground truth, gold paths, offered functions) when the candidate holds, else why it is dropped.

    The gold path is sent as the oracle sends it, as bracket text through `World.execute`, so a
    kept task's milestones are known to parse and reproduce. `known` keeps the offered tools per set
    of apps across candidates: exporting them was a seventh of generating a banking task."""
    from sandbox.parsing import render_calls

    world = generator.world(candidate, lang)
    functions = (known or {}).get(candidate.classes)
    if functions is None:
        functions = [schema for schema in world.schemas("acebench") if world.tools[schema["name"]].app
                     in candidate.classes]
        if known is not None:
            known[candidate.classes] = functions
    if candidate.special is not None:
        problem = special_problem(candidate.category, candidate.special, functions)
        if problem or candidate.path:
            return problem or "special case with calls"
        from .acebench.answers import possible_reply

        return dict(candidate.special), [[possible_reply(candidate.category, candidate.special, functions)]], \
            functions
    start = generator.end_state(world, candidate)
    milestones = [render_calls(list(message)) for message in candidate.path]
    for message in milestones:
        for record in world.execute(message):
            if record.error is not None:
                return f"call refused: {record.error.type}"
            result = record.result
            if isinstance(result, dict) and result.get("status") is False:
                return f"call failed: {record.tool}"
    end = generator.end_state(world, candidate)
    if end == start:
        return "end state equals start"
    merged = {name: attrs for entry in end for name, attrs in entry.items()} if isinstance(end, list) else end
    for dotted, want in candidate.expect.items():
        if lookup(merged, dotted) != want:
            return f"expected fact not met: {dotted.split('.')[0]}"
    return end, [milestones], functions


def one_message(identity: str, requests: Sequence[str], lang: str, rng: random.Random, then: Sequence[str], *,
                zh_direct: tuple[str, ...], zh_question: str, zh_comma: str, zh_stop: str,
                ends: tuple[str, ...] = ("?",)) -> str:
    """A user's requests written as one message after who they are: in English, sentences (half the time
    opened with "Please", unless it asks or speaks of itself) joined by a drawn "then" phrase; in Chinese,
    clauses joined by commas, opened with 请 unless the first starts with one of `zh_direct` or asks."""
    first = requests[0]
    if lang == "zh":
        body = first if first.startswith(zh_direct) or first.endswith(zh_question) else "请" + first
        for request in requests[1:]:
            body += zh_comma + rng.choice(then) + request
        return identity + body + ("" if body.endswith(zh_question) else zh_stop)
    polite = not first.startswith("I") and not first.endswith("?") and rng.random() < 0.5
    sentences = [("Please " if polite else "") + first]
    for request in requests[1:]:
        sentences.append(rng.choice(then).strip() + " " + request)
    return identity + " " + " ".join(s[0].upper() + s[1:] + ("" if s.endswith(ends) else ".") for s in sentences)


def one_request(requests: Sequence[str], lang: str, rng: random.Random, identity: str = "", *,
                zh_direct: tuple[str, ...] = ("我", "帮", "给", "在", "用", "把", "请", "麻", "能"),
                ordered: bool = False, polite: bool = True, closed: tuple[str, ...] = ()) -> str:
    """Many requests (levels 4 and 5) written as one person's message, not a list: neighbouring requests
    merged two to a sentence ("X, and then Y"), sentences opened with connectors drawn without repeating
    (the last one "Finally," when there are three or more; only connectors saying "after that" when
    `ordered`), "Please" or 请 now and then (in English never when not `polite`: who they are said it
    already), after who they are. A request holding one of `closed` (", they can't make it") ends its
    sentence: none is joined after it. Every request's words are kept whole: nothing a task needs is dropped."""
    groups = _sentences(requests, lang, rng, closed)
    pool = (IN_ORDER if ordered else OPENERS)[lang]
    openers = rng.sample(pool, len(pool)) * 2  # a second round for the longest requests
    sentences = [_opening(groups[0], lang, rng, zh_direct, polite)]
    for index, text in enumerate(groups[1:], start=1):
        opener = rng.choice(LAST[lang]) if index == len(groups) - 1 and len(groups) > 2 else openers.pop()
        sentences.append(opener + ("" if lang == "zh" else " ") + text)
    if lang == "zh":
        return identity + "".join(s + ("" if s.endswith(ZH_ENDS) else "。") for s in sentences)
    body = " ".join(s[0].upper() + s[1:] + ("" if s.endswith((".", "!", "?")) else ".") for s in sentences)
    return (identity + " " if identity else "") + body


def _sentences(requests: Sequence[str], lang: str, rng: random.Random, closed: tuple[str, ...] = ()) -> list[str]:
    """The requests as sentences: now and then two neighbours in one ("X, and then Y"), never a question."""
    groups: list[list[str]] = []
    for request in requests:
        last = groups[-1] if groups else None
        if last is not None and len(last) == 1 and not last[0].endswith(ASKS) and not request.endswith(ASKS) \
                and not any(mark in last[0] for mark in closed) \
                and len(last[0]) + len(request) < (70 if lang == "zh" else 130) and rng.random() < 0.6:
            last.append(request)
        else:
            groups.append([request])
    return [group[0] + "".join(_joiner(rng.choice(JOINERS[lang]), more) + more for more in group[1:])
            for group in groups]


def _joiner(drawn: str, following: str) -> str:
    return ZH_AFTER if drawn == ZH_AGAIN and following.startswith(ZH_NOT_AFTER_AGAIN) else drawn


def _opening(text: str, lang: str, rng: random.Random, zh_direct: tuple[str, ...], polite: bool = True) -> str:
    """The first sentence, with 请 when it does not start as one speaks directly, or now and then "Please"."""
    if lang == "zh":
        direct = text.startswith((*zh_direct, ZH_QUOTE)) or text[0].isdigit() or text.endswith(ASKS)
        return text if direct else "请" + text
    verb = text[0].islower() and not text.startswith(NOT_VERBS) and not text.endswith(ASKS)
    return "please " + text if polite and verb and rng.random() < 0.5 else text


def special_problem(category: str, answer: Mapping[str, Any], functions: Sequence[Mapping[str, Any]]) -> str:
    """Why a special case's answer does not fit the offered tools ("" when it does)."""
    tools = {f["name"]: f.get("parameters", {}) for f in functions}
    if category == "special_incomplete":
        for api, names in answer.items():
            parameters = tools.get(api)
            if parameters is None:
                return "special answer names no offered tool"
            if any(name not in parameters.get("required", []) for name in names):
                return "special answer names a parameter that is not required"
        return "" if answer else "special answer empty"
    if category == "special_error_param":
        known = {name for schema in tools.values() for name in schema.get("properties", {})}
        if not answer or any(name not in known for name in answer):
            return "special answer names no parameter of the offered tools"
        return ""
    if category == "special_irrelevant":
        return "" if not answer else "special answer not empty"
    return f"unknown special category {category}"


def lookup(state: Any, dotted: str) -> Any:
    """The value at a dotted path (`Bank.accounts.A001.balance`, list items by number), or a marker
    object no fact equals when the path leads nowhere."""
    node = state
    for part in dotted.split("."):
        try:
            node = node[int(part)] if isinstance(node, list) else node[part]
        except (KeyError, IndexError, ValueError, TypeError):
            return _MISSING
    return node


class _Missing:
    def __repr__(self) -> str:
        return "<missing>"


_MISSING = _Missing()


def toolset_key(functions: Sequence[Mapping[str, Any]]) -> str:
    """A short name for a list of tools, the same for the same list (the file stores each list once)."""
    names = ",".join(str(f.get("name")) for f in functions)
    return hashlib.blake2b(names.encode(), digest_size=6).hexdigest()


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


# -- reading generated files --------------------------------------------------------------------


def is_generated(path: Path) -> bool:
    """Whether `path` is a file whose first line is a generated set's header (read no further)."""
    if not path.is_file():
        return False
    try:
        with path.open("rb") as handle:
            first = handle.readline(4096)
    except OSError:
        return False
    return FORMAT.encode() in first


@dataclass
class GeneratedFile:
    """A generated file read back: its header, its task records (with their line numbers), and
    every problem met (a bad line is named and left out, never an exception)."""

    header: dict[str, Any]
    records: list[tuple[int, dict[str, Any]]]
    problems: list[str]

    @property
    def family(self) -> str:
        return str(self.header.get("family", ""))

    @property
    def lang(self) -> str:
        return str(self.header.get("lang", ""))


_HEADER_FIELDS: Mapping[str, type | tuple[type, ...]] = MappingProxyType({
    "family": str, "lang": str, "seed": int, "difficulty": int, "generator": str, "toolsets": dict,
})
_RECORD_FIELDS: Mapping[str, type | tuple[type, ...]] = MappingProxyType({
    "id": str, "category": str, "question": str, "involved_classes": list, "toolset": str,
    "paths": list, "initial_config": dict,
})


def read_generated(path: Path) -> GeneratedFile:
    """A generated file's header and records; every unusable line is a problem `name:line: why`."""
    label = path.name
    problems: list[str] = []
    try:
        data = read_bytes(path, label)
    except DataFileError as exc:
        return GeneratedFile({}, [], [str(exc)])
    header: dict[str, Any] = {}
    records: list[tuple[int, dict[str, Any]]] = []
    ids: dict[str, int] = {}
    for number, value, reason in decoded_lines(data):
        if reason:
            problems.append(f"{label}:{number}: {reason}")
            continue
        if not header:
            wrong = _shape_problem(value, _HEADER_FIELDS)
            if not isinstance(value, dict) or value.get("format") != FORMAT or wrong:
                problems.append(f"{label}:{number}: not a generated task set's header"
                                + (f" ({wrong})" if wrong and isinstance(value, dict) else ""))
                return GeneratedFile({}, [], problems)
            header = value
            continue
        wrong = _shape_problem(value, _RECORD_FIELDS)
        if wrong:
            problems.append(f"{label}:{number}: {wrong}")
        elif value["toolset"] not in header["toolsets"]:
            problems.append(f"{label}:{number}: toolset {value['toolset']!r} is not in the header")
        elif value["id"] in ids:
            problems.append(f"{label}:{number}: duplicate id {value['id']} (first at line {ids[value['id']]})")
        else:
            ids[value["id"]] = number
            records.append((number, value))
    if not header:
        problems.append(f"{label}: empty (no header line)")
    return GeneratedFile(header, records, problems)


def _shape_problem(value: Any, fields: Mapping[str, type | tuple[type, ...]]) -> str:
    if not isinstance(value, dict):
        return "a line must be a JSON object"
    for name, kind in fields.items():
        if not isinstance(value.get(name), kind):
            return f"no {name!r} field of the right type"
    return ""
