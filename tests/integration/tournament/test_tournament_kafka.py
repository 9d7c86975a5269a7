"""Tournaments played to the end with bots on the real parts: the table host on a Kafka
command log publishing to `croupier.table.events`, the director on PostgreSQL reading the
rounds' results from Kafka, the wallet service on PostgreSQL (docs/rules/
rummy-tournaments.md rules 2, 9, 17, 19-23, 42, 47): a 16-player Gin tournament and a
40-player Rummy 51 tournament with rebuys. At every round chips are conserved, nobody
sits at two tables and the balancer keeps as few tables as hold the players; at the end
the prize pool is the buy-ins and rebuys less the fees, the prizes add up to the pool,
every balance is what the player paid and won, and the ledger is balanced."""

from __future__ import annotations

import asyncio

import pytest

from croupier.kit.bus.kafka import KafkaBus
from croupier.tournament import codec
from croupier.tournament.core.options import Level
from croupier.tournament.core.payouts import PayoutBracket
from croupier.tournament.service.director import Director
from croupier.tournament.service.model import RebuyTerms, Settings, Status, TournamentRecord
from croupier.tournament.v1 import tournament_pb2 as pb
from croupier.tournament.v1 import tournament_pb2_grpc
from croupier.wallet.v1 import wallet_pb2
from tests.integration.tournament.platform import DEPOSIT, USD, Platform, kafka_tables
from tests.support.infra import unique_name
from tests.unit.tournament.director_sample import BUY_IN, FEE, START, sample_settings
from tests.unit.tournament.hosted import Hosted

RESULT_SECONDS = 60.0
MAX_ROUNDS = 2_000
SECONDS_PER_ROUND = 20
"""The director's clock moves on this much after each round (within the rebuy window), so
levels rise on the clock as in a real tournament (rule 18): every `LEVEL_SECONDS`."""
LEVEL_SECONDS = 200
RISING = tuple(Level(10 * 2**n, 2**n) for n in range(1, 9))
"""Fees and ratios that double each level: a tournament ends in a few dozen rounds."""
REBUY_TERMS = RebuyTerms(max_per_player=1, max_level=5, price=BUY_IN, fee=FEE, window_seconds=25)


async def _settled(director: Director, tid: str, table_id: str) -> None:
    """Wait until the director has applied the round played at `table_id`."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + RESULT_SECONDS
    while any(h.table_id == table_id for h in (await director.get(tid)).hosted):
        assert loop.time() < deadline, "the director did not apply the round's result"
        await asyncio.sleep(0.02)


def _check_round(record: TournamentRecord, players: int, stack: int) -> None:
    """What holds between any two rounds (rules 20-23, 42)."""
    state = record.standings()
    assert state is not None
    bought = sum(p.rebuys for p in state.entrants.values())
    in_play = sum(p.chips for p in state.entrants.values()) + sum(
        sum(r.paid) for r in state.running
    )
    assert in_play == stack * (players + bought)  # chips conserved
    seated = [s.player for s in record.seats]
    assert len(seated) == len(set(seated))  # nobody at two tables
    if not record.offers:  # balanced (no round starts while an offer is open)
        still_in = sum(1 for p in state.entrants.values() if p.out is None)
        size = record.settings.table_size
        players_at: dict[int, int] = {}
        for seat in record.seats:
            players_at[seat.table] = players_at.get(seat.table, 0) + 1
        table_of = {seat.player: seat.table for seat in record.seats}
        running = {table_of[r.table[0]] for r in state.running}
        # As few tables as the players need, or as the running rounds keep (a running
        # round is never broken): no more, and never a table too few.
        assert len(players_at) == max(-(-still_in // size), len(running)), players_at
        # Nobody waits alone at an idle table while another idle table could spare one.
        idle = [count for table, count in players_at.items() if table not in running]
        assert not (1 in idle and any(count >= 3 for count in idle)), players_at


async def _play_to_the_end(
    platform: Platform, hosted: Hosted, settings: Settings, players: list[str], rebuys: int
) -> None:
    """Register `players`, start, let bots play every round; the first `rebuys` players
    eliminated rebuy once, the others decline. Then check the money."""
    assert platform.wired is not None
    director = platform.wired.director
    assert platform.channel is not None
    stub = tournament_pb2_grpc.TournamentDirectorStub(platform.channel)
    created = await stub.CreateTournament(
        pb.CreateTournamentRequest(
            request_key=unique_name("kafka"), settings=codec.settings_to_proto(settings)
        )
    )
    tid = created.tournament_id
    for player in players:
        await stub.Register(pb.RegisterRequest(tournament_id=tid, player_id=player))
    platform.clock.now = START
    await director.start_due()
    sold = 0
    for _ in range(MAX_ROUNDS):
        record = await director.get(tid)
        if record.status is not Status.RUNNING:
            break
        _check_round(record, len(players), settings.starting_chips)
        for offer in record.offers:
            accept = sold < rebuys
            sold += accept
            await stub.Rebuy(
                pb.RebuyRequest(tournament_id=tid, player_id=offer.player, accept=accept)
            )
        tables = [h.table_id for h in (await director.get(tid)).hosted if h.table_id]
        if tables:
            await hosted.play(tables[0])
            await _settled(director, tid, tables[0])
            platform.clock.advance(SECONDS_PER_ROUND)
            await director.rounds.advance_running()
    record = await director.get(tid)
    assert record.status is Status.FINISHED
    state = record.standings()
    assert state is not None and state.finished
    assert sum(p.rebuys for p in state.entrants.values()) == sold == rebuys
    pool = record.prize_pool()
    assert pool == BUY_IN * (len(players) + rebuys)  # buy-ins + rebuys − fees
    standings = await stub.GetStandings(pb.GetStandingsRequest(tournament_id=tid))
    prizes = {s.player_id: s.prize.amount_minor for s in standings.standings}
    assert sum(prizes.values()) == pool  # the prizes add up to the pool
    for player in players:
        paid = (1 + state.entrants[player].rebuys) * (BUY_IN + FEE)
        assert await platform.balance(player) == DEPOSIT - paid + prizes.get(player, 0)
    trial = await platform.wallet.GetTrialBalance(wallet_pb2.GetTrialBalanceRequest(currency=USD))
    assert trial.balanced


async def _run(
    platform: Platform, kafka_bootstrap: str, settings: Settings, players: list[str], rebuys: int
) -> None:
    for player in players:
        await platform.open_player(player)
    director_bus = KafkaBus(bootstrap_servers=kafka_bootstrap)
    async with kafka_tables(kafka_bootstrap, settings.variant) as hosted:
        platform.tables = hosted.tables
        await platform.start_director(director_bus, unique_name("director"))
        try:
            await _play_to_the_end(platform, hosted, settings, players, rebuys)
        finally:
            await platform.stop_director()
            platform.host = None
    await director_bus.stop()


async def test_a_16_player_gin_tournament_with_bots_plays_to_the_end(
    platform: Platform, kafka_bootstrap: str
) -> None:
    settings = sample_settings(
        variant="gin",
        min_players=2,
        max_players=16,
        table_size=2,
        starting_chips=20,
        level_seconds=LEVEL_SECONDS,
        levels=(Level(10, 5), Level(10, 10)),
        rebuys=REBUY_TERMS,
        payouts=(PayoutBracket(2, 3, (10_000,)), PayoutBracket(4, 16, (5_000, 3_000, 2_000))),
    )
    players = [f"g{number:02d}" for number in range(1, 17)]
    await _run(platform, kafka_bootstrap, settings, players, rebuys=4)


async def test_a_40_player_rummy_51_tournament_with_rebuys_plays_to_the_end(
    platform: Platform, kafka_bootstrap: str
) -> None:
    settings = sample_settings(
        variant="rummy51",
        min_players=2,
        max_players=40,
        table_size=4,
        starting_chips=100,
        level_seconds=LEVEL_SECONDS,
        levels=RISING,
        rebuys=REBUY_TERMS,
        payouts=(
            PayoutBracket(2, 4, (10_000,)),
            PayoutBracket(5, 40, (4_000, 2_500, 1_500, 1_000, 1_000)),
        ),
    )
    players = [f"r{number:02d}" for number in range(1, 41)]
    await _run(platform, kafka_bootstrap, settings, players, rebuys=10)


@pytest.mark.parametrize(
    ("variant", "table_size"), [("oklahoma_gin", 2), ("rummy", 4), ("rummy40", 4), ("rummy500", 4)]
)
async def test_every_other_rummy_variant_plays_a_tournament_to_the_end(
    platform: Platform, kafka_bootstrap: str, variant: str, table_size: int
) -> None:
    """The intro's every variant: 8 players of Oklahoma gin, Rummy, Rummy 40 and Rummy 500
    (Gin and Rummy 51 above), with rebuys, on the real host, wallet, Kafka and PostgreSQL."""
    settings = sample_settings(
        variant=variant,
        min_players=2,
        max_players=8,
        table_size=table_size,
        starting_chips=60,
        level_seconds=LEVEL_SECONDS,
        levels=RISING,
        rebuys=REBUY_TERMS,
        payouts=(PayoutBracket(2, 3, (10_000,)), PayoutBracket(4, 8, (6_000, 4_000))),
    )
    players = [f"{variant[:3]}{number}" for number in range(1, 9)]
    await _run(platform, kafka_bootstrap, settings, players, rebuys=2)
