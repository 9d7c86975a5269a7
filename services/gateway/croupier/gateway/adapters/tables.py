"""The `Tables` port over the table host's gRPC API (`croupier.table.v1.TableEngine`), by
the services' one table client: each call sent to the replica serving its table, a view
stream followed across replicas and restarts (`croupier.table.client`)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TypeAlias

from croupier.kit.service_auth import ServiceCredential
from croupier.table.client import (
    STREAM_RETRY_SECONDS,
    TABLE_FAILOVER_SECONDS,
    TableHostClient,
    TableTarget,
)
from croupier.table.v1 import table_pb2

__all__ = ["GrpcTables"]

ViewFormat: TypeAlias = table_pb2.ViewFormat.ValueType


class GrpcTables:
    """`targets`: where the table host is (`CROUPIER_TABLE_ADDRESS`: one address, the
    replicas' addresses, or each game's service)."""

    def __init__(
        self,
        targets: TableTarget,
        credential: ServiceCredential | None = None,
        *,
        call_retry_seconds: float = TABLE_FAILOVER_SECONDS,
        stream_retry_seconds: float = STREAM_RETRY_SECONDS,
    ) -> None:
        # The host's refusals reach the player as the host worded them (its internals
        # never do: `details` stays off).
        self._client = TableHostClient(
            targets, credential=credential, refused="", failover_seconds=call_retry_seconds
        )
        self._stream_retry = stream_retry_seconds

    async def view(
        self, table_id: str, player: str, view_format: ViewFormat
    ) -> table_pb2.TableView:
        request = table_pb2.GetViewRequest(
            table_id=table_id, player_id=player, view_format=view_format
        )
        response: table_pb2.GetViewResponse = await self._client.call("GetView", request)
        return response.view

    async def watch(
        self, table_id: str, player: str, view_format: ViewFormat
    ) -> AsyncIterator[table_pb2.TableView]:
        request = table_pb2.WatchViewRequest(
            table_id=table_id, player_id=player, view_format=view_format
        )
        stream = self._client.follow(
            "WatchView", request, lambda response: response.view.closed, self._stream_retry
        )
        async for response in stream:
            yield response.view

    async def act(
        self, table_id: str, player: str, command_id: str, action: table_pb2.ActRequest
    ) -> table_pb2.TableView:
        request = table_pb2.ActRequest()
        request.CopyFrom(action)
        request.table_id, request.player_id, request.command_id = table_id, player, command_id
        response: table_pb2.ActResponse = await self._client.call("Act", request)
        return response.view

    async def reconnect(
        self, table_id: str, player: str, view_format: ViewFormat
    ) -> table_pb2.TableView:
        request = table_pb2.ReconnectRequest(
            table_id=table_id, player_id=player, view_format=view_format
        )
        response: table_pb2.ReconnectResponse = await self._client.call("Reconnect", request)
        return response.view

    async def leave(self, table_id: str, player: str) -> None:
        request = table_pb2.UnseatPlayerRequest(table_id=table_id, player_id=player)
        await self._client.call("UnseatPlayer", request)

    async def disconnect(self, table_id: str, player: str) -> None:
        request = table_pb2.DisconnectRequest(table_id=table_id, player_id=player)
        await self._client.call("Disconnect", request)

    async def hand_history(self, table_id: str, hand_number: int) -> str:
        request = table_pb2.GetHandHistoryRequest(table_id=table_id, hand_number=hand_number)
        response: table_pb2.GetHandHistoryResponse = await self._client.call(
            "GetHandHistory", request
        )
        return response.history_json

    async def close(self) -> None:
        await self._client.close()
