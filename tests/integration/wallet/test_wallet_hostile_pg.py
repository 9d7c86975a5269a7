"""The wallet under hostile input, over real gRPC on the real PostgreSQL: every case of the
issue "the wallet answers INTERNAL to 16 kinds of bad input" gets a clear status with a short
message, and the ledger is unchanged after each refusal."""

from __future__ import annotations

import asyncpg  # type: ignore[import-untyped]
import grpc
import pytest
from google.protobuf.timestamp_pb2 import Timestamp

from croupier.common.v1 import common_pb2
from croupier.game.limits import MAX_AMOUNT, MAX_ECHO
from croupier.wallet.v1 import wallet_pb2, wallet_pb2_grpc

INVALID = grpc.StatusCode.INVALID_ARGUMENT
PRECONDITION = grpc.StatusCode.FAILED_PRECONDITION


@pytest.fixture
def stub(wallet_channel: grpc.aio.Channel) -> wallet_pb2_grpc.WalletStub:
    return wallet_pb2_grpc.WalletStub(wallet_channel)


async def ledger_state(pool: asyncpg.Pool) -> tuple[object, ...]:
    async with pool.acquire() as connection:
        state = []
        for table in ("accounts", "transfers", "postings"):
            rows = await connection.fetch(f"SELECT * FROM {table} ORDER BY 1")
            state.append([tuple(row) for row in rows])
        return tuple(state)


async def refused(call: object, code: grpc.StatusCode, text: str) -> str:
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await call  # type: ignore[misc]
    details = info.value.details() or ""
    assert info.value.code() == code, details
    assert text in details, details
    # Echoed values are cut: the message stays short whatever the input's size.
    assert len(details) < 600, len(details)
    return details


async def funded(stub: wallet_pb2_grpc.WalletStub, player: str, amount: int) -> str:
    house = await stub.OpenAccount(
        wallet_pb2.OpenAccountRequest(
            kind=wallet_pb2.ACCOUNT_KIND_HOUSE_CLEARING, owner="house", currency="USD"
        )
    )
    account = await stub.OpenAccount(
        wallet_pb2.OpenAccountRequest(
            kind=wallet_pb2.ACCOUNT_KIND_PLAYER_CASH, owner=player, currency="USD"
        )
    )
    await stub.Transfer(deposit(f"deposit-{player}", account.account.account_id, amount))
    assert house.account.account_id == "house_clearing:house:USD"
    return account.account.account_id


def deposit(
    transfer_id: str,
    credit: str,
    amount: int,
    *,
    currency: str = "USD",
    metadata: dict[str, str] | None = None,
    table_id: str = "",
) -> wallet_pb2.TransferRequest:
    return wallet_pb2.TransferRequest(
        transfer=wallet_pb2.NewTransfer(
            transfer_id=transfer_id,
            debit_account_id="house_clearing:house:USD",
            credit_account_id=credit,
            amount=common_pb2.Money(amount_minor=amount, currency=currency),
            kind=wallet_pb2.TRANSFER_KIND_DEPOSIT,
            references=wallet_pb2.References(table_id=table_id),
            metadata=metadata or {},
        )
    )


async def test_nul_bytes_and_control_characters_are_invalid_arguments(
    stub: wallet_pb2_grpc.WalletStub, wallet_pool: tuple[asyncpg.Pool, str]
) -> None:
    alice = await funded(stub, "alice", 1000)
    before = await ledger_state(wallet_pool[0])
    nul = "a\x00b"
    await refused(stub.Transfer(deposit("d1", alice, 5, currency="US\x00D")), INVALID, "currency")
    await refused(stub.Transfer(deposit("d\x001", alice, 5)), INVALID, "transfer_id")
    await refused(stub.Transfer(deposit("d1", alice + "\x00", 5)), INVALID, "credit_account_id")
    await refused(stub.Transfer(deposit("d1", alice, 5, metadata={"k": nul})), INVALID, "metadata")
    await refused(stub.Transfer(deposit("d1", alice, 5, metadata={nul: "v"})), INVALID, "metadata")
    await refused(stub.Transfer(deposit("d1", alice, 5, table_id=nul)), INVALID, "table_id")
    await refused(stub.GetAccount(wallet_pb2.GetAccountRequest(account_id=nul)), INVALID, "id")
    await refused(stub.GetTransfer(wallet_pb2.GetTransferRequest(transfer_id=nul)), INVALID, "id")
    await refused(
        stub.OpenAccount(
            wallet_pb2.OpenAccountRequest(
                kind=wallet_pb2.ACCOUNT_KIND_PLAYER_CASH, owner="bob", currency="US\x00D"
            )
        ),
        INVALID,
        "currency",
    )
    await refused(
        stub.GetTrialBalance(wallet_pb2.GetTrialBalanceRequest(currency=nul)), INVALID, "currency"
    )
    await refused(
        stub.RefundCrashedTable(
            wallet_pb2.RefundCrashedTableRequest(
                table_id="t1", game=common_pb2.GAME_POKER, currency="\x00"
            )
        ),
        INVALID,
        "currency",
    )
    assert await ledger_state(wallet_pool[0]) == before


async def test_id_with_a_trailing_newline_is_refused(
    stub: wallet_pb2_grpc.WalletStub, wallet_pool: tuple[asyncpg.Pool, str]
) -> None:
    """The id check is a full match: `$` let `player_cash:f4005a\\n:USD` look-alikes in."""
    await funded(stub, "f4005a", 10)
    before = await ledger_state(wallet_pool[0])
    await refused(
        stub.OpenAccount(
            wallet_pb2.OpenAccountRequest(
                kind=wallet_pb2.ACCOUNT_KIND_PLAYER_CASH, owner="f4005a\n", currency="USD"
            )
        ),
        INVALID,
        "owner",
    )
    await refused(stub.Transfer(deposit("d2\n", "player_cash:f4005a:USD", 5)), INVALID, "id")
    assert await ledger_state(wallet_pool[0]) == before


async def test_amounts_beyond_the_documented_bound(
    stub: wallet_pb2_grpc.WalletStub, wallet_pool: tuple[asyncpg.Pool, str]
) -> None:
    """One amount above `MAX_AMOUNT` is INVALID_ARGUMENT (a deposit of 2^63 - 1 was a
    `bigint out of range` INTERNAL)."""
    alice = await funded(stub, "alice", 1000)
    before = await ledger_state(wallet_pool[0])
    await refused(stub.Transfer(deposit("big", alice, 2**63 - 1)), INVALID, str(MAX_AMOUNT))
    await refused(stub.Transfer(deposit("big", alice, MAX_AMOUNT + 1)), INVALID, "amount")
    await refused(
        stub.PostHold(wallet_pb2.PostHoldRequest(transfer_id="x", amount_minor=2**63 - 1)),
        INVALID,
        "amount",
    )
    await refused(
        stub.SettleGame(
            wallet_pb2.SettleGameRequest(
                settlement_id="s",
                game=common_pb2.GAME_POKER,
                table_id="t",
                currency="USD",
                results=[
                    wallet_pb2.PlayerResult(
                        player_id="alice", hold_transfer_id="h", delta_minor=-(2**63)
                    )
                ],
                commission=wallet_pb2.CommissionRule(none=wallet_pb2.CommissionRule.NoCommission()),
            )
        ),
        INVALID,
        "delta",
    )
    assert await ledger_state(wallet_pool[0]) == before


async def test_a_balance_past_bigint_is_a_failed_precondition(
    stub: wallet_pb2_grpc.WalletStub, wallet_pool: tuple[asyncpg.Pool, str]
) -> None:
    """Each deposit is within bounds, but together they would push the balances past a
    signed 64-bit integer: FAILED_PRECONDITION, nothing applied."""
    alice = await funded(stub, "alice", 1)

    def batch(n: int, size: int) -> wallet_pb2.TransferBatchRequest:
        return wallet_pb2.TransferBatchRequest(
            operations=[
                wallet_pb2.BatchOperation(transfer=deposit(f"b{n}-{i}", alice, MAX_AMOUNT).transfer)
                for i in range(size)
            ]
        )

    for n in range(9):  # 9,000 × 10^15 = 9 × 10^18 < 2^63 - 1 ≈ 9.22 × 10^18
        await stub.TransferBatch(batch(n, 1000))
    before = await ledger_state(wallet_pool[0])
    await refused(stub.TransferBatch(batch(9, 300)), PRECONDITION, "balance")
    assert await ledger_state(wallet_pool[0]) == before


async def test_page_token_timestamps_and_days_out_of_range(
    stub: wallet_pb2_grpc.WalletStub, wallet_pool: tuple[asyncpg.Pool, str]
) -> None:
    alice = await funded(stub, "alice", 1000)
    before = await ledger_state(wallet_pool[0])
    await refused(
        stub.GetStatement(
            wallet_pb2.GetStatementRequest(
                account_id=alice, page=common_pb2.PageRequest(page_size=5, page_token="9" * 400)
            )
        ),
        INVALID,
        "page_token",
    )
    good = Timestamp(seconds=1_700_000_000)
    for bad in (
        Timestamp(seconds=2**62),
        Timestamp(seconds=-(2**62)),
        Timestamp(seconds=1_700_000_000, nanos=-1),
        Timestamp(seconds=1_700_000_000, nanos=10**9),
    ):
        await refused(
            stub.ExportJournal(
                wallet_pb2.ExportJournalRequest(
                    to=bad, format=wallet_pb2.EXPORT_FORMAT_CSV, **{"from": good}
                )
            ),
            INVALID,
            "to",
        )
        await refused(
            stub.ExportJournal(
                wallet_pb2.ExportJournalRequest(
                    to=good, format=wallet_pb2.EXPORT_FORMAT_CSV, **{"from": bad}
                )
            ),
            INVALID,
            "from",
        )
        await refused(
            stub.GetTrialBalance(wallet_pb2.GetTrialBalanceRequest(at=bad)), INVALID, "at"
        )
    for day in ("9999-12-31", "0001-01-01", "2026-02-30", "\x00" * 1000):
        await refused(
            stub.GetReconciliationReport(
                wallet_pb2.GetReconciliationReportRequest(day=day, currency="USD")
            ),
            INVALID,
            "day",
        )
    assert await ledger_state(wallet_pool[0]) == before


async def test_error_messages_cut_what_they_echo(
    stub: wallet_pb2_grpc.WalletStub, wallet_pool: tuple[asyncpg.Pool, str]
) -> None:
    """A 1 MB id or metadata value is named, not copied back (the client got
    RESOURCE_EXHAUSTED about the error's size instead of the error)."""
    alice = await funded(stub, "alice", 1000)
    before = await ledger_state(wallet_pool[0])
    huge = "x" * (1 << 20)
    details = await refused(stub.Transfer(deposit(huge, alice, 5)), INVALID, "transfer_id")
    assert "x" * MAX_ECHO not in details
    await refused(stub.Transfer(deposit("d3", alice, 5, metadata={"k": huge})), INVALID, "metadata")
    await refused(
        stub.GetReconciliationReport(wallet_pb2.GetReconciliationReportRequest(day=huge)),
        INVALID,
        "day",
    )
    assert await ledger_state(wallet_pool[0]) == before


async def test_post_hold_of_an_ordinary_transfer_is_refused(
    stub: wallet_pb2_grpc.WalletStub, wallet_pool: tuple[asyncpg.Pool, str]
) -> None:
    """PostHold of a transfer that was never a hold answered OK with `replayed=true`."""
    await funded(stub, "alice", 1000)
    before = await ledger_state(wallet_pool[0])
    await refused(
        stub.PostHold(wallet_pb2.PostHoldRequest(transfer_id="deposit-alice")),
        PRECONDITION,
        "not a hold",
    )
    await refused(
        stub.TransferBatch(
            wallet_pb2.TransferBatchRequest(
                operations=[
                    wallet_pb2.BatchOperation(
                        post_hold=wallet_pb2.PostHoldRequest(transfer_id="deposit-alice")
                    )
                ]
            )
        ),
        PRECONDITION,
        "not a hold",
    )
    assert await ledger_state(wallet_pool[0]) == before


async def test_refused_game_requests_open_no_accounts(
    stub: wallet_pb2_grpc.WalletStub, wallet_pool: tuple[asyncpg.Pool, str]
) -> None:
    """wallet.proto: any error leaves the ledger untouched. A buy-in of a player without an
    account opened `table_escrow:<t>/<p>:USD` (zero balance) before the transfer failed."""
    await funded(stub, "alice", 100)
    before = await ledger_state(wallet_pool[0])
    poker = common_pb2.GAME_POKER
    await refused(
        stub.BuyIn(
            wallet_pb2.BuyInRequest(
                transfer_id="b1", player_id="ghost", game=poker, table_id="t1",
                amount=common_pb2.Money(amount_minor=50, currency="USD"),
            )
        ),
        grpc.StatusCode.NOT_FOUND,
        "player_cash:ghost:USD",
    )  # fmt: skip
    await refused(
        stub.BuyIn(
            wallet_pb2.BuyInRequest(
                transfer_id="b2", player_id="alice", game=poker, table_id="t2",
                amount=common_pb2.Money(amount_minor=500, currency="USD"),
            )
        ),
        PRECONDITION,
        "available",
    )  # fmt: skip
    await refused(
        stub.HoldStake(
            wallet_pb2.HoldStakeRequest(
                transfer_id="h1", player_id="ghost", game=poker, table_id="t3",
                amount=common_pb2.Money(amount_minor=5, currency="USD"),
            )
        ),
        grpc.StatusCode.NOT_FOUND,
        "ghost",
    )  # fmt: skip
    await refused(
        stub.CashOut(
            wallet_pb2.CashOutRequest(
                transfer_id="c1", player_id="alice", game=poker, table_id="t4",
                amount=common_pb2.Money(amount_minor=0, currency="USD"),
            )
        ),
        PRECONDITION,
        "nothing to cash out",
    )  # fmt: skip
    await refused(
        stub.EnterTournament(
            wallet_pb2.EnterTournamentRequest(
                entry_id="e1", tournament_id="cup", game=poker, player_id="ghost",
                buy_in=common_pb2.Money(amount_minor=10, currency="USD"),
                fee=common_pb2.Money(amount_minor=1, currency="USD"),
            )
        ),
        grpc.StatusCode.NOT_FOUND,
        "ghost",
    )  # fmt: skip
    assert await ledger_state(wallet_pool[0]) == before
    # The same buy-in, once the player has money, opens the seat and moves it.
    await funded(stub, "ghost", 100)
    bought = await stub.BuyIn(
        wallet_pb2.BuyInRequest(
            transfer_id="b1", player_id="ghost", game=poker, table_id="t1",
            amount=common_pb2.Money(amount_minor=50, currency="USD"),
        )
    )  # fmt: skip
    assert bought.transfer.credit_account_id == "table_escrow:t1/ghost:USD"
