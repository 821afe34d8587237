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
