"""A zombie owner of a command-log partition is fenced (real broker; issue 22).

A replica whose group session expired unnoticed (a stall past the session timeout) still
believes it owns its partitions while another replica took them over. In process, the
zombie is made so without waiting for a timeout: the replica taking over is in a group
of its own, so it is given every partition while the zombie's group never tells the
zombie. With processes, a `croupier serve table` is paused (SIGSTOP) past its session
timeout while a second one takes its partitions over.
"""

from __future__ import annotations

import asyncio
import json
import signal
from typing import Any

import grpc
import pytest
from aiokafka import AIOKafkaConsumer, TopicPartition

from croupier.game import ClockSettings
from croupier.kit.bus.kafka import KafkaBus
from croupier.kit.errors import Unavailable
from croupier.table.adapters.kafka_log import KafkaCommandLog, partition_for
from croupier.table.adapters.owner_epochs import epoch_of, is_claim
from croupier.table.bootstrap import build_host
from croupier.table.service.host import TableHost
from croupier.table.v1 import table_pb2
from tests.support.games import GAMES, open_over_grpc
from tests.support.infra import create_topic, unique_name
from tests.support.kafka_table import PARTITIONS, table_process
from tests.support.refusals import status_name
from tests.support.table import status_of

pytestmark = pytest.mark.timeout(120)

PLAYERS = ["giorgi", "nika", "ana", "levan"]
HOUR = ClockSettings(turn_ms=3_600_000)


def replica(bootstrap: str, topic: str, bus: KafkaBus) -> TableHost:
    """A table host replica in a consumer group of its own."""
    return build_host(KafkaCommandLog(bootstrap, topic, group_id=unique_name("owners")), bus)


def bid_legal(host: TableHost, table_id: str) -> tuple[str, list[int]]:
    to_act = host.view(table_id, "").view["hand"]["to_act"]
    legal: dict[str, Any] = host.view(table_id, to_act).view["legal"]
    assert legal["actions"] == ["bid"]
    return to_act, legal["tricks"]


async def records_of(bootstrap: str, topic: str, partition: int) -> list[Any]:
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False)
    await consumer.start()
    try:
        tp = TopicPartition(topic, partition)
        consumer.assign([tp])
        await consumer.seek_to_beginning(tp)
        end = (await consumer.end_offsets([tp]))[tp]
        records: list[Any] = []
        while await consumer.position(tp) < end:
            records += (await consumer.getmany(tp, timeout_ms=1000)).get(tp, [])
        return records
    finally:
        await consumer.stop()


async def test_a_zombie_replicas_append_after_takeover_is_refused_and_the_owner_unaffected(
    kafka_bootstrap: str,
) -> None:
    topic = unique_name("table_commands")
    await create_topic(kafka_bootstrap, topic, PARTITIONS)
    bus = KafkaBus(bootstrap_servers=kafka_bootstrap)
    await bus.start()
    zombie = replica(kafka_bootstrap, topic, bus)
    owner = replica(kafka_bootstrap, topic, bus)
    third = replica(kafka_bootstrap, topic, bus)
    try:
        await zombie.start()
        table_id = await zombie.open_table("joker", {}, HOUR)
        for seat, player in enumerate(PLAYERS):
            await zombie.seat(table_id, player, seat, 0)
        before = zombie.digest(table_id)

        await owner.start()  # claims every partition and rebuilds the table from the log
        assert owner.digest(table_id) == before

        # The zombie still serves the table: its bid reaches the log after the claim, is
        # refused, and the zombie lets the partition go.
        player, tricks = bid_legal(zombie, table_id)
        assert len(tricks) > 1
        with pytest.raises(Unavailable) as refused:
            await zombie.act(table_id, player, "zombie-bid", {"action": "bid", "tricks": tricks[0]})
        assert status_name(refused.value) == "unavailable"
        assert "not served by this table host replica" in refused.value.message
        for _ in range(100):
            if table_id not in zombie.table_ids():
                break
            await asyncio.sleep(0.05)
        assert table_id not in zombie.table_ids()
        with pytest.raises(Unavailable):
            zombie.view(table_id, player)

        # The new owner never saw the zombie's bid; its own bid at the same index counts.
        assert owner.digest(table_id) == before
        assert bid_legal(owner, table_id) == (player, tricks)
        await owner.act(table_id, player, "owner-bid", {"action": "bid", "tricks": tricks[-1]})
        after = owner.digest(table_id)

        # The zombie's record is in the log, stamped with its old epoch, before the owner's
        # bid: a later rebuild skips it and gives the owner's table.
        stored = await records_of(kafka_bootstrap, topic, partition_for(table_id, PARTITIONS))
        claims = [r.offset for r in stored if is_claim(r.headers)]
        assert len(claims) == 2
        fenced = [r for r in stored if not is_claim(r.headers) and epoch_of(r.headers) < claims[1]]
        assert fenced[-1].offset > claims[1] and b"zombie-bid" in fenced[-1].value

        await third.start()
        assert third.digest(table_id) == after
    finally:
        for host in (third, owner, zombie):
            await host.stop()
        await bus.stop()


async def over_grpc(stub: Any, table_id: str, player: str = "") -> table_pb2.TableView:
    return (await stub.GetView(table_pb2.GetViewRequest(table_id=table_id, player_id=player))).view


def bid(table_id: str, player: str, tricks: int) -> table_pb2.ActRequest:
    action = json.dumps({"action": "bid", "tricks": tricks})
    return table_pb2.ActRequest(
        table_id=table_id, player_id=player, command_id=f"bid-{tricks}", action_json=action
    )


async def test_a_replica_paused_past_its_session_timeout_cannot_append_after_the_takeover(
    kafka_bootstrap: str,
) -> None:
    topic = unique_name("table_commands")
    async with table_process(kafka_bootstrap, topic, "a") as (paused, stub_a):
        table_id = await open_over_grpc(stub_a, GAMES["joker"])
        before = await over_grpc(stub_a, table_id)
        player = json.loads(before.view_json)["hand"]["to_act"]
        tricks = json.loads((await over_grpc(stub_a, table_id, player)).view_json)["legal"]
        paused.send_signal(signal.SIGSTOP)
        try:
            # Serves once the group gave it the partitions: after the paused one's
            # session expired.
            async with table_process(kafka_bootstrap, topic, "b") as (_, stub_b):
                taken = await over_grpc(stub_b, table_id)
                assert (taken.version, taken.view_json) == (before.version, before.view_json)
                paused.send_signal(signal.SIGCONT)
                code, message = await status_of(
                    stub_a.Act(bid(table_id, player, tricks["tricks"][0]))
                )
                assert code == grpc.StatusCode.UNAVAILABLE, message
                after = await over_grpc(stub_b, table_id)
                assert (after.version, after.view_json) == (before.version, before.view_json)
                await stub_b.Act(bid(table_id, player, tricks["tricks"][-1]))
                assert (await over_grpc(stub_b, table_id)).version == before.version + 1
        finally:
            paused.send_signal(signal.SIGCONT)
