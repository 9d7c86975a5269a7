"""The `Lobby` port over the lobby's gRPC API (`croupier.lobby.v1.Lobby`): the caller's
player is written into every request here, over whatever the request held."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TypeVar

from google.protobuf.message import Message

from croupier.common.v1.common_pb2 import Game
from croupier.kit.channels import Target
from croupier.kit.remote import Remote
from croupier.kit.service_auth import ServiceCredential
from croupier.lobby.v1 import lobby_pb2 as pb
from croupier.lobby.v1 import lobby_pb2_grpc

__all__ = ["GrpcLobby"]

M = TypeVar("M", bound=Message)


def _for(player: str, request: M) -> M:
    """A copy of `request` made on `player`'s behalf."""
    forwarded = type(request)()
    forwarded.CopyFrom(request)
    setattr(forwarded, "player_id", player)  # noqa: B010 - every lobby request has one
    return forwarded


class GrpcLobby(Remote):
    def __init__(self, target: Target, credential: ServiceCredential | None = None) -> None:
        super().__init__("lobby", target, lobby_pb2_grpc.LobbyStub, credential)

    async def list_tables(
        self, player: str, request: pb.ListTablesRequest
    ) -> pb.ListTablesResponse:
        response: pb.ListTablesResponse = await self.call("ListTables", _for(player, request))
        return response

    async def watch_tables(
        self, player: str, table_filter: pb.TableFilter
    ) -> AsyncIterator[pb.TableListing]:
        request = pb.WatchTablesRequest(player_id=player, filter=table_filter)
        async for response in self.stream("WatchTables", request):
            yield response.table

    async def open_table(self, player: str, request: pb.OpenTableRequest) -> pb.OpenTableResponse:
        response: pb.OpenTableResponse = await self.call("OpenTable", _for(player, request))
        return response

    async def join_table(self, player: str, request: pb.JoinTableRequest) -> pb.JoinTableResponse:
        response: pb.JoinTableResponse = await self.call("JoinTable", _for(player, request))
        return response

    async def invite_players(
        self, player: str, request: pb.InvitePlayersRequest
    ) -> pb.InvitePlayersResponse:
        response: pb.InvitePlayersResponse = await self.call("InvitePlayers", _for(player, request))
        return response

    async def add_bots(self, player: str, request: pb.AddBotsRequest) -> pb.AddBotsResponse:
        response: pb.AddBotsResponse = await self.call("AddBots", _for(player, request))
        return response

    async def find_game(self, player: str, request: pb.FindGameRequest) -> pb.FindGameResponse:
        response: pb.FindGameResponse = await self.call("FindGame", _for(player, request))
        return response

    async def get_ticket(self, player: str, ticket_id: str) -> pb.Ticket:
        request = pb.GetTicketRequest(player_id=player, ticket_id=ticket_id)
        response: pb.GetTicketResponse = await self.call("GetTicket", request)
        return response.ticket

    async def cancel_ticket(self, player: str, ticket_id: str) -> pb.Ticket:
        request = pb.CancelTicketRequest(player_id=player, ticket_id=ticket_id)
        response: pb.CancelTicketResponse = await self.call("CancelTicket", request)
        return response.ticket

    async def join_waiting_list(
        self, player: str, request: pb.JoinWaitingListRequest
    ) -> pb.JoinWaitingListResponse:
        response: pb.JoinWaitingListResponse = await self.call(
            "JoinWaitingList", _for(player, request)
        )
        return response

    async def leave_waiting_list(self, player: str, request: pb.LeaveWaitingListRequest) -> None:
        await self.call("LeaveWaitingList", _for(player, request))

    async def list_queues(self, player: str) -> pb.ListQueuesResponse:
        response: pb.ListQueuesResponse = await self.call(
            "ListQueues", pb.ListQueuesRequest(player_id=player)
        )
        return response

    async def join_queue(self, player: str, queue_id: str) -> pb.JoinQueueResponse:
        request = pb.JoinQueueRequest(player_id=player, queue_id=queue_id)
        response: pb.JoinQueueResponse = await self.call("JoinQueue", request)
        return response

    async def leave_queue(self, player: str, queue_id: str) -> None:
        await self.call("LeaveQueue", pb.LeaveQueueRequest(player_id=player, queue_id=queue_id))

    async def rating(self, player: str, game: Game.ValueType) -> pb.GetRatingResponse:
        request = pb.GetRatingRequest(player_id=player, game=game)
        response: pb.GetRatingResponse = await self.call("GetRating", request)
        return response

    async def limits(self, player: str) -> pb.GetAccountLimitsResponse:
        request = pb.GetAccountLimitsRequest(player_id=player)
        response: pb.GetAccountLimitsResponse = await self.call("GetAccountLimits", request)
        return response

    async def set_limits(self, request: pb.SetAccountLimitsRequest) -> None:
        await self.call("SetAccountLimits", request)
