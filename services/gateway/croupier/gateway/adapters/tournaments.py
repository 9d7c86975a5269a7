"""The `Tournaments` port over the director's gRPC API (`TournamentDirector`)."""

from __future__ import annotations

from collections.abc import AsyncIterator

from croupier.kit.channels import Target
from croupier.kit.remote import Remote
from croupier.kit.service_auth import ServiceCredential
from croupier.tournament.v1 import tournament_pb2 as pb
from croupier.tournament.v1 import tournament_pb2_grpc

__all__ = ["GrpcTournaments"]


class GrpcTournaments(Remote):
    def __init__(self, target: Target, credential: ServiceCredential | None = None) -> None:
        stub = tournament_pb2_grpc.TournamentDirectorStub
        super().__init__("tournament director", target, stub, credential)

    async def lobby(self, tournament_id: str) -> pb.GetLobbyViewResponse:
        request = pb.GetLobbyViewRequest(tournament_id=tournament_id)
        response: pb.GetLobbyViewResponse = await self.call("GetLobbyView", request)
        return response

    async def listed(self, request: pb.ListTournamentsRequest) -> pb.ListTournamentsResponse:
        response: pb.ListTournamentsResponse = await self.call("ListTournaments", request)
        return response

    async def register(
        self, tournament_id: str, player: str, coupon_id: str
    ) -> pb.RegisterResponse:
        request = pb.RegisterRequest(
            tournament_id=tournament_id, player_id=player, coupon_id=coupon_id
        )
        response: pb.RegisterResponse = await self.call("Register", request)
        return response

    async def unregister(self, tournament_id: str, player: str) -> None:
        request = pb.UnregisterRequest(tournament_id=tournament_id, player_id=player)
        await self.call("Unregister", request)

    async def rebuy(self, tournament_id: str, player: str, accept: bool) -> int:
        request = pb.RebuyRequest(tournament_id=tournament_id, player_id=player, accept=accept)
        response: pb.RebuyResponse = await self.call("Rebuy", request)
        return response.chips

    async def standings(self, tournament_id: str) -> pb.GetStandingsResponse:
        request = pb.GetStandingsRequest(tournament_id=tournament_id)
        response: pb.GetStandingsResponse = await self.call("GetStandings", request)
        return response

    async def watch(
        self, tournament_id: str, after_sequence: int
    ) -> AsyncIterator[pb.TournamentEvent]:
        request = pb.WatchTournamentRequest(
            tournament_id=tournament_id, after_sequence=after_sequence
        )
        async for response in self.stream("WatchTournament", request):
            yield response.event
