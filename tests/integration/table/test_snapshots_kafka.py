"""Snapshots on the real broker: the Kafka snapshot store (a compacted topic keyed by table
id) gives a rebuild the tables a full replay gives, reading only the tails; a damaged
snapshot record falls back to the log; a retired table's snapshot is forgotten and each
partition keeps its watermark; the topic check refuses a missing topic, a wrong
partition count, a compacted command log, a short retention and a snapshot topic that
deletes."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator

import pytest
from aiokafka.admin import AIOKafkaAdminClient, NewTopic

from croupier.game import RuleBroken
from croupier.kit.bus.kafka import KafkaBus
from croupier.kit.kafka_producer import AckedProducer
from croupier.table.adapters import metrics
from croupier.table.adapters.kafka_log import KafkaCommandLog, partition_for
from croupier.table.adapters.kafka_snapshots import KafkaSnapshotStore
from croupier.table.adapters.kafka_topics import (
    MIN_LOG_RETENTION_MS,
    TopicMisconfigured,
    check_topics,
)
from croupier.table.games import load_engines
from croupier.table.service.host import TableHost
from croupier.table.service.snapshots import SnapshotPolicy
from tests.support.contract import LONG_TURN
from tests.support.games import GAMES
from tests.support.infra import unique_name

PARTITIONS = 3
POLICY = SnapshotPolicy(every=10, at_hand_end_after=4, sweep_seconds=3600, lag_records=100)


@pytest.fixture
async def admin(kafka_bootstrap: str) -> AsyncIterator[AIOKafkaAdminClient]:
    client = AIOKafkaAdminClient(bootstrap_servers=kafka_bootstrap)
    await client.start()
    created: list[str] = []
    client.created = created  # type: ignore[attr-defined]
    try:
        yield client
    finally:
        if created:
            await client.delete_topics(created)
        await client.close()


async def create(admin: AIOKafkaAdminClient, partitions: int = PARTITIONS, **configs: str) -> str:
    name = unique_name("table_topic")
    await admin.create_topics([NewTopic(name, partitions, 1, topic_configs=configs)])
    admin.created.append(name)  # type: ignore[attr-defined]
    for _ in range(100):  # until the broker's metadata lists it
        if name in await admin.list_topics():
            return name
        await asyncio.sleep(0.1)
    raise AssertionError(f"topic {name} not listed after its creation")


async def digests(
    kafka_bootstrap: str, bus: KafkaBus, topic: str, snapshots: str | None
) -> dict[str, str]:
    store = KafkaSnapshotStore(kafka_bootstrap, snapshots) if snapshots else None
    host = TableHost(
        engines=load_engines(),
        command_log=KafkaCommandLog(kafka_bootstrap, topic, unique_name("owners")),
        publisher=bus,
        snapshot_store=store,
        snapshot_policy=POLICY,
    )
    await host.start()
    try:
        return {table_id: host.digest(table_id) for table_id in host.table_ids()}
    finally:
        await host.stop()


async def test_a_rebuild_from_kafka_snapshots_equals_a_full_replay_and_survives_damage(
    kafka_bootstrap: str, admin: AIOKafkaAdminClient
) -> None:
    topic = await create(admin, **{"cleanup.policy": "delete", "retention.ms": "-1"})
    snapshots = await create(admin, **{"cleanup.policy": "compact"})
    await check_topics(kafka_bootstrap, topic, snapshots, PARTITIONS)
    game = GAMES["poker"]
    bus = KafkaBus(bootstrap_servers=kafka_bootstrap)
    await bus.start()
    try:
        host = TableHost(
            engines=load_engines(),
            command_log=KafkaCommandLog(kafka_bootstrap, topic, unique_name("owners")),
            publisher=bus,
            snapshot_store=KafkaSnapshotStore(kafka_bootstrap, snapshots),
            snapshot_policy=POLICY,
        )
        await host.start()
        rng = random.Random(5)
        table_ids = []
        for n in range(6):
            table_id = await host.open_table(game.name, game.options, LONG_TURN, f"k{n}")
            for seat, player in enumerate(game.players):
                await host.seat(table_id, player, seat, game.stack)
            table_ids.append(table_id)
        for n in range(150):
            table_id = rng.choice(table_ids)
            to_act = game.to_act(host.view(table_id, "").view)
            if to_act is None:
                continue
            try:
                action = game.legal_action(host.view(table_id, to_act).view, rng)
                await host.act(table_id, to_act, f"a{n}", action)
            except RuleBroken:
                continue
        expected = {table_id: host.digest(table_id) for table_id in table_ids}
        await host.flush()
        await host.stop()  # its snapshots were written in the background: let them land

        stored = (
            await KafkaSnapshotStore(kafka_bootstrap, snapshots).load(range(PARTITIONS))
        ).tables
        assert sorted(stored) == sorted(table_ids)
        fallbacks = metrics.SNAPSHOT_FALLBACKS.labels("UnreadableSnapshot")._value.get()
        assert await digests(kafka_bootstrap, bus, topic, snapshots) == expected
        assert metrics.SNAPSHOT_FALLBACKS.labels("UnreadableSnapshot")._value.get() == fallbacks
        assert await digests(kafka_bootstrap, bus, topic, None) == expected

        # A damaged snapshot record, newer than the good one: the table replays its log.
        damaged = table_ids[0]
        producer = AckedProducer(kafka_bootstrap)
        try:
            await producer.send(
                snapshots,
                damaged.encode(),
                stored[damaged][:50],
                partition=partition_for(damaged, PARTITIONS),
            )
        finally:
            await producer.close()
        assert await digests(kafka_bootstrap, bus, topic, snapshots) == expected
        assert metrics.SNAPSHOT_FALLBACKS.labels("UnreadableSnapshot")._value.get() == fallbacks + 1
    finally:
        await bus.stop()


async def test_the_kafka_store_forgets_a_retired_table_and_keeps_each_partitions_watermark(
    kafka_bootstrap: str, admin: AIOKafkaAdminClient
) -> None:
    topic = await create(admin, **{"cleanup.policy": "compact"})
    store = KafkaSnapshotStore(kafka_bootstrap, topic)
    await store.start()
    try:
        await store.save("kept", 0, b"k1")
        await store.save("retired", 1, b"r1")
        await store.save_watermark(0, 40)
        await store.save_watermark(1, 7)
        await store.save_watermark(1, 12)  # the latest counts
        await store.forget("retired", 1)
        await store.save("kept", 0, b"k2")
    finally:
        await store.stop()
    stored = await KafkaSnapshotStore(kafka_bootstrap, topic).load(range(PARTITIONS))
    assert stored.tables == {"kept": b"k2"}
    assert stored.watermarks == {0: 40, 1: 12}
    only = await KafkaSnapshotStore(kafka_bootstrap, topic).load([1])
    assert only.tables == {} and only.watermarks == {1: 12}


async def test_the_topic_check_refuses_topics_that_would_lose_tables(
    kafka_bootstrap: str, admin: AIOKafkaAdminClient
) -> None:
    log = await create(admin, **{"cleanup.policy": "delete", "retention.ms": "-1"})
    snapshots = await create(admin, **{"cleanup.policy": "compact"})
    await check_topics(kafka_bootstrap, log, snapshots, PARTITIONS)

    missing = unique_name("missing")
    with pytest.raises(TopicMisconfigured, match="does not exist"):
        await check_topics(kafka_bootstrap, missing, snapshots, PARTITIONS)
    assert missing not in await admin.list_topics()  # the check did not create it

    with pytest.raises(TopicMisconfigured, match="has 3 partitions, the host expects 6"):
        await check_topics(kafka_bootstrap, log, snapshots, 6)

    compacted = await create(admin, **{"cleanup.policy": "compact"})
    with pytest.raises(TopicMisconfigured, match=r"cleanup\.policy=compact, it must be delete"):
        await check_topics(kafka_bootstrap, compacted, snapshots, PARTITIONS)

    short = await create(admin, **{"retention.ms": str(MIN_LOG_RETENTION_MS // 2)})
    with pytest.raises(TopicMisconfigured, match="at least"):
        await check_topics(kafka_bootstrap, short, snapshots, PARTITIONS)

    deleting = await create(admin, **{"cleanup.policy": "compact,delete"})
    with pytest.raises(TopicMisconfigured, match="must be compact"):
        await check_topics(kafka_bootstrap, log, deleting, PARTITIONS)

    fewer = await create(admin, partitions=2, **{"cleanup.policy": "compact"})
    with pytest.raises(TopicMisconfigured, match="as many as the command log's"):
        await check_topics(kafka_bootstrap, log, fewer, PARTITIONS)
