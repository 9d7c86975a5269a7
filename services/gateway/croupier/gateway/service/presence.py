"""A seated player's presence at a table follows his view streams through the gateway.

The table host keeps the seat of a player whose session ended for the table's reconnection
window only (`Disconnect`; then the game decides what leaving means), and a client's
session at a table is its open view stream. So when the last of a player's streams of a
table ends (the client went away, its token expired, the gateway is stopping), the gateway
tells the host he is gone; when a stream opens while the host has him marked gone, that
he is back (`Reconnect`, which stops the window). A spectator's stream changes nothing, nor
does one that ends because the table closed.

Counted per gateway process: a player with streams on two gateway replicas is marked gone
when either one's last stream ends, and back when he next opens one (or acts).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator, Awaitable

import structlog

from croupier.game.errors import RuleBroken
from croupier.gateway.service.ports import Tables
from croupier.kit.errors import Unavailable
from croupier.table.v1 import table_pb2

__all__ = ["StreamPresence"]

log = structlog.get_logger("croupier.gateway.presence")

# A stream's end waits for its Disconnect at most this long: the stream of a player whose
# host is gone (the platform stopping) must not hold up the gateway's own stop.
PRESENCE_CALL_SECONDS = 3.0


class StreamPresence:
    def __init__(self, tables: Tables) -> None:
        self._tables = tables
        self._streams: Counter[tuple[str, str]] = Counter()  # (table, player): open streams

    async def followed(
        self, table_id: str, player: str, views: AsyncIterator[table_pb2.TableView]
    ) -> AsyncIterator[table_pb2.TableView]:
        """`views`, `player`'s stream of `table_id`, with his presence kept in step."""
        key = (table_id, player)
        self._streams[key] += 1
        latest: table_pb2.TableView | None = None
        try:
            async for view in views:
                if latest is None and player in view.disconnected:
                    await self._tell(
                        self._tables.reconnect(table_id, player, table_pb2.VIEW_FORMAT_UNSPECIFIED),
                        "reconnect",
                    )
                latest = view
                yield view
        finally:
            self._streams[key] -= 1
            if not self._streams[key]:
                del self._streams[key]
                if latest is not None and player in latest.seated and not latest.closed:
                    await self._tell(self._tables.disconnect(table_id, player), "disconnect")

    @staticmethod
    async def _tell(call: Awaitable[object], what: str) -> None:
        """Presence is the host's to keep: a call it refuses, or that does not come back
        within `PRESENCE_CALL_SECONDS` (a stopping platform), changes nothing for the stream
        (he is back when he acts; gone when his clock runs out)."""
        try:
            async with asyncio.timeout(PRESENCE_CALL_SECONDS):
                await call
        except (RuleBroken, Unavailable, TimeoutError) as refusal:
            log.info("presence not updated", call=what, reason=str(refusal) or "timed out")
