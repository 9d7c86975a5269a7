"""The ledger service on a real PostgreSQL: idempotency, concurrency, bad input, DB guards."""

from __future__ import annotations

import asyncio

import asyncpg  # type: ignore[import-untyped]
import pytest

from croupier.wallet.adapters.metrics import PrometheusWalletMetrics
from croupier.wallet.core.errors import (
    AccountNotFound,
    AlreadyReversed,
    CurrencyMismatch,
    IdempotencyConflict,
    InsufficientFunds,
    InvalidRequest,
    TransferNotFound,
    TransferNotPending,
    UnknownCurrency,
)
from croupier.wallet.core.model import AccountKind, TransferKind, TransferSpec, TransferStatus
from croupier.wallet.service.ledger import LedgerService
from croupier.wallet.service.operations import Apply, PostHold


def spec(tid: str, debit: str, credit: str, amount: int, **kw: object) -> TransferSpec:
    return TransferSpec(
        transfer_id=tid,
        debit_account_id=debit,
        credit_account_id=credit,
        amount=amount,
        currency=str(kw.pop("currency", "USD")),
        kind=kw.pop("kind", TransferKind.TRANSFER),  # type: ignore[arg-type]
        **kw,  # type: ignore[arg-type]
    )


async def fund(service: LedgerService, player: str, amount: int, currency: str = "USD") -> str:
    house = await service.open_account(AccountKind.HOUSE_CLEARING, "house", currency)
    account = await service.open_account(AccountKind.PLAYER_CASH, player, currency)
    await service.transfer(
        spec(
            f"deposit-{player}-{currency}",
            house.account_id,
            account.account_id,
            amount,
            currency=currency,
            kind=TransferKind.DEPOSIT,
        )
    )
    return account.account_id


async def test_fifty_concurrent_clients_never_overdraw_one_player(
    ledger_service: LedgerService,
) -> None:
    alice = await fund(ledger_service, "alice", 10_000)
    bob = (await ledger_service.open_account(AccountKind.PLAYER_CASH, "bob", "USD")).account_id
    amounts = [(i % 7 + 1) * 100 for i in range(50)]  # asks for 19,800 of 10,000

    async def client(i: int) -> int:
        try:
            await ledger_service.transfer(spec(f"debit-{i}", alice, bob, amounts[i]))
        except InsufficientFunds:
            return 0
        return amounts[i]

    moved = await asyncio.gather(*(client(i) for i in range(50)))
    assert sum(moved) <= 10_000
    assert (await ledger_service.account(alice)).posted == 10_000 - sum(moved)
    assert (await ledger_service.account(bob)).posted == sum(moved)
    assert sum(1 for m in moved if m) >= 10


async def test_same_request_twice_returns_the_first_result(ledger_service: LedgerService) -> None:
    alice = await fund(ledger_service, "alice", 1000)
    bob = (await ledger_service.open_account(AccountKind.PLAYER_CASH, "bob", "USD")).account_id
    first, replayed1 = await ledger_service.transfer(spec("pay-1", alice, bob, 400))
    second, replayed2 = await ledger_service.transfer(spec("pay-1", alice, bob, 400))
    assert (replayed1, replayed2) == (False, True)
    assert first == second
    assert (await ledger_service.account(alice)).posted == 600


async def test_same_request_concurrently_applies_once(ledger_service: LedgerService) -> None:
    alice = await fund(ledger_service, "alice", 1000)
    bob = (await ledger_service.open_account(AccountKind.PLAYER_CASH, "bob", "USD")).account_id
    results = await asyncio.gather(
        *(ledger_service.transfer(spec("pay-once", alice, bob, 300)) for _ in range(20))
    )
    assert sum(1 for _, replayed in results if not replayed) == 1
    assert all(t == results[0][0] for t, _ in results)
    assert (await ledger_service.account(bob)).posted == 300


async def test_same_id_different_content_is_already_exists_with_clear_message(
    ledger_service: LedgerService, metrics: PrometheusWalletMetrics
) -> None:
    alice = await fund(ledger_service, "alice", 1000)
    bob = (await ledger_service.open_account(AccountKind.PLAYER_CASH, "bob", "USD")).account_id
    await ledger_service.transfer(spec("pay-1", alice, bob, 400))
    with pytest.raises(IdempotencyConflict, match=r"'pay-1' \(differs in amount\)"):
        await ledger_service.transfer(spec("pay-1", alice, bob, 401))
    assert (await ledger_service.account(alice)).posted == 600
    assert metrics.rejections.labels("idempotency_conflict")._value.get() == 1


async def test_bad_input_is_refused_and_nothing_is_written(ledger_service: LedgerService) -> None:
    alice = await fund(ledger_service, "alice", 1000)
    bob = (await ledger_service.open_account(AccountKind.PLAYER_CASH, "bob", "USD")).account_id
    eve = await fund(ledger_service, "eve", 1000, "EUR")
    cases: list[tuple[TransferSpec, type[Exception]]] = [
        (spec("b1", alice, bob, 0), InvalidRequest),
        (spec("b2", alice, bob, -1), InvalidRequest),
        (spec("b3", alice, alice, 1), InvalidRequest),
        (spec("", alice, bob, 1), InvalidRequest),
        (spec("b5", alice, "player_cash:nobody:USD", 1), AccountNotFound),
        (spec("b6", alice, eve, 1), CurrencyMismatch),
        (spec("b7", alice, bob, 1, currency="EUR"), CurrencyMismatch),
        (spec("b8", alice, bob, 1001), InsufficientFunds),
    ]
    for bad, error in cases:
        with pytest.raises(error):
            await ledger_service.transfer(bad)
    with pytest.raises(UnknownCurrency):
        await ledger_service.open_account(AccountKind.PLAYER_CASH, "alice", "XYZ")
    with pytest.raises(InvalidRequest, match="cannot hold CHIP"):
        await ledger_service.open_account(AccountKind.PLAYER_CASH, "alice", "CHIP")
    with pytest.raises(TransferNotFound):
        await ledger_service.post("missing")
    assert (await ledger_service.account(alice)).posted == 1000
    assert (await ledger_service.account(bob)).posted == 0


async def test_batch_is_all_or_nothing(ledger_service: LedgerService) -> None:
    alice = await fund(ledger_service, "alice", 1000)
    bob = (await ledger_service.open_account(AccountKind.PLAYER_CASH, "bob", "USD")).account_id
    with pytest.raises(InsufficientFunds):
        await ledger_service.execute(
            [Apply(spec("x1", alice, bob, 600)), Apply(spec("x2", alice, bob, 600))]
        )
    assert (await ledger_service.account(alice)).posted == 1000
    with pytest.raises(TransferNotFound):
        await ledger_service.transfer_record("x1")
    result = await ledger_service.execute(
        [Apply(spec("x1", alice, bob, 600)), Apply(spec("x3", bob, alice, 100))], batch_id="b-1"
    )
    assert not result.replayed
    again = await ledger_service.execute(
        [Apply(spec("x1", alice, bob, 600)), Apply(spec("x3", bob, alice, 100))], batch_id="b-1"
    )
    assert again.replayed and again.transfers == result.transfers
    with pytest.raises(IdempotencyConflict, match="overlaps an earlier"):
        await ledger_service.execute(
            [Apply(spec("x1", alice, bob, 600)), Apply(spec("x4", bob, alice, 100))]
        )


async def test_hold_post_partial_void_and_reverse(ledger_service: LedgerService) -> None:
    alice = await fund(ledger_service, "alice", 1000)
    bob = (await ledger_service.open_account(AccountKind.PLAYER_CASH, "bob", "USD")).account_id
    await ledger_service.transfer(spec("h1", alice, bob, 700, pending=True))
    account = await ledger_service.account(alice)
    assert (account.posted, account.available) == (1000, 300)
    with pytest.raises(InsufficientFunds):
        await ledger_service.transfer(spec("t1", alice, bob, 301))
    posted, _ = await ledger_service.post("h1", 500)
    assert posted.status is TransferStatus.POSTED and posted.posted_amount == 500
    assert (await ledger_service.post("h1", 500))[1] is True  # replay
    with pytest.raises(TransferNotPending):
        await ledger_service.post("h1", 400)
    with pytest.raises(TransferNotPending):
        await ledger_service.void("h1")
    await ledger_service.transfer(spec("h2", alice, bob, 100, pending=True))
    voided, _ = await ledger_service.void("h2")
    assert voided.status is TransferStatus.VOIDED
    assert (await ledger_service.void("h2"))[1] is True
    reversal, _ = await ledger_service.reverse("h1", "r1")
    assert reversal.amount == 500 and reversal.reversal_of == "h1"
    assert (await ledger_service.reverse("h1", "r1"))[1] is True
    with pytest.raises(AlreadyReversed):
        await ledger_service.reverse("h1", "r2")
    with pytest.raises(TransferNotPending):
        await ledger_service.reverse("h2", "r3")
    alice_now = await ledger_service.account(alice)
    assert (alice_now.posted, alice_now.debits_pending) == (1000, 0)
    statement = await ledger_service.statement(alice, page_size=2, page_token="")
    assert [line.posting.amount for line in statement.lines] == [1000, -500]
    rest = await ledger_service.statement(alice, page_size=2, page_token=statement.next_page_token)
    assert [line.posting.amount for line in rest.lines] == [500]
    assert rest.next_page_token == ""


async def test_concurrent_posts_of_one_hold_apply_once(ledger_service: LedgerService) -> None:
    alice = await fund(ledger_service, "alice", 1000)
    bob = (await ledger_service.open_account(AccountKind.PLAYER_CASH, "bob", "USD")).account_id
    await ledger_service.transfer(spec("h1", alice, bob, 700, pending=True))
    results = await asyncio.gather(
        *(ledger_service.execute([PostHold(transfer_id="h1", amount=600)]) for _ in range(10))
    )
    assert sum(1 for r in results if not r.replayed) == 1
    assert (await ledger_service.account(bob)).posted == 600


async def test_database_refuses_edits_of_posted_transfers_and_overdrafts(
    ledger_service: LedgerService, wallet_pool: tuple[asyncpg.Pool, str]
) -> None:
    alice = await fund(ledger_service, "alice", 1000)
    pool, _ = wallet_pool
    async with pool.acquire() as db:
        with pytest.raises(asyncpg.IntegrityConstraintViolationError, match="never change"):
            await db.execute(
                "UPDATE transfers SET amount = 1 WHERE transfer_id = 'deposit-alice-USD'"
            )
        with pytest.raises(asyncpg.IntegrityConstraintViolationError, match="append-only"):
            await db.execute("DELETE FROM postings")
        with pytest.raises(asyncpg.IntegrityConstraintViolationError):
            await db.execute("DELETE FROM transfers")
        with pytest.raises(asyncpg.CheckViolationError):
            await db.execute("UPDATE accounts SET posted = -1 WHERE account_id = $1", alice)
        with pytest.raises(asyncpg.CheckViolationError):
            await db.execute(
                """INSERT INTO transfers (transfer_id, debit_account_id, credit_account_id,
                   currency, amount, kind, status, is_hold, posted_amount, created_at, resolved_at)
                   VALUES ('z', 'house_clearing:house:USD', $1, 'USD', 0, 'transfer', 'posted',
                   false, 0, now(), now())""",
                alice,
            )
        # Accounts outlive their transfers, and what identifies them never changes.
        with pytest.raises(asyncpg.IntegrityConstraintViolationError, match="cannot be deleted"):
            await db.execute("DELETE FROM accounts WHERE account_id = $1", alice)
        with pytest.raises(asyncpg.IntegrityConstraintViolationError, match="only its balances"):
            await db.execute("UPDATE accounts SET currency = 'EUR' WHERE account_id = $1", alice)
        with pytest.raises(asyncpg.IntegrityConstraintViolationError, match="append-only"):
            await db.execute("TRUNCATE accounts CASCADE")
        assert (await ledger_service.account(alice)).posted == 1000


async def test_the_audit_notices_broken_books(
    ledger_service: LedgerService, wallet_pool: tuple[asyncpg.Pool, str]
) -> None:
    """The invariant check run after every test is not vacuous: a balance edited behind the
    ledger's back shows up as drift and as a currency that no longer sums to zero."""
    from croupier.wallet.adapters.audit import audit_ledger

    await fund(ledger_service, "alice", 1000)
    pool, _ = wallet_pool
    async with pool.acquire() as db:
        assert (await audit_ledger(db)).ok
        await db.execute(
            "UPDATE accounts SET posted = posted + 1 WHERE account_id = 'house_clearing:house:USD'"
        )
        broken = await audit_ledger(db)
        await db.execute(
            "UPDATE accounts SET posted = posted - 1 WHERE account_id = 'house_clearing:house:USD'"
        )
    assert not broken.ok
    assert broken.drifted_accounts == ["house_clearing:house:USD"]
    assert broken.nonzero_currencies == {"USD": 1}


async def test_the_audit_notices_rows_written_behind_the_ledgers_back(
    ledger_service: LedgerService, wallet_pool: tuple[asyncpg.Pool, str]
) -> None:
    """The schema has no foreign keys on the hot path (migration 0005): ledger_execute checks
    accounts and currencies as it writes. A row written around it, naming an account in
    another currency, is reported by the audit."""
    from croupier.wallet.adapters.audit import audit_ledger

    alice = await fund(ledger_service, "alice", 1000)
    pool, _ = wallet_pool
    async with pool.acquire() as db:
        written_around = db.transaction(isolation="repeatable_read")
        await written_around.start()
        await db.execute(
            """INSERT INTO transfers (transfer_id, debit_account_id, credit_account_id,
               currency, amount, kind, status, is_hold, created_at)
               VALUES ('z', 'house_clearing:house:USD', $1, 'EUR', 5, 'transfer', 'pending',
               true, now())""",
            alice,
        )
        await db.execute(
            """INSERT INTO postings (transfer_id, account_id, currency, amount, balance_after,
               posted_at) VALUES ('nowhere', $1, 'USD', 1, 1, now())""",
            alice,
        )
        broken = await audit_ledger(db)
        await written_around.rollback()  # committed, the rows could never be removed
    assert not broken.ok
    assert broken.dangling_references == ["posting 3", "transfer z"]
