"""Scores over repeated trials: pass^k as tau-bench defines it, and bootstrap confidence intervals.

pass^k is the chance that k independent trials of a task all succeed. From n trials of a task
with c successes, C(c, k) / C(n, k) estimates it without bias; a task set's pass^k is the mean
over its tasks (those with at least k trials). pass^1 is plain accuracy.

Intervals: a percentile bootstrap over tasks (tasks are what is sampled from a benchmark;
trials of one task are not independent draws of the benchmark), 1,000 resamples with a fixed
seed, so the same episodes always give the same interval.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from math import comb

RESAMPLES = 1000
LEVEL = 0.95


def task_pass_hat(successes: Sequence[bool], k: int) -> float | None:
    """One task's unbiased pass^k estimate from its trials; None with fewer than k trials."""
    n, c = len(successes), sum(successes)
    if k < 1 or n < k:
        return None
    return comb(c, k) / comb(n, k)


def pass_hat(trials: Mapping[str, Sequence[bool]], k: int) -> tuple[float | None, list[float]]:
    """pass^k over tasks (None when no task has k trials) and the per-task estimates it averages."""
    values = [v for outcomes in trials.values() if (v := task_pass_hat(outcomes, k)) is not None]
    return (sum(values) / len(values) if values else None), values


def bootstrap_interval(values: Sequence[float], *, seed: int = 0, resamples: int = RESAMPLES,
                       level: float = LEVEL) -> tuple[float, float] | None:
    """The percentile bootstrap interval of the mean of `values`; None for fewer than two values."""
    if len(values) < 2:
        return None
    rng = random.Random(seed)
    n = len(values)
    means = sorted(sum(values[rng.randrange(n)] for _ in range(n)) / n for _ in range(resamples))
    tail = (1 - level) / 2
    return means[int(tail * resamples)], means[min(resamples - 1, int((1 - tail) * resamples))]
