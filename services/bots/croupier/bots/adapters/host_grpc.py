"""The table host over gRPC (`croupier.table.v1.TableEngine`) as one seat sees it: the
seat's own views (`WatchView` for its player: nothing another seat may not see, the same
stream a human's client gets) and its actions (`Act`, in the game's JSON notation)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from croupier.bots.service.ports import SeatUpdate
from croupier.kit.channels import Target
from croupier.kit.service_auth import ServiceCredential
from croupier.table.client import TableHostClient
from croupier.table.v1 import table_pb2

__all__ = ["GrpcSeatHost"]

JSON = dict[str, Any]


class GrpcSeatHost:
    def __init__(self, target: Target, credential: ServiceCredential | None) -> None:
        self._client = TableHostClient(target, credential=credential)

    async def watch(self, table_id: str, player: str) -> AsyncIterator[SeatUpdate]:
        request = table_pb2.WatchViewRequest(
            table_id=table_id, player_id=player, view_format=table_pb2.VIEW_FORMAT_JSON
        )
        async for message in self._client.stream("WatchView", request):
            yield _update(message.view)

    async def act(self, table_id: str, player: str, command_id: str, action: JSON) -> None:
        await self._client.call(
            "Act",
            table_pb2.ActRequest(
                table_id=table_id,
                player_id=player,
                command_id=command_id,
                action_json=json.dumps(action),
                view_format=table_pb2.VIEW_FORMAT_JSON,
            ),
        )

    async def close(self) -> None:
        await self._client.close()


def _update(view: table_pb2.TableView) -> SeatUpdate:
    return SeatUpdate(int(view.version), json.loads(view.view_json or "{}"), view.closed)
