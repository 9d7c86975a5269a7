"""The ledger's rules as PostgreSQL runs them (`ledger_execute`, migration 0004): the same
results and errors as the Python copy the in-memory adapter uses, events with their sequence
numbers, and the rules that only a batch can break."""

from __future__ import annotations

import functools
import random
from datetime import UTC, datetime, timedelta

import asyncpg  # type: ignore[import-untyped]
import pytest
from prometheus_client import CollectorRegistry

from croupier.kit.bus.envelope import Envelope, make_envelope
from croupier.wallet.adapters.memory import InMemoryStore
from croupier.wallet.adapters.metrics import PrometheusWalletMetrics
from croupier.wallet.adapters.postgres import PostgresUnitOfWork
from croupier.wallet.core.errors import (
    AccountNotFound,
    CurrencyMismatch,
    InsufficientFunds,
    LedgerError,
)
from croupier.wallet.core.model import (
    AccountKind,
    References,
    Transfer,
    TransferKind,
    TransferSpec,
    TransferStatus,
)
from croupier.wallet.entrypoints.events import (
    EVENT_TYPE,
    encode_transfer_posted,
    transfer_envelope_id,
)
from croupier.wallet.entrypoints.translate import transfer_to_proto
from croupier.wallet.service.ledger import LedgerService
from croupier.wallet.service.operations import (
    Apply,
    ExpectPosted,
    Operation,
    PostHold,
    Reverse,
    VoidHold,
)
from croupier.wallet.v1 import wallet_pb2

HOUSE = "house_clearing:house:USD"
PLAYERS = [f"player_cash:p{i}:USD" for i in range(4)]
POT = "table_escrow:t1:USD"
EURO = "player_cash:p0:EUR"


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 11, 29, 12, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now


def service(unit_of_work: object) -> LedgerService:
    return LedgerService(
        unit_of_work=unit_of_work,  # type: ignore[arg-type]
        clock=Clock(),
        metrics=PrometheusWalletMetrics(CollectorRegistry()),
    )


async def open_accounts(ledger: LedgerService) -> None:
    await ledger.open_account(AccountKind.HOUSE_CLEARING, "house", "USD")
    for i in range(4):
        await ledger.open_account(AccountKind.PLAYER_CASH, f"p{i}", "USD")
    await ledger.open_account(AccountKind.TABLE_ESCROW, "t1", "USD")
    await ledger.open_account(AccountKind.PLAYER_CASH, "p0", "EUR")


def random_batch(rng: random.Random, step: int, made: list[str]) -> list[Operation]:
    """1–4 operations, valid or not, over a few accounts and the transfers made so far."""
    ops: list[Operation] = []
    for k in range(rng.randint(1, 3)):
        tid = f"s{step}-{k}"
        roll = rng.random()
        if roll < 0.5 or not made:
            debit = rng.choice([HOUSE, HOUSE, HOUSE, *PLAYERS, POT])
            credit = rng.choice([*PLAYERS, POT, HOUSE])
            if rng.random() < 0.06:
                credit = rng.choice([EURO, "player_cash:x:USD"])
            if credit == debit:
                credit = PLAYERS[0] if debit != PLAYERS[0] else PLAYERS[1]
            amount = rng.choice([1, 50, 200, 400, 900])
            ops.append(
                Apply(
                    TransferSpec(
                        transfer_id=tid,
                        debit_account_id=debit,
                        credit_account_id=credit,
                        amount=amount,
                        currency="USD",
                        kind=rng.choice([TransferKind.TRANSFER, TransferKind.STAKE_HOLD]),
                        pending=rng.random() < 0.35,
                        references=rng.choice(
                            [References(), References(game="poker", table_id="t1")]
                        ),
                        metadata=rng.choice([{}, {"hand": str(step)}]),
                    )
                )
            )
            made.append(tid)
        elif roll < 0.65:
            ops.append(
                PostHold(transfer_id=rng.choice(made), amount=rng.choice([None, 1, 100, 500]))
            )
        elif roll < 0.8:
            ops.append(VoidHold(transfer_id=rng.choice([*made, "nope"])))
        elif roll < 0.93:
            ops.append(
                Reverse(original_id=rng.choice(made), transfer_id=tid, metadata={"why": "test"})
            )
            made.append(tid)
        else:
            ops.append(
                ExpectPosted(account_id=rng.choice([*PLAYERS, POT]), posted=rng.choice([0, 100]))
            )
    return ops


async def outcome(ledger: LedgerService, ops: list[Operation]) -> object:
    try:
        result = await ledger.execute(ops)
    except LedgerError as error:
        return (type(error).__name__, error.message)
    return (result.replayed, result.transfers)


async def test_postgres_and_the_in_memory_copy_of_the_rules_agree(
    wallet_pool: tuple[asyncpg.Pool, str],
) -> None:
    """Rules that depend on stored state live in SQL for PostgreSQL and in core.ledger for the
    in-memory adapter: 200 random batches (transfers, holds, posts, voids, reversals, balance
    expectations, replays, unknown accounts, currency mismatches, overdrafts) give the same
    transfers, the same errors with the same messages, and the same balances."""
    pool, _ = wallet_pool
    pg = service(PostgresUnitOfWork.factory(pool))
    memory_store = InMemoryStore()
    mem = service(memory_store.factory)
    for ledger in (pg, mem):
        await open_accounts(ledger)
    rng = random.Random(20261129)
    made: list[str] = []
    seen: list[list[Operation]] = []
    errors = 0
    for step in range(200):
        ops = rng.choice(seen) if seen and rng.random() < 0.1 else random_batch(rng, step, made)
        seen.append(ops)
        got_pg, got_mem = await outcome(pg, ops), await outcome(mem, ops)
        assert got_pg == got_mem, (step, ops)
        errors += isinstance(got_pg[0], str)  # type: ignore[index]
        for account_id in (HOUSE, *PLAYERS, POT, EURO):
            a, b = await pg.account(account_id), await mem.account(account_id)
            assert (a.posted, a.debits_pending, a.credits_pending, a.posting_count) == (
                b.posted,
                b.debits_pending,
                b.credits_pending,
                b.posting_count,
            ), (step, account_id)
    assert 30 < errors < 170, errors  # the scenario exercises both outcomes


async def test_no_balance_goes_negative_in_the_middle_of_a_batch(
    wallet_pool: tuple[asyncpg.Pool, str],
) -> None:
    """Rule: a non-house account never goes below zero, at any posting: a batch that would
    overdraw a player before crediting the money back is refused as a whole."""
    pool, _ = wallet_pool
    ledger = service(PostgresUnitOfWork.factory(pool))
    await open_accounts(ledger)
    p0, p1 = PLAYERS[0], PLAYERS[1]
    await ledger.transfer(TransferSpec(transfer_id="d", debit_account_id=HOUSE,
                                       credit_account_id=p0, amount=100, currency="USD",
                                       kind=TransferKind.DEPOSIT))  # fmt: skip
    out = Apply(TransferSpec(transfer_id="out", debit_account_id=p0, credit_account_id=p1,
                             amount=150, currency="USD", kind=TransferKind.TRANSFER))  # fmt: skip
    back = Apply(TransferSpec(transfer_id="back", debit_account_id=p1, credit_account_id=p0,
                              amount=150, currency="USD", kind=TransferKind.TRANSFER))  # fmt: skip
    with pytest.raises(InsufficientFunds, match="'player_cash:p0:USD' has 100 available"):
        await ledger.execute([out, back])
    # The other order never goes below zero: p1 is credited first... and has nothing yet.
    with pytest.raises(InsufficientFunds, match="'player_cash:p1:USD' has 0 available"):
        await ledger.execute([back, out])
    assert (await ledger.account(p0)).posted == 100


async def test_the_first_failing_operation_names_the_error(
    wallet_pool: tuple[asyncpg.Pool, str],
) -> None:
    pool, _ = wallet_pool
    ledger = service(PostgresUnitOfWork.factory(pool))
    await open_accounts(ledger)

    def apply(tid: str, debit: str, credit: str, amount: int, currency: str = "USD") -> Apply:
        return Apply(TransferSpec(transfer_id=tid, debit_account_id=debit,
                                  credit_account_id=credit, amount=amount, currency=currency,
                                  kind=TransferKind.TRANSFER))  # fmt: skip

    unknown = "player_cash:nobody:USD"
    with pytest.raises(InsufficientFunds):
        await ledger.execute([apply("a", PLAYERS[0], PLAYERS[1], 5), apply("b", unknown, POT, 5)])
    with pytest.raises(AccountNotFound, match="'player_cash:nobody:USD' does not exist"):
        await ledger.execute([apply("a", unknown, POT, 5), apply("b", PLAYERS[0], POT, 5)])
    with pytest.raises(CurrencyMismatch, match="'player_cash:p0:EUR' holds EUR, but"):
        await ledger.execute([apply("a", HOUSE, EURO, 5), apply("b", unknown, POT, 5)])
    with pytest.raises(asyncpg.ForeignKeyViolationError):  # the schema's own guard
        await ledger.execute([Apply(TransferSpec(transfer_id="r", debit_account_id=HOUSE,
                                                 credit_account_id=POT, amount=5,
                                                 currency="USD", kind=TransferKind.TRANSFER,
                                                 reversal_of="never-made")),
                              apply("c", HOUSE, POT, 5)])  # fmt: skip
    assert (await ledger.account(POT)).posted == 0


def expected_envelope(transfer: Transfer, sequence: int) -> Envelope:
    return make_envelope(
        type=EVENT_TYPE,
        source="wallet",
        subject=transfer.debit_account_id,
        sequence=sequence,
        payload=wallet_pb2.TransferPosted(transfer=transfer_to_proto(transfer)),
        envelope_id=transfer_envelope_id(transfer.transfer_id),
        now=transfer.resolved_at or transfer.created_at,
    )


async def test_each_posted_transfer_has_its_event_with_the_debit_accounts_sequence(
    wallet_pool: tuple[asyncpg.Pool, str],
) -> None:
    """Outbox rows are written in the same call: new transfers' envelopes are encoded in Python
    and completed with their sequence (a varint of 1, 2 or 3 bytes) in SQL; posted holds' and
    reversals' are encoded from what the call returns. Each equals the kit's envelope."""
    pool, _ = wallet_pool
    encoder = functools.partial(encode_transfer_posted, topic="t.transfers")
    ledger = service(PostgresUnitOfWork.factory(pool, outbox_encoder=encoder))
    await open_accounts(ledger)
    async with pool.acquire() as db:  # far into two accounts' history: multi-byte varints
        await db.execute(
            "UPDATE accounts SET posting_count = 126 WHERE account_id = $1", PLAYERS[2]
        )
        await db.execute("UPDATE accounts SET posting_count = 16382 WHERE account_id = $1", HOUSE)

    def apply(tid: str, debit: str, credit: str, amount: int, **kw: object) -> Apply:
        return Apply(TransferSpec(transfer_id=tid, debit_account_id=debit,
                                  credit_account_id=credit, amount=amount, currency="USD",
                                  kind=TransferKind.TRANSFER, **kw))  # type: ignore[arg-type]  # fmt: skip

    first = await ledger.execute([apply("d1", HOUSE, PLAYERS[2], 1000),
                                  apply("d2", HOUSE, PLAYERS[0], 1000),
                                  apply("m1", PLAYERS[2], PLAYERS[1], 10),
                                  apply("m2", PLAYERS[2], PLAYERS[1], 10,
                                        references=References(game="poker", table_id="t1"),
                                        metadata={"hand": "7"}),
                                  apply("h1", PLAYERS[0], POT, 300, pending=True)])  # fmt: skip
    posted, _ = await ledger.post("h1", 200)
    reversal, _ = await ledger.reverse("m1", "m1-back")
    transfers = {t.transfer_id: t for t in (*first.transfers, posted, reversal)}
    # Sequence = the debit account's posting count after the transfer (house: 16382 before;
    # p2: 126 + the deposit; p0: its deposit, then the posted hold; p1: credited twice).
    expected = [
        ("d1", 16383), ("d2", 16384), ("m1", 128), ("m2", 129), ("h1", 2), ("m1-back", 3),
    ]  # fmt: skip
    async with pool.acquire() as db:
        rows = await db.fetch("SELECT topic, key, envelope FROM outbox ORDER BY id")
    assert [r["topic"] for r in rows] == ["t.transfers"] * len(expected)
    for row, (transfer_id, sequence) in zip(rows, expected, strict=True):
        transfer = transfers[transfer_id]
        assert row["key"] == transfer.debit_account_id
        assert Envelope.FromString(row["envelope"]) == expected_envelope(transfer, sequence)
        assert transfer.status is TransferStatus.POSTED
