"""A fork's first write does no work that grows with the container it writes but one copy of it (issue 41's
row "fork + first write at 1 MB <= 3x the same at 1 KB"; `bench/state_size.py` times it).

Held without timing: what runs (each call of a Python function or builtin, as `sys.setprofile` reports them,
and each bytecode instruction, as `sys.settrace` does) is the same, step for step, at any inbox size, so no
Python loop and no further builtin walks the inbox; and what the call allocates grows by at most one copy of
the inbox from a small inbox to a large one (two for a delete when the journal does not note the claimed
dict's original: the plain path, `journal.ORIGIN_FROM`), so no C-level copy is added unseen."""

from __future__ import annotations

import gc
import sys
import tracemalloc
from types import FrameType
from typing import Any

import pytest

from sandbox import World, journal
from scenarios.acebench.base import BaseApi
from scenarios.acebench.message import MessageApi

SEND = {"sender_name": "Eve", "receiver_name": "Frank", "message": "Dinner at 7?"}
SMALL, LARGE = 100, 5_000  # messages: both past ORIGIN_FROM (64), so only the size differs


def phone(messages: int) -> World:
    """A phone world whose inbox holds `messages` messages, logged in with wifi on."""
    state = MessageApi().read_only_state.model_dump()
    inbox = {index: {"sender_id": f"USR10{index % 6}", "receiver_id": f"USR10{(index + 1) % 6}",
                     "message": f"Message {index}: see you in Room {index % 7}.", "time": "2024-01-10"}
             for index in range(1, messages + 1)}
    state.update(inbox=inbox, message_id_counter=messages, max_capacity=10**9)
    world = World([BaseApi(), MessageApi("en", state)])
    world.load({"BaseApi": {"wifi": True, "logged_in": True}})
    return world


def first_write(world: World, tool: str, arguments: dict[str, Any]) -> tuple[list[tuple[str, str, int]], int]:
    """What a fork of `world` and its first call `tool` run (each call of a function or builtin, each bytecode
    instruction), and the most memory another fork and its first call held at once (measured apart, since
    the record of what runs takes memory of its own)."""
    world.fork().call(tool, arguments)  # once before, so that one-off work (caches, twins) is not counted
    steps: list[tuple[str, str, int]] = []

    def called(frame: FrameType, event: str, arg: Any) -> None:  # Python functions and builtins
        steps.append((event, getattr(arg, "__qualname__", None) or frame.f_code.co_qualname, 0))

    def traced(frame: FrameType, event: str, arg: Any) -> Any:  # every bytecode instruction run
        frame.f_trace_opcodes = True
        steps.append((event, frame.f_code.co_qualname, frame.f_lasti))
        return traced

    enabled, tracer, profiler = gc.isenabled(), sys.gettrace(), sys.getprofile()  # a coverage run's, say
    gc.collect()
    gc.disable()
    try:
        sys.setprofile(called)
        sys.settrace(traced)
        try:
            traced_record = world.fork().call(tool, arguments)
        finally:
            sys.settrace(tracer)
            sys.setprofile(profiler)
        tracemalloc.start()
        try:
            record = world.fork().call(tool, arguments)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    finally:
        if enabled:
            gc.enable()
    assert record.error is None and record.changed and traced_record == record
    return steps, peak


@pytest.mark.parametrize(("tool", "arguments"), [("send_message", SEND), ("delete_message", {"message_id": 3})])
def test_a_fork_s_first_write_costs_one_copy_of_what_it_writes_at_any_size(tool: str,
                                                                           arguments: dict[str, Any]) -> None:
    small, large = phone(SMALL), phone(LARGE)
    small_steps, small_peak = first_write(small, tool, arguments)
    large_steps, large_peak = first_write(large, tool, arguments)
    assert len(small_steps) > 1000
    assert large_steps == small_steps
    grown = sys.getsizeof(large.app(MessageApi).read_only_state.inbox) - sys.getsizeof(
        small.app(MessageApi).read_only_state.inbox)
    copies = 2 if tool == "delete_message" and journal.ORIGIN_FROM > SMALL else 1
    assert large_peak - small_peak <= copies * grown + 4096
