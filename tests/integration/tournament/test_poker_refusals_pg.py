"""Poker tournaments' bad input over gRPC, the director on PostgreSQL and the wallet
service (issue 25): an unknown blind structure, registering after late registration
closed, entering again while still in (and re-entry when the tournament allows none)
are refused with a clear status and reason, and nothing is moved: no tournament, no
money, the same record."""

from __future__ import annotations

import grpc
import pytest

from croupier.tournament import codec
from croupier.tournament.core.blinds import BlindStructure, Level
from croupier.tournament.core.payouts import PayoutBracket
from croupier.tournament.service.model import Settings
from croupier.tournament.service.poker_model import PokerTerms
from croupier.tournament.v1 import tournament_pb2 as pb
from croupier.tournament.v1 import tournament_pb2_grpc
from tests.integration.tournament.platform import DEPOSIT, Platform
from tests.unit.tournament.director_sample import START, sample_settings

MINUTE = BlindStructure(
    (Level(10, 20, 0, "none", 1), Level(20, 40, 0, "none", 1), Level(40, 80, 0, "none", 1))
)


def _poker(terms: PokerTerms) -> Settings:
    return sample_settings(
        game="poker",
        variant="nlhe",
        min_players=2,
        max_players=9,
        table_size=9,
        levels=(),
        rebuys=None,
        payouts=(PayoutBracket(2, 9, (10_000,)),),
        poker=terms,
    )


async def _refused(call: object, code: grpc.StatusCode, reason: str) -> str:
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await call  # type: ignore[misc]
    assert info.value.code() == code, info.value.details()
    trailers = dict(info.value.trailing_metadata() or ())
    assert trailers.get("x-error-reason") == reason, (trailers, info.value.details())
    return info.value.details() or ""


async def test_an_unknown_blind_structure_is_invalid_and_creates_nothing(
    platform: Platform,
) -> None:
    stub = await platform.start_director()
    settings = _poker(PokerTerms("scheduled", preset="glacial"))
    request = pb.CreateTournamentRequest(
        request_key="glacial", settings=codec.settings_to_proto(settings)
    )
    details = await _refused(
        stub.CreateTournament(request), grpc.StatusCode.INVALID_ARGUMENT, "unknown_structure"
    )
    assert "glacial" in details and "turbo" in details  # names the known presets
    assert (
        await platform.pool.fetchval(f'SELECT count(*) FROM "{platform.schema}".tournaments') == 0
    )


async def test_late_registration_closed_and_a_second_entry_are_refused_moving_nothing(
    platform: Platform,
) -> None:
    stub = await platform.start_director()
    settings = _poker(PokerTerms("scheduled", levels=MINUTE, late_registration_level=1))
    created = await stub.CreateTournament(
        pb.CreateTournamentRequest(request_key="late", settings=codec.settings_to_proto(settings))
    )
    tid = created.tournament_id
    for player in "abc":
        await stub.Register(pb.RegisterRequest(tournament_id=tid, player_id=player))
    platform.clock.now = START
    assert platform.wired is not None
    await platform.wired.director.start_due()
    stub_view = tournament_pb2_grpc.TournamentDirectorStub(platform.channel)
    before = await stub_view.GetLobbyView(pb.GetLobbyViewRequest(tournament_id=tid))
    await _refused(  # still in with chips: a re-entry is after elimination
        stub.Register(pb.RegisterRequest(tournament_id=tid, player_id="a")),
        grpc.StatusCode.FAILED_PRECONDITION,
        "still_playing",
    )
    platform.clock.advance(90)  # level 2: late registration ended with level 1
    details = await _refused(
        stub.Register(pb.RegisterRequest(tournament_id=tid, player_id="d")),
        grpc.StatusCode.FAILED_PRECONDITION,
        "late_registration_closed",
    )
    assert "level 1" in details
    after = await stub_view.GetLobbyView(pb.GetLobbyViewRequest(tournament_id=tid))
    assert after == before
    assert await platform.balance("d") == DEPOSIT
    assert await platform.balance("a") == DEPOSIT - settings.buy_in - settings.fee
