"""Simulated time: worlds never read the wall clock, so runs are reproducible."""

from __future__ import annotations

import datetime as _dt

DEFAULT_START = _dt.datetime(2024, 7, 14, 6, 0, 0)
_NO_TICK = _dt.timedelta(0)  # one object for every clock that does not tick (a copy per fork adds up)


class SimClock:
    """The world's notion of now; it moves only when told to (or by a per-call tick)."""

    __slots__ = ("_now", "tick")

    def __init__(self, start: _dt.datetime = DEFAULT_START, tick: _dt.timedelta | None = None) -> None:
        self._now = start
        self.tick = tick or _NO_TICK

    def now(self) -> _dt.datetime:
        return self._now

    def today(self) -> _dt.date:
        return self._now.date()

    def advance(self, delta: _dt.timedelta | float = 0.0) -> _dt.datetime:
        """Move forward by a timedelta or a number of seconds; time never goes back."""
        step = delta if isinstance(delta, _dt.timedelta) else _dt.timedelta(seconds=delta)
        if step < _dt.timedelta(0):
            raise ValueError("the simulated clock cannot go backwards")
        self._now += step
        return self._now

    def set(self, moment: _dt.datetime) -> None:
        """Make `moment` now, earlier or later: how the world puts its clock back when a call fails or a
        snapshot is restored (the moment read by `now()` before the call, or kept in the snapshot)."""
        self._now = moment

    def step(self) -> None:
        """Move on by the per-call tick: the world does this after each call it records (when `tick` is set)."""
        self._now += self.tick

    def copy(self) -> SimClock:
        new = object.__new__(SimClock)
        new._now, new.tick = self._now, self.tick
        return new

    def __repr__(self) -> str:
        return f"SimClock({self._now.isoformat()})"
