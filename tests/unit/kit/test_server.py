"""The service kit as a real process: health, metrics, request ids, draining, bad input."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import urllib.request
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from croupier.diagnostics.v1 import diagnostics_pb2, diagnostics_pb2_grpc
from tests.support.cli import serving_record

CROUPIER = Path(sys.executable).parent / "croupier"
ECHO = "/croupier.diagnostics.v1.Diagnostics/Echo"
# Echo's labels under grpc-ecosystem's names, in prometheus_client's (sorted) order.
ECHO_LABELS = 'grpc_method="Echo",grpc_service="croupier.diagnostics.v1.Diagnostics"'
UNARY_ECHO = f'{ECHO_LABELS},grpc_type="unary"'


@dataclass
class RunningService:
    process: asyncio.subprocess.Process
    grpc_port: int
    metrics_port: int

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.grpc_port}"


@pytest.fixture
async def service() -> AsyncIterator[RunningService]:
    env = dict(os.environ, CROUPIER_GRPC_HOST="127.0.0.1", CROUPIER_GRPC_PORT="0")
    env.update(CROUPIER_METRICS_PORT="0", CROUPIER_SHUTDOWN_GRACE_SECONDS="10")
    process = await asyncio.create_subprocess_exec(
        str(CROUPIER), "serve", "diagnostics", env=env, stderr=asyncio.subprocess.PIPE
    )
    try:
        record = await serving_record(process, "croupier serve diagnostics")
        yield RunningService(process, record["grpc_port"], record["metrics_port"])
    finally:
        if process.returncode is None:
            process.kill()
        await process.wait()


@pytest.fixture
async def channel(service: RunningService) -> AsyncIterator[grpc.aio.Channel]:
    async with grpc.aio.insecure_channel(service.target) as channel:
        yield channel


async def test_health_reports_serving(channel: grpc.aio.Channel) -> None:
    stub = health_pb2_grpc.HealthStub(channel)
    overall = await stub.Check(health_pb2.HealthCheckRequest(service=""))
    named = await stub.Check(
        health_pb2.HealthCheckRequest(service="croupier.diagnostics.v1.Diagnostics")
    )
    assert overall.status == health_pb2.HealthCheckResponse.SERVING
    assert named.status == health_pb2.HealthCheckResponse.SERVING


async def test_request_id_is_taken_from_metadata_and_returned(channel: grpc.aio.Channel) -> None:
    stub = diagnostics_pb2_grpc.DiagnosticsStub(channel)
    call = stub.Echo(
        diagnostics_pb2.EchoRequest(message="hi"), metadata=(("x-request-id", "req-42"),)
    )
    response = await call
    trailing = await call.trailing_metadata()
    assert response.message == "hi"
    assert response.request_id == "req-42"
    assert ("x-request-id", "req-42") in list(trailing)


async def scrape(service: RunningService) -> str:
    url = f"http://127.0.0.1:{service.metrics_port}/metrics"
    return await asyncio.to_thread(lambda: urllib.request.urlopen(url, timeout=5).read().decode())


async def test_metrics_expose_grpc_ecosystem_counters_and_latency_after_a_call(
    service: RunningService, channel: grpc.aio.Channel
) -> None:
    stub = diagnostics_pb2_grpc.DiagnosticsStub(channel)
    await stub.Echo(diagnostics_pb2.EchoRequest(message="x"))
    body = await scrape(service)
    assert f"grpc_server_started_total{{{UNARY_ECHO}}} 1.0" in body
    assert f'grpc_server_handled_total{{grpc_code="OK",{UNARY_ECHO}}} 1.0' in body
    assert f"grpc_server_handling_seconds_count{{{UNARY_ECHO}}} 1.0" in body
    assert f"grpc_server_msg_received_total{{{UNARY_ECHO}}} 1.0" in body
    assert f"grpc_server_msg_sent_total{{{UNARY_ECHO}}} 1.0" in body


async def test_health_checks_are_counted_but_not_timed(
    service: RunningService, channel: grpc.aio.Channel
) -> None:
    await health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(service=""))
    body = await scrape(service)
    health = 'grpc_method="Check",grpc_service="grpc.health.v1.Health",grpc_type="unary"'
    assert f'grpc_server_handled_total{{grpc_code="OK",{health}}} 1.0' in body
    assert 'grpc_server_handling_seconds_count{grpc_method="Check"' not in body


async def test_each_call_without_a_request_id_gets_a_new_one(channel: grpc.aio.Channel) -> None:
    stub = diagnostics_pb2_grpc.DiagnosticsStub(channel)
    ids = [(await stub.Echo(diagnostics_pb2.EchoRequest(message="x"))).request_id for _ in range(3)]
    assert len(set(ids)) == 3
    assert all(ids), ids


async def test_metrics_count_each_outcome_under_its_own_code(
    service: RunningService, channel: grpc.aio.Channel
) -> None:
    stub = diagnostics_pb2_grpc.DiagnosticsStub(channel)
    await stub.Echo(diagnostics_pb2.EchoRequest(message="x"))
    for _ in range(2):
        with pytest.raises(grpc.aio.AioRpcError):
            await stub.Echo(diagnostics_pb2.EchoRequest(delay_ms=999_999))
    with pytest.raises(grpc.aio.AioRpcError):
        await channel.unary_unary(ECHO)(b"\xff\xff")
    body = await scrape(service)
    handled = "grpc_server_handled_total"
    assert f'{handled}{{grpc_code="OK",{UNARY_ECHO}}} 1.0' in body
    assert f'{handled}{{grpc_code="InvalidArgument",{UNARY_ECHO}}} 3.0' in body
    assert f"grpc_server_started_total{{{UNARY_ECHO}}} 4.0" in body  # none still in flight
    assert f"croupier_grpc_server_malformed_requests_total{{{ECHO_LABELS}}} 1.0" in body


async def test_malformed_body_is_invalid_argument_and_service_keeps_serving(
    channel: grpc.aio.Channel,
) -> None:
    raw = channel.unary_unary(ECHO)  # no serializers: send raw bytes
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await raw(b"\xff\xff\xff\xff")
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "not a valid message" in (caught.value.details() or "")
    stub = diagnostics_pb2_grpc.DiagnosticsStub(channel)
    assert (await stub.Echo(diagnostics_pb2.EchoRequest(message="still here"))).message == (
        "still here"
    )


async def test_invalid_field_is_invalid_argument_with_readable_message(
    channel: grpc.aio.Channel,
) -> None:
    stub = diagnostics_pb2_grpc.DiagnosticsStub(channel)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stub.Echo(diagnostics_pb2.EchoRequest(delay_ms=999_999))
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert caught.value.details() == "delay_ms must be between 0 and 30000"


async def test_sigterm_finishes_in_flight_call_then_exits(
    service: RunningService, channel: grpc.aio.Channel
) -> None:
    stub = diagnostics_pb2_grpc.DiagnosticsStub(channel)
    in_flight = asyncio.ensure_future(
        stub.Echo(diagnostics_pb2.EchoRequest(message="slow", delay_ms=1500))
    )
    await asyncio.sleep(0.5)  # the call is now being handled
    service.process.send_signal(signal.SIGTERM)
    response = await in_flight
    assert response.message == "slow"
    assert await asyncio.wait_for(service.process.wait(), 20) == 0
