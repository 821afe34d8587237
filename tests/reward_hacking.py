"""A reward-hacking corpus for ACEBench: adversarial answers written from each item's own gold.

Each is an answer a policy trained on the score could learn because a lenient checker pays
for it: a substring or a superset of a gold string, a number written as text, a boolean
written as a number, an empty string, a wrong identifier in the right tool, a call
duplicated, an extra call, a call list padded with calls that change nothing, a key left
out or added, and for agent end states a misspelled or repeated class, an extra record and
a renamed record. `tests/test_reward_hacking.py` asserts that strict passes none of them
and reports how many compat (the reference) passes; `adversarial_counts` prints the table.
"""

from __future__ import annotations

import copy
import datetime
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaluators.acebench import SPECIAL_CATEGORIES, canonical_special, check_item, read_jsonl, score_agent
from evaluators.acebench.normalise import gold_moment
from sandbox import Call
from sandbox.parsing import render_calls
from scenarios.acebench.answers import ERROR_PHRASE, INCOMPLETE_PHRASE, IRRELEVANT_PHRASE, SUFFIX

Path_ = tuple[Any, ...]


@dataclass
class Tally:
    """Adversarial answers tried in one category, and how many each mode passed, by kind."""

    category: str
    tried: dict[str, int] = field(default_factory=dict)
    compat: dict[str, int] = field(default_factory=dict)
    strict: dict[str, int] = field(default_factory=dict)
    strict_passes: list[tuple[str, str, str]] = field(default_factory=list)  # (item, kind, output) that passed
    items: set[str] = field(default_factory=set)

    def add(self, item: str, kind: str, output: str, compat: bool, strict: bool) -> None:
        self.items.add(item)
        self.tried[kind] = self.tried.get(kind, 0) + 1
        self.compat[kind] = self.compat.get(kind, 0) + compat
        self.strict[kind] = self.strict.get(kind, 0) + strict
        if strict:
            self.strict_passes.append((item, kind, output[:300]))

    @property
    def total(self) -> int:
        return sum(self.tried.values())


# -- leaves of a value: where each string, number and boolean sits --------------------------------------


def leaves(value: Any, path: Path_ = ()) -> Iterator[tuple[Path_, Any]]:
    if isinstance(value, Mapping):
        for key, inner in value.items():
            yield from leaves(inner, (*path, key))
    elif isinstance(value, (list, tuple)):
        for index, inner in enumerate(value):
            yield from leaves(inner, (*path, index))
    else:
        yield path, value


def replaced(value: Any, path: Path_, new: Any) -> Any:
    copied = copy.deepcopy(value)
    node = copied
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = new
    return copied


def _other_char(text: str) -> str:
    """`text` with its last letter or digit changed (to one that differs in any case)."""
    for index in range(len(text) - 1, -1, -1):
        if text[index].isalnum():
            new = "q" if text[index].lower() != "q" else "z"
            return text[:index] + new + text[index + 1:]
    return text + "q"


def _shorter(text: str) -> str | None:
    """A proper substring of `text` that is still something: the last word dropped, else the last letter."""
    words = text.split()
    if len(words) >= 2:
        return " ".join(words[:-1])
    return text[:-1] if len(text.strip()) >= 2 else None


def value_variants(value: Any) -> Iterator[tuple[str, Any]]:
    """The adversarial stand-ins for one gold leaf, by kind."""
    if isinstance(value, bool):
        yield "boolean as number", int(value)
        yield "boolean as text", str(value).lower()
        yield "boolean flipped", not value
    elif isinstance(value, (int, float)):
        yield "number as text", str(value)
        yield "wrong id (number)", value + 1
        if value:
            yield "number scaled x10", value * 10
        if isinstance(value, float) and value:
            yield "float off by a millionth", value * (1 + 1e-6)
    elif isinstance(value, str) and value.strip():
        moment = gold_moment(value)
        if isinstance(moment, datetime.datetime):
            yield "date-time as its date", moment.date().isoformat()
        elif isinstance(moment, datetime.date):
            yield "date as a date-time", f"{value.strip()}T00:00:00"
        shorter = _shorter(value)
        if shorter is not None:
            yield "substring", shorter
        yield "superset", value + " and more"
        yield "empty string", ""
        yield "wrong id (text)", _other_char(value)
        if value.strip().lstrip("-").isdigit():
            yield "text as number", int(value)


# -- normal categories: answers as call lists ------------------------------------------------------------


def gold_calls(answer: Any, functions: Sequence[Mapping[str, Any]]) -> list[Call]:
    chosen = answer[0] if isinstance(answer, list) else answer
    names = {f.get("name") for f in functions}
    return [Call(name if name in names else SUFFIX.sub("", name), copy.deepcopy(args)) for name, args in chosen.items()]


def normal_variants(answer: Any, functions: Sequence[Mapping[str, Any]]) -> Iterator[tuple[str, str]]:
    calls = gold_calls(answer, functions)
    arguments = [call.arguments for call in calls]
    seen_kinds: set[str] = set()
    for path, leaf in leaves(arguments):
        for kind, new in value_variants(leaf):
            if kind in seen_kinds:
                continue  # one of each kind per item: the first leaf it applies to
            seen_kinds.add(kind)
            changed = replaced(arguments, path, new)
            yield kind, render_calls([Call(c.name, a) for c, a in zip(calls, changed, strict=True)])
    for kind, make in _list_variants(arguments):
        yield kind, render_calls([Call(c.name, a) for c, a in zip(calls, make, strict=True)])
    first = calls[0]
    dropped = next(((i, key) for i, args in enumerate(arguments) for key in args), None)
    if dropped is not None:
        smaller = copy.deepcopy(arguments)
        del smaller[dropped[0]][dropped[1]]
        yield "key left out", render_calls([Call(c.name, a) for c, a in zip(calls, smaller, strict=True)])
    extra_key = _unused_parameter(first.name, first.arguments, functions)
    if extra_key is not None:
        larger = copy.deepcopy(arguments)
        larger[0][extra_key[0]] = extra_key[1]
        yield "key added", render_calls([Call(c.name, a) for c, a in zip(calls, larger, strict=True)])
    yield "duplicated call", render_calls([*calls, first])
    others = [f["name"] for f in functions if isinstance(f.get("name"), str) and f["name"] != first.name]
    extra = Call(others[0] if others else first.name, {})
    yield "extra call", render_calls([*calls, extra])
    padded: list[Call] = []
    for call in calls:  # before each call, argument-less calls of the item's other tools (or its own)
        padded += [Call(name, {}) for name in (others[:2] or [first.name])] + [call]
    yield "padded with no-op calls", render_calls(padded)
    if len(calls) >= 2:
        yield "call left out", render_calls(calls[:-1])


def _list_variants(arguments: list[dict[str, Any]]) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    for path, value in _containers(arguments):
        if isinstance(value, list) and value:
            yield "list element dropped", replaced(arguments, path, value[:-1])
            yield "list element repeated", replaced(arguments, path, [*value, value[-1]])
            return


def _containers(value: Any, path: Path_ = ()) -> Iterator[tuple[Path_, Any]]:
    if path and isinstance(value, (list, dict)):
        yield path, value
    if isinstance(value, Mapping):
        for key, inner in value.items():
            yield from _containers(inner, (*path, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            yield from _containers(inner, (*path, index))


def _unused_parameter(name: str, given: Mapping[str, Any], functions: Sequence[Mapping[str, Any]]
                      ) -> tuple[str, Any] | None:
    """A parameter of the tool's schema that the answer does not give, with a value of its type."""
    schema = next((f for f in functions if f.get("name") == name), None)
    properties = ((schema or {}).get("parameters") or {}).get("properties") or {}
    samples = {"string": "extra", "integer": 1, "number": 1.5, "boolean": True, "array": ["extra"],
               "object": {"extra": "extra"}}
    for key, declaration in properties.items():
        if key not in given:
            kind = declaration.get("type") if isinstance(declaration, Mapping) else None
            return key, samples.get(kind if isinstance(kind, str) else "", "extra")
    return "not_a_parameter", "extra"


# -- special categories ----------------------------------------------------------------------------------


def special_variants(category: str, answer: Any, functions: Sequence[Mapping[str, Any]]) -> Iterator[tuple[str, str]]:
    canonical = canonical_special(category, answer)
    tool = next((f["name"] for f in functions if isinstance(f.get("name"), str)), "some_tool")
    yield "empty string", ""
    yield "a call beside the refusal", f"[{tool}()] {canonical}"
    if "incomplete" in category:
        api, names = next(iter(answer.items()))
        everything = sorted({str(key) for f in functions for key in
                             (((f.get("parameters") or {}).get("properties")) or {})} | {n.strip() for n in names})
        yield "every parameter named (superset)", (f'["{INCOMPLETE_PHRASE} ({", ".join([*everything, "extra"])}) '
                                                   f'for the api ({api})"]')
        if len(names) >= 2:
            yield "a missing name left out (subset)", canonical_special(category, {api: names[:-1]})
        yield "API named by a longer name (superset)", canonical_special(category, {api + "X": names})
        yield "API named by a shorter name (substring)", canonical_special(category, {api[:-1]: names})
        yield "phrase alone", f'["{INCOMPLETE_PHRASE}"]'
    elif "error" in category:
        yield "a value named by a longer text (superset)", canonical_special(
            category, {k: [f"{v[0]} and more"] for k, v in answer.items()})
        yield "a value named by a shorter text (substring)", canonical_special(
            category, {k: [v[0][:-1] or "x"] for k, v in answer.items()})
        yield "wrong parameter named", canonical_special(category, {f"{k}X": v for k, v in answer.items()})
        yield "extra values named (superset)", canonical_special(
            category, {**answer, "another_parameter": ["another value"]})
        yield "phrase alone", f'["{ERROR_PHRASE}"]'
    else:
        yield "phrase inside a call's text", f"[{tool}(note='{IRRELEVANT_PHRASE}')]"
        yield "phrase misspelled", '["Due to the limitation of the functions, I cannot solve this problem."]'


# -- agent categories: end states ------------------------------------------------------------------------


def agent_variants(gold: Sequence[Mapping[str, Any]], state: list[dict[str, Any]]
                   ) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """Adversarial end states: leaves the gold compares changed, objects grown, records renamed, classes
    misspelled or repeated."""
    classes = {name: index for index, entry in enumerate(state) for name in entry}
    compared = _compared_leaves(gold, classes)
    seen_kinds: set[str] = set()
    for path in compared:
        node: Any = state
        for step in path:
            node = node[step]
        for kind, new in value_variants(node):
            if kind not in seen_kinds:
                seen_kinds.add(kind)
                yield kind, replaced(state, path, new)
    yield from _record_variants(state, classes, compared)
    first = next(iter(state[0]))
    misspelled = first[:-2] + first[-2:].upper() if first[-2:].upper() != first[-2:] else first + "s"
    yield "misspelled class", [{misspelled: state[0][first]}, *state[1:]]
    yield "class repeated", [*state, copy.deepcopy(state[0])]


def _compared_leaves(gold: Sequence[Mapping[str, Any]], classes: Mapping[str, int]) -> list[Path_]:
    """The paths (into the end state) of every leaf the gold compares, its class names matched as ACEBench
    matches them (case-insensitively)."""
    compared: list[Path_] = []
    for entry in gold:
        for name, attributes in entry.items():
            real = name if name in classes else next((c for c in classes if c.lower() == str(name).lower()), None)
            if real is None or not isinstance(attributes, Mapping):
                continue
            for attribute, want in attributes.items():
                for inner, _ in leaves(want):
                    compared.append((classes[real], real, attribute, *inner))
    return compared


def _record_variants(state: list[dict[str, Any]], classes: Mapping[str, int], compared: list[Path_]
                     ) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """The first compared object of records grown by one record, and with a record renamed."""
    objects = [(classes[c], c, a) for c in classes for a, v in state[classes[c]][c].items()
               if isinstance(v, dict) and v and any(p[:3] == (classes[c], c, a) for p in compared)]
    if objects:
        index, name, attribute = objects[0]
        records = state[index][name][attribute]
        key, value = next(iter(records.items()))
        yield "extra record (superset)", replaced(state, (index, name, attribute), {**records, f"{key}9": value})
        renamed = {(_other_char(str(k)) if k == key else k): v for k, v in records.items()}
        yield "wrong id (record renamed)", replaced(state, (index, name, attribute), renamed)


# -- tallies ---------------------------------------------------------------------------------------------


def tally_category(data: Path, category: str) -> Tally:
    prompts = read_jsonl(data / f"data_{category}.json")
    answers = {a["id"]: a["ground_truth"] for a in read_jsonl(data / "possible_answer" / f"data_{category}.json")}
    tally = Tally(category)
    for prompt in prompts:
        item, functions = prompt["id"], prompt.get("function") or []
        answer = answers[item]
        variants = (special_variants(category, answer, functions) if category in SPECIAL_CATEGORIES
                    else normal_variants(answer, functions))
        for kind, output in variants:
            tally.add(item, kind, output, check_item(category, functions, output, answer, "compat").valid,
                      check_item(category, functions, output, answer, "strict").valid)
    return tally


def tally_agent(data: Path, category: str, replays: Mapping[str, tuple[list[dict[str, Any]], list[str]]]) -> Tally:
    """`replays`: task id -> (the end state its gold path leaves, that path), for reproduced tasks."""
    prompts = read_jsonl(data / f"data_agent_{category}.json")
    answers = read_jsonl(data / "possible_answer" / f"data_agent_{category}.json")
    by_id = {a["id"]: a for a in answers}
    tally = Tally(f"agent_{category}")
    for prompt in prompts:
        item = prompt["id"]
        if item not in replays:
            continue
        state, path = replays[item]
        gold = by_id[item]["ground_truth"]
        reads = ["[get_latest_message_id()]", "[view_reminder_by_title(title='x')]"]
        padded = [message for step in path for message in (*reads, step)]
        for kind, changed in agent_variants(gold if isinstance(gold, list) else [gold], state):
            verdicts = [score_agent([prompt], answers, {item: {"result": changed, "process": padded}},
                                    f"agent_{category}", mode).items[0]["valid"] for mode in ("compat", "strict")]
            tally.add(item, kind, repr(changed), verdicts[0], verdicts[1])
    return tally


def perfect_agent(data: Path, category: str, replays: Mapping[str, tuple[list[dict[str, Any]], list[str]]],
                  mode: str) -> float:
    prompts = [p for p in read_jsonl(data / f"data_agent_{category}.json") if p["id"] in replays]
    answers = read_jsonl(data / "possible_answer" / f"data_agent_{category}.json")
    results = {item: {"result": state, "process": path} for item, (state, path) in replays.items()}
    return score_agent(prompts, answers, results, f"agent_{category}", mode).accuracy  # type: ignore[arg-type]



def main() -> None:
    """Print the corpus per category: answers tried, passed by compat (the reference), passed by strict.
    `TOOLWORLDS_DATA=... PYTHONPATH=. python -m tests.reward_hacking`"""
    from evaluators.acebench import NORMAL_CATEGORIES
    from scenarios.acebench.replay import diagnose
    from scenarios.acebench.tasks import load_tasks
    from scenarios.datasets import dataset_dir

    root = dataset_dir("acebench")
    if root is None:
        raise SystemExit("ACEBench data not found (TOOLWORLDS_DATA)")
    replays = {}
    for task in load_tasks(root):
        found = diagnose(task) if task.category in ("multi_step", "multi_turn") else None
        if found is not None and found.reproduced and found.chosen is not None:
            replays[task.id] = (found.chosen.end_state, task.paths[found.chosen.index])
    tallies = [tally_category(root / "data_en", c) for c in NORMAL_CATEGORIES + SPECIAL_CATEGORIES]
    tallies += [tally_agent(root / "data_en", c, replays) for c in ("multi_turn", "multi_step")]
    print(f"{'category':38} {'items':>5} {'answers':>7} {'compat':>6} {'strict':>6}")
    for t in tallies:
        print(f"{t.category:38} {len(t.items):5} {t.total:7} {sum(t.compat.values()):6} {sum(t.strict.values()):6}")
    kinds = sorted({k for t in tallies for k in t.tried})
    print(f"\n{'kind':44} {'answers':>7} {'compat':>6} {'strict':>6}")
    for kind in kinds:
        print(f"{kind:44} {sum(t.tried.get(kind, 0) for t in tallies):7} "
              f"{sum(t.compat.get(kind, 0) for t in tallies):6} {sum(t.strict.get(kind, 0) for t in tallies):6}")


if __name__ == "__main__":
    main()
