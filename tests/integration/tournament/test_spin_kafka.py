"""A Spin at its largest multiplier played to the end with bots on the real parts (issue 25
rule 53): the table host on a Kafka command log publishing each hand's end to
`croupier.table.events`, the director on PostgreSQL reading them from Kafka, the wallet
service on PostgreSQL. The seed draws 1000x: a pool of 1000 buy-ins for three entries, the
difference from the poker prize fund (funded by the `platform` fixture) with the third
entry; at the end the prizes (8:1:1) are paid in one batch, every balance is what the
player paid and won, the fund paid exactly the overlay, and the trial balance balances."""

from __future__ import annotations

import asyncio
import hashlib
import random
from dataclasses import replace

from croupier.kit.bus.kafka import KafkaBus
from croupier.tournament import codec
from croupier.tournament.core.blinds import BlindStructure, Level
from croupier.tournament.core.spin import PUBLISHED_TABLE, draw_multiplier, prizes
from croupier.tournament.service.director import Director
from croupier.tournament.service.model import Status
from croupier.tournament.service.poker_model import PokerTerms
from croupier.tournament.v1 import tournament_pb2 as pb
from croupier.wallet.v1 import wallet_pb2
from tests.integration.tournament.conftest import PRIZE_FUND
from tests.integration.tournament.platform import DEPOSIT, USD, Platform, kafka_tables
from tests.support.infra import unique_name
from tests.unit.tournament.director_sample import BUY_IN, FEE, sample_settings
from tests.unit.tournament.poker_hosted import play_hand

SEED = hashlib.sha256(b"spin-5185").digest()
"""Found by search: draws the table's 1000x row (one Spin in 10,000)."""
MAX_HANDS = 600
RESULT_SECONDS = 60.0
SECONDS_PER_HAND = 15
PLAYERS = ["s1", "s2", "s3"]
FUND = "house_promotions:poker:USD"
STEEP = BlindStructure(
    tuple(Level(small, 2 * small, 0, "none", 1) for small in (10, 25, 50, 100, 200, 400, 800))
)
"""Blinds that double every minute: a short Spin."""


async def test_rule_53_a_1000x_spin_pays_its_prizes_from_the_pool_the_fund_topped_up(
    platform: Platform, kafka_bootstrap: str
) -> None:
    row = draw_multiplier(PUBLISHED_TABLE, SEED)
    assert row.multiplier == 1000
    paid = prizes(row, BUY_IN)
    settings = replace(
        sample_settings(),
        game="poker",
        variant="nlhe",
        name="Spin",
        min_players=3,
        max_players=3,
        table_size=3,
        starting_chips=500,
        levels=(),
        rebuys=None,
        payouts=(),
        poker=PokerTerms("spin", levels=STEEP),
    )
    for player in PLAYERS:
        await platform.open_player(player)
    director_bus = KafkaBus(bootstrap_servers=kafka_bootstrap)
    async with kafka_tables(kafka_bootstrap, "spin") as hosted:
        platform.tables = hosted.tables
        stub = await platform.start_director(director_bus, unique_name("director"))
        assert platform.wired is not None
        director = platform.wired.director
        try:
            created = await stub.CreateTournament(
                pb.CreateTournamentRequest(
                    request_key=unique_name("spin"),
                    settings=codec.settings_to_proto(settings),
                    seed=SEED,
                )
            )
            tid = created.tournament_id
            for player in PLAYERS:  # the third entry starts it
                await stub.Register(pb.RegisterRequest(tournament_id=tid, player_id=player))
            view = await stub.GetLobbyView(pb.GetLobbyViewRequest(tournament_id=tid))
            assert view.spin_multiplier == 1000
            assert view.prize_pool.amount_minor == sum(paid) == 1000 * BUY_IN
            assert await balance(platform, f"tournament_pool:{tid}:USD") == 1000 * BUY_IN
            assert await balance(platform, FUND) == PRIZE_FUND - (1000 - 3) * BUY_IN

            rng = random.Random(tid)
            for _ in range(MAX_HANDS):
                record = await director.get(tid)
                if record.status is not Status.RUNNING:
                    break
                for hand in record.hands:
                    if hand.table_id:
                        await play_hand(hosted, hand.table_id, rng)
                        await applied(director, tid, hand.table_id)
                platform.clock.advance(SECONDS_PER_HAND)
                await director.rounds.advance_running()
            record = await director.get(tid)
            assert record.status is Status.FINISHED
        finally:
            await platform.stop_director()
            platform.host = None
    await director_bus.stop()

    # Each player paid one entry and won his place's prize: 8:1:1 of 1000 buy-ins.
    won = [await balance(platform, platform_account(platform, p)) for p in PLAYERS]
    assert sorted((w - DEPOSIT + BUY_IN + FEE for w in won), reverse=True) == list(paid)
    assert await balance(platform, f"tournament_pool:{tid}:USD") == 0
    assert await balance(platform, FUND) == PRIZE_FUND - (1000 - 3) * BUY_IN
    trial = await platform.wallet.GetTrialBalance(wallet_pb2.GetTrialBalanceRequest(currency=USD))
    assert trial.balanced  # every currency's accounts add up to zero


def platform_account(platform: Platform, player: str) -> str:
    assert platform.accounts is not None
    return platform.accounts[player]


async def balance(platform: Platform, account_id: str) -> int:
    response = await platform.wallet.GetBalance(wallet_pb2.GetBalanceRequest(account_id=account_id))
    amount: int = response.balance.amount_minor
    return amount


async def applied(director: Director, tid: str, table_id: str) -> None:
    """Wait until the director has applied the hand played at `table_id` (its result
    travels over the broker)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + RESULT_SECONDS
    while True:
        record = await director.get(tid)
        if record.status is not Status.RUNNING or all(h.table_id != table_id for h in record.hands):
            return
        assert loop.time() < deadline, "the director did not apply the hand's result"
        await asyncio.sleep(0.01)
