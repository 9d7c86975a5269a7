"""`croupier.wallet.v1.Wallet` over gRPC: validate, translate, call one handler, translate back.

No rules here, and no error handling: ledger errors are `croupier.game.RuleBroken`s, which
the kit's interceptor answers with their status (`croupier.kit.errors`) and message.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from croupier.wallet.core.errors import InvalidRequest
from croupier.wallet.core.model import Transfer, check_id
from croupier.wallet.entrypoints import translate as tr
from croupier.wallet.entrypoints.requests import (
    cash_out,
    enter_tournament,
    issue_coupon,
    optional_currency,
    pay_prizes,
    required,
    required_currency,
    settle_game,
)
from croupier.wallet.service.coupons import Coupons
from croupier.wallet.service.games import CrashRefund, GameMoney
from croupier.wallet.service.ledger import LedgerService
from croupier.wallet.service.reports import ReportService
from croupier.wallet.v1 import wallet_pb2, wallet_pb2_grpc

if TYPE_CHECKING:
    from croupier.kit.context import Context

__all__ = ["SERVICE_NAME", "WalletService"]

SERVICE_NAME = wallet_pb2.DESCRIPTOR.services_by_name["Wallet"].full_name


def _records(transfers: tuple[Transfer, ...] | list[Transfer]) -> list[wallet_pb2.TransferRecord]:
    return [tr.transfer_to_proto(t) for t in transfers]


class WalletService(wallet_pb2_grpc.WalletServicer):
    def __init__(self, ledger: LedgerService, games: GameMoney, reports: ReportService) -> None:
        self._ledger = ledger
        self._games = games
        self._reports = reports

    # -- accounts and transfers ----------------------------------------------------------

    async def OpenAccount(
        self, request: wallet_pb2.OpenAccountRequest, context: Context
    ) -> wallet_pb2.OpenAccountResponse:
        account = await self._ledger.open_account(
            tr.account_kind_from_proto(request.kind),
            required(request.owner, "owner"),
            required_currency(request.currency),
        )
        return wallet_pb2.OpenAccountResponse(account=tr.account_to_proto(account))

    async def GetAccount(
        self, request: wallet_pb2.GetAccountRequest, context: Context
    ) -> wallet_pb2.GetAccountResponse:
        account = await self._ledger.account(required(request.account_id, "account_id"))
        return wallet_pb2.GetAccountResponse(account=tr.account_to_proto(account))

    async def GetBalance(
        self, request: wallet_pb2.GetBalanceRequest, context: Context
    ) -> wallet_pb2.GetBalanceResponse:
        account = await self._ledger.account(required(request.account_id, "account_id"))
        return wallet_pb2.GetBalanceResponse(
            balance=tr.money(account.posted, account.currency),
            available=tr.money(account.available, account.currency),
            held=tr.money(account.debits_pending, account.currency),
        )

    async def Transfer(
        self, request: wallet_pb2.TransferRequest, context: Context
    ) -> wallet_pb2.TransferResponse:
        spec = tr.new_transfer_from_proto(request.transfer, pending=False)
        transfer, replayed = await self._ledger.transfer(spec)
        return wallet_pb2.TransferResponse(
            transfer=tr.transfer_to_proto(transfer), replayed=replayed
        )

    async def Hold(
        self, request: wallet_pb2.HoldRequest, context: Context
    ) -> wallet_pb2.HoldResponse:
        spec = tr.new_transfer_from_proto(request.transfer, pending=True)
        transfer, replayed = await self._ledger.transfer(spec)
        return wallet_pb2.HoldResponse(transfer=tr.transfer_to_proto(transfer), replayed=replayed)

    async def PostHold(
        self, request: wallet_pb2.PostHoldRequest, context: Context
    ) -> wallet_pb2.PostHoldResponse:
        transfer, replayed = await self._ledger.post(
            required(request.transfer_id, "transfer_id"), tr.post_amount(request.amount_minor)
        )
        return wallet_pb2.PostHoldResponse(
            transfer=tr.transfer_to_proto(transfer), replayed=replayed
        )

    async def VoidHold(
        self, request: wallet_pb2.VoidHoldRequest, context: Context
    ) -> wallet_pb2.VoidHoldResponse:
        transfer, replayed = await self._ledger.void(required(request.transfer_id, "transfer_id"))
        return wallet_pb2.VoidHoldResponse(
            transfer=tr.transfer_to_proto(transfer), replayed=replayed
        )

    async def Reverse(
        self, request: wallet_pb2.ReverseRequest, context: Context
    ) -> wallet_pb2.ReverseResponse:
        transfer, replayed = await self._ledger.reverse(
            required(request.original_transfer_id, "original_transfer_id"),
            required(request.transfer_id, "transfer_id"),
            dict(request.metadata),
        )
        return wallet_pb2.ReverseResponse(
            transfer=tr.transfer_to_proto(transfer), replayed=replayed
        )

    async def TransferBatch(
        self, request: wallet_pb2.TransferBatchRequest, context: Context
    ) -> wallet_pb2.TransferBatchResponse:
        result = await self._ledger.execute(
            tr.batch_from_proto(request), batch_id=request.batch_id, operation="batch"
        )
        return wallet_pb2.TransferBatchResponse(
            transfers=_records(result.transfers), replayed=result.replayed
        )

    async def GetTransfer(
        self, request: wallet_pb2.GetTransferRequest, context: Context
    ) -> wallet_pb2.GetTransferResponse:
        transfer = await self._ledger.transfer_record(required(request.transfer_id, "transfer_id"))
        return wallet_pb2.GetTransferResponse(transfer=tr.transfer_to_proto(transfer))

    async def GetStatement(
        self, request: wallet_pb2.GetStatementRequest, context: Context
    ) -> wallet_pb2.GetStatementResponse:
        statement = await self._ledger.statement(
            required(request.account_id, "account_id"),
            page_size=request.page.page_size,
            page_token=request.page.page_token,
        )
        return wallet_pb2.GetStatementResponse(
            account=tr.account_to_proto(statement.account),
            lines=[
                wallet_pb2.StatementLine(
                    transfer_id=line.posting.transfer_id,
                    kind=tr.transfer_kind_to_proto(line.kind),
                    amount_minor=line.posting.amount,
                    balance_after_minor=line.posting.balance_after,
                    counter_account_id=line.counter_account_id,
                    posted_at=tr.timestamp(line.posting.posted_at),
                )
                for line in statement.lines
            ],
            next_page_token=statement.next_page_token,
        )

    # -- games ---------------------------------------------------------------------------

    async def HoldStake(
        self, request: wallet_pb2.HoldStakeRequest, context: Context
    ) -> wallet_pb2.HoldStakeResponse:
        amount, currency = tr.amount_from_proto(request.amount, "amount")
        transfer, replayed = await self._games.hold_stake(
            transfer_id=required(request.transfer_id, "transfer_id"),
            player=required(request.player_id, "player_id"),
            game=tr.game_from_proto(request.game),
            table_id=required(request.table_id, "table_id"),
            currency=currency,
            amount=amount,
            hand_id=check_id(request.hand_id, "hand_id") if request.hand_id else "",
        )
        return wallet_pb2.HoldStakeResponse(
            transfer=tr.transfer_to_proto(transfer), replayed=replayed
        )

    async def BuyIn(
        self, request: wallet_pb2.BuyInRequest, context: Context
    ) -> wallet_pb2.BuyInResponse:
        amount, currency = tr.amount_from_proto(request.amount, "amount")
        transfer, replayed = await self._games.buy_in(
            transfer_id=required(request.transfer_id, "transfer_id"),
            player=required(request.player_id, "player_id"),
            game=tr.game_from_proto(request.game),
            table_id=required(request.table_id, "table_id"),
            currency=currency,
            amount=amount,
        )
        return wallet_pb2.BuyInResponse(transfer=tr.transfer_to_proto(transfer), replayed=replayed)

    async def CashOut(
        self, request: wallet_pb2.CashOutRequest, context: Context
    ) -> wallet_pb2.CashOutResponse:
        transfer, replayed = await cash_out(self._games, request)
        return wallet_pb2.CashOutResponse(
            transfer=tr.transfer_to_proto(transfer), replayed=replayed
        )

    async def SettleGame(
        self, request: wallet_pb2.SettleGameRequest, context: Context
    ) -> wallet_pb2.SettleGameResponse:
        result = await settle_game(self._games, request)
        return wallet_pb2.SettleGameResponse(
            transfers=_records(result.transfers), replayed=result.replayed
        )

    async def EnterTournament(
        self, request: wallet_pb2.EnterTournamentRequest, context: Context
    ) -> wallet_pb2.EnterTournamentResponse:
        result = await enter_tournament(self._games, request)
        return wallet_pb2.EnterTournamentResponse(
            transfers=_records(result.transfers), replayed=result.replayed
        )

    async def RefundTournamentEntry(
        self, request: wallet_pb2.RefundTournamentEntryRequest, context: Context
    ) -> wallet_pb2.RefundTournamentEntryResponse:
        result = await self._games.unregister(
            entry_id=required(request.entry_id, "entry_id"),
            refund_id=required(request.refund_id, "refund_id"),
        )
        return wallet_pb2.RefundTournamentEntryResponse(
            transfers=_records(result.transfers), replayed=result.replayed
        )

    async def PayTournamentPrizes(
        self, request: wallet_pb2.PayTournamentPrizesRequest, context: Context
    ) -> wallet_pb2.PayTournamentPrizesResponse:
        result = await pay_prizes(self._games, request)
        return wallet_pb2.PayTournamentPrizesResponse(
            transfers=_records(result.transfers), replayed=result.replayed
        )

    async def IssueCoupon(
        self, request: wallet_pb2.IssueCouponRequest, context: Context
    ) -> wallet_pb2.IssueCouponResponse:
        coupon, replayed = await issue_coupon(self._coupons(), request)
        return wallet_pb2.IssueCouponResponse(coupon=tr.coupon_to_proto(coupon), replayed=replayed)

    async def ListCoupons(
        self, request: wallet_pb2.ListCouponsRequest, context: Context
    ) -> wallet_pb2.ListCouponsResponse:
        coupons = await self._coupons().of_player(required(request.player_id, "player_id"))
        now = self._ledger.now()
        return wallet_pb2.ListCouponsResponse(coupons=[tr.coupon_to_proto(c, now) for c in coupons])

    def _coupons(self) -> Coupons:
        if self._games.coupons is None:
            raise InvalidRequest("this wallet keeps no coupons")
        return self._games.coupons

    async def RefundCrashedTable(
        self, request: wallet_pb2.RefundCrashedTableRequest, context: Context
    ) -> wallet_pb2.RefundCrashedTableResponse:
        refund = await self._games.crash_refund_table(
            table_id=required(request.table_id, "table_id"),
            game=tr.game_from_proto(request.game),
            currency=required_currency(request.currency),
        )
        return wallet_pb2.RefundCrashedTableResponse(**_crash_fields(refund))

    async def RefundCrashedTournament(
        self, request: wallet_pb2.RefundCrashedTournamentRequest, context: Context
    ) -> wallet_pb2.RefundCrashedTournamentResponse:
        refund = await self._games.crash_refund_tournament(
            tournament_id=required(request.tournament_id, "tournament_id"),
            game=tr.game_from_proto(request.game),
            currency=required_currency(request.currency),
        )
        return wallet_pb2.RefundCrashedTournamentResponse(**_crash_fields(refund))

    # -- finance -------------------------------------------------------------------------

    async def ExportJournal(
        self, request: wallet_pb2.ExportJournalRequest, context: Context
    ) -> wallet_pb2.ExportJournalResponse:
        formats = {wallet_pb2.EXPORT_FORMAT_CSV: "csv", wallet_pb2.EXPORT_FORMAT_PARQUET: "parquet"}
        if request.format not in formats:
            raise InvalidRequest("format is required: EXPORT_FORMAT_CSV or EXPORT_FORMAT_PARQUET")
        export = await self._reports.journal(
            tr.datetime_from_proto(getattr(request, "from"), "from"),
            tr.datetime_from_proto(request.to, "to"),
            currency=optional_currency(request.currency),
            fmt=formats[request.format],
        )
        return wallet_pb2.ExportJournalResponse(
            content=export.content,
            media_type=export.media_type,
            sha256=export.sha256,
            rows=export.rows,
        )

    async def GetTrialBalance(
        self, request: wallet_pb2.GetTrialBalanceRequest, context: Context
    ) -> wallet_pb2.GetTrialBalanceResponse:
        at = (
            tr.datetime_from_proto(request.at, "at")
            if request.HasField("at")
            else datetime.now(UTC)
        )
        lines = await self._reports.trial_balance(at, currency=optional_currency(request.currency))
        totals: dict[str, int] = {}
        for line in lines:
            totals[line.currency] = totals.get(line.currency, 0) + line.balance
        return wallet_pb2.GetTrialBalanceResponse(
            lines=[
                wallet_pb2.TrialBalanceLine(
                    account_id=line.account_id,
                    kind=tr.account_kind_to_proto(line.kind),
                    currency=line.currency,
                    balance_minor=line.balance,
                )
                for line in lines
            ],
            balanced=all(total == 0 for total in totals.values()),
        )

    async def GetReconciliationReport(
        self, request: wallet_pb2.GetReconciliationReportRequest, context: Context
    ) -> wallet_pb2.GetReconciliationReportResponse:
        text, digest, balanced = await self._reports.reconciliation(
            tr.day_from_text(request.day), required_currency(request.currency)
        )
        return wallet_pb2.GetReconciliationReportResponse(
            report_json=text, sha256=digest, balanced=balanced
        )


def _crash_fields(refund: CrashRefund) -> dict[str, Any]:
    return {
        "voided_holds": _records(refund.voided),
        "refunds": _records(refund.refunds),
        "replayed": refund.replayed,
    }
