"""Wallet stories both wallet adapters run (in memory and on PostgreSQL): what a caller
asks and what the ledger must show afterwards."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from croupier.common.v1 import common_pb2
from croupier.kit.bus import make_envelope
from croupier.wallet.core.model import AccountKind, References, TransferKind, TransferSpec
from croupier.wallet.entrypoints.consumer import RequestLog, WalletRequestHandler
from croupier.wallet.service.games import GameMoney
from croupier.wallet.service.ledger import LedgerService
from croupier.wallet.v1 import wallet_pb2


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
