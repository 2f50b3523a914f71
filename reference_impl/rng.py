"""Seeded randomness as a tree of named streams, after pytest-randomly.

Each component takes its own child stream (``rng.child("scheduler")``), so adding a
random draw in one component never shifts the draws of another.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Sequence
from typing import TypeVar

__all__ = ["Rng"]

T = TypeVar("T")


class Rng:
    """A deterministic random stream derived from a seed and a path of names."""

    def __init__(self, seed: int, path: str = "") -> None:
        self.seed = seed
        self.path = path
        self._random = random.Random(zlib.crc32(f"{seed}::{path}".encode()))

    def child(self, name: str) -> Rng:
        """An independent stream for a named component."""
        return Rng(self.seed, f"{self.path}/{name}")

    def randint(self, lo: int, hi: int) -> int:
        """A uniform integer in ``[lo, hi]``."""
        return self._random.randint(lo, hi)

    def random(self) -> float:
        """A uniform float in ``[0, 1)``."""
        return self._random.random()

    def choice(self, items: Sequence[T]) -> T:
        """One of ``items``; callers pass a sorted sequence so ties break reproducibly."""
        return items[self.index(len(items))]

    def index(self, n: int) -> int:
        """An index into ``n`` items: the draw ``choice`` makes over them."""
        return self._random.randrange(n)

    def hex(self, n: int) -> str:
        """``n`` random lowercase hex digits, for uids and generated names."""
        return "".join("0123456789abcdef"[self._random.randrange(16)] for _ in range(n))

    def uuid4(self) -> str:
        """A random (version 4) UUID string, drawn in one call."""
        h = f"{self._random.getrandbits(128):032x}"
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{'89ab'[int(h[16], 16) % 4]}{h[17:20]}-{h[20:]}"

    def suffix(self, n: int = 5) -> str:
        """A generateName suffix from the apiserver's alphabet (no vowels, no look-alikes)."""
        alphabet = "bcdfghjklmnpqrstvwxz2456789"
        return "".join(alphabet[self._random.randrange(len(alphabet))] for _ in range(n))
