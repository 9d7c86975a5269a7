"""How often a caller may call the gateway: token buckets per key (a player, an address).

A bucket holds at most `burst` tokens and gains `rate` tokens a second; a call takes one.
A call finding the bucket empty is refused with the time until a token is there, which
the gateway sends as the error's `RetryInfo`. Pure: time is an argument.

Memory is bounded: at most `max_keys` buckets are kept, the least recently used dropped
first. A dropped bucket comes back full, which is what it would have become anyway once
idle for `burst / rate` seconds; a caller inventing keys to get fresh buckets gains
nothing on the per-address limit, which he cannot invent.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

__all__ = ["MAX_KEYS", "RateLimit", "RateLimiter"]

MAX_KEYS = 100_000


@dataclass(frozen=True)
class RateLimit:
    """`rate` calls a second on average, bursts of up to `burst` calls."""

    rate: float
    burst: int

    def __post_init__(self) -> None:
        if not 0 < self.rate <= 100_000:
            raise ValueError("a rate is between 0 (excluded) and 100000 calls a second")
        if not 1 <= self.burst <= 100_000:
            raise ValueError("a burst is between 1 and 100000 calls")


@dataclass
class _Bucket:
    tokens: float
    at: float


class RateLimiter:
    """One token bucket per key, all with the same limit."""

    def __init__(self, limit: RateLimit, max_keys: int = MAX_KEYS) -> None:
        self.limit = limit
        self._max_keys = max_keys
        self._buckets: OrderedDict[str, _Bucket] = OrderedDict()

    def wait(self, key: str, now: float) -> float:
        """Take a token from `key`'s bucket at time `now` (seconds): 0.0 when the call may
        go ahead, else the seconds until one would be there (nothing is taken)."""
        bucket = self._buckets.pop(key, None)
        if bucket is None:
            bucket = _Bucket(tokens=float(self.limit.burst), at=now)
        elapsed = max(0.0, now - bucket.at)  # a clock stepping back refills nothing
        bucket.tokens = min(float(self.limit.burst), bucket.tokens + elapsed * self.limit.rate)
        bucket.at = max(bucket.at, now)
        self._buckets[key] = bucket  # most recently used: last
        if len(self._buckets) > self._max_keys:
            self._buckets.popitem(last=False)
        if bucket.tokens >= 1.0:
            bucket.tokens -= 1.0
            return 0.0
        return (1.0 - bucket.tokens) / self.limit.rate
