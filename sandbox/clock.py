"""Simulated time: worlds never read the wall clock, so runs are reproducible."""

from __future__ import annotations

import datetime as _dt

DEFAULT_START = _dt.datetime(2024, 7, 14, 6, 0, 0)
_NO_TICK = _dt.timedelta(0)  # one object for every clock that does not tick (a copy per fork adds up)


class SimClock:
    """The world's notion of now; it moves only when told to (or by a per-call tick).

    `moment` is now, as an attribute for the world's hot path (`World.call` marks each call's start
    with it, where a method's frame would cost more than the read); tools ask `now()`. It changes
    only here: `advance`, `set` (the world's undo and restore) and `step` (the per-call tick).
    """

    __slots__ = ("moment", "tick")

    def __init__(self, start: _dt.datetime = DEFAULT_START, tick: _dt.timedelta | None = None) -> None:
        self.moment = start
        self.tick = tick or _NO_TICK

    def now(self) -> _dt.datetime:
        return self.moment

    def today(self) -> _dt.date:
        return self.moment.date()

    def advance(self, delta: _dt.timedelta | float = 0.0) -> _dt.datetime:
        """Move forward by a timedelta or a number of seconds; time never goes back."""
        step = delta if isinstance(delta, _dt.timedelta) else _dt.timedelta(seconds=delta)
        if step < _dt.timedelta(0):
            raise ValueError("the simulated clock cannot go backwards")
        self.moment += step
        return self.moment

    def set(self, moment: _dt.datetime) -> None:
        """Make `moment` now, earlier or later: how the world puts its clock back when a call fails or a
        snapshot is restored (the moment it read before the call, or kept in the snapshot)."""
        self.moment = moment

    def step(self) -> None:
        """Move on by the per-call tick: the world does this after each call it records (when `tick` is set)."""
        self.moment += self.tick

    def copy(self) -> SimClock:
        new = object.__new__(SimClock)
        new.moment, new.tick = self.moment, self.tick
        return new

    def __repr__(self) -> str:
        return f"SimClock({self.moment.isoformat()})"
