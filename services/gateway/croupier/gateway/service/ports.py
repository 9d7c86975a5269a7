"""What the gateway needs from the services behind it: the lobby, the table host, the wallet
and the tournament director, each called for a player the gateway has authenticated.

The gateway is a facade over their contracts, so its ports speak their protobuf messages:
translating them into other types and back would copy every view field for nothing.
Refusals come back as the `croupier.game` kinds the service answered (`Malformed`,
`Unknown`, `NotYours`, `Duplicate`, `RuleBroken`), a service that did not answer as
`croupier.kit.errors.Unavailable`; the kit's one table turns them into the same status
the service gave.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol, TypeAlias

from croupier.common.v1 import common_pb2
from croupier.lobby.v1 import lobby_pb2
from croupier.table.v1 import table_pb2
from croupier.tournament.v1 import tournament_pb2
from croupier.wallet.v1 import wallet_pb2

__all__ = ["Lobby", "Tables", "Tournaments", "Wallet"]

ViewFormat: TypeAlias = table_pb2.ViewFormat.ValueType


class Lobby(Protocol):
    """The lobby (`croupier.lobby.v1.Lobby`) for one player: each request is the lobby's
    own message, its `player_id` set by the adapter from `player` (whatever it held)."""

    async def list_tables(
        self, player: str, request: lobby_pb2.ListTablesRequest
    ) -> lobby_pb2.ListTablesResponse: ...

    def watch_tables(
        self, player: str, table_filter: lobby_pb2.TableFilter
    ) -> AsyncIterator[lobby_pb2.TableListing]:
        """The listing now, then every change, until the call ends."""
        ...

    async def open_table(
        self, player: str, request: lobby_pb2.OpenTableRequest
    ) -> lobby_pb2.OpenTableResponse: ...

    async def join_table(
        self, player: str, request: lobby_pb2.JoinTableRequest
    ) -> lobby_pb2.JoinTableResponse: ...

    async def invite_players(
        self, player: str, request: lobby_pb2.InvitePlayersRequest
    ) -> lobby_pb2.InvitePlayersResponse: ...

    async def add_bots(
        self, player: str, request: lobby_pb2.AddBotsRequest
    ) -> lobby_pb2.AddBotsResponse: ...

    async def find_game(
        self, player: str, request: lobby_pb2.FindGameRequest
    ) -> lobby_pb2.FindGameResponse: ...

    async def get_ticket(self, player: str, ticket_id: str) -> lobby_pb2.Ticket: ...

    async def cancel_ticket(self, player: str, ticket_id: str) -> lobby_pb2.Ticket: ...

    async def join_waiting_list(
        self, player: str, request: lobby_pb2.JoinWaitingListRequest
    ) -> lobby_pb2.JoinWaitingListResponse: ...

    async def leave_waiting_list(
        self, player: str, request: lobby_pb2.LeaveWaitingListRequest
    ) -> None: ...

    async def list_queues(self, player: str) -> lobby_pb2.ListQueuesResponse: ...

    async def join_queue(self, player: str, queue_id: str) -> lobby_pb2.JoinQueueResponse: ...

    async def leave_queue(self, player: str, queue_id: str) -> None: ...

    async def rating(
        self, player: str, game: common_pb2.Game.ValueType
    ) -> lobby_pb2.GetRatingResponse:
        """`player`'s rating at `game` (public: any player's may be read)."""
        ...

    async def limits(self, player: str) -> lobby_pb2.GetAccountLimitsResponse: ...

    async def set_limits(self, request: lobby_pb2.SetAccountLimitsRequest) -> None:
        """An operator's call: the request names the account it limits."""
        ...


class Tables(Protocol):
    """The table host (`croupier.table.v1.TableEngine`) for one player."""

    async def view(
        self, table_id: str, player: str, view_format: ViewFormat
    ) -> table_pb2.TableView:
        """`player`'s view; the public one when he has no seat (or is "")."""
        ...

    def watch(
        self, table_id: str, player: str, view_format: ViewFormat
    ) -> AsyncIterator[table_pb2.TableView]:
        """`player`'s view now, then after every change, until the table closes."""
        ...

    async def act(
        self, table_id: str, player: str, command_id: str, action: table_pb2.ActRequest
    ) -> table_pb2.TableView:
        """`player`'s action (`action`: its action, action_json and view_format fields)."""
        ...

    async def reconnect(
        self, table_id: str, player: str, view_format: ViewFormat
    ) -> table_pb2.TableView: ...

    async def leave(self, table_id: str, player: str) -> None: ...

    async def disconnect(self, table_id: str, player: str) -> None:
        """`player`'s session at the table ended: his seat is kept for its reconnection
        window."""
        ...

    async def hand_history(self, table_id: str, hand_number: int) -> str:
        """A finished hand's history as JSON."""
        ...


class Wallet(Protocol):
    """The wallet's read side (`croupier.wallet.v1.Wallet`) for one player's accounts."""

    async def balance(self, player: str, currency: str) -> wallet_pb2.GetBalanceResponse: ...

    async def statement(
        self, player: str, currency: str, page_size: int, page_token: str
    ) -> wallet_pb2.GetStatementResponse: ...

    async def coupons(self, player: str) -> wallet_pb2.ListCouponsResponse: ...


class Tournaments(Protocol):
    """The tournament director (`croupier.tournament.v1.TournamentDirector`)."""

    async def lobby(self, tournament_id: str) -> tournament_pb2.GetLobbyViewResponse: ...

    async def listed(
        self, request: tournament_pb2.ListTournamentsRequest
    ) -> tournament_pb2.ListTournamentsResponse: ...

    async def register(
        self, tournament_id: str, player: str, coupon_id: str
    ) -> tournament_pb2.RegisterResponse: ...

    async def unregister(self, tournament_id: str, player: str) -> None: ...

    async def rebuy(self, tournament_id: str, player: str, accept: bool) -> int:
        """Chips credited (0 when declined)."""
        ...

    async def standings(self, tournament_id: str) -> tournament_pb2.GetStandingsResponse: ...

    def watch(
        self, tournament_id: str, after_sequence: int
    ) -> AsyncIterator[tournament_pb2.TournamentEvent]: ...
