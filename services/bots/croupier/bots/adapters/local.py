"""The lobby and the table host in this process (the embedded platform, unit tests): the
same ports as the gRPC adapters, over the lobby's `Tables` and the host's `TableHost`
facade, with the same refusals raised directly."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from croupier.bots.service.ports import SeatUpdate
from croupier.lobby.service.tables import Tables
from croupier.table.service.host import TableHost

__all__ = ["LocalLobby", "LocalSeatHost"]


class LocalLobby:
    def __init__(self, tables: Tables) -> None:
        self._tables = tables

    async def seat_bot(self, *, table_id: str, bot: str, stack: int) -> int:
        seat, _ = await self._tables.join(table_id, bot, stack, bot=True)
        return seat


class LocalSeatHost:
    def __init__(self, host: TableHost) -> None:
        self._host = host

    async def watch(self, table_id: str, player: str) -> AsyncIterator[SeatUpdate]:
        async for snapshot in self._host.watch(table_id, player):
            yield SeatUpdate(snapshot.version, dict(snapshot.view), snapshot.closed)

    async def act(self, table_id: str, player: str, command_id: str, action: Any) -> None:
        await self._host.act(table_id, player, command_id, action)
