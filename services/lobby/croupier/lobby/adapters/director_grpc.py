"""The tournament director reached over gRPC (`croupier.tournament.v1.TournamentDirector`),
the lobby's production adapter of the `Director` port (the queues), and the queues'
templates read from JSON: the director's own `TournamentSettings` (proto JSON), so an
operator writes a queue's tournament in the contract's terms and a wrong one is refused
when the lobby starts, not at the first join."""

from __future__ import annotations

import json
from datetime import datetime
from importlib import resources
from typing import Any

from google.protobuf import json_format

from croupier.kit.channels import Target
from croupier.kit.remote import Remote
from croupier.kit.service_auth import ServiceCredential
from croupier.lobby.codec import game_name
from croupier.lobby.core.errors import InvalidInput
from croupier.lobby.core.policy import check_id
from croupier.lobby.service.ports import QueueTemplate
from croupier.tournament.v1 import tournament_pb2 as pb
from croupier.tournament.v1 import tournament_pb2_grpc

__all__ = ["DEFAULT_QUEUES", "GrpcDirector", "load_templates"]

DEFAULT_QUEUES = "queues.json"
"""The queues `croupier run` offers, next to this module (CROUPIER_LOBBY_QUEUES: others)."""
_KINDS = {pb.TOURNAMENT_KIND_SIT_AND_GO: "sit_and_go", pb.TOURNAMENT_KIND_SPIN: "spin"}


def _template(raw: Any) -> QueueTemplate:
    if not isinstance(raw, dict) or set(raw) != {"queue_id", "name", "settings"}:
        raise InvalidInput("invalid_queue", "a queue is {queue_id, name, settings}")
    queue_id = check_id(raw["queue_id"], "queue_id") if isinstance(raw["queue_id"], str) else ""
    try:
        settings = json_format.ParseDict(raw["settings"], pb.TournamentSettings())
    except json_format.ParseError as error:
        raise InvalidInput("invalid_queue", f"queue {queue_id}: settings: {error}") from None
    kind = _KINDS.get(settings.poker.kind)
    if kind is None or settings.HasField("start_time"):
        raise InvalidInput(
            "invalid_queue",
            f"queue {queue_id}: a Sit & Go or Spin (poker.kind), without a start_time",
        )
    if settings.min_players != settings.max_players:
        raise InvalidInput("invalid_queue", f"queue {queue_id}: min_players != max_players")
    if settings.buy_in.currency != settings.fee.currency:
        raise InvalidInput("invalid_queue", f"queue {queue_id}: buy-in and fee currencies differ")
    return QueueTemplate(
        queue_id=queue_id,
        name=str(raw["name"]),
        game=game_name(settings.game),
        variant=settings.variant,
        kind=kind,
        currency=settings.buy_in.currency,
        buy_in=settings.buy_in.amount_minor,
        fee=settings.fee.amount_minor,
        players=settings.max_players,
        settings=raw["settings"],
    )


def load_templates(path: str = "") -> tuple[QueueTemplate, ...]:
    """The queues in the JSON file at `path` (a list), or the built-in ones."""
    if path:
        with open(path, encoding="utf-8") as file:
            text = file.read()
    else:
        text = resources.files(__package__).joinpath(DEFAULT_QUEUES).read_text("utf-8")
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as error:
        raise InvalidInput("invalid_queue", f"queues file: {error}") from None
    if not isinstance(raw, list):
        raise InvalidInput("invalid_queue", "the queues file holds a list of queues")
    templates = tuple(_template(item) for item in raw)
    if len({t.queue_id for t in templates}) != len(templates):
        raise InvalidInput("invalid_queue", "two queues have the same queue_id")
    return templates


class GrpcDirector(Remote):
    def __init__(self, target: Target, credential: ServiceCredential | None = None) -> None:
        stub = tournament_pb2_grpc.TournamentDirectorStub
        super().__init__("tournament director", target, stub, credential)

    async def create(
        self, *, request_key: str, template: QueueTemplate, start_time: datetime
    ) -> str:
        settings = json_format.ParseDict(dict(template.settings), pb.TournamentSettings())
        settings.start_time.FromDatetime(start_time)
        request = pb.CreateTournamentRequest(request_key=request_key, settings=settings)
        response: pb.CreateTournamentResponse = await self.call("CreateTournament", request)
        return response.tournament_id

    async def register(self, tournament_id: str, player: str) -> int:
        request = pb.RegisterRequest(tournament_id=tournament_id, player_id=player)
        response: pb.RegisterResponse = await self.call("Register", request)
        return response.registered

    async def unregister(self, tournament_id: str, player: str) -> None:
        request = pb.UnregisterRequest(tournament_id=tournament_id, player_id=player)
        await self.call("Unregister", request)

    async def registered(self, tournament_id: str) -> int:
        request = pb.GetLobbyViewRequest(tournament_id=tournament_id)
        response: pb.GetLobbyViewResponse = await self.call("GetLobbyView", request)
        return len(response.player_ids)

    async def final_places(self, tournament_id: str) -> tuple[str, list[tuple[str, int]]]:
        request = pb.GetStandingsRequest(tournament_id=tournament_id)
        standings: pb.GetStandingsResponse = await self.call("GetStandings", request)
        if not standings.final:
            return "", []
        view = pb.GetLobbyViewRequest(tournament_id=tournament_id)
        lobby: pb.GetLobbyViewResponse = await self.call("GetLobbyView", view)
        places = [(s.player_id, s.rank) for s in standings.standings]
        return game_name(lobby.settings.game), places
