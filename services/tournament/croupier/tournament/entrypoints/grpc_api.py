"""`croupier.tournament.v1.TournamentDirector` over gRPC: translation only. Refusals are
`RuleBroken` kinds raised by the service; the kit's interceptor answers their status."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from croupier.game.limits import echo
from croupier.tournament import codec
from croupier.tournament.core.errors import InvalidInput
from croupier.tournament.service.director import Director
from croupier.tournament.service.model import Status
from croupier.tournament.service.views import StandingLine, lobby_view, standings
from croupier.tournament.v1 import tournament_pb2 as pb
from croupier.tournament.v1 import tournament_pb2_grpc

if TYPE_CHECKING:
    from croupier.kit.context import Context

__all__ = ["SERVICE_NAME", "TournamentDirectorService"]

SERVICE_NAME = pb.DESCRIPTOR.services_by_name["TournamentDirector"].full_name
_MAX_ID = 200


def _id(value: str, what: str) -> str:
    if not value or len(value) > _MAX_ID:
        raise InvalidInput(
            "invalid_id", f"{what} must have 1-{_MAX_ID} characters, got {echo(value)}"
        )
    return value


_STATUS_BY_ENUM: dict[int, Status] = {value: status for status, value in codec.STATUSES.items()}


def _status(value: int) -> Status:
    status = _STATUS_BY_ENUM.get(value)
    if status is None:
        known = ", ".join(pb.TournamentStatus.Name(v) for v in codec.STATUSES.values())
        raise InvalidInput("invalid_status", f"statuses hold {value}: name one of {known}")
    return status


def _standing(line: StandingLine, currency: str) -> pb.Standing:
    return pb.Standing(
        player_id=line.player,
        rank=line.rank,
        chips=line.chips,
        points=line.points,
        eliminated=line.eliminated,
        rebuys=line.rebuys,
        prize=codec.money(line.prize, currency),
    )


class TournamentDirectorService(tournament_pb2_grpc.TournamentDirectorServicer):
    def __init__(self, director: Director) -> None:
        self._director = director

    async def CreateTournament(
        self, request: pb.CreateTournamentRequest, context: Context
    ) -> pb.CreateTournamentResponse:
        settings = codec.settings_from_proto(request.settings)
        tournament_id, replayed = await self._director.create(
            request.request_key, settings, request.seed
        )
        return pb.CreateTournamentResponse(tournament_id=tournament_id, replayed=replayed)

    async def CancelTournament(
        self, request: pb.CancelTournamentRequest, context: Context
    ) -> pb.CancelTournamentResponse:
        tournament_id = _id(request.tournament_id, "tournament_id")
        refunded = await self._director.cancel(tournament_id, request.reason)
        return pb.CancelTournamentResponse(refunded=refunded)

    async def Register(self, request: pb.RegisterRequest, context: Context) -> pb.RegisterResponse:
        tournament_id = _id(request.tournament_id, "tournament_id")
        entry_id = await self._director.register(
            tournament_id, request.player_id, request.coupon_id, bot=request.bot
        )
        record = await self._director.get(tournament_id)
        return pb.RegisterResponse(entry_id=entry_id, registered=len(record.players()))

    async def Unregister(
        self, request: pb.UnregisterRequest, context: Context
    ) -> pb.UnregisterResponse:
        tournament_id = _id(request.tournament_id, "tournament_id")
        await self._director.unregister(tournament_id, _id(request.player_id, "player_id"))
        return pb.UnregisterResponse()

    async def Rebuy(self, request: pb.RebuyRequest, context: Context) -> pb.RebuyResponse:
        tournament_id = _id(request.tournament_id, "tournament_id")
        player = _id(request.player_id, "player_id")
        chips = await self._director.answer_rebuy(tournament_id, player, request.accept)
        return pb.RebuyResponse(chips=chips)

    async def GetLobbyView(
        self, request: pb.GetLobbyViewRequest, context: Context
    ) -> pb.GetLobbyViewResponse:
        record = await self._director.get(_id(request.tournament_id, "tournament_id"))
        view = lobby_view(record)
        currency = record.settings.currency
        return pb.GetLobbyViewResponse(
            tournament_id=record.tournament_id,
            settings=codec.settings_to_proto(record.settings),
            status=codec.STATUSES[record.status],
            current_level=view.current_level,
            player_ids=record.players(),
            ranking=[_standing(line, currency) for line in view.ranking],
            prize_pool=codec.money(view.prize_pool, currency),
            top_prizes=[codec.money(prize, currency) for prize in view.top_prizes],
            seats=[codec.seat_to_proto(seat) for seat in record.seats],
            # Secret until the draw is made: the seats it drew show it was used.
            seating_seed=record.seating_seed.hex() if record.seats else "",
            seed_commitment=view.seed_commitment,
            spin_multiplier=view.spin_multiplier,
        )

    async def ListTournaments(
        self, request: pb.ListTournamentsRequest, context: Context
    ) -> pb.ListTournamentsResponse:
        statuses = frozenset(_status(value) for value in request.statuses)
        records, next_token = await self._director.listed(
            statuses, request.page_size, request.page_token
        )
        return pb.ListTournamentsResponse(
            tournaments=[
                pb.TournamentSummary(
                    tournament_id=record.tournament_id,
                    settings=codec.settings_to_proto(record.settings),
                    status=codec.STATUSES[record.status],
                    registered=len(record.players()),
                )
                for record in records
            ],
            next_page_token=next_token,
        )

    async def GetStandings(
        self, request: pb.GetStandingsRequest, context: Context
    ) -> pb.GetStandingsResponse:
        record = await self._director.get(_id(request.tournament_id, "tournament_id"))
        lines, final = standings(record)
        currency = record.settings.currency
        return pb.GetStandingsResponse(
            standings=[_standing(line, currency) for line in lines], final=final
        )

    async def WatchTournament(
        self, request: pb.WatchTournamentRequest, context: Context
    ) -> AsyncIterator[pb.WatchTournamentResponse]:
        tournament_id = _id(request.tournament_id, "tournament_id")
        async for recorded in self._director.watch(tournament_id, request.after_sequence):
            yield pb.WatchTournamentResponse(event=codec.event_to_proto(recorded))

    async def VoidTournament(
        self, request: pb.VoidTournamentRequest, context: Context
    ) -> pb.VoidTournamentResponse:
        tournament_id = _id(request.tournament_id, "tournament_id")
        refunds = await self._director.void(tournament_id, request.reason)
        return pb.VoidTournamentResponse(refunds=refunds)

    async def DisqualifyPlayer(
        self, request: pb.DisqualifyPlayerRequest, context: Context
    ) -> pb.DisqualifyPlayerResponse:
        tournament_id = _id(request.tournament_id, "tournament_id")
        player = _id(request.player_id, "player_id")
        await self._director.disqualify(tournament_id, player, request.reason)
        return pb.DisqualifyPlayerResponse()
