"""The gateway in front of the lobby on the real PostgreSQL (its own schema) and a table
host logging to the real Kafka broker, served in process on one gRPC port, as the web
page's and the lobby methods' tests see them."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from croupier.kit.bus.kafka import KafkaBus
from croupier.lobby.adapters.host_local import LocalTableHost
from croupier.lobby.bootstrap import Wired, build_lobby, open_database
from croupier.table.adapters.kafka_log import KafkaCommandLog
from croupier.table.bootstrap import table_service
from croupier.table.games import load_engines
from croupier.table.service.host import TableHost
from tests.support.gateway import ServedGateway, served_gateway
from tests.support.infra import unique_name
from tests.support.table import Seeds


@dataclass
class LobbyPlatform:
    gateway: ServedGateway
    host: TableHost
    lobby: Wired


@asynccontextmanager
async def lobby_gateway(
    kafka_bootstrap: str, postgres_dsn: str, schema: str
) -> AsyncIterator[LobbyPlatform]:
    """The gateway, the lobby (schema `schema`, dropped at the end) and the table host."""
    bus = KafkaBus(bootstrap_servers=kafka_bootstrap)
    await bus.start()
    host = TableHost(
        engines=load_engines(),
        command_log=KafkaCommandLog(kafka_bootstrap, unique_name("gateway_lobby_commands")),
        publisher=bus,
        seeds=Seeds("gateway-lobby"),
    )
    await host.start()
    pool = await open_database(postgres_dsn, schema)
    lobby = build_lobby(
        pool=pool, schema=schema, host=LocalTableHost(host), bus=None, tick_seconds=None
    )
    try:
        async with served_gateway(
            beside=[table_service(host), lobby.service()], clock=time.time
        ) as gateway:
            yield LobbyPlatform(gateway, host, lobby)
    finally:
        await lobby.stop()
        await pool.execute(f'DROP SCHEMA "{schema}" CASCADE')
        await pool.close()
        await host.stop()
        await bus.stop()
