"""`croupier.lobby.v1.Lobby` over gRPC: translation only. Refusals are `RuleBroken` kinds
raised by the service; the kit's interceptor answers their status."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from croupier.lobby import codec
from croupier.lobby.core.errors import InvalidInput
from croupier.lobby.core.ratings import RatingRange
from croupier.lobby.service.accounts import Accounts
from croupier.lobby.service.matchmaking import Matchmaking
from croupier.lobby.service.ports import TableClock
from croupier.lobby.service.queues import TournamentQueues
from croupier.lobby.service.tables import Tables
from croupier.lobby.service.waiting import WaitingLists
from croupier.lobby.v1 import lobby_pb2 as pb
from croupier.lobby.v1 import lobby_pb2_grpc

if TYPE_CHECKING:
    from croupier.kit.context import Context

__all__ = ["MAX_PAGE", "SERVICE_NAME", "LobbyService"]

SERVICE_NAME = pb.DESCRIPTOR.services_by_name["Lobby"].full_name
MAX_PAGE = 100


def _offset(token: str) -> int:
    if not token:
        return 0
    if not (token.isascii() and token.isdigit() and len(token) <= 9):
        raise InvalidInput("invalid_page_token", "page_token is not one this lobby gave")
    return int(token)


class LobbyService(lobby_pb2_grpc.LobbyServicer):
    def __init__(
        self,
        tables: Tables,
        matchmaking: Matchmaking,
        accounts: Accounts,
        waiting: WaitingLists,
        queues: TournamentQueues,
    ) -> None:
        self._tables = tables
        self._matchmaking = matchmaking
        self._accounts = accounts
        self._waiting = waiting
        self._queues = queues

    async def ListTables(
        self, request: pb.ListTablesRequest, context: Context
    ) -> pb.ListTablesResponse:
        table_filter = codec.filter_from_proto(request.filter)
        start = _offset(request.page.page_token)
        size = min(request.page.page_size or MAX_PAGE, MAX_PAGE)
        listed = await self._tables.listed(request.player_id, table_filter)
        page = listed[start : start + size]
        more = start + size < len(listed)
        return pb.ListTablesResponse(
            tables=[codec.listing(record) for record in page],
            next_page_token=str(start + size) if more else "",
        )

    async def WatchTables(
        self, request: pb.WatchTablesRequest, context: Context
    ) -> AsyncIterator[pb.WatchTablesResponse]:
        table_filter = codec.filter_from_proto(request.filter)
        async for record in self._tables.watch(request.player_id, table_filter):
            yield pb.WatchTablesResponse(table=codec.listing(record))

    async def OpenTable(
        self, request: pb.OpenTableRequest, context: Context
    ) -> pb.OpenTableResponse:
        game, options = codec.options_from_proto(request.options)
        private = request.HasField("privacy")
        record = await self._tables.open(
            player=request.player_id,
            request_key=request.request_key,
            game=game,
            options=options,
            clock=TableClock(
                request.clock.turn_seconds,
                request.clock.reserve_seconds,
                request.clock.reconnect_seconds,
            ),
            invited=list(request.privacy.invited) if private else None,
            with_code=private and request.privacy.with_code,
            stack=request.stack,
            bots_allowed=request.bots_allowed,
        )
        return pb.OpenTableResponse(
            table=codec.listing(record), invite_code=record.table.invite_code
        )

    async def JoinTable(
        self, request: pb.JoinTableRequest, context: Context
    ) -> pb.JoinTableResponse:
        seat, record = await self._tables.join(
            request.table_id, request.player_id, request.stack, request.invite_code
        )
        return pb.JoinTableResponse(seat=seat, table=codec.listing(record))

    async def InvitePlayers(
        self, request: pb.InvitePlayersRequest, context: Context
    ) -> pb.InvitePlayersResponse:
        record = await self._tables.invite(request.table_id, request.player_id, request.invited)
        return pb.InvitePlayersResponse(table=codec.listing(record))

    async def AddBots(self, request: pb.AddBotsRequest, context: Context) -> pb.AddBotsResponse:
        record = await self._tables.add_bots(request.table_id, request.player_id, request.count)
        return pb.AddBotsResponse(table=codec.listing(record))

    async def SeatBot(self, request: pb.SeatBotRequest, context: Context) -> pb.SeatBotResponse:
        seat, record = await self._tables.join(
            request.table_id, request.bot_id, request.stack, bot=True
        )
        return pb.SeatBotResponse(seat=seat, table=codec.listing(record))

    async def FindGame(self, request: pb.FindGameRequest, context: Context) -> pb.FindGameResponse:
        game, options = codec.options_from_proto(request.options)
        record = await self._matchmaking.find(
            player=request.player_id,
            request_key=request.request_key,
            game=game,
            options=options,
            min_stake=request.min_stake,
            max_stake=request.max_stake,
            stack=request.stack,
            rating_range=RatingRange(request.rating_range.min, request.rating_range.max)
            if request.HasField("rating_range")
            else None,
        )
        return pb.FindGameResponse(ticket=codec.ticket(record))

    async def JoinWaitingList(
        self, request: pb.JoinWaitingListRequest, context: Context
    ) -> pb.JoinWaitingListResponse:
        game, options = codec.options_from_proto(request.options)
        position = await self._waiting.join(
            player=request.player_id, game=game, options=options, stack=request.stack
        )
        return pb.JoinWaitingListResponse(position=position)

    async def LeaveWaitingList(
        self, request: pb.LeaveWaitingListRequest, context: Context
    ) -> pb.LeaveWaitingListResponse:
        game, options = codec.options_from_proto(request.options)
        await self._waiting.leave(player=request.player_id, game=game, options=options)
        return pb.LeaveWaitingListResponse()

    async def ListQueues(
        self, request: pb.ListQueuesRequest, context: Context
    ) -> pb.ListQueuesResponse:
        return pb.ListQueuesResponse(
            queues=[codec.queue(state) for state in await self._queues.listed()]
        )

    async def JoinQueue(
        self, request: pb.JoinQueueRequest, context: Context
    ) -> pb.JoinQueueResponse:
        joined = await self._queues.join(request.player_id, request.queue_id)
        return pb.JoinQueueResponse(
            tournament_id=joined.tournament_id, waiting=joined.waiting, players=joined.players
        )

    async def LeaveQueue(
        self, request: pb.LeaveQueueRequest, context: Context
    ) -> pb.LeaveQueueResponse:
        await self._queues.leave(request.player_id, request.queue_id)
        return pb.LeaveQueueResponse()

    async def GetRating(
        self, request: pb.GetRatingRequest, context: Context
    ) -> pb.GetRatingResponse:
        rating = await self._matchmaking.rating(request.player_id, codec.game_name(request.game))
        return pb.GetRatingResponse(rating=rating.value, experience=rating.experience)

    async def GetTicket(
        self, request: pb.GetTicketRequest, context: Context
    ) -> pb.GetTicketResponse:
        record = await self._matchmaking.get(request.ticket_id, request.player_id)
        return pb.GetTicketResponse(ticket=codec.ticket(record))

    async def CancelTicket(
        self, request: pb.CancelTicketRequest, context: Context
    ) -> pb.CancelTicketResponse:
        record = await self._matchmaking.cancel(request.ticket_id, request.player_id)
        return pb.CancelTicketResponse(ticket=codec.ticket(record))

    async def SetAccountLimits(
        self, request: pb.SetAccountLimitsRequest, context: Context
    ) -> pb.SetAccountLimitsResponse:
        stakes: dict[str, int] = {}
        for money in request.max_stakes:
            if money.currency in stakes:
                raise InvalidInput("invalid_limits", f"{money.currency} is limited twice")
            stakes[money.currency] = money.amount_minor
        await self._accounts.set_limits(request.player_id, stakes, request.self_excluded)
        return pb.SetAccountLimitsResponse()

    async def GetAccountLimits(
        self, request: pb.GetAccountLimitsRequest, context: Context
    ) -> pb.GetAccountLimitsResponse:
        limits = await self._accounts.limits(request.player_id)
        return pb.GetAccountLimitsResponse(
            max_stakes=[codec.money(amount, currency) for currency, amount in limits.max_stakes],
            self_excluded=limits.self_excluded,
        )
