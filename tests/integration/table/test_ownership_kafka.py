"""Table host replicas share the command log's partitions (real Kafka consumer group).

Each partition, and so each table, is served by one replica at a time; a replica that
gets a partition rebuilds its tables from the log; a replica that keeps a partition
through a rebalance keeps its tables as they are.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable

import pytest
from prometheus_client import REGISTRY

from croupier.game import ClockSettings
from croupier.kit.bus.kafka import KafkaBus
from croupier.kit.errors import Unavailable
from croupier.table.adapters import metrics
from croupier.table.adapters.kafka_log import KafkaCommandLog
from croupier.table.bootstrap import build_host
from croupier.table.service.host import TableHost
from tests.support.infra import create_topic, unique_name
from tests.support.kafka_table import PARTITIONS
from tests.support.refusals import status_name
from tests.support.table import random_joker_action

pytestmark = pytest.mark.timeout(120)

PLAYERS = ["giorgi", "nika", "ana", "levan"]
HOUR = ClockSettings(turn_ms=3_600_000)


async def until(condition: Callable[[], bool], seconds: float = 60.0) -> None:
    for _ in range(int(seconds * 20)):
        if condition():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("condition not reached")


async def play(host: TableHost, table_id: str, actions: int, rng: random.Random) -> None:
    for _ in range(actions):
        to_act = host.view(table_id, "").view["hand"]["to_act"]
        legal = host.view(table_id, to_act).view["legal"]
        await host.act(table_id, to_act, f"c{rng.getrandbits(64)}", random_joker_action(legal, rng))


def replays() -> float:
    return metrics.REPLAYS.labels("joker")._value.get()


def rebalances(topic: str) -> float:
    """Assignments the replicas of `topic`'s group received (all replicas in this process)."""
    labels = {"group": f"{topic}.owners", "topic": topic}
    return REGISTRY.get_sample_value("croupier_kafka_consumer_rebalances_total", labels) or 0


async def test_replicas_split_the_partitions_and_take_tables_over_on_a_rebalance(
    kafka_bootstrap: str,
) -> None:
    topic = unique_name("table_commands")
    await create_topic(kafka_bootstrap, topic, PARTITIONS)
    rng = random.Random(5)
    bus = KafkaBus(bootstrap_servers=kafka_bootstrap)
    await bus.start()
    log_a = KafkaCommandLog(kafka_bootstrap, topic)
    first = build_host(log_a, bus)
    second = build_host(KafkaCommandLog(kafka_bootstrap, topic), bus)
    try:
        await first.start()
        assert first.partitions == frozenset(range(PARTITIONS))
        assert rebalances(topic) == 1
        # Tables until every partition holds at least one.
        tables: list[str] = []
        while {log_a.partition_of(t) for t in tables} != set(range(PARTITIONS)):
            table_id = await first.open_table("joker", {}, HOUR)
            for seat, player in enumerate(PLAYERS):
                await first.seat(table_id, player, seat, 0)
            await play(first, table_id, 3, rng)
            tables.append(table_id)
        digests = {t: first.digest(t) for t in tables}

        replayed_before = replays()
        await second.start()  # joins the group: the first replica gives up some partitions
        await until(
            lambda: (
                first.partitions | second.partitions == frozenset(range(PARTITIONS))
                and not first.partitions & second.partitions
            )
        )
        assert first.partitions and second.partitions
        assert rebalances(topic) >= 3  # the first replica's second assignment, the second's first
        moved = [t for t in tables if log_a.partition_of(t) in second.partitions]
        kept = [t for t in tables if t not in moved]
        assert moved and kept
        # The second replica rebuilt exactly the tables it got; the first rebuilt none.
        assert replays() - replayed_before == len(moved)
        for table_id in moved:
            assert second.digest(table_id) == digests[table_id]
            with pytest.raises(Unavailable) as refused:
                first.view(table_id, "")
            assert status_name(refused.value) == "unavailable"
            assert "not served by this table host replica" in refused.value.message
        for table_id in kept:
            assert first.digest(table_id) == digests[table_id]
            await play(first, table_id, 2, rng)  # still served where it was
        # Play goes on where the table went; an id of the other replica's is refused.
        await play(second, moved[0], 4, rng)
        moved_digest = second.digest(moved[0])
        with pytest.raises(Unavailable) as refused:
            await first.act(moved[0], PLAYERS[0], "x", {"action": "bid", "tricks": 0})
        assert status_name(refused.value) == "unavailable"
        # A new table opens in a partition of the replica asked.
        opened = await second.open_table("joker", {}, HOUR)
        assert log_a.partition_of(opened) in second.partitions

        kept_digests = {t: first.digest(t) for t in kept}
        replayed_before = replays()
        await second.stop()  # leaves the group: the first replica takes everything back
        await until(lambda: first.partitions == frozenset(range(PARTITIONS)))
        assert first.digest(moved[0]) == moved_digest  # rebuilt with the second's commands
        assert opened in first.table_ids()
        for table_id in kept:
            assert first.digest(table_id) == kept_digests[table_id]
        # Only the partitions the second replica held were replayed.
        assert replays() - replayed_before == len(moved) + 1
        await play(first, moved[0], 2, rng)
    finally:
        await first.stop()
        await second.stop()
        await bus.stop()


class SlowFirstRebuild:
    """A host whose first rebuild outlasts the group's session timeout (aiokafka's 10 s)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.assigned: list[frozenset[int]] = []
        self.revoked: list[frozenset[int]] = []

    async def partitions_revoked(self, partitions: frozenset[int]) -> None:
        self.revoked.append(partitions)

    async def partitions_assigned(
        self, partitions: frozenset[int], unchanged: frozenset[int]
    ) -> None:
        self.assigned.append(partitions)
        if len(self.assigned) == 1:
            await asyncio.sleep(self.seconds)


async def test_a_rebuild_longer_than_the_session_timeout_keeps_the_replica_in_its_group(
    kafka_bootstrap: str,
) -> None:
    # aiokafka sends no heartbeat while a rebalance callback runs: a rebuild done inside
    # it got the replica expelled after 10 s, and it rebuilt everything again.
    topic = unique_name("table_commands")
    await create_topic(kafka_bootstrap, topic, PARTITIONS)
    log = KafkaCommandLog(kafka_bootstrap, topic)
    owner = SlowFirstRebuild(seconds=13)
    await log.start()
    try:
        await log.own_partitions(owner)  # returns once the first rebuild is done
        await asyncio.sleep(4)  # an expelled member would be assigned again meanwhile
        assert owner.assigned == [frozenset(range(PARTITIONS))]
        assert not any(owner.revoked)  # (the first join "revokes" nothing)
    finally:
        await log.stop()
