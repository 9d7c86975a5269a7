"""The lobby over gRPC (`croupier.lobby.v1.Lobby`): `SeatBot`, the seat of one bot. Its
refusals come back as the `croupier.game` kinds of the same status (the table client's
table, `croupier.table.client.REFUSALS`); silence as `Unavailable`."""

from __future__ import annotations

import grpc

from croupier.kit.channels import ServiceChannel, Target
from croupier.kit.errors import Unavailable
from croupier.kit.service_auth import ServiceCredential
from croupier.lobby.v1 import lobby_pb2 as pb
from croupier.lobby.v1 import lobby_pb2_grpc
from croupier.table.client import REFUSALS

__all__ = ["GrpcLobby"]

TIMEOUT_SECONDS = 30.0


class GrpcLobby:
    def __init__(self, target: Target, credential: ServiceCredential | None) -> None:
        self._channel = ServiceChannel(target, credential)

    async def seat_bot(self, *, table_id: str, bot: str, stack: int) -> int:
        request = pb.SeatBotRequest(bot_id=bot, table_id=table_id, stack=stack)
        try:
            stub = self._channel.stub(lobby_pb2_grpc.LobbyStub)
            response = await stub.SeatBot(request, timeout=TIMEOUT_SECONDS)
        except grpc.aio.AioRpcError as error:
            refusal = REFUSALS.get(error.code())
            if refusal is not None:
                raise refusal(f"the lobby refused: {error.details()}") from error
            raise Unavailable(f"the lobby did not answer SeatBot ({error.code().name})") from error
        return int(response.seat)

    async def close(self) -> None:
        await self._channel.close()
