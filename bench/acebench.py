"""ACEBench worlds benchmark: gold-path replay, per-message cost, world build and fork.

Run: python bench/acebench.py [--data DIR] [--lang en]
Targets (issue #3): <= 40 us per agent message (parse + validated, logged execution),
<= 15 us to fork the five-app world. Issue 12: with --acebench PATH (an extracted ACEBench
repository) the reference's own message path and five-instance build are timed in the same
run, and ours must be >= 5x faster per message (issue 41: in CPU time, which both message loops read) and no
slower to build. A second per-message row times both sides on the messages the reference reads (it raises on
some before running anything, so its time for them is the time to fail): the like-for-like ratio. A third runs
the same messages on worlds whose states were made their own before the clock: the share of copy-on-write.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pydantic import BaseModel
from rich.console import Console
from rich.table import Table
from timing import per_op_us

from sandbox import World, parse_message
from sandbox.calllog import CallRecord
from sandbox.input_limits import DEFAULT_LIMITS
from sandbox.parsing import _ast_brackets, _fast_brackets
from scenarios.acebench import ALL_CLASSES, acebench_world
from scenarios.acebench.replay import FailureReader, diagnose
from scenarios.acebench.tasks import load_tasks
from scenarios.acebench.texts import texts_for
from scenarios.datasets import dataset_dir


def median_us(op, *, batch: int = 200, rounds: int = 40) -> float:
    return per_op_us(op, batch=batch, rounds=rounds)[0]


def materialized(world: World) -> World:
    """`world` with every app's state, down to its last entity, its own: read whole through the state's own
    containers before the clock starts, as the reference's instances are built whole before its clock. A
    fresh world copies what a message first writes (and gives back what it only read) inside the clock;
    these rounds show what a message costs without that."""
    def walk(value: Any) -> None:
        if isinstance(value, dict):
            items: Any = value.values()
        elif isinstance(value, list):
            items = value
        elif isinstance(value, BaseModel):
            items = [getattr(value, name) for name in type(value).model_fields]
        else:
            return
        for item in items:
            walk(item)

    for app in world.apps.values():
        walk(app.state)
    return world


def floor_round(tasks, messages) -> float:  # type: ignore[no-untyped-def]
    """One round of the floor of our stack, per message in microseconds: the message parsed (`parse_message`,
    the reading every path needs) and each call's tool body run on its app, on states already the apps' own
    (taken and read whole before the clock), with its keyword arguments made before the clock (the argument
    models a tool takes built, as pydantic would): no argument check, no journal, no claim or give-back, no
    result conversion, no record. What is left is the tools' own work on pydantic state models (their entities
    validated as they build them) plus the parse: what no engine on this stack can skip."""
    prepared = {}
    for task in tasks:
        world = task.world()
        for app in world.apps.values():
            app.state  # noqa: B018 - taken as the app's own outside any call, before the clock
        prepared[task.id] = materialized(world)
    bodies = []
    for task, message in messages:
        world = prepared[task.id]
        ready = []
        for call in parse_message(message).calls:
            made = world._prepare(call.name, call.arguments)
            if isinstance(made, CallRecord):
                continue  # refused before any tool runs (its record, itself a tuple): the reference refuses too
            spec, _, kwargs, _ = made
            ready.append((spec.function, world.apps[spec.app], kwargs))
        bodies.append((message, ready))
    gc.disable()
    start = time.process_time_ns()
    for message, ready in bodies:
        parse_message(message)
        for function, app, kwargs in ready:
            try:
                function(app, **kwargs)
            except Exception:  # a tool's refusal (`ToolError`) is its work too: the engine would record it
                continue
    elapsed = (time.process_time_ns() - start) / len(messages) / 1000
    gc.enable()
    return elapsed


def ours_round(tasks, messages, own: bool) -> float:  # type: ignore[no-untyped-def]
    """One round of our message path, per message in microseconds: each message parsed and executed in its
    task's world, built before the clock (fresh, or with every state its own when `own`: `materialized`)."""
    prepared = {task.id: materialized(task.world()) if own else task.world() for task in tasks}
    gc.disable()
    start = time.process_time_ns()
    for task, message in messages:
        prepared[task.id].execute(parse_message(message).calls)
    elapsed = (time.process_time_ns() - start) / len(messages) / 1000
    gc.enable()
    return elapsed


def reference_build(root: Path, lang: str):  # type: ignore[no-untyped-def]
    """The reference's five instances built fresh, imported from an extracted ACEBench copy."""
    sys.path.insert(0, str(root))
    package = f"model_inference.multi_turn.scenarios{lang}"
    import importlib

    classes = [getattr(importlib.import_module(f"{package}.{module}"), name) for module, name in (
        ("phone_platform.base_api", "BaseApi"), ("phone_platform.message", "MessageApi"),
        ("phone_platform.reminder", "ReminderApi"), ("phone_platform.food_services", "FoodPlatform"),
        ("travel", "Travel"))]
    return lambda: [cls() for cls in classes]


def reference_messages(root: Path, lang: str, tasks, messages, prefix: str = "bench"):  # type: ignore[no-untyped-def]
    """One timed round of the reference's own message path, per message in microseconds.

    For each gold message this is what ACEBench's multi-turn loop does when the agent speaks:
    `EXECUTION.respond` decodes the call text with `ast`, renders it back to call strings,
    maps method names onto the task's instances (kept between turns in the module's globals)
    and runs each one, then JSON-decodes the results. Each round uses fresh instances, built
    and configured before the clock starts, as our worlds are; a message the reference cannot
    read (an unescaped apostrophe) raises there and is counted, its time included; a round returns its time and
    the positions of the messages that raised. `prefix` keeps one caller's instances apart from another's.
    """
    sys.path.insert(0, str(root))
    import importlib

    role = importlib.import_module("model_inference.multi_turn.execution_role")
    utils = importlib.import_module("model_inference.multi_turn.multi_turn_utils")
    rounds = iter(range(1_000_000))

    def one_round() -> tuple[float, list[int]]:
        model = f"{prefix}_round_{next(rounds)}"  # the globals key: a new model name means new instances
        executors = {}
        for task in tasks:
            executors[task.id] = role.EXECUTION(model, task.initial_config, task.involved_classes, task.id, lang)
            utils.execute_agent_func_call([], task.initial_config, task.involved_classes, model, task.id, lang)
        raised = []
        gc.disable()
        start = time.process_time_ns()
        for at, (task, message) in enumerate(messages):
            try:
                executors[task.id].respond([{"sender": "agent", "recipient": "execution", "message": message}])
            except Exception:
                raised.append(at)
        elapsed = (time.process_time_ns() - start) / len(messages) / 1000
        gc.enable()
        return elapsed, raised

    return one_round


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=None)
    parser.add_argument("--lang", default="en")
    parser.add_argument("--acebench", type=Path, default=os.environ.get("ACEBENCH_REF"),
                        help="an extracted ACEBench repository, for the reference's five-app build")
    args = parser.parse_args()
    data = args.data or dataset_dir("acebench")
    if data is None:
        sys.exit("no ACEBench data: pass --data or set TOOLWORLDS_DATA")
    tasks = load_tasks(data, lang=args.lang)
    reader = FailureReader(texts_for(args.lang))
    messages = [(task, message) for task in tasks for path in task.paths for message in path]

    runs = []
    for _ in range(7):
        start = time.perf_counter()
        results = [diagnose(task, reader) for task in tasks]
        runs.append(time.perf_counter() - start)
    reproduced = sum(r.reproduced for r in results)

    # Per message: parse + execute in a freshly built world (world build and scoring excluded);
    # with --acebench, the reference's own message path in the same rounds, interleaved.
    samples: list[float] = []
    owned_samples: list[float] = []
    reference_samples: list[float] = []
    floor_samples: list[float] = []
    # The messages the reference reads: on the others it raises before it runs anything, so its time for them is
    # the time to fail, against ours to repair and run them. Timed apart too, on both sides, for a like-for-like
    # ratio (each world then sees the same messages on both sides: a message left out changes neither).
    read_samples: list[float] = []
    read_reference_samples: list[float] = []
    raised: list[int] = []
    reference_round = reference_read_round = None
    read = messages
    if args.acebench:
        reference_round = reference_messages(args.acebench, args.lang, tasks, messages)
        _, raised = reference_round()  # a first round, untimed: which messages it cannot read
        unread = set(raised)
        read = [pair for at, pair in enumerate(messages) if at not in unread]
        reference_read_round = reference_messages(args.acebench, args.lang, tasks, read, prefix="bench_read")
    for _ in range(15):
        for kept, own, sent in ((samples, False, messages), (owned_samples, True, messages),
                                (read_samples, False, read)):
            if sent is read and reference_read_round is None:
                continue
            kept.append(ours_round(tasks, sent, own))
        floor_samples.append(floor_round(tasks, messages))
        if reference_round is not None and reference_read_round is not None:
            elapsed, raised = reference_round()
            reference_samples.append(elapsed)
            read_reference_samples.append(reference_read_round()[0])

    parse_only = median_us(lambda: [parse_message(message) for _, message in messages], batch=1, rounds=15)
    parse_only /= len(messages)
    # The bracket fast path against the full `ast` path alone, on the messages both read (the
    # fourteen with unescaped apostrophes need the repair pass, which is the same either way).
    readable = [message.strip() for _, message in messages if _fast_brackets(message.strip(), DEFAULT_LIMITS)]
    fast_us = median_us(lambda: [_fast_brackets(text, DEFAULT_LIMITS) for text in readable], batch=1, rounds=15)
    full_us = median_us(lambda: [_ast_brackets(text, DEFAULT_LIMITS) for text in readable], batch=1, rounds=15)
    fast_us, full_us = fast_us / len(readable), full_us / len(readable)

    five = acebench_world(ALL_CLASSES, lang=args.lang)
    table = Table(title=f"ACEBench {args.lang}: {len(tasks)} tasks, {len(messages)} gold messages")
    for column in ("measure", "value", "target / reference"):
        table.add_column(column)
    table.add_row("tasks reproduced", f"{reproduced}/{len(tasks)}", ">= 41/50")
    table.add_row(
        "replay all tasks (parse+execute+end state+compare)",
        f"{statistics.median(runs) * 1000:.1f} ms",
        "reference ~50 ms without scoring",
    )
    ours = f"{min(samples):.1f} / {statistics.median(samples):.1f} us"
    if reference_samples:
        ratio = statistics.median(reference_samples) / statistics.median(samples)
        table.add_row("per agent message (parse + execute), min / median of 15", ours,
                      f"reference {min(reference_samples):.1f} / {statistics.median(reference_samples):.1f} us in "
                      f"this run ({len(raised)} of its {len(messages)} raised): ratio {ratio:.1f}x (target >= 5)")
        read_ratio = statistics.median(read_reference_samples) / statistics.median(read_samples)
        table.add_row(f"  the same on the {len(read)} messages the reference reads (the {len(raised)} it raises on, "
                      "before running anything, left out on both sides)",
                      f"{min(read_samples):.1f} / {statistics.median(read_samples):.1f} us",
                      f"reference {min(read_reference_samples):.1f} / {statistics.median(read_reference_samples):.1f}"
                      f" us: ratio {read_ratio:.1f}x (target >= 5)")
    else:
        table.add_row("per agent message (parse + execute), min / median of 15", ours,
                      "<= 40 us; reference ~190 us (pass --acebench PATH to measure it side by side)")
    def beside_reference(label: str, samples: list[float], note: str) -> None:
        """A row of ours beside the reference's median, when it was measured in this run."""
        value = f"{min(samples):.1f} / {statistics.median(samples):.1f} us"
        if not reference_samples:
            table.add_row(label, value, "-")
            return
        ratio = statistics.median(reference_samples) / statistics.median(samples)
        table.add_row(label, value, f"ratio {ratio:.1f}x: {note}")

    beside_reference("  the same on worlds already their own (no first-write copies in the clock)", owned_samples,
                     "what a message costs with copy-on-write taken out")
    beside_reference("  floor: parse + the tool bodies alone on owned states (no check, journal, log)", floor_samples,
                     "the most any engine on this stack could reach; 5x needs "
                     f"{statistics.median(reference_samples or [0.0]) / 5:.1f} us")
    table.add_row("  of which parsing", f"{parse_only:.1f} us", "-")
    table.add_row(f"  bracket fast path, {len(readable)} messages it reads", f"{fast_us:.1f} us",
                  f"full ast path {full_us:.1f} us: ratio {full_us / fast_us:.1f}x")
    build = median_us(lambda: acebench_world(ALL_CLASSES, lang=args.lang), batch=20)
    if args.acebench is not None:
        reference = median_us(reference_build(args.acebench, args.lang), batch=20)
        table.add_row("fresh five-app world (a template's fork)", f"{build:.1f} us",
                      f"reference {reference:.1f} us in this run: ratio {reference / build:.1f}x (target >= 1)")
    else:
        table.add_row("fresh five-app world (a template's fork)", f"{build:.1f} us",
                      "reference 84 us (pass --acebench PATH to measure it side by side)")
    table.add_row("fork five-app world", f"{median_us(five.fork):.2f} us", "<= 15 us")
    Console().print(table)


if __name__ == "__main__":
    main()
