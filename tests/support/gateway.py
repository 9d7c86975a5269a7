"""The gateway as its tests see it: served in process beside the services it calls (one gRPC
port, as in the embedded platform) and over HTTP; tokens; and the two browser protocols
spoken by hand (Connect with JSON, gRPC-Web with binary frames), as a browser sends them."""

from __future__ import annotations

import asyncio
import json
import struct
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import grpc
from google.protobuf import json_format
from google.protobuf.message import Message

from croupier.gateway.adapters.lobby import GrpcLobby
from croupier.gateway.adapters.tables import GrpcTables
from croupier.gateway.adapters.tournaments import GrpcTournaments
from croupier.gateway.adapters.wallet import GrpcWallet
from croupier.gateway.bootstrap import build_gateway
from croupier.gateway.service.limits import DEFAULT_LIMITS, GatewayLimits
from croupier.gateway.service.ports import Tournaments, Wallet
from croupier.gateway.v1 import gateway_pb2_grpc
from croupier.kit.auth import KeySet, issue_token
from croupier.kit.server import Service, ServiceHost
from croupier.kit.settings import ServerSettings
from tests.support.services import SERVICE_KEYS, credential

KEYS = KeySet(keys={"test-1": "k" * 64}, signing_kid="test-1")
SERVICE_PATH = "/croupier.gateway.v1.Gateway"


def token(
    player: str,
    *,
    now: float,
    ttl_seconds: int = 600,
    keys: KeySet = KEYS,
    roles: frozenset[str] = frozenset(),
) -> str:
    return issue_token(keys, player, now=now, ttl_seconds=ttl_seconds, roles=roles)


def bearer(
    player: str, *, now: float, ttl_seconds: int = 600, roles: frozenset[str] = frozenset()
) -> tuple[tuple[str, str]]:
    """gRPC metadata carrying `player`'s token (with `roles`)."""
    issued = token(player, now=now, ttl_seconds=ttl_seconds, roles=roles)
    return (("authorization", "Bearer " + issued),)


@dataclass
class ServedGateway:
    """The gateway's gRPC `stub` (typed Any: the aio stub is typed as the sync one), the
    gRPC `address` it shares with the services beside it, the base URL of its HTTP server."""

    stub: Any
    address: str
    http: str


@asynccontextmanager
async def served_gateway(
    *,
    beside: list[Service],
    wallet: Wallet | None = None,
    tournaments: Tournaments | None = None,
    tables: GrpcTables | None = None,
    clock: Callable[[], float],
    recheck_seconds: float = 0.05,
    limits: GatewayLimits = DEFAULT_LIMITS,
) -> AsyncIterator[ServedGateway]:
    """The gateway and the services `beside` it on one free gRPC port, the gateway's lobby and
    table calls (and wallet and director calls, unless `wallet` and `tournaments` are given) going
    to that port over gRPC (table calls to `tables`' replicas, when given); its HTTP server on
    another free port."""
    server: ServiceHost | None = None

    def own_port() -> str:
        return f"127.0.0.1:{server.port if server else 0}"

    # The services beside it are guarded as in production: the gateway calls them with its
    # service credential.
    gateway = credential("gateway")
    lobby, tables = GrpcLobby(own_port, gateway), tables or GrpcTables(own_port, gateway)
    grpc_wallet, grpc_tournaments = (
        GrpcWallet(own_port, gateway),
        GrpcTournaments(own_port, gateway),
    )
    remotes = (lobby, tables, grpc_wallet, grpc_tournaments)
    wired = build_gateway(
        key_set=KEYS,
        lobby=lobby,
        tables=tables,
        wallet=wallet or grpc_wallet,
        tournaments=tournaments or grpc_tournaments,
        http_host="127.0.0.1",
        http_port=0,
        clock=clock,
        recheck_seconds=recheck_seconds,
        limits=limits,
    )
    server = ServiceHost(
        settings=ServerSettings(grpc_host="127.0.0.1", grpc_port=0, metrics_port=0),
        services=[*beside, wired.service],
        on_stop=[*wired.stop_hooks, *(remote.close for remote in remotes)],
        serve_metrics_endpoint=False,
        service_keys=SERVICE_KEYS,
    )
    await wired.http.start()
    await server.start()
    try:
        address = f"127.0.0.1:{server.port}"
        async with grpc.aio.insecure_channel(address) as channel:
            yield ServedGateway(
                gateway_pb2_grpc.GatewayStub(channel),
                address,
                f"http://127.0.0.1:{wired.http.port}",
            )
    finally:
        await server.stop()


def _post(url: str, body: bytes, headers: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


async def connect_call(
    base: str, method: str, request: Message, authorization: str | None
) -> tuple[int, dict[str, Any]]:
    """A unary Connect call with the JSON codec, as a browser makes it: the HTTP status and
    the decoded body (the response message, or the error's code and message)."""
    headers = {"Content-Type": "application/json", "Connect-Protocol-Version": "1"}
    if authorization is not None:
        headers["Authorization"] = authorization
    body = json_format.MessageToJson(request).encode()
    status, _, answer = await asyncio.to_thread(
        _post, f"{base}{SERVICE_PATH}/{method}", body, headers
    )
    return status, json.loads(answer or b"{}")


async def grpc_web_call(
    base: str, method: str, request: Message, authorization: str | None
) -> tuple[list[bytes], dict[str, str]]:
    """A gRPC-Web call (binary, unary or server stream): its messages and its trailers."""
    headers = {"Content-Type": "application/grpc-web+proto", "X-Grpc-Web": "1"}
    if authorization is not None:
        headers["Authorization"] = authorization
    payload = request.SerializeToString()
    body = struct.pack(">BI", 0, len(payload)) + payload
    status, response_headers, answer = await asyncio.to_thread(
        _post, f"{base}{SERVICE_PATH}/{method}", body, headers
    )
    assert status == 200, f"gRPC-Web answers HTTP 200 with the status in trailers, got {status}"
    messages: list[bytes] = []
    trailers = {k.lower(): v for k, v in response_headers.items() if k.lower().startswith("grpc-")}
    offset = 0
    while offset < len(answer):
        flags, length = struct.unpack(">BI", answer[offset : offset + 5])
        frame = answer[offset + 5 : offset + 5 + length]
        offset += 5 + length
        if flags & 0x80:
            for line in frame.decode().split("\r\n"):
                key, _, value = line.partition(":")
                if key:
                    trailers[key.strip().lower()] = value.strip()
        else:
            messages.append(frame)
    return messages, trailers
