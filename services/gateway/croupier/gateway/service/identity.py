"""The caller of every gateway call, from his token; long streams end when it expires.

A stream outlives the moment its token was checked: a view stream may run for hours.
`Authenticator.until_expiry` wakes at least every `recheck_seconds` and ends the stream
with UNAUTHENTICATED (`token_expired`) once the token has expired, so a client keeps a
stream only as long as it keeps a valid token (it reconnects with a fresh one).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from typing import TypeVar

from croupier.kit.auth import Identity, KeySet, VerifiedTokens, bearer_token, verify_token
from croupier.kit.errors import Unauthenticated

__all__ = ["RECHECK_SECONDS", "Authenticator"]

RECHECK_SECONDS = 5.0
# Players' tokens remembered once verified (a call then costs a lookup, not an HMAC: the
# gateway's largest cost per call, measured by benchmarks/gateway.py).
VERIFIED_TOKENS = 100_000
T = TypeVar("T")


class Authenticator:
    """Verifies `authorization` headers against the gateway's key set on its clock."""

    def __init__(
        self,
        key_set: KeySet,
        *,
        clock: Callable[[], float] = time.time,
        recheck_seconds: float = RECHECK_SECONDS,
    ) -> None:
        self._verified = VerifiedTokens(
            lambda token, now: verify_token(token, key_set, now=now), VERIFIED_TOKENS
        )
        self._clock = clock
        self._recheck_seconds = recheck_seconds

    def identify(self, authorization: str | None) -> Identity:
        """The caller a `Bearer` header proves, or `Unauthenticated`."""
        return self._verified.identity(bearer_token(authorization), self._clock())

    def _require_valid(self, identity: Identity) -> float:
        """Seconds left on `identity`'s token, or `Unauthenticated` once it has expired."""
        left = identity.expires_at - self._clock()
        if left <= 0:
            raise Unauthenticated(
                "your token expired during the stream: open it again with a new token",
                "token_expired",
            )
        return left

    async def until_expiry(self, stream: AsyncIterator[T], identity: Identity) -> AsyncIterator[T]:
        """`stream`'s items while `identity`'s token is valid; then `Unauthenticated`."""
        pending: asyncio.Task[T] | None = None
        try:
            while True:
                left = self._require_valid(identity)
                if pending is None:
                    pending = asyncio.ensure_future(anext(stream))
                done, _ = await asyncio.wait({pending}, timeout=min(left, self._recheck_seconds))
                if not done:
                    continue  # the token is checked again; the same item is still awaited
                try:
                    item = pending.result()
                except StopAsyncIteration:
                    return
                finally:
                    pending = None
                self._require_valid(identity)
                yield item
        finally:
            if pending is not None:
                pending.cancel()
                await asyncio.wait({pending})  # settled before the stream is closed
            aclose = getattr(stream, "aclose", None)
            if aclose is not None:
                await aclose()
