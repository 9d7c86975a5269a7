"""Shared ground of the money helpers (`seats.py`, `tables.py`, `tournaments.py`) and
`GameMoney`, which offers them all.

Every helper derives its transfer ids from the caller's request id, so a retried request
(gRPC retry, Kafka redelivery) is a replay and moves money once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from croupier.game.money import CurrencyKind
from croupier.wallet.core.errors import TransferNotFound
from croupier.wallet.core.model import (
    AccountKind,
    References,
    Transfer,
    TransferKind,
    TransferSpec,
    TransferStatus,
    account_id_for,
    check_id,
)
from croupier.wallet.service.coupons import Coupons
from croupier.wallet.service.ledger import BatchResult, LedgerService
from croupier.wallet.service.operations import Apply, OpenAccount, Operation, Reverse, VoidHold

__all__ = ["CrashRefund", "GameAccounts", "seat_owner"]


def seat_owner(table_id: str, player: str) -> str:
    """The owner of `player`'s seat account at `table_id` (a `TABLE_ESCROW` account)."""
    return f"{table_id}/{check_id(player, 'player')}"


@dataclass(frozen=True, slots=True, kw_only=True)
class CrashRefund:
    """What a crash refund did: holds voided and refund transfers made."""

    voided: tuple[Transfer, ...]
    refunds: tuple[Transfer, ...]
    replayed: bool


class GameAccounts:
    """Opening the accounts games use, and shared look-ups.

    An account a request needs is opened in the same transaction as the request's
    transfers (`OpenAccount`), so a refused request leaves none behind (a refused buy-in
    opened the player's seat before). Accounts this process has seen opened are not asked
    for again: their batches need no transaction around the ledger's one statement."""

    def __init__(self, ledger: LedgerService, coupons: Coupons | None = None) -> None:
        """`coupons`: where tournament coupons are kept (none: entries pay money only)."""
        self.ledger = ledger
        self.coupons = coupons
        self._opened: set[str] = set()

    def _account(
        self, opening: list[OpenAccount], kind: AccountKind, owner: str, currency: str
    ) -> str:
        """The account's id; unless known to exist, added to `opening`."""
        wanted = OpenAccount(kind=kind, owner=owner, currency=currency)
        if wanted.account_id not in self._opened and wanted not in opening:
            opening.append(wanted)
        return wanted.account_id

    async def _execute(
        self,
        ops: Sequence[Operation],
        opening: Sequence[OpenAccount],
        *,
        operation: str,
        batch_id: str = "",
    ) -> BatchResult:
        result = await self.ledger.execute(
            ops, batch_id=batch_id, operation=operation, opening=opening
        )
        self._opened.update(wanted.account_id for wanted in opening)
        return result

    async def _transfer_opening(
        self, spec: TransferSpec, opening: Sequence[OpenAccount]
    ) -> tuple[Transfer, bool]:
        result = await self.ledger.transfer(spec, opening=opening)
        self._opened.update(wanted.account_id for wanted in opening)
        return result

    @staticmethod
    def _seat_account(table_id: str, player: str, currency: str) -> str:
        return account_id_for(AccountKind.TABLE_ESCROW, seat_owner(table_id, player), currency)

    async def _player(self, player: str, currency: str) -> str:
        kind = AccountKind.PLAYER_CASH
        if (await self.ledger.currency(currency)).kind is CurrencyKind.CHIP:
            kind = AccountKind.PLAYER_CHIPS
        return account_id_for(kind, check_id(player, "player"), currency)

    async def _crash(
        self, ops: list[Operation], opening: Sequence[OpenAccount], game: str, currency: str
    ) -> CrashRefund:
        if not any(isinstance(op, Apply | VoidHold | Reverse) for op in ops):
            return CrashRefund(voided=(), refunds=(), replayed=True)
        result = await self._execute(ops, opening, operation="crash_refund")
        voided = tuple(t for t in result.transfers if t.status is TransferStatus.VOIDED)
        refunds = tuple(t for t in result.transfers if t.kind is TransferKind.CRASH_REFUND)
        if not result.replayed:
            for refund in refunds:
                self.ledger.metrics.crash_refund(game, currency, refund.amount)
        return CrashRefund(voided=voided, refunds=refunds, replayed=result.replayed)

    @staticmethod
    def _spec(
        transfer_id: str,
        debit: str,
        credit: str,
        amount: int,
        currency: str,
        kind: TransferKind,
        references: References,
    ) -> TransferSpec:
        return TransferSpec(
            transfer_id=transfer_id,
            debit_account_id=debit,
            credit_account_id=credit,
            amount=amount,
            currency=currency,
            kind=kind,
            references=references,
        )

    async def _transfer(self, transfer_id: str) -> Transfer:
        return await self.ledger.transfer_record(transfer_id)

    async def _existing(self, transfer_ids: list[str]) -> set[str]:
        found: set[str] = set()
        for transfer_id in transfer_ids:
            try:
                await self.ledger.transfer_record(transfer_id)
            except TransferNotFound:
                continue
            found.add(transfer_id)
        return found

    async def _find(self, *, table_id: str = "", tournament_id: str = "") -> list[Transfer]:
        return await self.ledger.find_transfers(table_id=table_id, tournament_id=tournament_id)
