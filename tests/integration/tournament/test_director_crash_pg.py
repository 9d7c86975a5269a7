"""Rule 44, OQ 28 on the real PostgreSQL and wallet: a tournament whose stored state cannot
be read back cannot continue, so it is voided and its money refunded (the crash refund,
counted), by an operator's `VoidTournament` or by the director itself when it advances
the running tournaments, where one bad record does not stop the others."""

from __future__ import annotations

import grpc
import pytest
from prometheus_client import REGISTRY

from croupier.tournament import codec
from croupier.tournament.v1 import tournament_pb2 as pb
from croupier.tournament.v1 import tournament_pb2_grpc
from tests.integration.tournament.platform import DEPOSIT, Platform
from tests.unit.tournament.director_sample import BUY_IN, FEE, START, sample_settings


async def _running(stub: tournament_pb2_grpc.TournamentDirectorStub, key: str, players: str) -> str:
    request = pb.CreateTournamentRequest(
        request_key=key, settings=codec.settings_to_proto(sample_settings())
    )
    tid: str = (await stub.CreateTournament(request)).tournament_id
    for player in players:
        await stub.Register(pb.RegisterRequest(tournament_id=tid, player_id=player))
    return tid


async def _spoil(platform: Platform, tid: str) -> None:
    """Its saved actions replaced by something no director can read back."""
    await platform.pool.execute(
        f'UPDATE "{platform.schema}".tournaments SET actions = $1 WHERE tournament_id = $2',
        '[{"action": "garbage"}]',
        tid,
    )


def _crash_refunds() -> float:
    value = REGISTRY.get_sample_value("croupier_tournament_crash_refunds_total", {"game": "rummy"})
    return value or 0.0


async def _status(platform: Platform, tid: str) -> str:
    status: str = await platform.pool.fetchval(
        f'SELECT status FROM "{platform.schema}".tournaments WHERE tournament_id = $1', tid
    )
    return status


async def test_rule_44_an_operator_voids_and_refunds_an_unreadable_tournament(
    platform: Platform,
) -> None:
    stub = await platform.start_director()
    tid = await _running(stub, "spoilt", "abc")
    assert platform.wired is not None
    platform.clock.now = START
    await platform.wired.director.start_due()
    await _spoil(platform, tid)
    await platform.stop_director()
    stub = await platform.start_director()  # nothing of it cached
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await stub.GetLobbyView(pb.GetLobbyViewRequest(tournament_id=tid))
    assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    before = _crash_refunds()
    voided = await stub.VoidTournament(pb.VoidTournamentRequest(tournament_id=tid, reason="x"))
    assert voided.refunds > 0
    assert [await platform.balance(p) for p in "abc"] == [DEPOSIT] * 3
    assert await _status(platform, tid) == "voided" and _crash_refunds() == before + 1
    last = await platform.pool.fetchval(
        f'SELECT event FROM "{platform.schema}".tournament_events WHERE tournament_id = $1'
        " ORDER BY sequence DESC LIMIT 1",
        tid,
    )
    assert pb.TournamentEvent.FromString(last).WhichOneof("kind") == "voided"
    # Voided once: a second void finds nothing to void and moves nothing.
    with pytest.raises(grpc.aio.AioRpcError) as again:
        await stub.VoidTournament(pb.VoidTournamentRequest(tournament_id=tid, reason="x"))
    assert again.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert [await platform.balance(p) for p in "abc"] == [DEPOSIT] * 3


async def test_rule_44_a_restarted_director_voids_an_unreadable_tournament_and_plays_on(
    platform: Platform,
) -> None:
    stub = await platform.start_director()
    spoilt = await _running(stub, "spoilt", "abc")
    healthy = await _running(stub, "healthy", "def")
    assert platform.wired is not None
    platform.clock.now = START
    await platform.wired.director.start_due()
    await _spoil(platform, spoilt)
    await platform.stop_director()
    before = _crash_refunds()
    await platform.start_director()
    assert platform.wired is not None
    await platform.wired.director.rounds.advance_running()  # what a restart does first
    assert await _status(platform, spoilt) == "voided" and _crash_refunds() == before + 1
    assert [await platform.balance(p) for p in "abc"] == [DEPOSIT] * 3
    record = await platform.wired.director.get(healthy)
    assert record.status.value == "running" and record.hosted  # its rounds play on
    assert [await platform.balance(p) for p in "def"] == [DEPOSIT - BUY_IN - FEE] * 3
