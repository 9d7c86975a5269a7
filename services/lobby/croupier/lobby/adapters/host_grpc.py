"""The table host reached over gRPC (`croupier.table.v1.TableEngine`), the lobby's
production adapter of the `TableHost` port. The host's refusals come back as the
`croupier.game` kinds the kit's error table maps to those statuses, so the lobby's caller
sees the host's status and message; any other status means the host did not answer
(`Unavailable`: the lobby's caller may retry)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

import grpc

from croupier.game import RuleBroken
from croupier.kit.errors import STATUS_BY_ROOT, Unavailable
from croupier.lobby.service.ports import TableClock
from croupier.table.v1 import table_pb2, table_pb2_grpc

__all__ = ["HOST_TIMEOUT_SECONDS", "GrpcTableHost"]

HOST_TIMEOUT_SECONDS = 10.0
_REFUSALS: dict[grpc.StatusCode, type[RuleBroken]] = {
    status: kind for kind, status in STATUS_BY_ROOT.items() if issubclass(kind, RuleBroken)
}


class GrpcTableHost:
    def __init__(
        self, target: str | Callable[[], str], timeout: float = HOST_TIMEOUT_SECONDS
    ) -> None:
        """`target`: the host's address, or how to find it once known (the embedded
        platform's own port)."""
        self._target = target
        self._timeout = timeout
        self._channel: grpc.aio.Channel | None = None
        self._stub: Any = None

    def _host(self) -> Any:
        if self._stub is None:
            target = self._target if isinstance(self._target, str) else self._target()
            self._channel = grpc.aio.insecure_channel(target)
            self._stub = table_pb2_grpc.TableEngineStub(self._channel)
        return self._stub

    async def _call(self, method: str, request: Any) -> Any:
        try:
            return await getattr(self._host(), method)(request, timeout=self._timeout)
        except grpc.aio.AioRpcError as error:
            refusal = _REFUSALS.get(error.code())
            if refusal is None:
                raise Unavailable(
                    f"the table host did not answer {method} ({error.code().name}); retry"
                ) from error
            raise refusal(f"the table host refused: {error.details()}") from error

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
        response = await self._call("OpenTable", request)
        return str(response.table_id)

    async def seat(self, *, table_id: str, player: str, seat: int, stack: int) -> None:
        await self._call(
            "SeatPlayer",
            table_pb2.SeatPlayerRequest(
                table_id=table_id,
                player_id=player,
                seat=seat,
                stack=stack,
                view_format=table_pb2.VIEW_FORMAT_JSON,
            ),
        )

    async def close_table(self, table_id: str) -> None:
        await self._call("CloseTable", table_pb2.CloseTableRequest(table_id=table_id))

    async def close(self) -> None:
        if self._channel is not None:
            await self._channel.close()
            self._channel, self._stub = None, None
