"""The wallet on the real Kafka broker: settlements from croupier.wallet.requests move money
once (redelivery, consumer restart, replay from the start, SIGKILL mid-stream); requests that
can never apply go to the dead-letter topic; every posted transfer is published."""

from __future__ import annotations

import asyncio
import signal
import sys
from collections.abc import Callable
from pathlib import Path

import asyncpg  # type: ignore[import-untyped]
from aiokafka import AIOKafkaConsumer
from google.protobuf import wrappers_pb2
from prometheus_client import CollectorRegistry

from croupier.common.v1 import common_pb2
from croupier.events.v1.envelope_pb2 import Envelope
from croupier.kit.bus import DLQ_REASON_HEADER, KafkaBus, dead_letter_topic, make_envelope
from croupier.table.v1 import table_pb2
from croupier.wallet.adapters.audit import audit_ledger
from croupier.wallet.bootstrap import Wallet, build_wallet
from croupier.wallet.core.model import AccountKind, TransferKind, TransferSpec
from croupier.wallet.v1 import wallet_pb2
from tests.support.infra import topic_partitions

CHILD = Path(__file__).with_name("wallet_consumer_child.py")
PLAYERS = ("p0", "p1", "p2")


def settlement(table: str, hand: int) -> Envelope:
    """Hand `hand` at `table`: one winner takes 100 from each other player, 5% rake (poker)."""
    winner = PLAYERS[hand % 3]
    deltas = {p: -100 for p in PLAYERS if p != winner}
    rake = 10
    deltas[winner] = 200 - rake
    message = table_pb2.SettlementRequested(
        idempotency_key=f"{table}:{hand}",
        table_id=table,
        hand_number=hand,
        game=common_pb2.GAME_POKER,
        currency="USD",
        deltas=deltas,
        commission={winner: rake},
    )
    return make_envelope(
        type="wallet.settlement_requested",
        source="table",
        subject=table,
        sequence=hand,
        payload=message,
        envelope_id=f"{table}/settlement/{hand}",
    )


def expected_seats(hands: int) -> dict[str, int]:
    seats = dict.fromkeys(PLAYERS, 100_000)
    for hand in range(1, hands + 1):
        winner = PLAYERS[hand % 3]
        for p in PLAYERS:
            seats[p] += 190 if p == winner else -100
    return seats


async def until(condition: Callable[[], object], within: float = 40.0) -> None:
    async with asyncio.timeout(within):
        while not await condition():  # type: ignore[misc]  # noqa: ASYNC110 - polling the database
            await asyncio.sleep(0.05)


async def read_topic(bootstrap: str, topic: str) -> list[object]:
    partitions = await topic_partitions(bootstrap, topic)
    consumer = AIOKafkaConsumer(
        bootstrap_servers=bootstrap, enable_auto_commit=False, auto_offset_reset="earliest"
    )
    await consumer.start()
    try:
        consumer.assign(partitions)
        end = await consumer.end_offsets(partitions)
        done = dict.fromkeys(partitions, 0)
        records: list[object] = []
        async with asyncio.timeout(30):
            while any(done[p] < end[p] for p in partitions):
                for partition, batch in (await consumer.getmany(timeout_ms=200)).items():
                    records.extend(batch)
                    done[partition] = batch[-1].offset + 1
        return records
    finally:
        await consumer.stop()


async def seat_up(wallet: Wallet, table: str) -> None:
    house = await wallet.ledger.open_account(AccountKind.HOUSE_CLEARING, "house", "USD")
    for p in PLAYERS:
        account = await wallet.ledger.open_account(AccountKind.PLAYER_CASH, p, "USD")
        await wallet.ledger.transfer(
            TransferSpec(
                transfer_id=f"deposit-{p}",
                debit_account_id=house.account_id,
                credit_account_id=account.account_id,
                amount=100_000,
                currency="USD",
                kind=TransferKind.DEPOSIT,
            )
        )
        await wallet.games.buy_in(
            transfer_id=f"{table}:{p}:buy-in",
            player=p,
            game="poker",
            table_id=table,
            currency="USD",
            amount=100_000,
        )


async def seats(pool: asyncpg.Pool, table: str) -> dict[str, int]:
    async with pool.acquire() as db:
        rows = await db.fetch(
            "SELECT owner, posted FROM accounts WHERE owner LIKE $1", f"{table}/%"
        )
    return {r["owner"].split("/", 1)[1]: r["posted"] for r in rows}


async def handled(pool: asyncpg.Pool) -> int:
    async with pool.acquire() as db:
        return int(await db.fetchval("SELECT count(*) FROM handled_requests"))


async def test_settlements_apply_once_across_restart_replay_and_go_to_dlq_when_impossible(
    kafka_bootstrap: str, wallet_pool: tuple[asyncpg.Pool, str], unique: Callable[[str], str]
) -> None:
    pool, schema = wallet_pool
    requests, transfers = unique("wallet_requests"), unique("wallet_transfers")
    table, hands = "kt", 20
    async with KafkaBus(bootstrap_servers=kafka_bootstrap) as bus:
        await bus.create_topics([requests, transfers], partitions=3)
        registry = CollectorRegistry()
        wallet = await build_wallet(
            pool=pool,
            schema=schema,
            bus=bus,
            registry=registry,
            requests_topic=requests,
            transfers_topic=transfers,
            consumer_group=unique("group"),
        )
        await seat_up(wallet, table)
        envelopes = [settlement(table, hand) for hand in range(1, hands + 1)]
        await bus.publish_many([(requests, e) for e in envelopes])
        # Redelivery of the same envelopes, and of the same settlement under new envelope ids.
        await bus.publish_many([(requests, e) for e in envelopes[:5]])
        again = settlement(table, 3)
        again.id = "another-envelope-for-hand-3"
        await bus.publish(requests, again)
        # Two requests that can never apply: an unknown payload and a settlement that creates money.
        await bus.publish(
            requests,
            make_envelope(
                type="wallet.mystery",
                source="tests",
                subject=table,
                sequence=99,
                payload=wrappers_pb2.Int64Value(value=1),
                envelope_id="mystery",
            ),
        )
        bad = settlement(table, 21)
        payload = table_pb2.SettlementRequested()
        bad.payload.Unpack(payload)
        payload.deltas["p0"] += 1
        bad.payload.Pack(payload)
        bad.id = "creates-money"
        await bus.publish(requests, bad)
        await until(lambda: _at_least(pool, hands + 3))
        assert await seats(pool, table) == expected_seats(hands)
        dead = wallet.metrics.dead_letters
        assert dead.labels("invalid_request")._value.get() == 1
        assert dead.labels("unbalanced_settlement")._value.get() == 1
        await wallet.stop()

        # A new consumer group replays the whole topic from the start: nothing moves again.
        replay = await build_wallet(
            pool=pool,
            schema=schema,
            bus=bus,
            registry=CollectorRegistry(),
            requests_topic=requests,
            transfers_topic=transfers,
            consumer_group=unique("replay"),
        )
        await asyncio.sleep(3)
        await replay.stop()
    assert await seats(pool, table) == expected_seats(hands)
    dlq = await read_topic(kafka_bootstrap, dead_letter_topic(requests))
    reasons = sorted(
        dict(r.headers)[DLQ_REASON_HEADER].decode().split(":")[0]  # type: ignore[attr-defined]
        for r in dlq
    )
    assert set(reasons) == {"invalid_request", "unbalanced_settlement"}
    published = await read_topic(kafka_bootstrap, transfers)
    ids = {Envelope.FromString(r.value).id for r in published}  # type: ignore[attr-defined]
    async with pool.acquire() as db:
        posted = await db.fetchval("SELECT count(*) FROM transfers WHERE status = 'posted'")
        report = await audit_ledger(db)
    assert len(ids) == posted, "every posted transfer published (duplicates share an id)"
    assert report.ok
    first = Envelope.FromString(published[0].value)  # type: ignore[attr-defined]
    event = wallet_pb2.TransferPosted()
    first.payload.Unpack(event)
    assert event.transfer.status == wallet_pb2.TRANSFER_STATUS_POSTED


async def _at_least(pool: asyncpg.Pool, count: int) -> bool:
    return await handled(pool) >= count


async def test_sigkill_mid_stream_of_settlements_loses_nothing_and_doubles_nothing(
    kafka_bootstrap: str,
    wallet_dsn: str,
    wallet_pool: tuple[asyncpg.Pool, str],
    unique: Callable[[str], str],
) -> None:
    pool, schema = wallet_pool
    requests, transfers, group = unique("wallet_requests"), unique("wallet_transfers"), unique("g")
    table, hands = "kill", 150
    async with KafkaBus(bootstrap_servers=kafka_bootstrap) as bus:
        await bus.create_topics([requests, transfers], partitions=3)
        setup = await build_wallet(pool=pool, schema=schema, bus=None, registry=CollectorRegistry())
        await seat_up(setup, table)
        await bus.publish_many([(requests, settlement(table, h)) for h in range(1, hands + 1)])
    arguments = [str(CHILD), kafka_bootstrap, wallet_dsn, schema, requests, transfers, group]
    first = await asyncio.create_subprocess_exec(sys.executable, *arguments)
    try:
        await until(lambda: _at_least(pool, hands // 3), within=60)
    finally:
        first.send_signal(signal.SIGKILL)
        await first.wait()
    applied_by_first = await handled(pool)
    assert 0 < applied_by_first < hands
    second = await asyncio.create_subprocess_exec(sys.executable, *arguments)
    try:
        await until(lambda: _at_least(pool, hands), within=90)
        await asyncio.sleep(1.0)  # room for a late double application to show up
    finally:
        second.send_signal(signal.SIGTERM)
        await second.wait()
    assert await seats(pool, table) == expected_seats(hands)
    async with pool.acquire() as db:
        per_hand = await db.fetch(
            "SELECT hand_id, count(*) AS n FROM transfers WHERE table_id = $1 AND hand_id <> '' "
            "GROUP BY hand_id",
            table,
        )
        report = await audit_ledger(db)
    assert len(per_hand) == hands and {r["n"] for r in per_hand} == {4}
    assert report.ok
