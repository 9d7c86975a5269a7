"""A 16-player Gin tournament played to the end with bots, on the real parts: the table
host on a Kafka command log publishing to `croupier.table.events`, the director on
PostgreSQL reading the rounds' results from Kafka, the wallet service on PostgreSQL
(docs/rules/rummy-tournaments.md rules 2, 9, 17, 19-23, 42, 47): chips are conserved
at every round, the prize pool is the buy-ins and rebuys less the fees, the prizes add up
to the pool and the ledger stays balanced."""

from __future__ import annotations

import asyncio

from croupier.kit.bus.kafka import KafkaBus
from croupier.tournament import codec
from croupier.tournament.core.options import Level
from croupier.tournament.core.payouts import PayoutBracket
from croupier.tournament.service.director import Director
from croupier.tournament.service.model import RebuyTerms, Status, TournamentRecord
from croupier.tournament.v1 import tournament_pb2 as pb
from croupier.wallet.v1 import wallet_pb2
from tests.integration.tournament.platform import DEPOSIT, USD, Platform, kafka_tables
from tests.support.infra import unique_name
from tests.unit.tournament.director_sample import BUY_IN, FEE, START, sample_settings

PLAYERS = [f"p{number:02d}" for number in range(1, 17)]
STACK = 20
REBUYS_SOLD = 4
"""The first four players eliminated rebuy once; everyone else declines."""
RESULT_SECONDS = 60.0


async def _settled(director: Director, tid: str, table_id: str) -> None:
    """Wait until the director has applied the round played at `table_id`."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + RESULT_SECONDS
    while any(h.table_id == table_id for h in (await director.get(tid)).hosted):
        assert loop.time() < deadline, "the director did not apply the round's result"
        await asyncio.sleep(0.02)


def _chips_in_play(record: TournamentRecord) -> int:
    state = record.standings()
    assert state is not None
    return sum(p.chips for p in state.entrants.values()) + sum(sum(r.paid) for r in state.running)


async def test_a_16_player_gin_tournament_with_bots_plays_to_the_end(
    platform: Platform, kafka_bootstrap: str
) -> None:
    for player in PLAYERS:
        await platform.open_player(player)
    director_bus = KafkaBus(bootstrap_servers=kafka_bootstrap)
    async with kafka_tables(kafka_bootstrap, "gin-16") as hosted:
        platform.tables = hosted.tables
        stub = await platform.start_director(director_bus, unique_name("director"))
        assert platform.wired is not None
        director = platform.wired.director
        settings = sample_settings(
            variant="gin",
            min_players=2,
            max_players=16,
            table_size=2,
            starting_chips=STACK,
            levels=(Level(10, 5), Level(10, 10)),
            rebuys=RebuyTerms(
                max_per_player=1, max_level=5, price=BUY_IN, fee=FEE, window_seconds=25
            ),
            payouts=(
                PayoutBracket(2, 3, (10_000,)),
                PayoutBracket(4, 16, (5_000, 3_000, 2_000)),
            ),
        )
        created = await stub.CreateTournament(
            pb.CreateTournamentRequest(
                request_key=unique_name("gin16"), settings=codec.settings_to_proto(settings)
            )
        )
        tid = created.tournament_id
        for player in PLAYERS:
            await stub.Register(pb.RegisterRequest(tournament_id=tid, player_id=player))
        platform.clock.now = START
        await director.start_due()
        sold = 0
        for _ in range(400):
            record = await director.get(tid)
            if record.status is not Status.RUNNING:
                break
            state = record.standings()
            assert state is not None
            entrants, bought = len(PLAYERS), sum(p.rebuys for p in state.entrants.values())
            assert _chips_in_play(record) == STACK * (entrants + bought)  # every round
            seated = [s.player for s in record.seats]
            assert len(seated) == len(set(seated))  # nobody at two tables
            for offer in record.offers:
                accept = sold < REBUYS_SOLD
                sold += accept
                await stub.Rebuy(
                    pb.RebuyRequest(tournament_id=tid, player_id=offer.player, accept=accept)
                )
            tables = [h.table_id for h in (await director.get(tid)).hosted if h.table_id]
            if not tables:
                continue
            await hosted.play(tables[0])
            await _settled(director, tid, tables[0])
        record = await director.get(tid)
        assert record.status is Status.FINISHED
        state = record.standings()
        assert state is not None and state.finished
        rebuys = sum(p.rebuys for p in state.entrants.values())
        assert rebuys == sold == REBUYS_SOLD
        pool = record.prize_pool()
        assert pool == BUY_IN * (len(PLAYERS) + rebuys)  # buy-ins + rebuys − fees
        lobby = await stub.GetLobbyView(pb.GetLobbyViewRequest(tournament_id=tid))
        standings = await stub.GetStandings(pb.GetStandingsRequest(tournament_id=tid))
        prizes = {s.player_id: s.prize.amount_minor for s in standings.standings}
        assert sum(prizes.values()) == pool  # the prizes add up to the pool
        assert lobby.current_level >= 1
        for player in PLAYERS:
            paid = (1 + state.entrants[player].rebuys) * (BUY_IN + FEE)
            assert await platform.balance(player) == DEPOSIT - paid + prizes.get(player, 0)
        trial = await platform.wallet.GetTrialBalance(
            wallet_pb2.GetTrialBalanceRequest(currency=USD)
        )
        assert trial.balanced
        await platform.stop_director()
        platform.host = None
    await director_bus.stop()
