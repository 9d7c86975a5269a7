"""Every entrant's tournament chips as an immutable mapping copied a bucket at a time.

A hand changes the chips of at most ten players; copying the chips of thousands after
each one would cost the director more than the hand itself (benchmarks/poker_tournament).
Players are bucketed by their rank in entry order, `BUCKET` to a bucket, so a change
copies the few buckets it touches and shares the rest; iterating gives entry order.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

__all__ = ["BUCKET", "ChipCounts"]

BUCKET = 64


class ChipCounts(Mapping[str, int]):
    """Chips by player, in entry order; `order` ranks every player (shared, not copied)."""

    __slots__ = ("_buckets", "_order")

    def __init__(self, order: Mapping[str, int], buckets: tuple[dict[str, int], ...]) -> None:
        self._order = order
        self._buckets = buckets

    @classmethod
    def of(cls, order: Mapping[str, int], chips: int) -> ChipCounts:
        """Every player of `order` (ranks 0, 1, ...) with `chips`."""
        buckets: list[dict[str, int]] = [{} for _ in range(-(-len(order) // BUCKET))]
        for player, rank in order.items():
            buckets[rank // BUCKET][player] = chips
        return cls(order, tuple(buckets))

    def updated(self, changes: Mapping[str, int]) -> ChipCounts:
        """These chips with `changes` (players already here) applied."""
        buckets = list(self._buckets)
        copied: set[int] = set()
        for player, chips in changes.items():
            index = self._order[player] // BUCKET
            if index not in copied:
                buckets[index] = dict(buckets[index])
                copied.add(index)
            buckets[index][player] = chips
        return ChipCounts(self._order, tuple(buckets))

    def entered(self, order: Mapping[str, int], player: str, chips: int) -> ChipCounts:
        """These chips with `player` (new in `order`, ranked last, or here) at `chips`."""
        index = order[player] // BUCKET
        buckets = list(self._buckets)
        if index == len(buckets):
            buckets.append({})
        buckets[index] = {**buckets[index], player: chips}
        return ChipCounts(order, tuple(buckets))

    def __getitem__(self, player: str) -> int:
        return self._buckets[self._order[player] // BUCKET][player]

    def __iter__(self) -> Iterator[str]:
        for bucket in self._buckets:
            yield from bucket

    def __len__(self) -> int:
        return sum(map(len, self._buckets))

    def __repr__(self) -> str:
        return f"ChipCounts({dict(self)!r})"
