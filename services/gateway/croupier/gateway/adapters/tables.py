"""The `Tables` port over the table host's gRPC API (`croupier.table.v1.TableEngine`)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TypeAlias

from croupier.gateway.adapters.remote import Remote
from croupier.kit.channels import Target
from croupier.kit.service_auth import ServiceCredential
from croupier.table.v1 import table_pb2, table_pb2_grpc

__all__ = ["GrpcTables"]

ViewFormat: TypeAlias = table_pb2.ViewFormat.ValueType


class GrpcTables(Remote):
    def __init__(self, target: Target, credential: ServiceCredential | None = None) -> None:
        super().__init__("table host", target, table_pb2_grpc.TableEngineStub, credential)

    async def view(
        self, table_id: str, player: str, view_format: ViewFormat
    ) -> table_pb2.TableView:
        request = table_pb2.GetViewRequest(
            table_id=table_id, player_id=player, view_format=view_format
        )
        response: table_pb2.GetViewResponse = await self.call("GetView", request)
        return response.view

    async def watch(
        self, table_id: str, player: str, view_format: ViewFormat
    ) -> AsyncIterator[table_pb2.TableView]:
        request = table_pb2.WatchViewRequest(
            table_id=table_id, player_id=player, view_format=view_format
        )
        async for response in self.stream("WatchView", request):
            yield response.view

    async def act(
        self, table_id: str, player: str, command_id: str, action: table_pb2.ActRequest
    ) -> table_pb2.TableView:
        request = table_pb2.ActRequest()
        request.CopyFrom(action)
        request.table_id, request.player_id, request.command_id = table_id, player, command_id
        response: table_pb2.ActResponse = await self.call("Act", request)
        return response.view

    async def reconnect(
        self, table_id: str, player: str, view_format: ViewFormat
    ) -> table_pb2.TableView:
        request = table_pb2.ReconnectRequest(
            table_id=table_id, player_id=player, view_format=view_format
        )
        response: table_pb2.ReconnectResponse = await self.call("Reconnect", request)
        return response.view

    async def leave(self, table_id: str, player: str) -> None:
        request = table_pb2.UnseatPlayerRequest(table_id=table_id, player_id=player)
        await self.call("UnseatPlayer", request)

    async def hand_history(self, table_id: str, hand_number: int) -> str:
        request = table_pb2.GetHandHistoryRequest(table_id=table_id, hand_number=hand_number)
        response: table_pb2.GetHandHistoryResponse = await self.call("GetHandHistory", request)
        return response.history_json
