"""Seeded randomness whose whole state is two integers.

Each draw gets a fresh generator seeded from (world seed, draw number). Forking or
snapshotting a world therefore copies two ints instead of a Mersenne Twister state,
a fork continues exactly as its parent would have, and an aborted call that drew a
number can be undone by restoring the counter.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import MutableSequence, Sequence
from typing import TypeVar

T = TypeVar("T")


class WorldRandom:
    __slots__ = ("draws", "seed")

    def __init__(self, seed: int | str = 0, draws: int = 0) -> None:
        self.seed = seed
        self.draws = draws

    def generator(self) -> random.Random:
        """A generator for one operation; each call advances the draw counter by one."""
        self.draws += 1
        return random.Random(f"toolworlds:{self.seed}:{self.draws}")

    def random(self) -> float:
        return self.generator().random()

    def randint(self, low: int, high: int) -> int:
        return self.generator().randint(low, high)

    def uniform(self, low: float, high: float) -> float:
        return self.generator().uniform(low, high)

    def choice(self, items: Sequence[T]) -> T:
        return self.generator().choice(items)

    def sample(self, items: Sequence[T], k: int) -> list[T]:
        return self.generator().sample(items, k)

    def shuffle(self, items: MutableSequence[T]) -> None:
        self.generator().shuffle(items)

    def token_hex(self, nbytes: int = 16) -> str:
        return self.generator().getrandbits(nbytes * 8).to_bytes(nbytes, "big").hex()

    def uuid4(self) -> uuid.UUID:
        return uuid.UUID(int=self.generator().getrandbits(128), version=4)

    def copy(self) -> WorldRandom:
        new = object.__new__(WorldRandom)  # past `__init__`: one per fork
        new.seed, new.draws = self.seed, self.draws
        return new

    def __repr__(self) -> str:
        return f"WorldRandom(seed={self.seed!r}, draws={self.draws})"
