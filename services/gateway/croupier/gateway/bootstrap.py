"""Wire the gateway: settings → key set, gRPC clients of the lobby, the table host, the wallet
and the director → one `GatewayService`, served over gRPC (by the kit's `ServiceHost`) and over
HTTP for browsers (Connect and gRPC-Web, `HttpServer`).

`croupier serve gateway` calls `create_services()`; the embedded platform and the tests call
`build_gateway` with their own addresses and key set, so every configuration is wired the
same way.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from croupier.gateway.adapters.lobby import GrpcLobby
from croupier.gateway.adapters.tables import GrpcTables
from croupier.gateway.adapters.tournaments import GrpcTournaments
from croupier.gateway.adapters.wallet import GrpcWallet
from croupier.gateway.core.client_address import Network, parse_networks
from croupier.gateway.core.rate_limits import RateLimit
from croupier.gateway.entrypoints.connect_api import HttpServer, connect_app
from croupier.gateway.entrypoints.grpc_api import grpc_handler
from croupier.gateway.entrypoints.methods import SERVICE_NAME, gateway_methods
from croupier.gateway.service.gateway import GatewayService
from croupier.gateway.service.identity import Authenticator
from croupier.gateway.service.limits import DEFAULT_LIMITS, CallLimits, GatewayLimits
from croupier.gateway.service.ports import Lobby, Tables, Tournaments, Wallet
from croupier.kit.auth import KeySet
from croupier.kit.channels import Target
from croupier.kit.server import Service, StopHook
from croupier.kit.service_auth import ServiceCredential, credential_from_environment
from croupier.kit.settings import env, load, port
from croupier.table.client import STREAM_RETRY_SECONDS, TableTarget, table_services

__all__ = ["GatewaySettings", "Wired", "build_gateway", "create_services", "grpc_gateway"]

SERVICE_CREDENTIAL_NAME = "gateway"
NO_TRUSTED_PROXIES: tuple[Network, ...] = ()
# A stream waiting longer for its table's host would hold a player who should reconnect.
MAX_STREAM_RETRY_SECONDS = 3600.0


def _key_set(text: str) -> str:
    KeySet.parse(text)  # a bad key set stops the process at start, with the reason
    return text


def table_address(text: str) -> str:
    """`CROUPIER_TABLE_ADDRESS` as the services' table client reads it (one address, the
    replicas' `host:port,...`, or `game=host:port[|host:port...],...`), checked at start."""
    table_services(text)
    return text


def _stream_retry(text: str) -> float:
    value = float(text)
    if not 1 <= value <= MAX_STREAM_RETRY_SECONDS:
        raise ValueError(f"must be 1 to {MAX_STREAM_RETRY_SECONDS:.0f} seconds, not {text}")
    return value


def _rate(text: str) -> float:
    value = float(text)
    RateLimit(rate=value, burst=1)  # the bounds, with their reason
    return value


def _burst(text: str) -> int:
    value = int(text)
    RateLimit(rate=1, burst=value)
    return value


@dataclass(frozen=True)
class GatewaySettings:
    auth_keys: str = env(
        "CROUPIER_AUTH_KEYS",
        _key_set,
        doc="the token keys, kid=secret[,kid=secret...] (secrets of 32+ characters; the "
        "first signs, every one verifies)",
    )
    http_port: int = env(
        "CROUPIER_GATEWAY_HTTP_PORT", port, 8080, doc="Connect / gRPC-Web port (0 = any free)"
    )
    lobby_address: str = env(
        "CROUPIER_LOBBY_ADDRESS", str, "127.0.0.1:50051", doc="the lobby's gRPC address"
    )
    table_address: str = env(
        "CROUPIER_TABLE_ADDRESS",
        table_address,
        "127.0.0.1:50051",
        doc="the table host: one gRPC address, its replicas' host:port,... (each table's "
        "calls go to the replica serving it), or each game's service, game=host:port,... "
        "(a game's replicas joined by |)",
    )
    wallet_address: str = env(
        "CROUPIER_WALLET_ADDRESS", str, "127.0.0.1:50051", doc="the wallet's gRPC address"
    )
    tournament_address: str = env(
        "CROUPIER_TOURNAMENT_ADDRESS",
        str,
        "127.0.0.1:50051",
        doc="the tournament director's gRPC address",
    )
    player_rate: float = env(
        "CROUPIER_GATEWAY_PLAYER_RATE",
        _rate,
        DEFAULT_LIMITS.per_player.rate,
        doc="calls a second a player may make on average",
    )
    player_burst: int = env(
        "CROUPIER_GATEWAY_PLAYER_BURST",
        _burst,
        DEFAULT_LIMITS.per_player.burst,
        doc="calls a player may make at once",
    )
    address_rate: float = env(
        "CROUPIER_GATEWAY_ADDRESS_RATE",
        _rate,
        DEFAULT_LIMITS.per_address.rate,
        doc="calls a second one network address may make on average",
    )
    address_burst: int = env(
        "CROUPIER_GATEWAY_ADDRESS_BURST",
        _burst,
        DEFAULT_LIMITS.per_address.burst,
        doc="calls one network address may make at once",
    )

    trusted_proxies: tuple[Network, ...] = env(
        "CROUPIER_GATEWAY_TRUSTED_PROXIES",
        parse_networks,
        NO_TRUSTED_PROXIES,
        doc="the proxies (addresses or CIDRs, comma-separated) whose Forwarded / "
        "X-Forwarded-For headers name the client's address; none by default",
    )

    stream_retry_seconds: float = env(
        "CROUPIER_GATEWAY_STREAM_RETRY_SECONDS",
        _stream_retry,
        STREAM_RETRY_SECONDS,
        doc="how long a player's view stream waits for its table's host (a replica "
        "restarting, a rebalance) before it ends UNAVAILABLE",
    )

    def limits(self) -> GatewayLimits:
        return GatewayLimits(
            per_player=RateLimit(rate=self.player_rate, burst=self.player_burst),
            per_address=RateLimit(rate=self.address_rate, burst=self.address_burst),
            trusted_proxies=self.trusted_proxies,
        )


@dataclass
class Wired:
    """The gateway on both transports; `http.start()` serves browsers."""

    service: Service
    http: HttpServer
    stop_hooks: list[StopHook]


def build_gateway(
    *,
    key_set: KeySet,
    lobby: Lobby,
    tables: Tables,
    wallet: Wallet,
    tournaments: Tournaments,
    http_host: str,
    http_port: int,
    clock: Callable[[], float] = time.time,
    recheck_seconds: float | None = None,
    limits: GatewayLimits = DEFAULT_LIMITS,
) -> Wired:
    """The gateway over the given ports; its HTTP server is built, not started."""
    gateway = GatewayService(lobby=lobby, tables=tables, wallet=wallet, tournaments=tournaments)
    options = {} if recheck_seconds is None else {"recheck_seconds": recheck_seconds}
    methods = gateway_methods(
        gateway, Authenticator(key_set, clock=clock, **options), CallLimits(limits)
    )
    handler = grpc_handler(methods)
    http = HttpServer(connect_app(methods), http_host, http_port)
    service = Service(
        name=SERVICE_NAME,
        register=lambda server: server.add_generic_rpc_handlers((handler,)),
        drain=http.stop,
        public=True,  # players call it: it checks their tokens itself
    )
    return Wired(service=service, http=http, stop_hooks=[http.stop])


def grpc_gateway(
    *,
    key_set: KeySet,
    lobby_address: Target,
    table_address: TableTarget,
    wallet_address: Target,
    tournament_address: Target,
    http_host: str,
    http_port: int,
    credential: ServiceCredential,
    limits: GatewayLimits = DEFAULT_LIMITS,
    stream_retry_seconds: float = STREAM_RETRY_SECONDS,
) -> Wired:
    """The gateway over the services' gRPC APIs at these addresses, calling them with its
    service `credential`."""
    lobby = GrpcLobby(lobby_address, credential)
    tables = GrpcTables(table_address, credential, stream_retry_seconds=stream_retry_seconds)
    wallet = GrpcWallet(wallet_address, credential)
    tournaments = GrpcTournaments(tournament_address, credential)
    wired = build_gateway(
        key_set=key_set,
        lobby=lobby,
        tables=tables,
        wallet=wallet,
        tournaments=tournaments,
        http_host=http_host,
        http_port=http_port,
        limits=limits,
    )
    wired.stop_hooks += [lobby.close, tables.close, wallet.close, tournaments.close]
    return wired


async def create_services() -> tuple[list[Service], list[StopHook]]:
    from croupier.kit.settings import ServerSettings

    settings = load(GatewaySettings)
    server = load(ServerSettings)
    wired = grpc_gateway(
        key_set=KeySet.parse(settings.auth_keys),
        lobby_address=settings.lobby_address,
        table_address=settings.table_address,
        wallet_address=settings.wallet_address,
        tournament_address=settings.tournament_address,
        http_host=server.grpc_host,
        http_port=settings.http_port,
        credential=credential_from_environment(SERVICE_CREDENTIAL_NAME),
        limits=settings.limits(),
        stream_retry_seconds=settings.stream_retry_seconds,
    )
    await wired.http.start()
    return [wired.service], wired.stop_hooks
