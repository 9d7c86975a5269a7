"""The `Tables` port over the table host's gRPC API (`croupier.table.v1.TableEngine`): each
call sent to the replica serving its table (`TableRoutes`), a view stream followed across
replicas and restarts."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import TypeAlias

from croupier.gateway.adapters.table_routes import (
    CALL_RETRY_SECONDS,
    STREAM_RETRY_SECONDS,
    TableRoutes,
)
from croupier.kit.channels import Target
from croupier.kit.service_auth import ServiceCredential
from croupier.table.v1 import table_pb2

__all__ = ["GrpcTables"]

ViewFormat: TypeAlias = table_pb2.ViewFormat.ValueType


class GrpcTables:
    """`targets`: the table host's replicas (of every game's table-engine service), or the
    one address of a host that serves every table."""

    def __init__(
        self,
        targets: Target | Sequence[Target],
        credential: ServiceCredential | None = None,
        *,
        call_retry_seconds: float = CALL_RETRY_SECONDS,
        stream_retry_seconds: float = STREAM_RETRY_SECONDS,
    ) -> None:
        replicas = [targets] if isinstance(targets, str) or callable(targets) else targets
        self._routes = TableRoutes(
            replicas,
            credential,
            call_retry_seconds=call_retry_seconds,
            stream_retry_seconds=stream_retry_seconds,
        )

    async def view(
        self, table_id: str, player: str, view_format: ViewFormat
    ) -> table_pb2.TableView:
        request = table_pb2.GetViewRequest(
            table_id=table_id, player_id=player, view_format=view_format
        )
        response: table_pb2.GetViewResponse = await self._routes.call(table_id, "GetView", request)
        return response.view

    async def watch(
        self, table_id: str, player: str, view_format: ViewFormat
    ) -> AsyncIterator[table_pb2.TableView]:
        request = table_pb2.WatchViewRequest(
            table_id=table_id, player_id=player, view_format=view_format
        )
        stream = self._routes.stream(
            table_id, "WatchView", request, finished=lambda response: response.view.closed
        )
        async for response in stream:
            yield response.view

    async def act(
        self, table_id: str, player: str, command_id: str, action: table_pb2.ActRequest
    ) -> table_pb2.TableView:
        request = table_pb2.ActRequest()
        request.CopyFrom(action)
        request.table_id, request.player_id, request.command_id = table_id, player, command_id
        response: table_pb2.ActResponse = await self._routes.call(table_id, "Act", request)
        return response.view

    async def reconnect(
        self, table_id: str, player: str, view_format: ViewFormat
    ) -> table_pb2.TableView:
        request = table_pb2.ReconnectRequest(
            table_id=table_id, player_id=player, view_format=view_format
        )
        response: table_pb2.ReconnectResponse = await self._routes.call(
            table_id, "Reconnect", request
        )
        return response.view

    async def leave(self, table_id: str, player: str) -> None:
        request = table_pb2.UnseatPlayerRequest(table_id=table_id, player_id=player)
        await self._routes.call(table_id, "UnseatPlayer", request)

    async def hand_history(self, table_id: str, hand_number: int) -> str:
        request = table_pb2.GetHandHistoryRequest(table_id=table_id, hand_number=hand_number)
        response: table_pb2.GetHandHistoryResponse = await self._routes.call(
            table_id, "GetHandHistory", request
        )
        return response.history_json

    async def close(self) -> None:
        await self._routes.close()
