"""Table tests on the real Kafka broker: the TableEngine service in process on it, and a
reader of the settlements the host asks the wallet for."""

from __future__ import annotations

import asyncio
import json
import os
import random
import sys
from collections.abc import AsyncIterator, Collection
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, ConsumerRecord, TopicPartition

from croupier.events.v1.envelope_pb2 import Envelope
from croupier.kit.bus.kafka import KafkaBus
from croupier.table.adapters.kafka_log import KafkaCommandLog
from croupier.table.adapters.kafka_topics import create_topics, snapshots_topic_for
from croupier.table.adapters.sink import WALLET_REQUESTS_TOPIC
from croupier.table.games import load_engines
from croupier.table.service.host import TableHost
from croupier.table.service.money import Buyins
from croupier.table.v1 import table_pb2, table_pb2_grpc
from tests.support.cli import serving_port
from tests.support.games import GameAtTable
from tests.support.infra import unique_name
from tests.support.services import service_stub
from tests.support.table import Seeds, ServedHost, serve_host

CROUPIER = Path(sys.executable).parent / "croupier"

# The partitions of a command topic the ownership and log tests create: several, so that
# replicas can split them.
PARTITIONS = 4


@asynccontextmanager
async def kafka_served_host(kafka_bootstrap: str, seeds: str) -> AsyncIterator[ServedHost]:
    """Every game's host in this process on the real broker (a command topic of its own,
    `KafkaBus`), with known seeds, served over gRPC."""
    bus = KafkaBus(bootstrap_servers=kafka_bootstrap)
    await bus.start()
    log = KafkaCommandLog(kafka_bootstrap, unique_name("table_commands"))
    host = TableHost(
        engines=load_engines(),
        command_log=log,
        publisher=bus,
        seeds=Seeds(seeds),
        buyins=Buyins(play_currencies=()),  # CHIP kept in the wallet: hands settle
    )
    async with serve_host(host, log, bus) as served:
        yield served


@asynccontextmanager
async def kafka_service(
    kafka_bootstrap: str, seeds: str
) -> AsyncIterator[table_pb2_grpc.TableEngineAsyncStub]:
    """`kafka_served_host`'s stub alone."""
    async with kafka_served_host(kafka_bootstrap, seeds) as served:
        yield served.stub


async def play_random_over_grpc(
    stub: table_pb2_grpc.TableEngineStub,
    game: GameAtTable,
    table_id: str,
    actions: int,
    rng: random.Random,
) -> None:
    for _ in range(actions):
        public = (await stub.GetView(table_pb2.GetViewRequest(table_id=table_id))).view
        to_act = game.to_act(json.loads(public.view_json))
        assert to_act is not None, f"the {game.name} table waits for nobody"
        mine = await stub.GetView(table_pb2.GetViewRequest(table_id=table_id, player_id=to_act))
        action = game.legal_action(json.loads(mine.view.view_json), rng)
        await stub.Act(
            table_pb2.ActRequest(
                table_id=table_id,
                player_id=to_act,
                command_id=f"c{rng.getrandbits(64)}",
                action_json=json.dumps(action),
            )
        )


@asynccontextmanager
async def serve_table(kafka_bootstrap: str, topic: str) -> AsyncIterator[Any]:
    """`croupier serve table` as a child process on a command topic of its own, its stub;
    SIGKILLed at the end. Its topics are created first: the host refuses to serve on
    missing ones."""
    async with table_process(kafka_bootstrap, topic) as (_, stub):
        yield stub


@asynccontextmanager
async def table_process(
    kafka_bootstrap: str, topic: str, instance: str = "0"
) -> AsyncIterator[tuple[asyncio.subprocess.Process, Any]]:
    """`serve_table`'s process too; `instance`: its replica's name among the topic's."""
    await create_topics(kafka_bootstrap, topic, snapshots_topic_for(topic))
    env = dict(os.environ)
    env.update(
        CROUPIER_GRPC_HOST="127.0.0.1",
        CROUPIER_GRPC_PORT="0",
        CROUPIER_METRICS_PORT="0",
        CROUPIER_KAFKA_BOOTSTRAP=kafka_bootstrap,
        CROUPIER_TABLE_COMMANDS_TOPIC=topic,
        # A StatefulSet's pod name: the restarted process takes over the killed one's
        # partitions at once, without waiting for its group session to expire.
        CROUPIER_TABLE_INSTANCE_ID=f"{topic}-{instance}",
    )
    process = await asyncio.create_subprocess_exec(
        str(CROUPIER), "serve", "table", env=env, stderr=asyncio.subprocess.PIPE
    )
    try:
        port = await serving_port(process, "croupier serve table")
        async with service_stub(f"127.0.0.1:{port}", table_pb2_grpc.TableEngineStub) as stub:
            yield process, stub
    finally:
        process.kill()
        await process.wait()


class WalletRequests:
    """Reads `croupier.wallet.requests` from where it ended when the test began."""

    def __init__(self, kafka_bootstrap: str) -> None:
        self._consumer = AIOKafkaConsumer(
            bootstrap_servers=kafka_bootstrap,
            enable_auto_commit=False,
            isolation_level="read_committed",
        )
        # Only for its metadata request, which names the partitions (and creates the
        # topic on a fresh broker, as the host's first publish would).
        self._producer = AIOKafkaProducer(bootstrap_servers=kafka_bootstrap)
        self._start: dict[TopicPartition, int] = {}

    async def __aenter__(self) -> WalletRequests:
        await self._producer.start()
        await self._consumer.start()
        self._start = await self._ends()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._consumer.stop()
        await self._producer.stop()

    async def _ends(self) -> dict[TopicPartition, int]:
        numbers = await self._producer.partitions_for(WALLET_REQUESTS_TOPIC)
        partitions = [TopicPartition(WALLET_REQUESTS_TOPIC, p) for p in sorted(numbers)]
        return dict(await self._consumer.end_offsets(partitions))

    async def records(self, keys: Collection[str]) -> list[ConsumerRecord[bytes, bytes]]:
        """The messages keyed by one of `keys` (table ids) since the test began, in each
        partition's order."""
        ends = await self._ends()
        remaining = {tp for tp, end in ends.items() if end > self._start.get(tp, 0)}
        if not remaining:
            return []
        self._consumer.assign(list(remaining))
        for tp in remaining:
            self._consumer.seek(tp, self._start.get(tp, 0))
        found = []
        while remaining:
            batches = await self._consumer.getmany(*remaining, timeout_ms=1000)
            for records in batches.values():
                found += [record for record in records if (record.key or b"").decode() in keys]
            for tp in list(remaining):
                if await self._consumer.position(tp) >= ends[tp]:
                    remaining.discard(tp)
        return found

    async def settlements(self, table_id: str) -> list[table_pb2.SettlementRequested]:
        found = []
        for record in await self.records({table_id}):
            envelope = Envelope.FromString(record.value or b"")
            if envelope.type == "wallet.settlement_requested":
                settlement = table_pb2.SettlementRequested()
                assert envelope.payload.Unpack(settlement)
                found.append(settlement)
        return found
