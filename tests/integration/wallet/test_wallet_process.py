"""The wallet as its own process (what `croupier serve wallet` runs): migrations at start-up,
settings from the environment, health SERVING, a call, SIGTERM drains and exits 0."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import Callable

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from croupier.wallet.v1 import wallet_pb2, wallet_pb2_grpc
from tests.support.cli import serving_port

# The body of `croupier serve wallet` (croupier.cli.serve._serve) until the lead registers
# "wallet" in its SERVICE_MODULES.
SERVE = """
import asyncio
from croupier.kit import logs
from croupier.kit.server import ServiceHost
from croupier.kit.settings import ServerSettings, load
from croupier.wallet.bootstrap import create_services

async def main():
    settings = load(ServerSettings)
    logs.configure(settings.log_level, service="wallet")
    services, hooks = await create_services()
    await ServiceHost(settings=settings, services=services, on_stop=hooks).run_until_signalled()

asyncio.run(main())
"""


async def test_wallet_process_serves_and_drains_on_sigterm(
    postgres_dsn: str, kafka_bootstrap: str, unique: Callable[[str], str]
) -> None:
    schema = unique("wallet_proc")
    env = dict(
        os.environ,
        CROUPIER_GRPC_HOST="127.0.0.1",
        CROUPIER_GRPC_PORT="0",
        CROUPIER_METRICS_PORT="0",
        CROUPIER_POSTGRES_DSN=postgres_dsn,
        CROUPIER_KAFKA_BOOTSTRAP=kafka_bootstrap,
        CROUPIER_WALLET_SCHEMA=schema,
        CROUPIER_WALLET_REQUESTS_TOPIC=unique("wallet_requests"),
        CROUPIER_WALLET_TRANSFERS_TOPIC=unique("wallet_transfers"),
    )
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", SERVE, env=env, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    port = await serving_port(process, "wallet")
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            health = await health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service="croupier.wallet.v1.Wallet")
            )
            assert health.status == health_pb2.HealthCheckResponse.SERVING
            opened = await wallet_pb2_grpc.WalletStub(channel).OpenAccount(
                wallet_pb2.OpenAccountRequest(
                    kind=wallet_pb2.ACCOUNT_KIND_PLAYER_CASH, owner="alice", currency="USD"
                )
            )
            assert opened.account.account_id == "player_cash:alice:USD"
    finally:
        process.send_signal(signal.SIGTERM)
        async with asyncio.timeout(30):
            code = await process.wait()
    assert code == 0
    import asyncpg  # type: ignore[import-untyped]

    connection = await asyncpg.connect(postgres_dsn)
    try:
        await connection.execute(f'DROP SCHEMA "{schema}" CASCADE')
    finally:
        await connection.close()
