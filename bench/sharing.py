"""Structural sharing benchmark: what a fork's first write costs as the state grows, what an
RL-style reset + one call costs against the reference's deepcopy + call, and memory per world.

Run: python bench/sharing.py [--acebench /tmp/acebench-ref] [--worlds 10000]

`--acebench` (or ACEBENCH_REF) is an extracted copy of the ACEBench repository; its
MessageApi is imported from there for the reference columns, which are skipped without it.
Targets (issue 12): fork + first write at 100 KB within 3x of the same at 1 KB; reset +
send_message on MessageApi >= 5x faster than deepcopy of the reference instance + the call at
every size from 1 KB to 1 MB; 10,000 phone worlds with one message sent each <= 25 MB.
"""

from __future__ import annotations

import argparse
import copy
import gc
import json
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console
from rich.table import Table
from timing import interleaved_cpu_us, per_op_us

from sandbox import World
from scenarios.acebench.base import BaseApi
from scenarios.acebench.message import MessageApi

SIZES_KB = (1, 10, 100, 1000)
SEND = {"sender_name": "Eve", "receiver_name": "Frank", "message": "Dinner at 7?"}


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def inbox(kb: float) -> dict[int, dict[str, Any]]:
    """About `kb` KB of messages (in a JSON dump), the first six the reference's own."""
    messages: dict[int, dict[str, Any]] = {}
    size, index = 0, 1
    while size < kb * 1024 or index <= 6:
        text = f"Message {index}: see you at the meeting in Conference Room {index % 7}."
        messages[index] = {"sender_id": f"USR10{index % 6}", "receiver_id": f"USR10{(index + 1) % 6}",
                           "message": text, "time": f"2024-0{1 + index % 9}-1{index % 10}"}
        size += len(json.dumps(messages[index])) + len(str(index)) + 4
        index += 1
    return messages


def our_world(messages: dict[int, dict[str, Any]]) -> World:
    app = MessageApi()
    state = app.state.model_dump()
    state.update(inbox=messages, message_id_counter=len(messages), max_capacity=10**9)
    world = World([BaseApi(), MessageApi("en", state)])
    world.load({"BaseApi": {"wifi": True}})
    return world


def reference_instance(root: Path, messages: dict[int, dict[str, Any]]) -> Any:
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    from model_inference.multi_turn.scenariosen.phone_platform.message import MessageApi as Reference

    instance = Reference()
    instance.inbox = copy.deepcopy(messages)
    instance.message_id_counter, instance.max_capacity, instance.wifi = len(messages), 10**9, True
    return instance


def show(us: float) -> str:
    return f"{us / 1000:.2f} ms" if us >= 1000 else f"{us:.1f} us"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--acebench", type=Path, default=os.environ.get("ACEBENCH_REF"))
    parser.add_argument("--worlds", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    if args.acebench is None:
        print("no --acebench path (or ACEBENCH_REF): reference columns skipped")

    table = Table(title="fork + first write, and reset + send_message, by MessageApi state size")
    for column in ("state", "fork + first write", "x of 1 KB", "deepcopy of state", "ratio",
                   "reset + send (ours, CPU)", "deepcopy ref + send (CPU)", "ratio"):
        table.add_column(column)
    first_kb = None
    for kb in SIZES_KB:
        messages = inbox(kb)
        world = our_world(messages)
        size = len(json.dumps(world.state()["MessageApi"]))
        batch = 50 if kb < 100 else 5
        rounds = args.rounds

        def fork_write(world: World = world) -> None:
            world.fork().call("send_message", SEND)

        ours = per_op_us(fork_write, batch=batch, rounds=rounds)[0]
        first_kb = first_kb or ours
        state = world.app("MessageApi").read_only_state
        deep = per_op_us(lambda state=state: copy.deepcopy(state), batch=max(1, batch // 5), rounds=rounds)[0]
        snapshot = world.snapshot()

        def reset_send(world: World = world, snapshot: Any = snapshot) -> None:
            world.restore(snapshot)
            world.call("send_message", SEND)

        if args.acebench is not None:
            instance = reference_instance(args.acebench, messages)

            def reference(instance: Any = instance) -> None:
                copy.deepcopy(instance).send_message(**SEND)

            # In CPU time, the two taking turns (issue 41's targets: >= 2.5x at 1-2 KB, >= 5x from 10 KB).
            cpu = interleaved_cpu_us({"ours": (reset_send, batch), "ref": (reference, max(1, batch // 5))},
                                     rounds=rounds)
            reset, ref = cpu["ours"], cpu["ref"]
            ref_cells = (show(ref), f"{ref / reset:.1f}x")
        else:
            reset = interleaved_cpu_us({"ours": (reset_send, batch)}, rounds=rounds)["ours"]
            ref_cells = ("-", "-")
        table.add_row(f"{size / 1024:.1f} KB", show(ours), f"{ours / first_kb:.1f}x", show(deep),
                      f"{deep / ours:.1f}x", show(reset), *ref_cells)
    console = Console(width=200)
    console.print(table)
    console.print(reset_parts(args))
    # Last: building and freeing 10,000 worlds (and as many deepcopies) leaves a heap that slowed
    # whichever timing came next by half (the 1.8 KB row, when this ran first).
    console.print(measure_memory(args))
    print("ratio = baseline / ours (> 1: ours is faster); medians of timed batches")


def reset_parts(args: argparse.Namespace) -> Table:
    """Reset + send at the smallest size, against a writing call that does less than `send_message`.

    A refused `delete_message` (an id that does not exist) after the restore pays what every writing
    call on the phone's messages pays: the restore, the argument check, taking the message state as the
    world's own (its top and both collections copied, as after every reset), the device check, a
    lookup, a result and its record. `send_message` does all of that and more (three arguments, a new
    `Message`, two journaled writes), so that row is a floor under reset + send here, set beside the
    budget a 5x target leaves."""
    world = our_world(inbox(SIZES_KB[0]))
    snapshot = world.snapshot()
    unknown = {"message_id": 10**6}

    def restore() -> None:
        world.restore(snapshot)

    def restore_refused() -> None:
        world.restore(snapshot)
        world.call("delete_message", unknown)

    def restore_send() -> None:
        world.restore(snapshot)
        world.call("send_message", SEND)

    assert world.call("delete_message", unknown).result["status"] is False
    rows = [("restore alone", restore), ("restore + a refused delete_message (the floor)", restore_refused),
            ("restore + send_message", restore_send)]
    size = len(json.dumps(world.state()["MessageApi"])) / 1024
    timed = [(name, per_op_us(op, batch=200, rounds=args.rounds)[0]) for name, op in rows]
    table = Table(title=f"reset + send at {size:.1f} KB (the first row above), and what it cannot go below")
    for column in ("what", "time", "share of reset + send"):
        table.add_column(column)
    for name, us in timed:
        table.add_row(name, show(us), f"{us / timed[-1][1]:.0%}")
    if args.acebench is not None:
        instance = reference_instance(args.acebench, inbox(SIZES_KB[0]))
        ref = per_op_us(lambda: copy.deepcopy(instance).send_message(**SEND), batch=20, rounds=args.rounds)[0]
        budget = ref / 5
        table.add_row("deepcopy ref + send, / 5 (the 5x target's budget)", show(budget), f"{budget / timed[-1][1]:.0%}")
    return table


def measure_memory(args: argparse.Namespace) -> Table:
    """RSS of `--worlds` phone worlds (BaseApi + MessageApi) with one message sent in each."""
    table = Table(title=f"{args.worlds:,} live phone worlds, one message sent in each")
    for column in ("what", "RSS", "per world", "target"):
        table.add_column(column)
    world = our_world(inbox(1))
    gc.collect()
    before = rss_bytes()
    worlds = [world.fork() for _ in range(args.worlds)]
    for each in worlds:
        each.call("send_message", SEND)
    gc.collect()
    used = rss_bytes() - before
    table.add_row("ours (forks)", f"{used / 2**20:.1f} MB", f"{used / len(worlds) / 1024:.2f} KB", "<= 25 MB")
    del worlds, each
    gc.collect()
    if args.acebench is not None:
        instance = reference_instance(args.acebench, inbox(1))
        gc.collect()
        before = rss_bytes()
        copies = [copy.deepcopy(instance) for _ in range(args.worlds)]
        for each in copies:
            each.send_message(**SEND)
        gc.collect()
        used = rss_bytes() - before
        table.add_row("reference (deepcopies)", f"{used / 2**20:.1f} MB", f"{used / len(copies) / 1024:.2f} KB", "-")
        del copies
    return table


if __name__ == "__main__":
    main()
