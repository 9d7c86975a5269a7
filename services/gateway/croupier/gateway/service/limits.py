"""Rate limits on the gateway's callers: per network address before the token is looked
at (a flood of forged tokens costs its sender, not the gateway), per player after.

A call over a limit is refused `RESOURCE_EXHAUSTED` (`croupier.kit.errors.RateLimited`)
with the seconds to wait, which both transports send as a `google.rpc.RetryInfo`. A
stream counts as one call when it is opened, and a player has at most
`streams_per_player` open at once (each holds a stream to a service behind: a player
opening streams without end would hold the gateway's and the services' resources). The
address is the TCP peer's or, when the peer is one of the `trusted_proxies`, the client's
as the proxies' `Forwarded` / `X-Forwarded-For` headers name it (`core.client_address`).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from croupier.gateway.core.client_address import Network, client_address
from croupier.gateway.core.rate_limits import RateLimit, RateLimiter
from croupier.kit.errors import RateLimited

__all__ = ["DEFAULT_LIMITS", "MAX_STREAMS_PER_PLAYER", "CallLimits", "GatewayLimits", "host_of"]

# A page watches the lobby, a table and a tournament: ten tabs' worth.
MAX_STREAMS_PER_PLAYER = 32
# What a refused stream is told to wait: a stream of his must end first.
_STREAM_RETRY_SECONDS = 1.0


@dataclass(frozen=True)
class GatewayLimits:
    per_player: RateLimit
    per_address: RateLimit
    trusted_proxies: tuple[Network, ...] = ()  # whose forwarding headers are believed
    streams_per_player: int = MAX_STREAMS_PER_PLAYER


DEFAULT_LIMITS = GatewayLimits(
    per_player=RateLimit(rate=50, burst=100), per_address=RateLimit(rate=500, burst=1000)
)


def host_of(peer: str | None) -> str:
    """The host of a peer address as gRPC (`ipv4:10.0.0.1:5000`, `ipv6:[::1]:5000`) or
    the HTTP server (`10.0.0.1:5000`) names it; "" when unknown."""
    if not peer:
        return ""
    for prefix in ("ipv4:", "ipv6:"):
        peer = peer.removeprefix(prefix)
    host, separator, _ = peer.rpartition(":")
    return (host if separator else peer).strip("[]")


class CallLimits:
    """The gateway's limits, on its clock."""

    def __init__(self, limits: GatewayLimits, clock: Callable[[], float] = time.monotonic):
        self._players = RateLimiter(limits.per_player)
        self._addresses = RateLimiter(limits.per_address)
        self._trusted = limits.trusted_proxies
        self._clock = clock
        self._max_streams = limits.streams_per_player
        self._streams: dict[str, int] = {}  # player -> streams open now

    def admit_address(self, peer: str | None, forwarded: Sequence[str] = ()) -> None:
        """A call from `peer` (the TCP peer) on behalf of the client at the end of the
        `forwarded` hops (`core.client_address.forwarded_chain`), or `RateLimited`."""
        client = client_address(host_of(peer), forwarded, self._trusted)
        wait = self._addresses.wait(client, self._clock())
        if wait:
            raise RateLimited(
                f"too many calls from your address: retry in {wait:.2f} s",
                wait,
                "rate_limited_address",
            )

    def admit_player(self, player: str) -> None:
        """A call by `player`, or `RateLimited`."""
        wait = self._players.wait(player, self._clock())
        if wait:
            raise RateLimited(
                f"too many calls: at most {self._players.limit.rate:g} a second on average; "
                f"retry in {wait:.2f} s",
                wait,
                "rate_limited_player",
            )

    @contextlib.contextmanager
    def open_stream(self, player: str) -> Iterator[None]:
        """One of `player`'s streams, open until the block ends; `RateLimited` when he
        has `streams_per_player` open already."""
        open_now = self._streams.get(player, 0)
        if open_now >= self._max_streams:
            raise RateLimited(
                f"you have {open_now} streams open, the most a player may: close one first",
                _STREAM_RETRY_SECONDS,
                "too_many_streams",
            )
        self._streams[player] = open_now + 1
        try:
            yield
        finally:
            left = self._streams[player] - 1
            if left:
                self._streams[player] = left
            else:
                del self._streams[player]
