"""The service layer on in-memory adapters (no database): the same flows as the PostgreSQL
tests, fast, for `make test-unit`."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta

import pytest
from prometheus_client import CollectorRegistry

from croupier.common.v1 import common_pb2
from croupier.kit.bus import make_envelope
from croupier.wallet.adapters.memory import InMemoryStore
from croupier.wallet.adapters.metrics import PrometheusWalletMetrics
from croupier.wallet.core.errors import IdempotencyConflict, InsufficientFunds
from croupier.wallet.core.model import AccountKind, References, TransferKind, TransferSpec
from croupier.wallet.core.settlement import backgammon_rule
from croupier.wallet.entrypoints.consumer import RequestLog, WalletRequestHandler
from croupier.wallet.service.games import GameMoney
from croupier.wallet.service.ledger import LedgerService
from croupier.wallet.v1 import wallet_pb2


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


class RequestOutcomes:
    """The consumer's request log, in a dict (the first outcome of an envelope stays)."""

    def __init__(self) -> None:
        self.outcomes: dict[str, tuple[str, str]] = {}

    async def outcome(self, envelope_id: str) -> tuple[str, str] | None:
        return self.outcomes.get(envelope_id)

    async def record(
        self, envelope_id: str, request_type: str, outcome: str, reason: str, now: datetime
    ) -> None:
        self.outcomes.setdefault(envelope_id, (outcome, reason))


class NoDeadLetters:
    async def publish_raw(self, topic: str, *, key: bytes | None, value: bytes | None,
                          headers: Sequence[tuple[str, bytes]] = ()) -> None:  # fmt: skip
        raise AssertionError(f"dead-lettered: {dict(headers)}")


async def table_cash_outs_name_no_account(
    ledger: LedgerService, games: GameMoney, requests: RequestLog, clock: Callable[[], datetime]
) -> None:
    """The table host asks "cash out player P at table T" (a `CashOutRequest`, no account
    id): the wallet moves the seat's money to the player's cash account, or his chips
    account for CHIP, as one CASH_OUT transfer; a redelivered request moves nothing."""
    handler = WalletRequestHandler(ledger=ledger, games=games, requests=requests,
                                   dead_letters=NoDeadLetters(), metrics=ledger.metrics,
                                   clock=clock)  # fmt: skip
    sources = {
        "USD": (AccountKind.HOUSE_CLEARING, AccountKind.PLAYER_CASH, TransferKind.DEPOSIT),
        "CHIP": (AccountKind.HOUSE_FLOAT, AccountKind.PLAYER_CHIPS, TransferKind.GRANT),
    }
    for currency, (source_kind, player_kind, kind) in sources.items():
        source = await ledger.open_account(source_kind, "house", currency)
        player = await ledger.open_account(player_kind, "ann", currency)
        await ledger.transfer(
            TransferSpec(
                transfer_id=f"fund-{currency}",
                debit_account_id=source.account_id,
                credit_account_id=player.account_id,
                amount=1000,
                currency=currency,
                kind=kind,
            )
        )
        await games.buy_in(
            transfer_id=f"t1:ann:in:{currency}",
            player="ann",
            game="poker",
            table_id="t1",
            currency=currency,
            amount=300,
        )
        cash_out = wallet_pb2.WalletRequest(
            cash_out=wallet_pb2.CashOutRequest(
                transfer_id=f"t1:ann:out:{currency}",
                player_id="ann",
                game=common_pb2.GAME_POKER,
                table_id="t1",
                amount=common_pb2.Money(amount_minor=280, currency=currency),
            )
        )
        envelope = make_envelope(type="wallet.cash_out_requested", source="table",
                                 subject="t1", sequence=7, payload=cash_out)  # fmt: skip
        for _ in range(2):  # redelivered: a replay
            await handler(envelope)
            seat = await ledger.account(f"table_escrow:t1/ann:{currency}")
            assert (seat.posted, (await ledger.account(player.account_id)).posted) == (20, 980)
        assert await requests.outcome(envelope.id) == ("applied", "")
        transfer = await ledger.transfer_record(f"t1:ann:out:{currency}")
        assert (transfer.debit_account_id, transfer.credit_account_id) == (
            seat.account_id,
            player.account_id,
        )
        assert (transfer.amount, transfer.currency, transfer.kind) == (
            280,
            currency,
            TransferKind.CASH_OUT,
        )
        assert transfer.references == References(game="poker", table_id="t1")


async def test_a_table_cash_out_request_names_no_account(
    service: LedgerService, store: InMemoryStore
) -> None:
    await table_cash_outs_name_no_account(service, GameMoney(service), RequestOutcomes(), Clock())
    assert_balanced(store)
