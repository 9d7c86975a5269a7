"""The lobby over gRPC (`croupier.lobby.v1.Lobby`): `SeatBot`, the seat of one bot. Its
refusals come back as the `croupier.game` kinds of the same status (the table client's
table, `croupier.table.client.REFUSALS`); silence as `Unavailable`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import grpc

from croupier.kit.errors import Unavailable
from croupier.lobby.v1 import lobby_pb2 as pb
from croupier.lobby.v1 import lobby_pb2_grpc
from croupier.table.client import REFUSALS

__all__ = ["GrpcLobby"]

TIMEOUT_SECONDS = 30.0


class GrpcLobby:
    def __init__(self, target: str | Callable[[], str]) -> None:
        self._target = target
        self._channel: grpc.aio.Channel | None = None
        self._stub: Any = None

    def _lobby(self) -> Any:
        if self._stub is None:
            target = self._target if isinstance(self._target, str) else self._target()
            self._channel = grpc.aio.insecure_channel(target)
            self._stub = lobby_pb2_grpc.LobbyStub(self._channel)
        return self._stub

    async def seat_bot(self, *, table_id: str, bot: str, stack: int) -> int:
        request = pb.SeatBotRequest(bot_id=bot, table_id=table_id, stack=stack)
        try:
            response = await self._lobby().SeatBot(request, timeout=TIMEOUT_SECONDS)
        except grpc.aio.AioRpcError as error:
            refusal = REFUSALS.get(error.code())
            if refusal is not None:
                raise refusal(f"the lobby refused: {error.details()}") from error
            raise Unavailable(f"the lobby did not answer SeatBot ({error.code().name})") from error
        return int(response.seat)

    async def close(self) -> None:
        if self._channel is not None:
            await self._channel.close()
            self._channel, self._stub = None, None
