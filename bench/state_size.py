"""What one writing call costs as the container it changes grows: a MessageApi inbox of 1 KB to 1 MB.

Run: python bench/state_size.py [--rounds 31]

Issue 41's targets: deleting a key from a dict of 1 MB of state <= 3x the same at 1 KB, and a fork +
first write at 1 MB <= 3x the same at 1 KB. Each row is timed at every size in the same run, in CPU
time, the sizes and operations taking turns (`interleaved_cpu_us`); the baseline is the row's own
figure at 1 KB.

The floor column is what no change to the call path can go below while state containers are Python
dicts: the row's figure at 1 KB plus one C-level copy of the inbox at that size (`dict.copy`, timed in
the same run). The first write to a dict shared with another world copies it (structural sharing
shares whole containers), and an order-exact undo of a delete needs the dict's order from before the
delete (a dict does not tell a key's position without a scan of its keys): one O(n) pass each. A row
at or near its floor is below the floor of the stack for a 3x target wherever the floor ratio is
itself above 3x. A delete near either end of a dict of its own (the first row: the third message)
finds the key's place with a short scan and copies nothing (`journal.PLACE_WITHIN`); one further in
(the second row) pays the copy.

That floor times the copy on its own, batch after batch, where the inbox it reads and the block it
writes stay in the CPU's caches. In a call the copy runs among the call's other work, which pushes
them out, and the work after it runs on caches the copy filled: a copy of the 1 MB inbox (about 6,800
entries, each a key and a value whose reference counts it raises, and lowers again when the copy is
freed) costs some 50 us there against 30 us alone. The in-situ floor column measures that: the row's
own operation at 1 KB with a copy of the inbox at that size made before it and freed after it, as one
timed operation. A row at its in-situ floor does no work that grows with the inbox but the one copy.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
from collections.abc import Callable
from itertools import cycle
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console
from rich.table import Table
from sharing import SEND, inbox, our_world, show
from timing import interleaved_cpu_us

from sandbox import journal

SIZES_KB = (1, 10, 100, 1000)
DELETED = 3  # a message near the start of the inbox: undo must put it back before all the others
ROWS = {
    "delete (world not forked)": "delete_message in a world whose inbox is its own; the message is put back "
                                 "outside any call",
    "delete further in (not forked)": "the same for a message too far from either end of the inbox for its "
                                      "place to be looked for (journal.PLACE_WITHIN): the dict is copied",
    "restore + delete": "an RL-style reset loop: restore a snapshot, delete a message",
    "fork + first write (send)": "fork, send_message, drop the fork",
    "fork + first write (delete)": "fork, delete_message, drop the fork",
}


def operations(kb: float) -> tuple[dict[str, Any], Any, int]:
    """The timed operations at one inbox size, the inbox itself and its size in bytes."""
    messages = inbox(kb)
    owned = our_world(messages)
    owned.call("send_message", SEND)  # its inbox is its own from now on
    app = owned.app("MessageApi")
    kept = app.read_only_state.inbox[DELETED]
    arguments = {"message_id": DELETED}

    def delete_owned() -> None:
        owned.call("delete_message", arguments)
        dict.__setitem__(app.read_only_state.inbox, DELETED, kept)  # back, outside any call: same size

    far_world = our_world(messages)
    far_world.call("send_message", SEND)
    far_inbox = far_world.app("MessageApi").read_only_state.inbox
    # Delete the key at place `start` and put it back at the end, over and over: the keys from there on come
    # to that place in turn (their order back where it began after a full turn), each too far from either end.
    start = min(journal.PLACE_WITHIN + 1, len(far_inbox) // 2)
    far_keys = cycle([(key, far_inbox[key]) for key in list(far_inbox)[start:]])

    def delete_far() -> None:
        key, value = next(far_keys)
        far_world.call("delete_message", {"message_id": key})
        dict.__setitem__(far_inbox, key, value)

    reset_world = our_world(messages)
    snapshot = reset_world.snapshot()

    def restore_delete() -> None:
        reset_world.restore(snapshot)
        reset_world.call("delete_message", arguments)

    template = our_world(messages)

    def fork_send() -> None:
        template.fork().call("send_message", SEND)

    def fork_delete() -> None:
        template.fork().call("delete_message", arguments)

    ops = dict(zip(ROWS, (delete_owned, delete_far, restore_delete, fork_send, fork_delete), strict=True))
    shared = template.app("MessageApi").read_only_state.inbox
    size = len(json.dumps(template.state()["MessageApi"]))
    return ops, shared, size


def in_situ(op: Callable[[], object], shared: dict[Any, Any]) -> Callable[[], None]:
    """`op` with one copy of `shared` made before it and freed after it (the in-situ floor: see the docstring)."""

    def floor() -> None:
        copied = dict.copy(shared)
        op()
        del copied

    return floor


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=31)
    args = parser.parse_args()
    timed: dict[str, tuple[Any, int]] = {}
    sizes: dict[float, int] = {}
    smallest: dict[str, Callable[[], object]] = {}
    for kb in SIZES_KB:
        ops, shared, size = operations(kb)
        sizes[kb] = size
        smallest = smallest or ops
        batch = 20 if kb < 1000 else 5
        for name, op in ops.items():
            timed[f"{name}@{kb}"] = (op, batch)
            timed[f"in situ {name}@{kb}"] = (in_situ(smallest[name], shared), batch)
        timed[f"copy@{kb}"] = (lambda shared=shared: dict.copy(shared), batch)
    # The collector runs, as in a program (a dropped world is freed at once, by reference counting: no
    # world is a reference cycle, tests/test_fork_frees.py).
    gc.collect()
    cpu = interleaved_cpu_us(timed, rounds=args.rounds, collect=True)

    table = Table(title="one writing call by inbox size (CPU time, medians of interleaved rounds)")
    for column in ("operation", "inbox", "ours", "at 1 KB", "ratio", "floor (1 KB + dict.copy)", "floor ratio",
                   "in-situ floor", "its ratio", "target"):
        table.add_column(column)
    first = SIZES_KB[0]
    for name in ROWS:
        base = cpu[f"{name}@{first}"]
        for kb in SIZES_KB:
            ours, copy_us, situ = cpu[f"{name}@{kb}"], cpu[f"copy@{kb}"], cpu[f"in situ {name}@{kb}"]
            floor = base + copy_us
            table.add_row(name, f"{sizes[kb] / 1024:.1f} KB", show(ours), show(base), f"{ours / base:.1f}x",
                          show(floor), f"{floor / base:.1f}x", show(situ), f"{situ / base:.1f}x",
                          "<= 3x" if kb == SIZES_KB[-1] else "")
    console = Console(width=200)
    console.print(table)
    for name, what in ROWS.items():
        console.print(f"{name}: {what}")
    print("ratio = ours at that size / ours at 1 KB; the floor adds one dict.copy of the inbox at that size; the "
          "in-situ floor is the operation at 1 KB with that copy made before it and freed after it")


if __name__ == "__main__":
    main()
