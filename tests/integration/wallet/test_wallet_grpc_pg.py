"""The Wallet gRPC API end to end (kit server, real PostgreSQL): codes, messages, exports."""

from __future__ import annotations

import csv
import hashlib
import io
import json
from datetime import UTC, datetime

import grpc
import pyarrow.parquet as pq
import pytest

from croupier.common.v1 import common_pb2
from croupier.wallet.v1 import wallet_pb2, wallet_pb2_grpc

USD = "USD"


def usd(amount: int) -> common_pb2.Money:
    return common_pb2.Money(amount_minor=amount, currency=USD)


@pytest.fixture
def stub(wallet_channel: grpc.aio.Channel) -> wallet_pb2_grpc.WalletStub:
    return wallet_pb2_grpc.WalletStub(wallet_channel)


async def open_player(stub: wallet_pb2_grpc.WalletStub, player: str, deposit: int) -> str:
    house = await stub.OpenAccount(
        wallet_pb2.OpenAccountRequest(
            kind=wallet_pb2.ACCOUNT_KIND_HOUSE_CLEARING, owner="house", currency=USD
        )
    )
    account = await stub.OpenAccount(
        wallet_pb2.OpenAccountRequest(
            kind=wallet_pb2.ACCOUNT_KIND_PLAYER_CASH, owner=player, currency=USD
        )
    )
    if deposit:
        await stub.Transfer(
            wallet_pb2.TransferRequest(
                transfer=wallet_pb2.NewTransfer(
                    transfer_id=f"deposit-{player}",
                    debit_account_id=house.account.account_id,
                    credit_account_id=account.account.account_id,
                    amount=usd(deposit),
                    kind=wallet_pb2.TRANSFER_KIND_DEPOSIT,
                )
            )
        )
    return account.account.account_id


async def expect_error(call: object, code: grpc.StatusCode, text: str) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await call  # type: ignore[misc]
    assert info.value.code() == code, info.value.details()
    assert text in (info.value.details() or ""), info.value.details()


async def test_transfer_codes_and_messages(stub: wallet_pb2_grpc.WalletStub) -> None:
    alice = await open_player(stub, "alice", 1000)
    bob = await open_player(stub, "bob", 0)

    def transfer(tid: str, amount: int, debit: str = alice, currency: str = USD) -> object:
        return stub.Transfer(
            wallet_pb2.TransferRequest(
                transfer=wallet_pb2.NewTransfer(
                    transfer_id=tid,
                    debit_account_id=debit,
                    credit_account_id=bob,
                    amount=common_pb2.Money(amount_minor=amount, currency=currency),
                    kind=wallet_pb2.TRANSFER_KIND_TRANSFER,
                )
            )
        )

    first = await transfer("t1", 300)  # type: ignore[misc]
    assert first.transfer.status == wallet_pb2.TRANSFER_STATUS_POSTED and not first.replayed
    assert (await transfer("t1", 300)).replayed  # type: ignore[misc]
    await expect_error(transfer("t1", 301), grpc.StatusCode.ALREADY_EXISTS, "differs in amount")
    await expect_error(transfer("t2", 0), grpc.StatusCode.INVALID_ARGUMENT, "greater than zero")
    await expect_error(transfer("", 5), grpc.StatusCode.INVALID_ARGUMENT, "transfer_id is required")
    await expect_error(transfer("t3", 5, currency=""), grpc.StatusCode.INVALID_ARGUMENT, "currency")
    await expect_error(
        transfer("t4", 5, debit="player_cash:zed:USD"),
        grpc.StatusCode.NOT_FOUND,
        "'player_cash:zed:USD' does not exist",
    )
    await expect_error(
        transfer("t5", 5, currency="EUR"), grpc.StatusCode.FAILED_PRECONDITION, "holds USD"
    )
    await expect_error(transfer("t6", 701), grpc.StatusCode.FAILED_PRECONDITION, "700 available")
    await expect_error(
        stub.OpenAccount(wallet_pb2.OpenAccountRequest(owner="x", currency=USD)),
        grpc.StatusCode.INVALID_ARGUMENT,
        "kind is required",
    )
    await expect_error(
        stub.GetBalance(wallet_pb2.GetBalanceRequest(account_id="nope")),
        grpc.StatusCode.NOT_FOUND,
        "does not exist",
    )
    balance = await stub.GetBalance(wallet_pb2.GetBalanceRequest(account_id=alice))
    assert balance.balance.amount_minor == 700  # nothing written by the failed calls
    statement = await stub.GetStatement(
        wallet_pb2.GetStatementRequest(account_id=alice, page=common_pb2.PageRequest(page_size=1))
    )
    assert [line.amount_minor for line in statement.lines] == [1000]
    assert statement.next_page_token


async def test_hold_post_void_reverse_and_batch(stub: wallet_pb2_grpc.WalletStub) -> None:
    alice = await open_player(stub, "alice", 1000)
    bob = await open_player(stub, "bob", 0)
    new = wallet_pb2.NewTransfer(
        transfer_id="h1",
        debit_account_id=alice,
        credit_account_id=bob,
        amount=usd(600),
        kind=wallet_pb2.TRANSFER_KIND_STAKE_HOLD,
    )
    await stub.Hold(wallet_pb2.HoldRequest(transfer=new))
    posted = await stub.PostHold(wallet_pb2.PostHoldRequest(transfer_id="h1", amount_minor=250))
    assert posted.transfer.posted_amount.amount_minor == 250
    await expect_error(
        stub.VoidHold(wallet_pb2.VoidHoldRequest(transfer_id="h1")),
        grpc.StatusCode.FAILED_PRECONDITION,
        "already posted",
    )
    reversed_ = await stub.Reverse(
        wallet_pb2.ReverseRequest(original_transfer_id="h1", transfer_id="r1")
    )
    assert reversed_.transfer.reversal_of == "h1"
    batch = wallet_pb2.TransferBatchRequest(
        batch_id="b1",
        operations=[
            wallet_pb2.BatchOperation(
                transfer=wallet_pb2.NewTransfer(
                    transfer_id="b1-1",
                    debit_account_id=alice,
                    credit_account_id=bob,
                    amount=usd(900),
                    kind=wallet_pb2.TRANSFER_KIND_TRANSFER,
                )
            ),
            wallet_pb2.BatchOperation(
                transfer=wallet_pb2.NewTransfer(
                    transfer_id="b1-2",
                    debit_account_id=alice,
                    credit_account_id=bob,
                    amount=usd(900),
                    kind=wallet_pb2.TRANSFER_KIND_TRANSFER,
                )
            ),
        ],
    )
    await expect_error(
        stub.TransferBatch(batch), grpc.StatusCode.FAILED_PRECONDITION, "100 available"
    )
    await expect_error(
        stub.TransferBatch(
            wallet_pb2.TransferBatchRequest(operations=[wallet_pb2.BatchOperation()])
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
        "operations[0]: operation is empty",
    )
    balance = await stub.GetBalance(wallet_pb2.GetBalanceRequest(account_id=alice))
    assert balance.balance.amount_minor == 1000


async def test_settle_backgammon_vector_1_and_finance_exports(
    stub: wallet_pb2_grpc.WalletStub,
) -> None:
    """Seed 001 vector 1 through gRPC, then the day's exports are byte-identical when repeated."""
    for player in ("amnon", "micha"):
        await open_player(stub, player, 100_000)
        await stub.HoldStake(
            wallet_pb2.HoldStakeRequest(
                transfer_id=f"g1:{player}",
                player_id=player,
                game=common_pb2.GAME_BACKGAMMON,
                table_id="g1",
                amount=usd(10_000),
            )
        )
    settle = wallet_pb2.SettleGameRequest(
        settlement_id="g1:1",
        game=common_pb2.GAME_BACKGAMMON,
        table_id="g1",
        currency=USD,
        results=[
            wallet_pb2.PlayerResult(
                player_id="amnon", hold_transfer_id="g1:amnon", delta_minor=1000
            ),
            wallet_pb2.PlayerResult(
                player_id="micha", hold_transfer_id="g1:micha", delta_minor=-1000
            ),
        ],
        commission=wallet_pb2.CommissionRule(backgammon=wallet_pb2.CommissionRule.Backgammon()),
    )
    result = await stub.SettleGame(settle)
    amounts = {
        t.kind: t.amount.amount_minor
        for t in result.transfers
        if t.status == wallet_pb2.TRANSFER_STATUS_POSTED and not t.is_hold
    }
    assert amounts == {
        wallet_pb2.TRANSFER_KIND_WINNINGS: 870,
        wallet_pb2.TRANSFER_KIND_COMMISSION: 130,
    }
    assert (await stub.SettleGame(settle)).replayed
    amnon = await stub.GetBalance(wallet_pb2.GetBalanceRequest(account_id="player_cash:amnon:USD"))
    assert amnon.balance.amount_minor == 100_870
    missing = wallet_pb2.SettleGameRequest(
        settlement_id="g1:2", game=common_pb2.GAME_BACKGAMMON, table_id="g1", currency=USD
    )
    await expect_error(stub.SettleGame(missing), grpc.StatusCode.INVALID_ARGUMENT, "commission")

    period = {
        "from": _ts(datetime(2026, 11, 29, tzinfo=UTC)),
        "to": _ts(datetime(2026, 11, 30, tzinfo=UTC)),
    }
    csv1 = await stub.ExportJournal(
        wallet_pb2.ExportJournalRequest(format=wallet_pb2.EXPORT_FORMAT_CSV, **period)
    )
    csv2 = await stub.ExportJournal(
        wallet_pb2.ExportJournalRequest(format=wallet_pb2.EXPORT_FORMAT_CSV, **period)
    )
    assert csv1.content == csv2.content and csv1.sha256 == hashlib.sha256(csv1.content).hexdigest()
    rows = list(csv.DictReader(io.StringIO(csv1.content.decode())))
    assert len(rows) == csv1.rows == 2 * 5  # deposits ×2, loss, winnings, commission
    assert sum(int(r["credit_minor"]) - int(r["debit_minor"]) for r in rows) == 0
    pq1 = await stub.ExportJournal(
        wallet_pb2.ExportJournalRequest(format=wallet_pb2.EXPORT_FORMAT_PARQUET, **period)
    )
    pq2 = await stub.ExportJournal(
        wallet_pb2.ExportJournalRequest(format=wallet_pb2.EXPORT_FORMAT_PARQUET, **period)
    )
    assert pq1.content == pq2.content
    table = pq.read_table(io.BytesIO(pq1.content))
    assert table.num_rows == csv1.rows
    trial = await stub.GetTrialBalance(wallet_pb2.GetTrialBalanceRequest(currency=USD))
    assert trial.balanced
    report = await stub.GetReconciliationReport(
        wallet_pb2.GetReconciliationReportRequest(day="2026-11-29", currency=USD)
    )
    again = await stub.GetReconciliationReport(
        wallet_pb2.GetReconciliationReportRequest(day="2026-11-29", currency=USD)
    )
    assert report.report_json == again.report_json and report.balanced
    data = json.loads(report.report_json)
    assert data["commission_by_game"] == {
        "backgammon": {"charged_minor": 130, "refunded_minor": 0, "net_minor": 130, "net": "1.30"}
    }
    assert data["journal_csv_sha256"] == csv1.sha256
    await expect_error(
        stub.GetReconciliationReport(
            wallet_pb2.GetReconciliationReportRequest(day="29/11/2026", currency=USD)
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
        "YYYY-MM-DD",
    )


def _ts(value: datetime) -> object:
    from google.protobuf.timestamp_pb2 import Timestamp

    stamp = Timestamp()
    stamp.FromDatetime(value)
    return stamp


async def test_table_and_tournament_methods_over_grpc(stub: wallet_pb2_grpc.WalletStub) -> None:
    for player in ("a", "b"):
        await open_player(stub, player, 10_000)
    poker = common_pb2.GAME_POKER
    await stub.BuyIn(wallet_pb2.BuyInRequest(transfer_id="t1:a:in", player_id="a", game=poker,
                                             table_id="t1", amount=usd(3000)))  # fmt: skip
    out = await stub.CashOut(wallet_pb2.CashOutRequest(
        transfer_id="t1:a:out", player_id="a", game=poker, table_id="t1",
        amount=common_pb2.Money(currency=USD)))  # fmt: skip
    assert out.transfer.amount.amount_minor == 3000  # 0 = the whole seat
    await expect_error(
        stub.BuyIn(wallet_pb2.BuyInRequest(transfer_id="t1:b:in", player_id="b", table_id="t1",
                                           amount=usd(1))),
        grpc.StatusCode.INVALID_ARGUMENT, "game is required",
    )  # fmt: skip
    await stub.BuyIn(wallet_pb2.BuyInRequest(transfer_id="t1:b:in", player_id="b", game=poker,
                                             table_id="t1", amount=usd(500)))  # fmt: skip
    crash = await stub.RefundCrashedTable(
        wallet_pb2.RefundCrashedTableRequest(table_id="t1", game=poker, currency=USD)
    )
    assert [t.amount.amount_minor for t in crash.refunds] == [500] and not crash.replayed

    rummy = common_pb2.GAME_RUMMY
    for player in ("a", "b"):
        entered = await stub.EnterTournament(wallet_pb2.EnterTournamentRequest(
            entry_id=f"T:{player}", tournament_id="T", game=rummy, player_id=player,
            buy_in=usd(1000), fee=usd(100)))  # fmt: skip
        assert len(entered.transfers) == 2
    await expect_error(
        stub.EnterTournament(wallet_pb2.EnterTournamentRequest(
            entry_id="T:x", tournament_id="T", game=rummy, player_id="a",
            buy_in=usd(1000), fee=common_pb2.Money(amount_minor=1, currency="EUR"))),
        grpc.StatusCode.INVALID_ARGUMENT, "fee.currency",
    )  # fmt: skip
    refund = await stub.RefundTournamentEntry(
        wallet_pb2.RefundTournamentEntryRequest(entry_id="T:b", refund_id="T:b:out")
    )
    assert sum(t.amount.amount_minor for t in refund.transfers) == 1100
    await expect_error(
        stub.RefundTournamentEntry(
            wallet_pb2.RefundTournamentEntryRequest(entry_id="T:zz", refund_id="T:zz:out")),
        grpc.StatusCode.NOT_FOUND, "no tournament entry",
    )  # fmt: skip
    await expect_error(
        stub.PayTournamentPrizes(wallet_pb2.PayTournamentPrizesRequest(
            payout_id="T:pay", tournament_id="T", game=rummy, currency=USD, final=True,
            prizes=[wallet_pb2.Prize(player_id="a", amount_minor=999)])),
        grpc.StatusCode.FAILED_PRECONDITION, "expected 0",
    )  # fmt: skip
    paid = await stub.PayTournamentPrizes(wallet_pb2.PayTournamentPrizesRequest(
        payout_id="T:pay", tournament_id="T", game=rummy, currency=USD, final=True,
        prizes=[wallet_pb2.Prize(player_id="a", amount_minor=1000)]))  # fmt: skip
    assert not paid.replayed
    await expect_error(
        stub.RefundCrashedTournament(
            wallet_pb2.RefundCrashedTournamentRequest(tournament_id="T", game=rummy, currency=USD)
        ),
        grpc.StatusCode.FAILED_PRECONDITION,
        "has paid prizes",
    )
    balance = await stub.GetBalance(wallet_pb2.GetBalanceRequest(account_id="player_cash:a:USD"))
    assert balance.balance.amount_minor == 10_000 - 1100 + 1000
