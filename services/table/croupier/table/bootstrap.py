"""Wire the table host: settings → command log, event bus, engines → gRPC service.

`croupier serve table` calls `create_services()`; the embedded mode and the tests call
`build_host` with their own log and bus, so every configuration is wired the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from croupier.kit.bus.interface import EventBus
from croupier.kit.collector import BulkLoad, no_bulk_load, paused_then_frozen
from croupier.kit.server import Service, StopHook
from croupier.kit.service_auth import credential_from_environment
from croupier.kit.settings import choice, env, load, positive_int
from croupier.table.adapters.kafka_topics import DEFAULT_PARTITIONS
from croupier.table.adapters.log_codec import TOPIC
from croupier.table.adapters.memory_log import InMemoryCommandLog
from croupier.table.adapters.wallets import GrpcWallet
from croupier.table.entrypoints.grpc_api import TableEngineService
from croupier.table.games import ALL_GAMES, game_names, load_engines
from croupier.table.ports import CommandLog, SnapshotStore
from croupier.table.service.host import TableHost
from croupier.table.service.money import Buyins
from croupier.table.v1 import table_pb2, table_pb2_grpc

SERVICE_NAME = table_pb2.DESCRIPTOR.services_by_name["TableEngine"].full_name


@dataclass(frozen=True)
class TableSettings:
    command_log: str = env(
        "CROUPIER_COMMAND_LOG", choice("kafka", "memory"), "kafka", doc="where commands are logged"
    )
    kafka_bootstrap: str = env(
        "CROUPIER_KAFKA_BOOTSTRAP", str, "127.0.0.1:9092", doc="Kafka bootstrap servers"
    )
    commands_topic: str = env(
        "CROUPIER_TABLE_COMMANDS_TOPIC", str, TOPIC, doc="the command log's Kafka topic"
    )
    currency: str = env("CROUPIER_TABLE_CURRENCY", str, "CHIP", doc="default table currency")
    wallet: str = env(
        "CROUPIER_TABLE_WALLET",
        str,
        "",
        doc="the wallet's gRPC address: money tables' buy-ins (empty: no wallet calls)",
    )
    play_currencies: str = env(
        "CROUPIER_TABLE_PLAY_CURRENCIES",
        str,
        "CHIP,PLAY",
        doc="comma-separated currencies whose tables never touch the wallet",
    )
    games: tuple[str, ...] = env(
        "CROUPIER_TABLE_GAMES",
        game_names,
        game_names(ALL_GAMES),
        doc="the games this process runs: 'all' or comma-separated names (one per service "
        "in production, each with its own CROUPIER_TABLE_COMMANDS_TOPIC)",
    )
    instance_id: str = env(
        "CROUPIER_TABLE_INSTANCE_ID",
        str,
        "",
        doc="stable replica name (a StatefulSet pod name): restarts keep the partitions",
    )
    snapshots_topic: str = env(
        "CROUPIER_TABLE_SNAPSHOTS_TOPIC",
        str,
        "",
        doc="the tables' snapshot topic, compacted (empty: the command log's name with "
        "'.snapshots' for '.commands')",
    )
    partitions: int = env(
        "CROUPIER_TABLE_PARTITIONS",
        positive_int,
        DEFAULT_PARTITIONS,
        doc="the partition count the command log and snapshot topics must have",
    )


def build_host(
    command_log: CommandLog,
    bus: EventBus,
    currency: str = "CHIP",
    buyins: Buyins | None = None,
    games: tuple[str, ...] = game_names(ALL_GAMES),
    snapshot_store: SnapshotStore | None = None,
    bulk_load: BulkLoad = no_bulk_load,
) -> TableHost:
    return TableHost(
        engines=load_engines(games),
        command_log=command_log,
        publisher=bus,
        currency=currency,
        buyins=buyins,
        snapshot_store=snapshot_store,
        bulk_load=bulk_load,
    )


def table_service(host: TableHost) -> Service:
    return Service(
        name=SERVICE_NAME,
        register=lambda server: table_pb2_grpc.add_TableEngineServicer_to_server(
            TableEngineService(host), server
        ),
        drain=host.end_streams,
    )


async def create_services() -> tuple[list[Service], list[StopHook]]:
    settings = load(TableSettings)
    bus: Any
    if settings.command_log == "memory":
        from croupier.kit.bus.memory import InMemoryBus

        command_log: CommandLog = InMemoryCommandLog()
        snapshot_store: SnapshotStore | None = None  # the log lives and dies with the process
        bus = InMemoryBus()
        await bus.start()
    else:
        from croupier.kit.bus.kafka import KafkaBus
        from croupier.table.adapters.kafka_log import KafkaCommandLog
        from croupier.table.adapters.kafka_snapshots import KafkaSnapshotStore
        from croupier.table.adapters.kafka_topics import check_topics, snapshots_topic_for

        bus = KafkaBus(bootstrap_servers=settings.kafka_bootstrap)
        await bus.start()
        snapshots_topic = settings.snapshots_topic or snapshots_topic_for(settings.commands_topic)
        # Before the log's first request, which would create a missing topic.
        try:
            await check_topics(
                settings.kafka_bootstrap,
                settings.commands_topic,
                snapshots_topic,
                settings.partitions,
            )
        except BaseException:
            await bus.stop()
            raise
        snapshot_store = KafkaSnapshotStore(
            settings.kafka_bootstrap, snapshots_topic, producer=bus.producer
        )
        # One producer for events and commands: the bus closes it after the host stopped.
        command_log = KafkaCommandLog(
            settings.kafka_bootstrap,
            settings.commands_topic,
            instance_id=settings.instance_id,
            producer=bus.producer,
            security=bus.security,
        )
    hooks: list[StopHook] = []
    wallet = None
    if settings.wallet:
        wallet = GrpcWallet(settings.wallet, credential=credential_from_environment("table"))
        hooks.append(wallet.close)
    plays = [code.strip() for code in settings.play_currencies.split(",") if code.strip()]
    buyins = Buyins(wallet, default_currency=settings.currency, play_currencies=plays)
    # This process is the host's alone: its rebuilds pause the garbage collector and
    # freeze the tables they build (croupier.kit.collector).
    host = build_host(
        command_log,
        bus,
        settings.currency,
        buyins,
        settings.games,
        snapshot_store,
        bulk_load=paused_then_frozen,
    )
    await host.start()
    return [table_service(host)], [host.stop, *hooks, bus.stop]
