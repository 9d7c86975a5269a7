"""In-memory wallet and tournament director behind the gateway's ports, for unit tests:
each records the calls that reached it, so a test sees what the gateway forwarded (and
that a refused request forwarded nothing)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from croupier.common.v1 import common_pb2
from croupier.game.errors import Duplicate, Unknown
from croupier.tournament.v1 import tournament_pb2
from croupier.wallet.v1 import wallet_pb2


@dataclass
class MemoryWallet:
    """Balances by (player, currency), in minor units."""

    balances: dict[tuple[str, str], int] = field(default_factory=dict)
    calls: list[tuple[str, ...]] = field(default_factory=list)

    def _balance(self, player: str, currency: str) -> int:
        if (player, currency) not in self.balances:
            raise Unknown(f"you have no account in {currency}", "account_not_found")
        return self.balances[player, currency]

    async def balance(self, player: str, currency: str) -> wallet_pb2.GetBalanceResponse:
        self.calls.append(("balance", player, currency))
        amount = self._balance(player, currency)
        money = common_pb2.Money(amount_minor=amount, currency=currency)
        return wallet_pb2.GetBalanceResponse(
            balance=money, available=money, held=common_pb2.Money(currency=currency)
        )

    async def statement(
        self, player: str, currency: str, page_size: int, page_token: str
    ) -> wallet_pb2.GetStatementResponse:
        self.calls.append(("statement", player, currency, str(page_size), page_token))
        amount = self._balance(player, currency)
        line = wallet_pb2.StatementLine(
            transfer_id="grant-1", amount_minor=amount, balance_after_minor=amount
        )
        return wallet_pb2.GetStatementResponse(lines=[line])

    async def coupons(self, player: str) -> wallet_pb2.ListCouponsResponse:
        self.calls.append(("coupons", player))
        return wallet_pb2.ListCouponsResponse()


@dataclass
class MemoryTournaments:
    """One tournament, "t1", registering players."""

    registered: list[str] = field(default_factory=list)
    calls: list[tuple[str, ...]] = field(default_factory=list)

    def _known(self, tournament_id: str) -> None:
        if tournament_id != "t1":
            raise Unknown(f"no tournament {tournament_id[:64]!r}")

    async def listed(
        self, request: tournament_pb2.ListTournamentsRequest
    ) -> tournament_pb2.ListTournamentsResponse:
        self.calls.append(("listed", request.page_token))
        summary = tournament_pb2.TournamentSummary(tournament_id="t1")
        return tournament_pb2.ListTournamentsResponse(tournaments=[summary])

    async def lobby(self, tournament_id: str) -> tournament_pb2.GetLobbyViewResponse:
        self.calls.append(("lobby", tournament_id))
        self._known(tournament_id)
        return tournament_pb2.GetLobbyViewResponse(
            tournament_id=tournament_id, player_ids=self.registered
        )

    async def register(
        self, tournament_id: str, player: str, coupon_id: str
    ) -> tournament_pb2.RegisterResponse:
        self.calls.append(("register", tournament_id, player, coupon_id))
        self._known(tournament_id)
        if player in self.registered:
            raise Duplicate("already registered")
        self.registered.append(player)
        return tournament_pb2.RegisterResponse(
            entry_id=f"{tournament_id}:{player}:entry", registered=len(self.registered)
        )

    async def unregister(self, tournament_id: str, player: str) -> None:
        self.calls.append(("unregister", tournament_id, player))
        self._known(tournament_id)
        if player not in self.registered:
            raise Unknown("not registered")
        self.registered.remove(player)

    async def rebuy(self, tournament_id: str, player: str, accept: bool) -> int:
        self.calls.append(("rebuy", tournament_id, player, str(accept)))
        self._known(tournament_id)
        return 1000 if accept else 0

    async def standings(self, tournament_id: str) -> tournament_pb2.GetStandingsResponse:
        self.calls.append(("standings", tournament_id))
        self._known(tournament_id)
        return tournament_pb2.GetStandingsResponse()

    async def watch(
        self, tournament_id: str, after_sequence: int
    ) -> AsyncIterator[tournament_pb2.TournamentEvent]:
        self.calls.append(("watch", tournament_id, str(after_sequence)))
        self._known(tournament_id)
        yield tournament_pb2.TournamentEvent(tournament_id=tournament_id, sequence=1)
