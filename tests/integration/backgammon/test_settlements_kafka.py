"""Backgammon end to end through the gRPC TableEngine service on the real Kafka broker.

The service runs in this process (`KafkaCommandLog` on a topic of its own, `KafkaBus`),
with the tables' clocks running. A 3-point series and a money game are played to the
end with random legal actions (doubles included); a second money game ends with a
disconnection that is never repaired, which the host settles from GNU Backgammon's
evaluation. Every money result must arrive on `croupier.wallet.requests` as a
`SettlementRequested` with the amounts and commission of rules 3-5, 39-43 and OQ 4/7.
No wallet stands behind this host (nothing is bought in, nothing applied): that the
wallet applies these settlements to seats the host funded is
`test_money_games_kafka_pg.py`.
"""

from __future__ import annotations

import asyncio
import json
import random
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import pytest

from croupier.backgammon.v1 import backgammon_pb2
from croupier.common.v1 import common_pb2
from croupier.game.commission import backgammon_commission
from croupier.game.money import CURRENCIES
from croupier.table.v1 import table_pb2
from croupier.wallet.core.settlement import backgammon_rule, check_engine_result
from tests.support.kafka_table import WalletRequests, kafka_service

pytestmark = pytest.mark.timeout(180)

PLAYERS = ("ann", "bob")
Stub = Any


async def open_table(
    stub: Stub, options: backgammon_pb2.Options, reconnect_seconds: int = 180
) -> str:
    request = table_pb2.OpenTableRequest(options=table_pb2.GameOptions(backgammon=options))
    request.clock.turn_seconds = 20  # running, but the bots are quicker
    request.clock.reserve_seconds = 60
    request.clock.reconnect_seconds = reconnect_seconds
    table_id = (await stub.OpenTable(request)).table_id
    for seat, player in enumerate(PLAYERS):
        await stub.SeatPlayer(
            table_pb2.SeatPlayerRequest(table_id=table_id, player_id=player, seat=seat)
        )
    return table_id


async def get_view(stub: Stub, table_id: str, player: str = "") -> table_pb2.TableView:
    return (await stub.GetView(table_pb2.GetViewRequest(table_id=table_id, player_id=player))).view


def choose(legal: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    actions = legal["actions"]
    if "double" in actions and rng.random() < 0.15:
        return {"action": "double"}
    if "take" in actions:
        return {"action": "take" if rng.random() < 0.9 else "drop"}
    if "move" in actions:
        return {"action": "move", "play": rng.choice(legal["plays"])}
    return {"action": "roll"}


async def play_until(stub: Stub, table_id: str, rng: random.Random, games: int | None) -> int:
    """Random legal play until `games` games ended (None: until nobody is to act)."""
    actions = 0
    while True:
        table = await get_view(stub, table_id)
        view = json.loads(table.view_json)
        if games is not None and table.last_finished_hand >= games:
            return actions
        if view.get("to_act") is None:
            assert games is None, view
            return actions
        player = view["to_act"]
        mine = await get_view(stub, table_id, player)
        action = choose(json.loads(mine.view_json)["legal"], rng)
        await stub.Act(
            table_pb2.ActRequest(
                table_id=table_id,
                player_id=player,
                command_id=f"{player}/{mine.version}",
                action_json=json.dumps(action),
            )
        )
        actions += 1


def fee(amount: int, currency: str = "USD") -> int:
    return backgammon_commission(amount, CURRENCIES[currency]).total


async def settled(
    wallet: WalletRequests, table_id: str, count: int
) -> list[table_pb2.SettlementRequested]:
    for _ in range(100):
        found = await wallet.settlements(table_id)
        if len(found) >= count:
            return found
        await asyncio.sleep(0.1)
    raise AssertionError(f"{count} settlements of {table_id} never arrived")


async def test_oq_4_a_series_and_a_money_game_settle_on_the_wallet_topic(
    kafka_bootstrap: str,
) -> None:
    rng = random.Random(2026)
    async with (
        WalletRequests(kafka_bootstrap) as wallet,
        kafka_service(kafka_bootstrap, "e2e-bg") as stub,
    ):
        series = await open_table(
            stub,
            backgammon_pb2.Options(
                mode=backgammon_pb2.MODE_SERIES, stake=2_000, points=3, currency="USD"
            ),
        )
        assert await play_until(stub, series, rng, None) > 20
        final = json.loads((await get_view(stub, series)).view_json)
        games = final["game"]
        series_money = await settled(wallet, series, games)

        money = await open_table(
            stub,
            backgammon_pb2.Options(
                mode=backgammon_pb2.MODE_SINGLE, stake=75, max_win=600, currency="USD"
            ),
        )
        await play_until(stub, money, rng, 1)
        (single,) = (await settled(wallet, money, 1))[:1]

    # The series: points per game (rule 3), the stake once at the end (OQ 4).
    assert final["phase"] == "game_over" and len(series_money) == games
    scores = final["score"]
    winner = max(scores, key=scores.get)
    assert scores[winner] >= 3 > min(scores.values())
    for game in series_money[:-1]:
        assert dict(game.deltas) == {"ann": 0, "bob": 0} and not game.commission
    last = series_money[-1]
    loser = next(p for p in PLAYERS if p != winner)
    assert dict(last.deltas) == {winner: 2_000 - fee(2_000), loser: -2_000}
    assert dict(last.commission) == {winner: fee(2_000)} == {winner: 260}
    assert json.loads(last.details_json)["match_winner"] == winner
    assert [s.hand_number for s in series_money] == list(range(1, games + 1))
    cubes = [json.loads(s.details_json)["cube"] for s in (*series_money, single)]
    assert max(cubes) > 1, cubes  # the doubling cube was used on the way

    # The money game: stake x cube x multiplier, capped (rule 5), commission (39-43).
    details = json.loads(single.details_json)
    multiplier = {"single": 1, "gammon": 2, "backgammon": 3}[details["result"]]
    amount = min(75 * details["cube"] * multiplier, 600)
    assert details["amount"] == amount
    loser = next(p for p in PLAYERS if p != details["winner"])
    assert dict(single.deltas) == {details["winner"]: amount - fee(amount), loser: -amount}
    for settlement in (*series_money, single):
        assert settlement.game == common_pb2.GAME_BACKGAMMON and settlement.currency == "USD"
        # The wallet's own check: balanced, and its backgammon commission rule agrees.
        check_engine_result(
            dict(settlement.deltas),
            dict(settlement.commission),
            CURRENCIES["USD"],
            backgammon_rule,
        )


async def test_rule_12_a_disconnection_is_settled_from_gnubg_on_the_wallet_topic(
    kafka_bootstrap: str,
) -> None:
    rng = random.Random(7)
    async with (
        WalletRequests(kafka_bootstrap) as wallet,
        kafka_service(kafka_bootstrap, "e2e-bg-gone") as stub,
    ):
        options = backgammon_pb2.Options(
            mode=backgammon_pb2.MODE_SINGLE, stake=1_000, currency="EUR"
        )
        table_id = await open_table(stub, options, reconnect_seconds=1)
        for _ in range(12):  # a few turns first
            view = json.loads((await get_view(stub, table_id)).view_json)
            player = view["to_act"]
            mine = await get_view(stub, table_id, player)
            legal = json.loads(mine.view_json)["legal"]
            action = (
                {"action": "move", "play": rng.choice(legal["plays"])}
                if ("move" in legal["actions"])
                else {"action": "roll"}
            )
            await stub.Act(
                table_pb2.ActRequest(
                    table_id=table_id,
                    player_id=player,
                    command_id=f"{player}/{mine.version}",
                    action_json=json.dumps(action),
                )
            )
        before = json.loads((await get_view(stub, table_id)).view_json)
        leaver = before["to_act"]
        connected = next(p for p in PLAYERS if p != leaver)
        watch = stub.WatchView(table_pb2.WatchViewRequest(table_id=table_id, player_id=leaver))
        await watch.read()
        watch.cancel()  # the connection drops and never comes back: the gateway says so
        await stub.Disconnect(table_pb2.DisconnectRequest(table_id=table_id, player_id=leaver))
        (settlement,) = await settled(wallet, table_id, 1)
        after = await get_view(stub, table_id)

    details = json.loads(settlement.details_json)
    assert details["how"] == "abandoned" and details["left"] == leaver
    assert details["evaluated_for"] == connected and details["evaluator"] == "gnubg 2-ply cubeful"
    assert details["position_id"] == before["position_id"]
    assert details["match_id"] == before["match_id"]
    equity = Decimal(details["equity"])
    amount = int((abs(equity) * 1_000 * before["cube"]).quantize(Decimal(1), ROUND_HALF_UP))
    assert details["amount"] == amount > 0
    winner, loser = (connected, leaver) if equity > 0 else (leaver, connected)
    assert dict(settlement.deltas) == {winner: amount - fee(amount, "EUR"), loser: -amount}
    assert dict(settlement.commission) == {winner: fee(amount, "EUR")}
    assert settlement.currency == "EUR"
    assert list(after.seated) == [connected]
    assert after.game.backgammon.abandoned.player == leaver
