"""Rummy tables end to end on the real broker: the gRPC TableEngine service in this process
with its command log on a Kafka topic of its own and `KafkaBus` publishing to
`croupier.wallet.requests`.

- Every variant plays two whole rounds driven by bots that read only their own view (half
  the players send protobuf actions); every message they received passes the hidden-cards
  scan against the logged deal; each round's settlement request arrives exactly once,
  balanced (Σ deltas = −commission = 0) and accepted by the wallet's own check; each
  round's hand history verifies (seed, deal, replay, result).
- The wallet's own request consumer (`WalletRequestHandler` on a fresh PostgreSQL schema)
  applies the settlement requests read from the broker: nothing is dead-lettered, every
  seat ends with the chips the table shows, a redelivery moves nothing.
- A host that dies mid-round is rebuilt from the Kafka log (the same digest and views, for
  every game: table/contract/test_kafka_contract.py) and the round goes on; the settlement
  request it sends again repeats the same idempotency key.
- Rule 45: a gin table where nobody acts finishes rounds by clock expiries alone, and
  those rounds are settled the same way.
"""

from __future__ import annotations

import asyncio
import json

import asyncpg  # type: ignore[import-untyped]
import pytest
from prometheus_client import CollectorRegistry

from croupier.game import ClockSettings
from croupier.kit.bus import make_envelope
from croupier.kit.bus.kafka import KafkaBus
from croupier.rummy.tools.view_bot import bot_action
from croupier.table.adapters.kafka_log import KafkaCommandLog
from croupier.table.core import history
from croupier.table.games import load_engines
from croupier.table.service.host import TableHost
from croupier.table.service.money import Buyins
from croupier.table.v1 import table_pb2, table_pb2_grpc
from croupier.wallet.adapters.requests_pg import PostgresRequestLog
from croupier.wallet.bootstrap import build_wallet
from croupier.wallet.core.model import AccountKind, TransferKind, TransferSpec
from croupier.wallet.entrypoints.consumer import WalletRequestHandler
from tests.support.infra import unique_name
from tests.support.kafka_table import WalletRequests, kafka_served_host
from tests.support.rummy import (
    PLAYERS,
    TABLES,
    Table,
    check_settlements,
    log_entries,
    open_table,
    scan_log,
)
from tests.support.table import Seeds
from tests.support.wallet import Sink, SteppingClock

pytestmark = pytest.mark.timeout(240)


async def verified_histories(
    stub: table_pb2_grpc.TableEngineAsyncStub, table_id: str, rounds: int
) -> None:
    engines = load_engines()
    for number in range(1, rounds + 1):
        response = await stub.GetHandHistory(
            table_pb2.GetHandHistoryRequest(table_id=table_id, hand_number=number)
        )
        record = json.loads(response.history_json)
        assert history.verify(engines, record) == []
        assert record["result"]["details"]["round"] == number


@pytest.mark.parametrize(("variant", "players"), TABLES)
async def test_variant_plays_rounds_and_each_settlement_arrives_once(
    kafka_bootstrap: str, variant: str, players: int
) -> None:
    """Seed 000 rules 20–23, 33 and the hidden-information rule, end to end."""
    seated = PLAYERS[:players]
    async with (
        WalletRequests(kafka_bootstrap) as wallet,
        kafka_served_host(kafka_bootstrap, f"e2e-{variant}") as served,
    ):
        log, stub = served.log, served.stub
        table_id = await open_table(stub, variant, players, round_fee=20, chip_ratio=3)
        table = Table(stub, table_id)
        await table.seat(seated, stack=2000)
        public = await table.play(2, proto_players=set(seated[::2]))
        await scan_log(log, table_id, table.received)
        await verified_histories(stub, table_id, 2)
        found = await wallet.settlements(table_id)
    details = check_settlements(found, table_id, 2, seated)
    assert public["last_round"] == details[-1]
    assert sum(public["stacks"].values()) == 2000 * players
    for player in seated:
        assert public["stacks"][player] == 2000 + sum(d["deltas"][player] for d in details)


async def test_rule_45_gin_rounds_finish_by_timeouts_alone(kafka_bootstrap: str) -> None:
    async with (
        WalletRequests(kafka_bootstrap) as wallet,
        kafka_served_host(kafka_bootstrap, "e2e-timeouts") as served,
    ):
        host, log, stub = served.host, served.log, served.stub
        # A sub-second clock is set on the host (OpenTableRequest.clock counts seconds).
        options = {"variant": "gin", "players": 2, "round_fee": "20", "chip_ratio": "2"}
        table_id = await host.open_table("rummy", options, ClockSettings(turn_ms=20))
        table = Table(stub, table_id)
        await table.seat(PLAYERS[:2], stack=500)
        for _ in range(600):
            last = (await table.public())["last_round"]
            if last is not None:
                break
            await asyncio.sleep(0.1)
        else:
            raise AssertionError("no round finished by timeouts")
        await stub.CloseTable(table_pb2.CloseTableRequest(table_id=table_id))
        entries = await log_entries(log, table_id)
        await verified_histories(stub, table_id, 1)
        found = await wallet.settlements(table_id)
    assert {e.kind for e in entries} <= {"open", "seat", "start_hand", "timeout", "close"}
    assert sum(1 for e in entries if e.kind == "timeout") > 40
    details = check_settlements(found, table_id, len(found), PLAYERS[:2])
    assert details[0]["ending"] == "draw" and set(details[0]["deltas"].values()) == {0}


async def test_the_wallet_consumer_applies_every_round(
    kafka_bootstrap: str, wallet_pool: tuple[asyncpg.Pool, str], clock: SteppingClock
) -> None:
    """Rules 20–23 in the books: the settlements from the broker, applied by the wallet."""
    seated, stack = PLAYERS[:4], 150  # small stacks: the at-risk limits come into play
    async with (
        WalletRequests(kafka_bootstrap) as wallet_topic,
        kafka_served_host(kafka_bootstrap, "e2e-wallet") as served,
    ):
        stub = served.stub
        table_id = await open_table(stub, "rummy51", 4, round_fee=30, chip_ratio=3)
        table = Table(stub, table_id)
        await table.seat(seated, stack=stack)
        public = await table.play(3)
        found = await wallet_topic.settlements(table_id)
    rounds = public["last_round"]["round"]
    check_settlements(found, table_id, rounds, seated)

    pool, schema = wallet_pool
    wallet = await build_wallet(
        pool=pool, schema=schema, bus=None, registry=CollectorRegistry(), clock=clock
    )
    sink = Sink()
    handler = WalletRequestHandler(
        ledger=wallet.ledger,
        games=wallet.games,
        requests=PostgresRequestLog(pool),
        dead_letters=sink,
        metrics=wallet.metrics,
        clock=clock,
    )
    house = await wallet.ledger.open_account(AccountKind.HOUSE_FLOAT, "house", "CHIP")
    for player in seated:
        chips = await wallet.ledger.open_account(AccountKind.PLAYER_CHIPS, player, "CHIP")
        await wallet.ledger.transfer(
            TransferSpec(
                transfer_id=f"grant-{player}",
                debit_account_id=house.account_id,
                credit_account_id=chips.account_id,
                amount=stack,
                currency="CHIP",
                kind=TransferKind.GRANT,
            )
        )
        await wallet.games.buy_in(
            transfer_id=f"in-{player}",
            player=player,
            game="rummy",
            table_id=table_id,
            currency="CHIP",
            amount=stack,
        )
    envelopes = [
        make_envelope(
            type="wallet.settlement_requested",
            source="table",
            subject=table_id,
            sequence=settlement.hand_number,
            payload=settlement,
            envelope_id=settlement.idempotency_key,
        )
        for settlement in found
    ]
    for envelope in [*envelopes, *envelopes]:  # the second pass is a redelivery
        await handler(envelope)
    assert sink.sent == []  # nothing dead-lettered
    for player in seated:
        seat = await wallet.ledger.account(f"table_escrow:{table_id}/{player}:CHIP")
        assert seat.posted == public["stacks"][player]
    moved = {p for d in found for p, delta in d.deltas.items() if delta}
    assert moved  # chips changed hands in the books


async def bot_turns(host: TableHost, table_id: str, until_round_ended: int, limit: int) -> int:
    """Bots act through the host until round `until_round_ended` ended or `limit` actions."""
    for number in range(limit):
        public = host.view(table_id, "").view
        last = public["last_round"]
        if last is not None and last["round"] >= until_round_ended:
            return number
        player = public["round"]["to_act"]
        action = bot_action(host.view(table_id, player).view, player)
        await host.act(table_id, player, f"{player}/{public['round_number']}/{number}", action)
    return limit


async def test_a_host_rebuilt_mid_round_sends_the_last_settlement_again_with_its_key(
    kafka_bootstrap: str,
) -> None:
    """The rebuilt table (digest, views) for every game: table/contract/test_kafka_contract."""
    seated = PLAYERS[:3]
    topic = unique_name("rummy_table_commands")
    bus = KafkaBus(bootstrap_servers=kafka_bootstrap)
    await bus.start()
    hosts: list[TableHost] = []
    try:
        async with WalletRequests(kafka_bootstrap) as wallet:
            lost = TableHost(
                engines=load_engines(),
                # A group of its own: it is abandoned below, not stopped, and stays a member.
                command_log=KafkaCommandLog(kafka_bootstrap, topic, unique_name("lost")),
                publisher=bus,
                seeds=Seeds("rebuild"),
                buyins=Buyins(play_currencies=()),
            )
            hosts.append(lost)
            await lost.start()
            options = {"variant": "rummy51", "players": 3, "round_fee": "10", "chip_ratio": "2"}
            table_id = await lost.open_table("rummy", options, ClockSettings(turn_ms=3_600_000))
            for seat, player in enumerate(seated):
                await lost.seat(table_id, player, seat, 2000)
            assert await bot_turns(lost, table_id, 1, 3000) < 3000
            assert await bot_turns(lost, table_id, 2, 17) == 17  # round 2 is under way
            # The lost host is abandoned: every accepted command was acknowledged by the
            # broker before its caller was answered.
            rebuilt = TableHost(
                engines=load_engines(),
                command_log=KafkaCommandLog(kafka_bootstrap, topic, unique_name("new")),
                publisher=bus,
                seeds=Seeds("rebuilt"),
                buyins=Buyins(play_currencies=()),
            )
            hosts.append(rebuilt)
            await rebuilt.start()
            assert await bot_turns(rebuilt, table_id, 2, 3000) < 3000
            found = await wallet.settlements(table_id)
    finally:
        for host in reversed(hosts):
            await host.stop()
        await bus.stop()
    # Round 1's request was sent again by the rebuilt host (it may have been lost with the
    # host): the same idempotency key and content, so the wallet applies it once.
    by_key: dict[str, list[table_pb2.SettlementRequested]] = {}
    for settlement in found:
        by_key.setdefault(settlement.idempotency_key, []).append(settlement)
    assert sorted(by_key) == [f"{table_id}:1", f"{table_id}:2"]
    assert len(by_key[f"{table_id}:1"]) == 2 and len(by_key[f"{table_id}:2"]) == 1
    first, resent = by_key[f"{table_id}:1"]
    assert first == resent
    check_settlements([first, by_key[f"{table_id}:2"][0]], table_id, 2, seated)
