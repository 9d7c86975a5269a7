"""The table host reached over gRPC (`croupier.table.v1.TableEngine`), the lobby's
production adapter of the `TableHost` port. The host's refusals come back as the
`croupier.game` kinds the kit's error table maps to those statuses, so the lobby's caller
sees the host's status and message; any other status means the host did not answer
(`Unavailable`: the lobby's caller may retry)."""

from __future__ import annotations

import json
from collections.abc import Mapping

from croupier.kit.channels import Target
from croupier.kit.service_auth import ServiceCredential
from croupier.lobby.service.ports import TableClock
from croupier.table.client import TableHostClient
from croupier.table.v1 import table_pb2

__all__ = ["HOST_TIMEOUT_SECONDS", "GrpcTableHost"]

HOST_TIMEOUT_SECONDS = 10.0


class GrpcTableHost:
    def __init__(
        self,
        target: Target,
        timeout: float = HOST_TIMEOUT_SECONDS,
        *,
        credential: ServiceCredential | None = None,
    ) -> None:
        """`target`: the host's address, or how to find it once known (the embedded
        platform's own port); `credential`: the lobby's (the host answers services only)."""
        self._client = TableHostClient(target, timeout, credential=credential)

    async def open_table(
        self, *, game: str, options: Mapping[str, object], clock: TableClock, request_key: str
    ) -> str:
        request = table_pb2.OpenTableRequest(
            game=game,
            options_json=json.dumps(dict(options)),
            request_key=request_key,
            clock=table_pb2.TableClock(
                turn_seconds=clock.turn_seconds,
                reserve_seconds=clock.reserve_seconds,
                reconnect_seconds=clock.reconnect_seconds,
            ),
        )
        response = await self._client.call("OpenTable", request)
        return str(response.table_id)

    async def seat(
        self, *, table_id: str, player: str, seat: int, stack: int, is_bot: bool = False
    ) -> None:
        await self._client.seat(
            table_id=table_id, player=player, seat=seat, stack=stack, is_bot=is_bot
        )

    async def is_seated(self, table_id: str, player: str) -> bool:
        request = table_pb2.GetViewRequest(table_id=table_id, player_id=player)
        response = await self._client.call("GetView", request)
        return player in response.view.seated

    async def close_table(self, table_id: str) -> None:
        await self._client.close_table(table_id)

    async def close(self) -> None:
        await self._client.close()
