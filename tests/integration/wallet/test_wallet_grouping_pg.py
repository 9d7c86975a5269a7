"""Group commit of concurrent single transfers (service/grouping.py) on real PostgreSQL: the
transfers share transactions, and every caller still gets its own request's answer."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import asyncpg  # type: ignore[import-untyped]
import pytest
from prometheus_client import CollectorRegistry

from croupier.wallet.adapters.metrics import PrometheusWalletMetrics
from croupier.wallet.adapters.postgres import PostgresUnitOfWork
from croupier.wallet.core.errors import IdempotencyConflict, InsufficientFunds
from croupier.wallet.core.model import AccountKind, TransferKind, TransferSpec
from croupier.wallet.service.ledger import LedgerService
from croupier.wallet.service.ports import UnitOfWork


class CountingUnitsOfWork:
    """The PostgreSQL unit-of-work factory, counting the units (one per database call)."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._make = PostgresUnitOfWork.factory(pool)
        self.opened = 0

    def __call__(self) -> UnitOfWork:
        self.opened += 1
        return self._make()


@pytest.fixture
def units(wallet_pool: tuple[asyncpg.Pool, str]) -> CountingUnitsOfWork:
    return CountingUnitsOfWork(wallet_pool[0])


@pytest.fixture
def grouped(units: CountingUnitsOfWork, clock: Callable[[], object]) -> LedgerService:
    return LedgerService(
        unit_of_work=units,
        clock=clock,  # type: ignore[arg-type]
        metrics=PrometheusWalletMetrics(CollectorRegistry()),
        group_commits=2,
    )


def spec(tid: str, debit: str, credit: str, amount: int) -> TransferSpec:
    return TransferSpec(transfer_id=tid, debit_account_id=debit, credit_account_id=credit,
                        amount=amount, currency="USD", kind=TransferKind.TRANSFER)  # fmt: skip


async def players(ledger: LedgerService, count: int, funds: int) -> list[str]:
    house = await ledger.open_account(AccountKind.HOUSE_CLEARING, "house", "USD")
    ids = []
    for n in range(count):
        account = await ledger.open_account(AccountKind.PLAYER_CASH, f"p{n}", "USD")
        await ledger.transfer(spec(f"fund-{n}", house.account_id, account.account_id, funds))
        ids.append(account.account_id)
    return ids


async def test_concurrent_single_transfers_share_transactions(
    grouped: LedgerService, units: CountingUnitsOfWork
) -> None:
    accounts = await players(grouped, 4, 1000)
    before = units.opened
    results = await asyncio.gather(
        *(grouped.transfer(spec(f"t{n}", accounts[n % 4], accounts[(n + 1) % 4], 10))
          for n in range(40))
    )  # fmt: skip
    assert [t.transfer_id for t, _ in results] == [f"t{n}" for n in range(40)]
    assert not any(replayed for _, replayed in results)
    assert units.opened - before <= 2  # 40 requests, at most two shared transactions
    assert [(await grouped.account(a)).posted for a in accounts] == [1000] * 4


async def test_a_refused_transfer_leaves_the_rest_of_its_group_applied(
    grouped: LedgerService,
) -> None:
    alice, bob = await players(grouped, 2, 100)
    outcomes = await asyncio.gather(
        grouped.transfer(spec("small-1", alice, bob, 30)),
        grouped.transfer(spec("too-much", alice, bob, 1000)),
        grouped.transfer(spec("small-2", alice, bob, 30)),
        return_exceptions=True,
    )
    assert isinstance(outcomes[1], InsufficientFunds)
    assert "1000 needed" in str(outcomes[1])
    assert [t.transfer_id for t, _ in (outcomes[0], outcomes[2])] == ["small-1", "small-2"]  # type: ignore[misc]
    assert (await grouped.account(alice)).posted == 40
    assert (await grouped.account(bob)).posted == 160


async def test_the_same_id_at_the_same_moment_applies_once(grouped: LedgerService) -> None:
    alice, bob = await players(grouped, 2, 100)
    outcomes = await asyncio.gather(
        grouped.transfer(spec("once", alice, bob, 30)),
        grouped.transfer(spec("once", alice, bob, 30)),
        grouped.transfer(spec("once", alice, bob, 31)),
        return_exceptions=True,
    )
    applied = [o for o in outcomes if isinstance(o, tuple) and not o[1]]
    replayed = [o for o in outcomes if isinstance(o, tuple) and o[1]]
    conflicts = [o for o in outcomes if isinstance(o, IdempotencyConflict)]
    assert len(applied) + len(replayed) + len(conflicts) == 3
    assert len(applied) == 1
    assert (await grouped.account(bob)).posted == 100 + applied[0][0].amount


async def test_fifty_concurrent_clients_never_overdraw_when_grouped(
    grouped: LedgerService,
) -> None:
    (alice, bob) = await players(grouped, 2, 1000)

    async def client(n: int) -> int:
        moved = 0
        for k in range(4):
            try:
                transfer, _ = await grouped.transfer(spec(f"c{n}-{k}", alice, bob, 7))
            except InsufficientFunds:
                continue
            moved += transfer.amount
        return moved

    moved = sum(await asyncio.gather(*(client(n) for n in range(50))))
    assert moved == 7 * (1000 // 7)
    assert (await grouped.account(alice)).posted == 1000 - moved
    assert (await grouped.account(bob)).posted == 1000 + moved
