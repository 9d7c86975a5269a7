"""Poker tournaments played to the end with bots on the real parts (issue 25, rules 52-55):
the table host on a Kafka command log publishing each hand's end to
`croupier.table.events`, the director on PostgreSQL reading them from Kafka, the wallet
service on PostgreSQL. A 6-max Naiko Sit & Go and a 27-player NLHE multi-table tournament
(steep blinds): after every hand the chips are conserved and, outside hand-for-hand, the
tables differ by one player at most; at the end the payouts are the table's for the
number of entrants, every balance is what the player paid and won, and the ledger's
zero-sum audit holds."""

from __future__ import annotations

import random
from dataclasses import replace

from croupier.kit.bus.kafka import KafkaBus
from croupier.tournament import codec
from croupier.tournament.core.blinds import BlindStructure, Level
from croupier.tournament.core.payouts import PayoutBracket, prizes_for
from croupier.tournament.core.poker_tournament import PokerTournament
from croupier.tournament.entrypoints.table_events import TABLE_EVENTS_TOPIC
from croupier.tournament.service.model import Settings, Status
from croupier.tournament.service.poker_model import PokerTerms
from croupier.tournament.service.poker_play import poker_state
from croupier.tournament.v1 import tournament_pb2 as pb
from croupier.tournament.v1 import tournament_pb2_grpc
from croupier.wallet.v1 import wallet_pb2
from tests.integration.tournament.platform import (
    DEPOSIT,
    USD,
    Platform,
    hand_applied,
    kafka_tables,
)
from tests.support.infra import start_group_at_end, unique_name
from tests.unit.tournament.director_sample import BUY_IN, FEE, START, sample_settings
from tests.unit.tournament.hosted import Hosted
from tests.unit.tournament.poker_hosted import play_hand

MAX_HANDS = 1_500
SECONDS_PER_HAND = 15
"""The director's clock moves on this much after each round of hands: levels of one minute
rise every four rounds."""
STACK = 1_000
STEEP = BlindStructure(
    tuple(
        Level(small, 2 * small, 2 * small if n >= 2 else 0, "big_blind" if n >= 2 else "none", 1)
        for n, small in enumerate((10, 25, 50, 100, 200, 400, 800, 1_600, 3_200))
    )
)
"""Blinds that double every minute, big-blind antes from level 3: a short tournament."""


def _check_balanced(state: PokerTournament, finished: int) -> None:
    """After a hand at table `finished`, table sizes differ by one at most, but for tables
    in mid-hand, which never lose players (TDA; they give theirs when their hand ends):
    the table whose hand just ended is never one of them. While a table due to break is
    in mid-hand, balancing waits for it (its players are reseated when it breaks)."""
    tables = [t for t in state.tables if t.seats]
    kept = -(-sum(len(t.seats) for t in tables) // state.config.table_size)
    if any(t.running for t in sorted(tables, key=lambda t: t.number)[kept:]):
        return
    shortest = min(len(t.seats) for t in tables)
    for table in tables:
        if len(table.seats) >= shortest + 2:
            assert table.number != finished, f"table {finished} kept {len(table.seats)}"
            assert table.running


async def _play_to_the_end(
    platform: Platform, hosted: Hosted, settings: Settings, players: list[str]
) -> None:
    assert platform.wired is not None and platform.channel is not None
    director = platform.wired.director
    stub = tournament_pb2_grpc.TournamentDirectorStub(platform.channel)
    created = await stub.CreateTournament(
        pb.CreateTournamentRequest(
            request_key=unique_name("poker"), settings=codec.settings_to_proto(settings)
        )
    )
    tid = created.tournament_id
    for player in players:
        await stub.Register(pb.RegisterRequest(tournament_id=tid, player_id=player))
    platform.clock.now = START
    await director.start_due()
    rng = random.Random(tid)
    hands = 0
    while (await director.get(tid)).status is Status.RUNNING:
        assert hands < MAX_HANDS, "the tournament never ended"
        in_play = [(h.table_id, h.table) for h in (await director.get(tid)).hands if h.table_id]
        for table_id, number in in_play:
            await play_hand(hosted, table_id, rng)
            await hand_applied(director, tid, table_id)
            hands += 1
            record = await director.get(tid)
            state = poker_state(record)
            assert state is not None
            assert sum(state.chips.values()) == STACK * len(players)  # chips conserved
            seated = [s.player for s in record.seats]
            assert len(seated) == len(set(seated))  # nobody at two tables
            if not state.hand_for_hand:
                _check_balanced(state, number)
        platform.clock.advance(SECONDS_PER_HAND)
        await director.rounds.advance_running()
    record = await director.get(tid)
    assert record.status is Status.FINISHED
    pool = BUY_IN * len(players)
    assert record.prize_pool() == pool
    ranking = await stub.GetStandings(pb.GetStandingsRequest(tournament_id=tid))
    assert ranking.final
    standings = {
        s.player_id: s.prize.amount_minor for s in ranking.standings if s.prize.amount_minor
    }
    expected = prizes_for(settings.payouts, len(players), pool)
    assert sum(standings.values()) == pool  # the prizes add up to the pool
    assert max(standings.values()) == expected[0]  # 1st place is never shared
    assert hands > len(players) // settings.table_size
    for player in players:
        paid = BUY_IN + FEE
        assert await platform.balance(player) == DEPOSIT - paid + standings.get(player, 0)
    trial = await platform.wallet.GetTrialBalance(wallet_pb2.GetTrialBalanceRequest(currency=USD))
    assert trial.balanced  # the ledger's zero-sum audit


async def _run(
    platform: Platform, kafka_bootstrap: str, settings: Settings, players: list[str]
) -> None:
    for player in players:
        await platform.open_player(player)
    director_bus = KafkaBus(bootstrap_servers=kafka_bootstrap)
    async with kafka_tables(kafka_bootstrap, settings.variant) as hosted:
        platform.tables = hosted.tables
        results = unique_name("director")
        # The broker is shared: the director reads the hands' results from their end on.
        await start_group_at_end(kafka_bootstrap, TABLE_EVENTS_TOPIC, results)
        await platform.start_director(director_bus, results)
        try:
            await _play_to_the_end(platform, hosted, settings, players)
        finally:
            await platform.stop_director()
            platform.host = None
    await director_bus.stop()


def _poker(kind: str, variant: str, players: int, table_size: int, **changes: object) -> Settings:
    return replace(
        sample_settings(),
        game="poker",
        variant=variant,
        min_players=players if kind != "scheduled" else 2,
        max_players=players,
        starting_chips=STACK,
        table_size=table_size,
        levels=(),
        rebuys=None,
        poker=PokerTerms(kind, levels=STEEP),  # type: ignore[arg-type]
        **changes,
    )


async def test_a_6_max_naiko_sit_and_go_with_bots_plays_to_the_end(
    platform: Platform, kafka_bootstrap: str
) -> None:
    settings = _poker("sit_and_go", "naiko", 6, 6, payouts=(PayoutBracket(6, 6, (6_500, 3_500)),))
    await _run(platform, kafka_bootstrap, settings, [f"n{n}" for n in range(1, 7)])


async def test_a_27_player_nlhe_multi_table_tournament_with_bots_plays_to_the_end(
    platform: Platform, kafka_bootstrap: str
) -> None:
    settings = _poker(
        "scheduled",
        "nlhe",
        27,
        9,
        payouts=(
            PayoutBracket(2, 9, (6_500, 3_500)),
            PayoutBracket(10, 27, (5_000, 3_000, 2_000)),
        ),
    )
    await _run(platform, kafka_bootstrap, settings, [f"m{n:02d}" for n in range(1, 28)])
