"""The wallet's restart time, as `croupier serve wallet` on the real broker and PostgreSQL.

After a crash the wallet served nothing for 9–10 s: gRPC started only after its Kafka
consumer had joined its group, which waited for the dead member's session to expire; with
the broker unreachable it exited after 30 s. Now gRPC (PostgreSQL-only operations) serves
as soon as the migrations ran, and the consumer joins in the background, as a static
member (`CROUPIER_WALLET_INSTANCE_ID`), retrying while the broker cannot be reached.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from collections.abc import AsyncIterator, Callable

import asyncpg  # type: ignore[import-untyped]
import grpc
import pytest
from prometheus_client.parser import text_string_to_metric_families

from croupier.wallet.v1 import wallet_pb2, wallet_pb2_grpc
from tests.support.services import service_stub

CROUPIER = [sys.executable, "-c", "from croupier.cli.main import main; main()"]


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture
async def schema(postgres_dsn: str, unique: Callable[[str], str]) -> AsyncIterator[str]:
    name = unique("wallet_restart")
    yield name
    connection = await asyncpg.connect(postgres_dsn)
    try:
        await connection.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')
    finally:
        await connection.close()


def wallet_env(
    postgres_dsn: str, kafka: str, schema: str, grpc_port: int, metrics_port: int, group: str
) -> dict[str, str]:
    return dict(
        os.environ,
        CROUPIER_GRPC_HOST="127.0.0.1",
        CROUPIER_GRPC_PORT=str(grpc_port),
        CROUPIER_METRICS_PORT=str(metrics_port),
        CROUPIER_POSTGRES_DSN=postgres_dsn,
        CROUPIER_KAFKA_BOOTSTRAP=kafka,
        CROUPIER_WALLET_SCHEMA=schema,
        CROUPIER_WALLET_CONSUMER_GROUP=group,
        CROUPIER_WALLET_INSTANCE_ID=f"{group}-0",
        CROUPIER_LOG_LEVEL="WARNING",
    )


async def start(env: dict[str, str]) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        *CROUPIER, "serve", "wallet", env=env,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip


async def first_answer(port: int, process: asyncio.subprocess.Process, limit: float) -> float:
    """Seconds until the wallet answers a ledger call (PostgreSQL only)."""
    started = time.monotonic()
    # The client retries the connection every 50 ms, not after gRPC's default 1 s backoff.
    backoff = [
        ("grpc.initial_reconnect_backoff_ms", 50),
        ("grpc.min_reconnect_backoff_ms", 50),
        ("grpc.max_reconnect_backoff_ms", 50),
    ]
    address = f"127.0.0.1:{port}"
    async with service_stub(address, wallet_pb2_grpc.WalletStub, options=backoff) as stub:
        while time.monotonic() - started < limit:
            if process.returncode is not None:
                pytest.fail(f"the wallet exited with code {process.returncode}")
            try:
                await stub.GetAccount(
                    wallet_pb2.GetAccountRequest(account_id="player_cash:alice:USD"), timeout=0.5
                )
                return time.monotonic() - started
            except grpc.aio.AioRpcError as error:
                if error.code() == grpc.StatusCode.NOT_FOUND:  # answered: no such account
                    return time.monotonic() - started
                if error.code() != grpc.StatusCode.UNAVAILABLE:
                    raise
                await asyncio.sleep(0.02)
    pytest.fail(f"no answer within {limit} s")


async def kafka_connected(metrics_port: int) -> float:
    """The wallet's `croupier_wallet_kafka_connected` gauge."""
    reader, writer = await asyncio.open_connection("127.0.0.1", metrics_port)
    writer.write(b"GET /metrics HTTP/1.0\r\nHost: x\r\n\r\n")
    body = (await reader.read()).decode()
    writer.close()
    for family in text_string_to_metric_families(body.split("\r\n\r\n", 1)[1]):
        if family.name == "croupier_wallet_kafka_connected":
            return family.samples[0].value
    raise AssertionError("no croupier_wallet_kafka_connected gauge")


async def joined(metrics_port: int, seconds: float) -> None:
    for _ in range(int(seconds * 10)):
        if await kafka_connected(metrics_port) == 1:
            return
        await asyncio.sleep(0.1)
    pytest.fail(f"the wallet's consumer did not join within {seconds} s")


async def stop(process: asyncio.subprocess.Process) -> None:
    if process.returncode is None:
        process.kill()
    await process.wait()


async def test_wallet_serves_grpc_within_2_s_after_sigkill(
    postgres_dsn: str, kafka_bootstrap: str, schema: str, unique: Callable[[str], str]
) -> None:
    grpc_port, metrics_port = free_port(), free_port()
    env = wallet_env(
        postgres_dsn, kafka_bootstrap, schema, grpc_port, metrics_port, unique("wallet_group")
    )
    first = await start(env)
    try:
        await first_answer(grpc_port, first, 60)
        await joined(metrics_port, 30)  # the first join of a new group
        first.send_signal(signal.SIGKILL)
        await first.wait()
        second = await start(env)
        try:
            elapsed = await first_answer(grpc_port, second, 10)
            assert elapsed < 2.0, f"gRPC answered {elapsed:.2f} s after the restart"
            # The consumer rejoins as the same static member: no wait for the dead session.
            await joined(metrics_port, 5)
        finally:
            await stop(second)
    finally:
        await stop(first)


async def test_wallet_serves_and_keeps_retrying_without_a_broker(
    postgres_dsn: str, schema: str, unique: Callable[[str], str]
) -> None:
    """With the broker unreachable the wallet serves ledger calls and stays up (it exited
    after 30 s); the gauge says the consumer is not connected."""
    grpc_port, metrics_port = free_port(), free_port()
    unreachable = f"127.0.0.1:{free_port()}"
    env = wallet_env(postgres_dsn, unreachable, schema, grpc_port, metrics_port, unique("g"))
    env["CROUPIER_WALLET_KAFKA_CONNECT_SECONDS"] = "1"
    process = await start(env)
    try:
        elapsed = await first_answer(grpc_port, process, 30)
        assert elapsed < 30
        await asyncio.sleep(3)  # a few failed connection attempts
        assert process.returncode is None
        assert await kafka_connected(metrics_port) == 0
        await first_answer(grpc_port, process, 5)
        process.send_signal(signal.SIGTERM)
        async with asyncio.timeout(30):
            assert await process.wait() == 0
    finally:
        await stop(process)
