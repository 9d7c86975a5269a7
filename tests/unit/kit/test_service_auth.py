"""Only services call the internal services (croupier.kit.service_auth): a server given
the services' key set refuses a call without a service credential, with a player's token,
or with a forged or expired service token (UNAUTHENTICATED, a reason a program reads),
and lets through a call made through the kit's channel (`croupier.kit.channels`), which
carries the credential and the request id of the call in progress."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import grpc
import pytest
import structlog
from grpc_health.v1 import health_pb2, health_pb2_grpc

from croupier.kit.auth import (
    KeySet,
    issue_service_token,
    issue_token,
    verify_service_token,
    verify_token,
)
from croupier.kit.channels import ServiceChannel
from croupier.kit.errors import REASON_HEADER, Unauthenticated
from croupier.kit.logs import REQUEST_ID_HEADER
from croupier.kit.server import Service, ServiceHost
from croupier.kit.service_auth import ServiceCredential
from croupier.kit.settings import ServerSettings
from tests.support.services import SERVICE_KEYS, credential

PLAYER_KEYS = KeySet(keys={"players-1": "p" * 64}, signing_kid="players-1")
INTERNAL = "croupier.test.v1.Internal"
PUBLIC = "croupier.test.v1.Public"


def _echo_service(name: str, *, public: bool) -> Service:
    """A service answering `Echo` with the bytes it is sent."""

    async def echo(request: bytes, context: object) -> bytes:
        return request

    handler = grpc.method_handlers_generic_handler(
        name, {"Echo": grpc.unary_unary_rpc_method_handler(echo)}
    )
    return Service(
        name=name,
        register=lambda server: server.add_generic_rpc_handlers((handler,)),
        public=public,
    )


class _Echo:
    """What `ServiceChannel.stub` builds from a channel: the internal service's `Echo`."""

    def __init__(self, channel: grpc.aio.Channel) -> None:
        self.Echo: Callable[..., grpc.aio.UnaryUnaryCall[bytes, bytes]] = channel.unary_unary(
            f"/{INTERNAL}/Echo"
        )


@pytest.fixture
async def address() -> AsyncIterator[str]:
    """An internal and a public service served with the services' key set."""
    server = ServiceHost(
        settings=ServerSettings(grpc_host="127.0.0.1", grpc_port=0, metrics_port=0),
        services=[_echo_service(INTERNAL, public=False), _echo_service(PUBLIC, public=True)],
        serve_metrics_endpoint=False,
        service_keys=SERVICE_KEYS,
    )
    await server.start()
    try:
        yield f"127.0.0.1:{server.port}"
    finally:
        await server.stop()


async def _refusal(address: str, authorization: str | None) -> grpc.aio.AioRpcError:
    metadata = () if authorization is None else (("authorization", authorization),)
    async with grpc.aio.insecure_channel(address) as channel:
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await _Echo(channel).Echo(b"move money", metadata=metadata)
    return refused.value


def _reason(error: grpc.aio.AioRpcError) -> str:
    return dict(error.trailing_metadata() or ()).get(REASON_HEADER, "")


async def test_an_internal_service_called_without_the_credential_is_unauthenticated(
    address: str,
) -> None:
    error = await _refusal(address, None)
    assert error.code() == grpc.StatusCode.UNAUTHENTICATED
    assert _reason(error) == "service_token_missing"
    assert "only the gateway and the other services" in (error.details() or "")


async def test_a_players_token_is_not_a_service_credential(address: str) -> None:
    player_token = issue_token(PLAYER_KEYS, "ana", now=_now(), ttl_seconds=600)
    error = await _refusal(address, f"Bearer {player_token}")
    assert error.code() == grpc.StatusCode.UNAUTHENTICATED
    assert _reason(error) == "token_unknown_key"
    # Even signed with the services' own keys, a player's token has the players' audience.
    same_keys = issue_token(SERVICE_KEYS, "ana", now=_now(), ttl_seconds=600)
    error = await _refusal(address, f"Bearer {same_keys}")
    assert error.code() == grpc.StatusCode.UNAUTHENTICATED
    assert _reason(error) == "token_invalid"


async def test_a_forged_or_expired_service_token_is_unauthenticated(address: str) -> None:
    forged_keys = KeySet(keys={"test-services-1": "f" * 64}, signing_kid="test-services-1")
    forged = issue_service_token(forged_keys, "gateway", now=_now(), ttl_seconds=600)
    error = await _refusal(address, f"Bearer {forged}")
    assert (error.code(), _reason(error)) == (grpc.StatusCode.UNAUTHENTICATED, "token_signature")
    expired = issue_service_token(SERVICE_KEYS, "gateway", now=_now() - 3600, ttl_seconds=600)
    error = await _refusal(address, f"Bearer {expired}")
    assert (error.code(), _reason(error)) == (grpc.StatusCode.UNAUTHENTICATED, "token_expired")
    error = await _refusal(address, "Basic dXNlcjpwYXNz")
    assert (error.code(), _reason(error)) == (grpc.StatusCode.UNAUTHENTICATED, "token_malformed")


async def test_a_call_through_the_kits_channel_is_served_under_the_callers_request_id(
    address: str,
) -> None:
    channel = ServiceChannel(address, credential("gateway"))
    structlog.contextvars.bind_contextvars(request_id="req-from-the-gateway-1")
    try:
        call = channel.stub(_Echo).Echo(b"move money")
        answer = await call
        trailers = dict(await call.trailing_metadata() or ())
    finally:
        structlog.contextvars.unbind_contextvars("request_id")
        await channel.close()
    assert answer == b"move money"
    assert trailers[REQUEST_ID_HEADER] == "req-from-the-gateway-1"


async def test_probes_reflection_and_public_services_need_no_credential(address: str) -> None:
    async with grpc.aio.insecure_channel(address) as channel:
        health = await health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest())
        assert health.status == health_pb2.HealthCheckResponse.SERVING
        echo = channel.unary_unary(f"/{PUBLIC}/Echo")
        assert await echo(b"hello") == b"hello"


def test_a_credential_renews_its_token_before_it_expires() -> None:
    now = [float(int(_now()))]
    made = ServiceCredential(SERVICE_KEYS, "table", clock=lambda: now[0], ttl_seconds=300)
    first = made.authorization()
    now[0] += 100
    assert made.authorization() == first  # reused while far from expiry
    now[0] += 100  # 200 s into a 300 s token: renewed
    renewed = made.authorization()
    assert renewed != first
    identity = verify_service_token(renewed.removeprefix("Bearer "), SERVICE_KEYS, now=now[0])
    assert (identity.service, identity.expires_at) == ("table", now[0] + 300 + 30)


def test_a_service_token_is_not_a_players_token() -> None:
    token = issue_service_token(PLAYER_KEYS, "gateway", now=_now(), ttl_seconds=600)
    with pytest.raises(Unauthenticated) as refused:
        verify_token(token, PLAYER_KEYS, now=_now())
    assert refused.value.reason == "token_invalid"


def _now() -> float:
    return time.time()


def test_a_service_without_the_services_key_set_refuses_to_start() -> None:
    environ = dict(
        os.environ,
        CROUPIER_GRPC_HOST="127.0.0.1",
        CROUPIER_GRPC_PORT="0",
        CROUPIER_METRICS_PORT="0",
        CROUPIER_SERVICE_KEYS="",
    )
    croupier = str(Path(sys.executable).parent / "croupier")
    done = subprocess.run(
        [croupier, "serve", "wallet"], env=environ, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "croupier serve wallet: invalid settings: CROUPIER_SERVICE_KEYS is required (the "
        "services' key set, kid=secret[,kid=secret...] (secrets of 32+ characters; the first "
        "signs, every one verifies))"
    ]
