"""`croupier serve SERVICE`: run one service as its own process (what a container runs).

Settings come from environment variables (croupier.kit.settings); a wrong one stops the
process at once with exit code 2 and a message naming every bad variable. So does a gRPC
or metrics port another process holds (checked before the service starts anything), or,
for the table host, a Kafka broker that cannot be reached: one line on stderr naming the
address, exit code 2. The wallet and the tournament director serve without Kafka and join
it in the background (the director reaches the wallet at CROUPIER_WALLET_ADDRESS). Every
service needs the services' key set, CROUPIER_SERVICE_KEYS: its internal services answer
only calls carrying a service credential signed with it, and it signs its own calls to
the others with it (croupier.kit.service_auth).
"""

from __future__ import annotations

import argparse
import gc
import importlib
import sys
from typing import TYPE_CHECKING, Protocol, cast

from croupier.kit import eventloop
from croupier.kit.settings import ServerSettings, SettingsError, load

if TYPE_CHECKING:
    from croupier.kit.server import Service, StopHook


class _Bootstrap(Protocol):
    async def create_services(self) -> tuple[list[Service], list[StopHook]]: ...


# Service name → module with `async def create_services() -> (services, stop hooks)`,
# which reads its own settings from the environment. "diagnostics" is the bare kit.
SERVICE_MODULES: dict[str, str | None] = {
    "diagnostics": None,
    "bots": "croupier.bots.bootstrap",
    "gateway": "croupier.gateway.bootstrap",
    "lobby": "croupier.lobby.bootstrap",
    "table": "croupier.table.bootstrap",
    "tournament": "croupier.tournament.bootstrap",
    "wallet": "croupier.wallet.bootstrap",
}


async def _serve(name: str, settings: ServerSettings) -> None:
    from croupier.kit.server import ServiceHost, check_ports
    from croupier.kit.service_auth import ServiceAuthSettings

    check_ports(settings)  # before the service joins Kafka or rebuilds anything
    services: list[Service] = []
    hooks: list[StopHook] = []
    service_keys = None
    module_name = SERVICE_MODULES[name]
    if module_name is not None:
        # No key set, no service: an internal service never serves open.
        service_keys = load(ServiceAuthSettings).key_set()
        bootstrap = cast(_Bootstrap, importlib.import_module(module_name))
        services, hooks = await bootstrap.create_services()
    # What exists now lives as long as the process (modules, classes, rebuilt tables):
    # out of the cyclic collector's sight, its full passes scan only what came later,
    # instead of stalling every call in flight for tens of milliseconds.
    gc.collect()  # start-up garbage is freed, not frozen
    gc.freeze()
    host = ServiceHost(
        settings=settings, services=services, on_stop=hooks, service_keys=service_keys
    )
    await host.run_until_signalled()


def _handle(args: argparse.Namespace) -> int:
    try:
        settings = load(ServerSettings)
    except SettingsError as exc:
        print(f"croupier serve {args.service}: {exc}", file=sys.stderr)
        return 2
    from croupier.kit import logs
    from croupier.kit.bus.kafka import KafkaUnreachable
    from croupier.kit.server import CannotListen

    logs.configure(settings.log_level, service=args.service)
    try:
        eventloop.run(_serve(args.service, settings))
    except (SettingsError, CannotListen, KafkaUnreachable) as exc:
        print(f"croupier serve {args.service}: {exc}", file=sys.stderr)
        return 2
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="run one service on its own, as a container does (settings from CROUPIER_* "
        "environment variables; the table host needs Kafka at start, the wallet joins it "
        "when it can)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "service",
        choices=sorted(SERVICE_MODULES),
        help="table: the table host; wallet: the ledger; tournament: the tournament director; "
        "gateway: the players' API (gRPC, and Connect / gRPC-Web on CROUPIER_GATEWAY_HTTP_PORT); "
        "diagnostics: an echo service only",
    )
    parser.set_defaults(handler=_handle)
