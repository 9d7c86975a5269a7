"""Provably fair randomness: a committed seed, a deterministic unbiased stream.

Per hand (or game) the table host draws a 32-byte seed from the OS CSPRNG
(`croupier.kit.seeds.new_seed`), publishes `commitment(seed)` (hex SHA-256) when the hand
starts and reveals the seed in the hand history when it ends. Every random choice of the
hand is derived from the seed alone, so anyone holding the history can re-derive the deck
or the dice and check them against the commitment (`croupier verify`).

The stream is HMAC-SHA256(seed, label || counter) blocks. Integers below `n` are drawn by
rejection sampling (no modulo bias), and shuffles are Fisher–Yates over those integers.
Labels separate independent uses of one seed ("deck", "dice", "carousel"), so adding a use
never changes the others.

This module is pure: no clock, no I/O, no randomness of its own.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterator, Sequence
from typing import TypeVar

T = TypeVar("T")

SEED_BYTES = 32


def commitment(seed: bytes) -> str:
    """Hex SHA-256 of the seed: published before the seed is used."""
    return hashlib.sha256(seed).hexdigest()


class FairStream:
    """Deterministic random integers derived from a seed and a label."""

    def __init__(self, seed: bytes, label: str) -> None:
        if len(seed) != SEED_BYTES:
            raise ValueError(f"a seed has {SEED_BYTES} bytes, got {len(seed)}")
        self._blocks = self._generate(seed, label.encode())
        self._buffer = b""

    @staticmethod
    def _generate(seed: bytes, label: bytes) -> Iterator[bytes]:
        counter = 0
        while True:
            yield hmac.new(seed, label + b"\x00" + counter.to_bytes(8, "big"), "sha256").digest()
            counter += 1

    def _take(self, count: int) -> bytes:
        while len(self._buffer) < count:
            self._buffer += next(self._blocks)
        taken, self._buffer = self._buffer[:count], self._buffer[count:]
        return taken

    def below(self, n: int) -> int:
        """A uniform integer in [0, n) by rejection sampling over whole bytes."""
        if n <= 0:
            raise ValueError("n must be positive")
        if n == 1:
            return 0
        size = (n - 1).bit_length()
        nbytes = (size + 7) // 8
        mask = (1 << size) - 1
        while True:
            value = int.from_bytes(self._take(nbytes), "big") & mask
            if value < n:
                return value

    def next_bytes(self, count: int) -> bytes:
        """The stream's next `count` bytes as they are (e.g. a seed derived for a later
        draw): the same bytes as `count` draws of `below(256)`, without a call per byte."""
        return self._take(count)

    def shuffled(self, items: Sequence[T]) -> list[T]:
        """Fisher–Yates (Durstenfeld) shuffle of a copy of `items`."""
        result = list(items)
        for i in range(len(result) - 1, 0, -1):
            j = self.below(i + 1)
            result[i], result[j] = result[j], result[i]
        return result

    def die(self) -> int:
        """One fair die, 1..6."""
        return self.below(6) + 1


def shuffled(items: Sequence[T], seed: bytes, label: str = "deck") -> list[T]:
    """The deck order a seed gives: what the engines deal from and `verify` re-derives."""
    return FairStream(seed, label).shuffled(items)


def dice(seed: bytes, rolls: int, label: str = "dice") -> list[tuple[int, int]]:
    """`rolls` pairs of dice derived from a seed."""
    stream = FairStream(seed, label)
    return [(stream.die(), stream.die()) for _ in range(rolls)]
