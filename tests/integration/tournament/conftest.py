"""The `platform` fixture of the director's integration tests (`platform.Platform`): the
wallet service and a director's schema, players a-g with deposits, the poker prize fund
funded for any Spin (`PRIZE_FUND`), rounds on a table host in process (on an in-memory
log: these tests are about the director's database)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import asyncpg  # type: ignore[import-untyped]
import grpc
import pytest
from prometheus_client import CollectorRegistry

from croupier.common.v1 import common_pb2
from croupier.tournament.bootstrap import open_database
from croupier.wallet.bootstrap import build_wallet
from croupier.wallet.v1 import wallet_pb2, wallet_pb2_grpc
from tests.integration.tournament.platform import USD, Platform, serve
from tests.unit.tournament.director_sample import START, ManualClock
from tests.unit.tournament.hosted import hosted_tables

PRIZE_FUND = 1_000_000
"""What the operator puts in the poker prize fund: a 1000x Spin of 5 USD needs 4,985 USD
(`core.spin.fund_needed`) before its third player may enter."""


async def fund_prizes(wallet: wallet_pb2_grpc.WalletStub, game: str = "poker") -> None:
    """The operator funds `house_promotions:<game>:USD` from the house's clearing account."""
    accounts = [
        await wallet.OpenAccount(
            wallet_pb2.OpenAccountRequest(kind=kind, owner=owner, currency=USD)
        )
        for kind, owner in (
            (wallet_pb2.ACCOUNT_KIND_HOUSE_CLEARING, "house"),
            (wallet_pb2.ACCOUNT_KIND_HOUSE_PROMOTIONS, game),
        )
    ]
    await wallet.Transfer(
        wallet_pb2.TransferRequest(
            transfer=wallet_pb2.NewTransfer(
                transfer_id=f"fund-{game}-prizes",
                debit_account_id=accounts[0].account.account_id,
                credit_account_id=accounts[1].account.account_id,
                amount=common_pb2.Money(amount_minor=PRIZE_FUND, currency=USD),
                kind=wallet_pb2.TRANSFER_KIND_TRANSFER,
            )
        )
    )


@pytest.fixture
async def platform(
    wallet_pool: tuple[asyncpg.Pool, str], postgres_dsn: str, unique: Callable[[str], str]
) -> AsyncIterator[Platform]:
    wallet_db, wallet_schema = wallet_pool
    wallet = await build_wallet(
        pool=wallet_db, schema=wallet_schema, bus=None, registry=CollectorRegistry()
    )
    wallet_host = serve(wallet.service())
    await wallet_host.start()
    schema = unique("tournament")
    pool = await open_database(postgres_dsn, schema)
    address = f"127.0.0.1:{wallet_host.port}"
    async with grpc.aio.insecure_channel(address) as channel, hosted_tables() as hosted:
        platform = Platform(
            wallet=wallet_pb2_grpc.WalletStub(channel),
            wallet_address=address,
            pool=pool,
            schema=schema,
            clock=ManualClock(START.replace(hour=12)),
            tables=hosted.tables,
            accounts={},
        )
        for player in "abcdefg":
            await platform.open_player(player)
        await fund_prizes(platform.wallet)
        try:
            yield platform
        finally:
            if platform.host is not None:
                await platform.stop_director()
            await pool.close()
            connection = await asyncpg.connect(postgres_dsn)
            try:
                await connection.execute(f'DROP SCHEMA "{schema}" CASCADE')
            finally:
                await connection.close()
    await wallet_host.stop()
