"""Shared timing for the benchmark scripts, so every figure is measured the same way."""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable


def per_op_us(
    op: Callable[[], object], *, batch: int = 200, rounds: int = 60, collect: bool = False
) -> tuple[float, float]:
    """Median and p90 cost of one operation in microseconds, from timed batches.

    The collector is off during a batch unless `collect` is set, as `timeit` does, so a
    collection triggered by earlier work does not land on one unlucky sample.
    """
    samples = []
    for _ in range(rounds):
        if not collect:
            gc.disable()
        start = time.perf_counter_ns()
        for _ in range(batch):
            op()
        samples.append((time.perf_counter_ns() - start) / batch / 1000)
        gc.enable()
    samples.sort()
    return statistics.median(samples), samples[int(len(samples) * 0.9)]


def p50_p90(samples: list[float]) -> tuple[float, float]:
    """Median and p90 of individually timed operations (ones slow enough, like a network round
    trip, to time one at a time)."""
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[int(len(ordered) * 0.9)]


def interleaved_cpu_us(
    ops: dict[str, tuple[Callable[[], object], int]], *, rounds: int = 31, collect: bool = False
) -> dict[str, float]:
    """Median CPU time of one operation in microseconds, for each named `(operation, batch)`.

    The operations take turns, one batch each per round, so that a machine busy with other work
    slows them alike, and the process's CPU time is read rather than the wall clock. The collector
    is off during a batch unless `collect` is set (as in `per_op_us`)."""
    samples: dict[str, list[float]] = {name: [] for name in ops}
    for _ in range(rounds):
        for name, (op, batch) in ops.items():
            if not collect:
                gc.disable()
            start = time.process_time_ns()
            for _ in range(batch):
                op()
            samples[name].append((time.process_time_ns() - start) / batch / 1000)
            gc.enable()
    return {name: statistics.median(values) for name, values in samples.items()}


def cpu_per_op_us(op: Callable[[], object], batch: int) -> float:
    """CPU microseconds (`time.process_time`) per operation over one batch, the collector off as in `per_op_us`:
    on a machine other processes share, CPU time is what one process's work costs."""
    gc.disable()
    start = time.process_time()
    for _ in range(batch):
        op()
    elapsed = time.process_time() - start
    gc.enable()
    return elapsed / batch * 1e6


def interleaved_pair_cpu_us(ours: Callable[[], object], baseline: Callable[[], object], *, rounds: int,
                            batch: int) -> tuple[float, float]:
    """Median CPU microseconds per operation of `ours` and of `baseline`, timed in alternating batches, so
    a change in the machine's load falls on both alike."""
    ours_us, base_us = [], []
    for _ in range(rounds):
        ours_us.append(cpu_per_op_us(ours, batch))
        base_us.append(cpu_per_op_us(baseline, batch))
    return statistics.median(ours_us), statistics.median(base_us)
