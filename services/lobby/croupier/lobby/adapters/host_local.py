"""The table host in this process, the `TableHost` port over `croupier.table`'s
`TableHost` facade without gRPC (unit tests; the same refusals, raised directly)."""

from __future__ import annotations

from collections.abc import Mapping

from croupier.lobby.service.ports import TableClock
from croupier.table.service.host import TableHost
from croupier.table.service.tables import clock_from_options

__all__ = ["LocalTableHost"]


class LocalTableHost:
    def __init__(self, host: TableHost) -> None:
        self._host = host

    async def open_table(
        self, *, game: str, options: Mapping[str, object], clock: TableClock, request_key: str
    ) -> str:
        settings = clock_from_options(
            {
                "turn_seconds": clock.turn_seconds,
                "reserve_seconds": clock.reserve_seconds,
                "reconnect_seconds": clock.reconnect_seconds,
            }
        )
        return await self._host.open_table(game, dict(options), settings, request_key)

    async def seat(
        self, *, table_id: str, player: str, seat: int, stack: int, is_bot: bool = False
    ) -> None:
        await self._host.seat(table_id, player, seat, stack, is_bot)

    async def is_seated(self, table_id: str, player: str) -> bool:
        return player in self._host.view(table_id, player).seated

    async def close_table(self, table_id: str) -> None:
        await self._host.close(table_id)
