"""Run the same random calls on ACEBench's own world classes and on ours, and classify where they differ.

    python scripts/diff_reference.py --reference /tmp/aceref [--calls N] [--seed S] [--lang en|zh] [--strict]

`--reference` is the root of an extracted ACEBench checkout (`git archive HEAD | tar -x`);
its world classes are imported from there at run time and nothing of it is kept here.
Each episode starts both sides from the same random device config and draws calls
against our world's current state (ids, names and passwords that exist, mostly), then
varies one argument of some calls: an integer as numeric text ("3"), an optional
parameter as explicit null or "", or a value of the wrong JSON type. A call diverges
when one side succeeds and the other does not, or when the states afterwards differ
(mapped to the reference's attributes). The first divergence ends the episode, so each
one is caused by a single call. The table groups divergences into classes (see
`divergence_class`); documented classes name their row of docs/compatibility.md.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import functools
import importlib
import io
import json
import random
import sys
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console
from rich.table import Table

from sandbox import World
from sandbox.testing.arguments import drawing_order, parameters
from sandbox.testing.fuzzing import ValuePool, valid_value
from sandbox.testing.outcomes import outcome
from scenarios.acebench import ALL_CLASSES, acebench_world

# The reference's modules, and the attributes of each class that a comparison reads.
MODULES = {"BaseApi": "phone_platform.base_api", "MessageApi": "phone_platform.message",
           "ReminderApi": "phone_platform.reminder", "FoodPlatform": "phone_platform.food_services",
           "Travel": "travel"}
COMPARED = {"BaseApi": ("wifi", "logged_in"), "MessageApi": ("inbox", "message_id_counter"),
            "ReminderApi": ("reminder_list", "reminder_id_counter"),
            "FoodPlatform": ("users", "logged_in_users", "orders"), "Travel": ("users", "reservations", "flights")}
VARIANTS = ("valid", "numeric_text", "null_optional", "empty_optional", "wrong_type")
WRONG_VALUES: tuple[Any, ...] = (7, 2.0, 2.5, True, False, None, "abc", ["x"], {"k": "v"})

Reference = dict[str, Any]  # class name -> instance of the reference's class


@dataclass(frozen=True)
class Variant:
    """Which argument a call varies, and how (`kind` is one of VARIANTS)."""

    kind: str = "valid"
    path: str = ""
    declared: str = ""
    value: Any = None


@dataclass(frozen=True)
class Side:
    outcome: str  # succeeded, refused, invalid, crashed
    detail: str


@dataclass(frozen=True)
class Divergence:
    tool: str
    arguments: dict[str, Any]
    variant: Variant
    reference: Side
    ours: Side
    states_differ: bool
    writes: bool = True  # whether the tool may change the state (ours is `mutates`)


@dataclass
class Report:
    calls: int = 0
    episodes: int = 0
    variants: Counter[str] = field(default_factory=Counter)
    classes: Counter[str] = field(default_factory=Counter)
    examples: dict[str, Divergence] = field(default_factory=dict)

    def add(self, divergence: Divergence) -> None:
        row = documented_row(divergence)
        key = f"documented: {row}" if row else divergence_class(divergence)
        self.classes[key] += 1
        self.examples.setdefault(key, divergence)


# -- the reference side ---------------------------------------------------------------------------

def load_reference_classes(root: Path, lang: str) -> dict[str, type]:
    """The reference's five world classes for `lang`, imported from an extracted ACEBench tree."""
    if not (root / "model_inference").is_dir():
        raise SystemExit(f"{root} is not an extracted ACEBench tree (no model_inference/ inside)")
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    package = f"model_inference.multi_turn.scenarios{lang}"
    return {name: getattr(importlib.import_module(f"{package}.{module}"), name) for name, module in MODULES.items()}


def reference_world(classes: Mapping[str, type], config: Mapping[str, Any]) -> Reference:
    """Every class built and loaded as the reference harness does: its own config, then BaseApi's."""
    instances = {}
    for name, cls in classes.items():
        instance = cls()
        instance._load_scenario(copy.deepcopy(config.get(name, {})))
        instance._load_scenario(copy.deepcopy(config.get("BaseApi", {})))
        instances[name] = instance
    return instances


def run_reference(instances: Reference, tool: str, arguments: Mapping[str, Any]) -> tuple[Any, str | None]:
    """The last result of the call on every instance that has the method (the harness broadcasts), or the crash."""
    holders = [inst for inst in instances.values() if callable(getattr(inst, tool, None))]
    if not holders:
        return None, f"no method {tool}"
    result: Any = None
    for instance in holders:
        try:
            with contextlib.redirect_stdout(io.StringIO()):  # the reference prints refunds and unknown users
                result = getattr(instance, tool)(**copy.deepcopy(dict(arguments)))
        except Exception as exc:  # the reference crashing is an outcome to compare
            return None, f"{type(exc).__name__}: {exc}"
    return result, None


def reference_state(instances: Reference) -> dict[str, Any]:
    return {name: {attr: getattr(inst, attr, None) for attr in COMPARED[name]} for name, inst in instances.items()}


# -- our side ---------------------------------------------------------------------------------------

def our_state(world: World) -> dict[str, Any]:
    state = world.state()
    return {name: {attr: state[name].get(attr) for attr in attrs} for name, attrs in COMPARED.items() if name in state}


def canonical(value: Any) -> Any:
    """JSON-shaped, with numbers compared by value (1200 == 1200.0) but booleans kept apart from numbers."""
    if isinstance(value, dict):
        return {str(key): canonical(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [canonical(item) for item in value]
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, float)):
        return ("number", float(value))
    return ("object", repr(value))


# -- drawing calls ----------------------------------------------------------------------------------

def draw_call(world: World, tool: str, rnd: random.Random, pool: ValuePool) -> dict[str, Any]:
    """Arguments for `tool` drawn mostly from what exists in the world now (ids, names, passwords)."""
    spec = world.tools[tool]
    schema = spec.parameters.get("properties", {})
    arguments: dict[str, Any] = {}
    for param in drawing_order(parameters(spec)):
        if not param.required and rnd.random() < 0.4:
            continue
        existing = [value for ref in param.refs for value in ref.values(world, arguments)]
        if param.key == "items":
            arguments[param.key] = _order_items(world, arguments, rnd)
        elif existing and rnd.random() < 0.85:
            arguments[param.key] = rnd.choice(existing)
        elif not param.refs and _declared(schema.get(param.key, {})) == "integer":
            arguments[param.key] = rnd.randint(0, 4)  # bag counts: small, so payments can succeed
        else:
            arguments[param.key] = valid_value(schema.get(param.key, {}), rnd, pool)
    return arguments


def _order_items(world: World, arguments: Mapping[str, Any], rnd: random.Random) -> list[dict[str, Any]]:
    merchants = world.state().get("FoodPlatform", {}).get("merchant_list", {})
    menu = merchants.get(arguments.get("merchant_name"), {}).get("menu", [])
    products = [entry["product"] for entry in menu] or ["Nothing"]
    return [{"product": rnd.choice(products), "quantity": rnd.randint(1, 3)} for _ in range(rnd.randint(1, 2))]


def vary(world: World, tool: str, arguments: dict[str, Any], kind: str, rnd: random.Random) -> Variant:
    """Change one argument as `kind` says (in place); `valid` when the tool has nothing of that kind."""
    schema = world.tools[tool].parameters
    properties, required = schema.get("properties", {}), set(schema.get("required", ()))
    slots = list(_slots(properties, required, arguments))
    if kind == "numeric_text":
        slots = [s for s in slots if s[2] == "integer" and isinstance(s[3], int) and not isinstance(s[3], bool)]
    elif kind in ("null_optional", "empty_optional"):
        slots = [s for s in slots if not s[4]]
    if not slots or kind == "valid":
        return Variant()
    path, container, declared, current, _ = rnd.choice(slots)
    key: Any = path.rsplit(".", 1)[-1]
    key = int(key) if isinstance(container, list) else key
    if kind == "numeric_text":
        value: Any = str(current)
    elif kind == "null_optional":
        value = None
    elif kind == "empty_optional":
        value = ""
    else:
        value = rnd.choice([v for v in WRONG_VALUES if _json_kind(v) != declared and not
                            (declared == "number" and _json_kind(v) == "integer")])
    container[key] = value
    return Variant(kind, path, declared, value)


def _slots(properties: Mapping[str, Any], required: set[str], arguments: dict[str, Any]
           ) -> Iterator[tuple[str, Any, str, Any, bool]]:
    """(path, container, declared JSON type, current value, required) for each argument, items' fields included."""
    for name, sub in properties.items():
        declared = _declared(sub)
        if name not in arguments:
            if name not in required:  # an optional parameter left out: null and '' variants may give it
                yield name, arguments, declared, None, False
            continue
        yield name, arguments, declared, arguments[name], name in required
        if declared == "array" and isinstance(arguments[name], list):
            fields = sub.get("items", {}).get("properties", {})
            for index, item in enumerate(arguments[name]):
                for field_name, field_schema in fields.items():
                    if isinstance(item, dict) and field_name in item:
                        yield (f"{name}.{index}.{field_name}", item, _declared(field_schema), item[field_name],
                               field_name in sub["items"].get("required", ()))


def _declared(schema: Mapping[str, Any]) -> str:
    kinds = [option.get("type") for option in schema.get("anyOf", [schema]) if option.get("type") != "null"]
    return str(kinds[0]) if kinds else ("string" if "enum" in schema else "any")


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    return {float: "number", str: "string", list: "array", dict: "object"}[type(value)]


# -- comparing --------------------------------------------------------------------------------------

def compare_call(world: World, instances: Reference, tool: str, arguments: dict[str, Any],
                 variant: Variant) -> Divergence | None:
    """Run the call on both sides; the divergence, or None when they agree."""
    ref_result, crash = run_reference(instances, tool, arguments)
    record = world.call(tool, copy.deepcopy(arguments))
    ours = Side(outcome(world, record), _shown(record.error.message if record.error else record.result))
    if crash is not None:
        reference = Side("crashed", crash)
    else:
        app = world.apps[record.app] if record.app in world.apps else next(iter(world.apps.values()))
        reference = Side("refused" if app.refused(ref_result) else "succeeded", _shown(ref_result))
    differ = canonical(reference_state(instances)) != canonical(our_state(world))
    if (reference.outcome == "succeeded") == (ours.outcome == "succeeded") and not differ:
        return None
    return Divergence(tool, arguments, variant, reference, ours, differ, world.tools[tool].mutates)


def _shown(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= 90 else text[:87] + "..."


def divergence_class(d: Divergence) -> str:
    """A divergence's class: what was given, the role of the parameter it was given for, and both outcomes.

    Roles: an integer that names something in the state is an `id`, an order line's
    `quantity` is itself, any other integer a `count`; text with a fixed set of values is
    a `choice`; other text read by a tool that only reads is `looked-up text`, given to a
    tool that writes `written text`. Well-formed (`valid`) calls are classed by tool.
    """
    outcomes = f"reference {d.reference.outcome}, ours {d.ours.outcome}"
    variant = d.variant
    if variant.kind == "valid":
        return f"valid {d.tool}: {outcomes}"
    field_name = variant.path.rsplit(".", 1)[-1]
    role = _role(field_name, variant.declared, d.writes)
    return f"{_given(variant)} as {role}: {outcomes}"


def _role(field_name: str, declared: str, writes: bool) -> str:
    if field_name == "quantity":
        return "quantity"
    if declared == "integer":
        return "id" if field_name in ("message_id", "reminder_id") else "count"
    if field_name in CHOICES:
        return "choice"
    return "written text" if writes else "looked-up text"


def _given(variant: Variant) -> str:
    if variant.kind != "wrong_type":
        return {"numeric_text": "numeric text", "null_optional": "null", "empty_optional": "''"}[variant.kind]
    kind = _json_kind(variant.value)
    if variant.declared == "string":
        return "non-text"
    if kind == "boolean":
        return "boolean"
    if kind == "number":
        return "integral float" if float(variant.value).is_integer() else "fraction"
    return "non-number"


# Argument-handling classes, by the number of their row in docs/compatibility.md ("Arguments the reference
# takes as they come").
ARGUMENT_ROWS: dict[str, str] = {
    "numeric text as id": "A1", "numeric text as count": "A2", "'' as choice": "A3", "null as count": "A4",
    "'' as count": "A4", "boolean as count": "A5", "boolean as id": "A5", "integral float as count": "A6",
    "integral float as id": "A6", "fraction as count": "A7", "non-text as looked-up text": "A8",
    "non-text as written text": "A9",
}


def argument_row(key: str) -> str | None:
    """The argument-handling row of docs/compatibility.md for a class key, if one explains it."""
    return ARGUMENT_ROWS.get(key.split(":", 1)[0])

CHOICES = frozenset({"new_payment_method"})  # text parameters with an enum in our schema


def documented_row(d: Divergence) -> str | None:
    """The row of docs/compatibility.md that explains a divergence, if one does."""
    for applies, row in DOCUMENTED:
        if applies(d):
            return row
    return None


def _is(tool: str, kind: str = "valid") -> Callable[[Divergence], bool]:
    return lambda d: d.tool == tool and d.variant.kind == kind


# Divergences docs/compatibility.md explains, each with the row that does (first match wins).
DOCUMENTED: tuple[tuple[Callable[[Divergence], bool], str], ...] = (
    (lambda d: d.variant.path.endswith("quantity") and d.variant.kind == "numeric_text",
     "Fixed: add_food_delivery_order quantity"),
    (lambda d: d.tool in ("get_latest_message_id", "get_earliest_message_id", "get_all_message_times_with_ids")
     and "KeyError" in d.reference.detail, "Fixed: message times crash once a message was sent"),
    (_is("check_balance"), "Fixed: check_balance of an unknown user"),
    (lambda d: d.tool == "check_balance" and d.variant.kind == "wrong_type" and d.reference.detail == "0.0",
     "Fixed: check_balance of an unknown user"),
    (_is("cancel_reservation"), "Fixed: cancelling (lifecycle, refund of the fare paid, to the payment method, seat)"),
    (lambda d: d.tool == "modify_flight" and "Invalid cabin class" in d.ours.detail,
     "Fixed: modify_flight with an unknown cabin"),
    (lambda d: d.tool == "modify_flight" and "new_payment_method" in d.variant.path and d.variant.kind == "wrong_type",
     "Fixed: modify_flight with an invalid payment method"),
    (lambda d: d.tool == "modify_flight" and d.variant.kind == "valid" and "baggage" in d.reference.detail.lower(),
     "Fixed: added bags (charged once, not added when unpaid)"),
)


ReferenceFactory = Callable[[Mapping[str, Any]], Reference]


def run(reference: ReferenceFactory, calls: int, seed: int, lang: str = "en", strict: bool = False,
        episode_length: int = 25, tools: Sequence[str] | None = None) -> Report:
    """`calls` calls in episodes of at most `episode_length`; `reference(config)` builds the other side.

    `tools` limits the calls to those tools (default: every tool both sides have).
    """
    rnd = random.Random(seed)
    report = Report()
    while report.calls < calls:
        report.episodes += 1
        config = {"BaseApi": {"wifi": rnd.random() < 0.8, "logged_in": rnd.random() < 0.8}}
        world = acebench_world(ALL_CLASSES, lang=lang, initial_config=config, coercion="strict" if strict else "lax")
        instances = reference(config)
        pool = ValuePool.of(world)
        shared = sorted(name for name in tools or world.tools
                        if any(callable(getattr(instance, name, None)) for instance in instances.values()))
        for _ in range(episode_length):
            if report.calls >= calls:
                break
            tool = rnd.choice(shared)
            arguments = draw_call(world, tool, rnd, pool)
            variant = vary(world, tool, arguments, rnd.choice(VARIANTS), rnd)
            report.calls += 1
            report.variants[variant.kind] += 1
            divergence = compare_call(world, instances, tool, arguments, variant)
            if divergence is not None:
                report.add(divergence)
                break
    return report


def print_report(report: Report, console: Console, title: str) -> None:
    table = Table(title=title, show_lines=True)
    for column in ("class", "count", "documented", "example"):  # documented: yes, the argument row's number, or NO
        table.add_column(column, overflow="fold")
    for key, count in sorted(report.classes.items(), key=lambda kv: (kv[0].startswith("documented"), kv[0])):
        d = report.examples[key]
        example = (f"{d.tool}({json.dumps(d.arguments, ensure_ascii=False)})\n"
                   f"reference: {d.reference.detail}\nours: {d.ours.detail}")
        table.add_row(key, str(count), "yes" if key.startswith("documented") else argument_row(key) or "NO", example)
    console.print(table)
    undocumented = sum(1 for key in report.classes if not key.startswith("documented") and argument_row(key) is None)
    console.print(f"{report.calls} calls in {report.episodes} episodes ({dict(report.variants)}); "
                  f"{len(report.classes)} classes, {undocumented} undocumented", highlight=False)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reference", type=Path, required=True, help="root of an extracted ACEBench tree")
    parser.add_argument("--calls", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--lang", choices=("en", "zh"), default="en")
    parser.add_argument("--strict", action="store_true", help="our world with strict coercion")
    parser.add_argument("--tools", nargs="+", help="call only these tools")
    args = parser.parse_args(argv)
    classes = load_reference_classes(args.reference.resolve(), args.lang)
    report = run(functools.partial(reference_world, classes), args.calls, args.seed, args.lang, args.strict,
                 tools=args.tools)
    mode = "strict" if args.strict else "lax"
    print_report(report, Console(width=200), f"ACEBench {args.lang} ({mode}) vs reference: seed {args.seed}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
