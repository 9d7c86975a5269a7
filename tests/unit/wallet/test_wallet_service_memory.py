"""The service layer on in-memory adapters (no database): the same flows as the PostgreSQL
tests, fast, for `make test-unit`."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest
from prometheus_client import CollectorRegistry

from croupier.wallet.adapters.memory import InMemoryStore
from croupier.wallet.adapters.metrics import PrometheusWalletMetrics
from croupier.wallet.core.errors import IdempotencyConflict, InsufficientFunds
from croupier.wallet.core.model import AccountKind, TransferKind, TransferSpec
from croupier.wallet.core.settlement import backgammon_rule
from croupier.wallet.service.games import GameMoney
from croupier.wallet.service.ledger import LedgerService
from tests.support.wallet_stories import RequestOutcomes, table_cash_outs_name_no_account


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 11, 29, 12, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now


@pytest.fixture
def store() -> InMemoryStore:
    return InMemoryStore()


@pytest.fixture
def service(store: InMemoryStore) -> LedgerService:
    return LedgerService(
        unit_of_work=store.factory,
        clock=Clock(),
        metrics=PrometheusWalletMetrics(CollectorRegistry()),
    )


def assert_balanced(store: InMemoryStore) -> None:
    totals: dict[str, int] = {}
    for account in store.accounts.values():
        totals[account.currency] = totals.get(account.currency, 0) + account.posted
        assert account.may_go_negative or account.available >= 0, account
    assert all(total == 0 for total in totals.values()), totals


async def fund(service: LedgerService, player: str, amount: int) -> str:
    house = await service.open_account(AccountKind.HOUSE_CLEARING, "house", "USD")
    account = await service.open_account(AccountKind.PLAYER_CASH, player, "USD")
    await service.transfer(TransferSpec(
        transfer_id=f"deposit-{player}", debit_account_id=house.account_id,
        credit_account_id=account.account_id, amount=amount, currency="USD",
        kind=TransferKind.DEPOSIT))  # fmt: skip
    return account.account_id


async def test_concurrent_debits_never_overdraw_and_replays_move_nothing(
    service: LedgerService, store: InMemoryStore
) -> None:
    alice = await fund(service, "alice", 1000)
    bob = (await service.open_account(AccountKind.PLAYER_CASH, "bob", "USD")).account_id

    async def debit(i: int) -> int:
        spec = TransferSpec(transfer_id=f"d{i % 30}", debit_account_id=alice,
                            credit_account_id=bob, amount=70, currency="USD",
                            kind=TransferKind.TRANSFER)  # fmt: skip
        try:
            _, replayed = await service.transfer(spec)
        except InsufficientFunds:
            return 0
        return 0 if replayed else 70

    moved = await asyncio.gather(*(debit(i) for i in range(60)))
    assert sum(moved) == 14 * 70  # 14 distinct ids fit in 1000, the rest replay or fail
    assert store.accounts[alice].posted == 1000 - 14 * 70
    with pytest.raises(IdempotencyConflict):
        await service.transfer(TransferSpec(transfer_id="d0", debit_account_id=alice,
                                            credit_account_id=bob, amount=71, currency="USD",
                                            kind=TransferKind.TRANSFER))  # fmt: skip
    assert_balanced(store)


async def test_backgammon_vector_1_and_tournament_crash_refund(
    service: LedgerService, store: InMemoryStore
) -> None:
    money = GameMoney(service)
    for p in ("amnon", "micha"):
        await fund(service, p, 5000)
        await money.hold_stake(transfer_id=f"t:{p}", player=p, game="backgammon", table_id="t",
                               currency="USD", amount=2000)  # fmt: skip
    await money.settle_game(settlement_id="t:1", game="backgammon", table_id="t", currency="USD",
                            holds={"amnon": "t:amnon", "micha": "t:micha"},
                            deltas={"amnon": 1000, "micha": -1000},
                            commission=backgammon_rule)  # fmt: skip
    assert store.accounts["player_cash:amnon:USD"].posted == 5870
    assert store.accounts["player_cash:micha:USD"].posted == 4000
    assert store.accounts["house_commission:backgammon:USD"].posted == 130
    for p in ("amnon", "micha"):
        await money.register(entry_id=f"T:{p}", tournament_id="T", game="rummy", player=p,
                             currency="USD", buy_in=1000, fee=100)  # fmt: skip
    refund = await money.crash_refund_tournament(tournament_id="T", game="rummy", currency="USD")
    assert len(refund.refunds) == 4
    assert store.accounts["player_cash:amnon:USD"].posted == 5870
    assert store.accounts["tournament_pool:T:USD"].posted == 0
    assert_balanced(store)


async def test_a_table_cash_out_request_names_no_account(
    service: LedgerService, store: InMemoryStore
) -> None:
    await table_cash_outs_name_no_account(service, GameMoney(service), RequestOutcomes(), Clock())
    assert_balanced(store)
