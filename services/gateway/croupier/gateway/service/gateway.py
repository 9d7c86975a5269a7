"""The gateway's use cases: one method per RPC of `croupier.gateway.v1.Gateway`.

Each takes the request and the authenticated caller (`Identity`), checks the request's
shape (`core.requests`) before anything else, and calls the service behind through its
port for the caller's player only. Both transports (gRPC, Connect / gRPC-Web) call these
same methods: what a client may do does not depend on how it connects.

Seats: the table host refuses a player without a seat at the table (NOT_FOUND, as for an
unknown table). The gateway asks which it was only then, from the table's public view:
a table that exists but where the caller does not sit is his to watch, not to play at
(`core.access.NotSeated`, PERMISSION_DENIED). The check costs nothing on the way of a
good action.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TypeVar

from croupier.game.errors import Unknown
from croupier.gateway.core.access import require_hand_player, require_seat
from croupier.gateway.core.requests import (
    MAX_INVITED,
    InvalidRequest,
    check_action,
    check_id,
    check_ids,
    check_optional_id,
    check_page,
)
from croupier.gateway.service.account import AccountMethods
from croupier.gateway.service.ports import Lobby, Tables, Tournaments, Wallet
from croupier.gateway.service.presence import StreamPresence
from croupier.gateway.v1 import gateway_pb2 as pb
from croupier.kit.auth import Identity
from croupier.lobby.v1 import lobby_pb2
from croupier.table.v1 import table_pb2
from croupier.tournament.v1 import tournament_pb2

__all__ = ["GatewayService"]

T = TypeVar("T")
_VIEW_FORMATS = frozenset(table_pb2.ViewFormat.values())


def _view_format(value: int) -> table_pb2.ViewFormat.ValueType:
    if value not in _VIEW_FORMATS:
        known = ", ".join(table_pb2.ViewFormat.keys())
        raise InvalidRequest(f"view_format {value} is not one of {known}", "view_format")
    return table_pb2.ViewFormat.ValueType(value)


class GatewayService(AccountMethods):
    """The gateway's RPCs over the lobby, the table host, the wallet and the director."""

    def __init__(
        self, *, lobby: Lobby, tables: Tables, wallet: Wallet, tournaments: Tournaments
    ) -> None:
        self._lobby = lobby
        self._tables = tables
        self._wallet = wallet
        self._tournaments = tournaments
        self._presence = StreamPresence(tables)

    # ---- lobby -----------------------------------------------------------------------

    async def ListTables(
        self, request: pb.ListTablesRequest, caller: Identity
    ) -> pb.ListTablesResponse:
        page_size, page_token = check_page(request.page.page_size, request.page.page_token)
        forwarded = lobby_pb2.ListTablesRequest(filter=request.filter)
        forwarded.page.page_size, forwarded.page.page_token = page_size, page_token
        answer = await self._lobby.list_tables(caller.player, forwarded)
        return pb.ListTablesResponse(tables=answer.tables, next_page_token=answer.next_page_token)

    async def WatchTables(
        self, request: pb.WatchTablesRequest, caller: Identity
    ) -> AsyncIterator[pb.WatchTablesResponse]:
        async for listing in self._lobby.watch_tables(caller.player, request.filter):
            yield pb.WatchTablesResponse(table=listing)

    async def OpenTable(
        self, request: pb.OpenTableRequest, caller: Identity
    ) -> pb.OpenTableResponse:
        request_key = check_id(request.request_key, "request_key")
        forwarded = lobby_pb2.OpenTableRequest(
            request_key=request_key,
            options=request.options,
            clock=request.clock,
            stack=request.stack,
        )
        if request.HasField("privacy"):
            check_ids(request.privacy.invited, "privacy.invited", MAX_INVITED)
            forwarded.privacy.CopyFrom(request.privacy)
        answer = await self._lobby.open_table(caller.player, forwarded)
        return pb.OpenTableResponse(table=answer.table, invite_code=answer.invite_code)

    async def JoinTable(
        self, request: pb.JoinTableRequest, caller: Identity
    ) -> pb.JoinTableResponse:
        forwarded = lobby_pb2.JoinTableRequest(
            table_id=check_id(request.table_id, "table_id"),
            stack=request.stack,
            invite_code=check_optional_id(request.invite_code, "invite_code"),
        )
        answer = await self._lobby.join_table(caller.player, forwarded)
        return pb.JoinTableResponse(seat=answer.seat, table=answer.table)

    async def InvitePlayers(
        self, request: pb.InvitePlayersRequest, caller: Identity
    ) -> pb.InvitePlayersResponse:
        forwarded = lobby_pb2.InvitePlayersRequest(
            table_id=check_id(request.table_id, "table_id"),
            invited=check_ids(request.invited, "invited", MAX_INVITED),
        )
        answer = await self._lobby.invite_players(caller.player, forwarded)
        return pb.InvitePlayersResponse(table=answer.table)

    async def AddBots(self, request: pb.AddBotsRequest, caller: Identity) -> pb.AddBotsResponse:
        forwarded = lobby_pb2.AddBotsRequest(
            table_id=check_id(request.table_id, "table_id"), count=request.count
        )
        answer = await self._lobby.add_bots(caller.player, forwarded)
        return pb.AddBotsResponse(table=answer.table)

    async def FindGame(self, request: pb.FindGameRequest, caller: Identity) -> pb.FindGameResponse:
        forwarded = lobby_pb2.FindGameRequest(
            request_key=check_id(request.request_key, "request_key"),
            options=request.options,
            min_stake=request.min_stake,
            max_stake=request.max_stake,
            stack=request.stack,
        )
        answer = await self._lobby.find_game(caller.player, forwarded)
        return pb.FindGameResponse(ticket=answer.ticket)

    async def GetTicket(
        self, request: pb.GetTicketRequest, caller: Identity
    ) -> pb.GetTicketResponse:
        ticket_id = check_id(request.ticket_id, "ticket_id")
        return pb.GetTicketResponse(ticket=await self._lobby.get_ticket(caller.player, ticket_id))

    async def CancelTicket(
        self, request: pb.CancelTicketRequest, caller: Identity
    ) -> pb.CancelTicketResponse:
        ticket_id = check_id(request.ticket_id, "ticket_id")
        ticket = await self._lobby.cancel_ticket(caller.player, ticket_id)
        return pb.CancelTicketResponse(ticket=ticket)

    async def JoinWaitingList(
        self, request: pb.JoinWaitingListRequest, caller: Identity
    ) -> pb.JoinWaitingListResponse:
        forwarded = lobby_pb2.JoinWaitingListRequest(options=request.options, stack=request.stack)
        answer = await self._lobby.join_waiting_list(caller.player, forwarded)
        return pb.JoinWaitingListResponse(position=answer.position)

    async def LeaveWaitingList(
        self, request: pb.LeaveWaitingListRequest, caller: Identity
    ) -> pb.LeaveWaitingListResponse:
        forwarded = lobby_pb2.LeaveWaitingListRequest(options=request.options)
        await self._lobby.leave_waiting_list(caller.player, forwarded)
        return pb.LeaveWaitingListResponse()

    async def ListQueues(
        self, request: pb.ListQueuesRequest, caller: Identity
    ) -> pb.ListQueuesResponse:
        answer = await self._lobby.list_queues(caller.player)
        return pb.ListQueuesResponse(queues=answer.queues)

    async def JoinQueue(
        self, request: pb.JoinQueueRequest, caller: Identity
    ) -> pb.JoinQueueResponse:
        queue_id = check_id(request.queue_id, "queue_id")
        answer = await self._lobby.join_queue(caller.player, queue_id)
        return pb.JoinQueueResponse(
            tournament_id=answer.tournament_id, waiting=answer.waiting, players=answer.players
        )

    async def LeaveQueue(
        self, request: pb.LeaveQueueRequest, caller: Identity
    ) -> pb.LeaveQueueResponse:
        await self._lobby.leave_queue(caller.player, check_id(request.queue_id, "queue_id"))
        return pb.LeaveQueueResponse()

    async def GetRating(
        self, request: pb.GetRatingRequest, caller: Identity
    ) -> pb.GetRatingResponse:
        player = check_optional_id(request.player_id, "player_id") or caller.player
        answer = await self._lobby.rating(player, request.game)
        return pb.GetRatingResponse(rating=answer.rating, experience=answer.experience)

    # ---- tables ----------------------------------------------------------------------

    async def GetTableView(
        self, request: pb.GetTableViewRequest, caller: Identity
    ) -> pb.GetTableViewResponse:
        view_format = _view_format(request.view_format)
        table_id = check_id(request.table_id, "table_id")
        view = await self._tables.view(table_id, caller.player, view_format)
        return pb.GetTableViewResponse(view=view)

    async def WatchTable(
        self, request: pb.WatchTableRequest, caller: Identity
    ) -> AsyncIterator[pb.WatchTableResponse]:
        view_format = _view_format(request.view_format)
        table_id = check_id(request.table_id, "table_id")
        views = self._tables.watch(table_id, caller.player, view_format)
        async for view in self._presence.followed(table_id, caller.player, views):
            yield pb.WatchTableResponse(view=view)

    async def Act(self, request: pb.ActRequest, caller: Identity) -> pb.ActResponse:
        view_format = _view_format(request.view_format)
        table_id = check_id(request.table_id, "table_id")
        command_id = check_id(request.command_id, "command_id")
        check_action(request.action.WhichOneof("game") is not None, request.action_json)
        forwarded = table_pb2.ActRequest(
            action=request.action, action_json=request.action_json, view_format=view_format
        )
        view = await self._seated(
            table_id,
            caller,
            lambda: self._tables.act(table_id, caller.player, command_id, forwarded),
        )
        return pb.ActResponse(view=view)

    async def Reconnect(
        self, request: pb.ReconnectRequest, caller: Identity
    ) -> pb.ReconnectResponse:
        view_format = _view_format(request.view_format)
        table_id = check_id(request.table_id, "table_id")
        view = await self._seated(
            table_id, caller, lambda: self._tables.reconnect(table_id, caller.player, view_format)
        )
        return pb.ReconnectResponse(view=view)

    async def LeaveTable(
        self, request: pb.LeaveTableRequest, caller: Identity
    ) -> pb.LeaveTableResponse:
        table_id = check_id(request.table_id, "table_id")
        await self._seated(table_id, caller, lambda: self._tables.leave(table_id, caller.player))
        return pb.LeaveTableResponse()

    async def GetHandHistory(
        self, request: pb.GetHandHistoryRequest, caller: Identity
    ) -> pb.GetHandHistoryResponse:
        table_id = check_id(request.table_id, "table_id")
        history = await self._tables.hand_history(table_id, request.hand_number)
        require_hand_player(history, caller.player, table_id, request.hand_number)
        return pb.GetHandHistoryResponse(history_json=history)

    async def _seated(self, table_id: str, caller: Identity, call: Callable[[], Awaitable[T]]) -> T:
        """`call()`, a seated player's call at `table_id`; refused for lack of a seat, it is
        PERMISSION_DENIED when the table exists (see the module's docstring)."""
        try:
            return await call()
        except Unknown as refusal:
            try:
                public = await self._tables.view(table_id, "", table_pb2.VIEW_FORMAT_JSON)
            except Unknown:
                raise refusal from None  # no such table: NOT_FOUND stands
            require_seat(public.seated, caller.player, table_id)
            raise  # he sits there: something else was not found (a target, a hand)

    # ---- tournaments -----------------------------------------------------------------

    async def ListTournaments(
        self, request: pb.ListTournamentsRequest, caller: Identity
    ) -> pb.ListTournamentsResponse:
        page_size, page_token = check_page(request.page.page_size, request.page.page_token)
        forwarded = tournament_pb2.ListTournamentsRequest(
            statuses=request.statuses, page_size=page_size, page_token=page_token
        )
        answer = await self._tournaments.listed(forwarded)
        return pb.ListTournamentsResponse(
            tournaments=answer.tournaments, next_page_token=answer.next_page_token
        )

    async def GetTournament(
        self, request: pb.GetTournamentRequest, caller: Identity
    ) -> pb.GetTournamentResponse:
        tournament_id = check_id(request.tournament_id, "tournament_id")
        return pb.GetTournamentResponse(lobby=await self._tournaments.lobby(tournament_id))

    async def RegisterTournament(
        self, request: pb.RegisterTournamentRequest, caller: Identity
    ) -> pb.RegisterTournamentResponse:
        tournament_id = check_id(request.tournament_id, "tournament_id")
        coupon_id = check_optional_id(request.coupon_id, "coupon_id")
        answer = await self._tournaments.register(tournament_id, caller.player, coupon_id)
        return pb.RegisterTournamentResponse(entry_id=answer.entry_id, registered=answer.registered)

    async def UnregisterTournament(
        self, request: pb.UnregisterTournamentRequest, caller: Identity
    ) -> pb.UnregisterTournamentResponse:
        tournament_id = check_id(request.tournament_id, "tournament_id")
        await self._tournaments.unregister(tournament_id, caller.player)
        return pb.UnregisterTournamentResponse()

    async def Rebuy(self, request: pb.RebuyRequest, caller: Identity) -> pb.RebuyResponse:
        tournament_id = check_id(request.tournament_id, "tournament_id")
        chips = await self._tournaments.rebuy(tournament_id, caller.player, request.accept)
        return pb.RebuyResponse(chips=chips)

    async def GetStandings(
        self, request: pb.GetStandingsRequest, caller: Identity
    ) -> pb.GetStandingsResponse:
        tournament_id = check_id(request.tournament_id, "tournament_id")
        answer = await self._tournaments.standings(tournament_id)
        return pb.GetStandingsResponse(standings=answer.standings, final=answer.final)

    async def WatchTournament(
        self, request: pb.WatchTournamentRequest, caller: Identity
    ) -> AsyncIterator[pb.WatchTournamentResponse]:
        tournament_id = check_id(request.tournament_id, "tournament_id")
        async for event in self._tournaments.watch(tournament_id, request.after_sequence):
            yield pb.WatchTournamentResponse(event=event)
