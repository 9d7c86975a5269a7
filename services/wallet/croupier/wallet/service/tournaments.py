"""Money of tournaments: entries and rebuys (buy-in + fee), unregister refunds, prizes, and
the refund of a crashed tournament (seed 000 §4, §9, §13; seed 001 ¶24)."""

from __future__ import annotations

from collections.abc import Mapping

from croupier.game.commission import split_entry_price
from croupier.wallet.core.errors import (
    AlreadySettled,
    InvalidRequest,
    TransferNotFound,
    UnbalancedSettlement,
)
from croupier.wallet.core.model import (
    AccountKind,
    References,
    TransferKind,
    TransferStatus,
    check_id,
)
from croupier.wallet.service.accounts import CrashRefund, GameAccounts
from croupier.wallet.service.ledger import BatchResult
from croupier.wallet.service.operations import (
    Apply,
    ExpectPosted,
    OpenAccount,
    Operation,
    Reverse,
    VoidHold,
)

__all__ = ["TournamentMoney"]

_ENTRY_KINDS = (
    TransferKind.TOURNAMENT_ENTRY,
    TransferKind.TOURNAMENT_FEE,
    TransferKind.TOURNAMENT_REBUY,
    TransferKind.TOURNAMENT_REBUY_FEE,
)


class TournamentMoney(GameAccounts):
    async def register(
        self,
        *,
        entry_id: str,
        tournament_id: str,
        game: str,
        player: str,
        currency: str,
        buy_in: int,
        fee: int,
        rebuy: bool = False,
    ) -> BatchResult:
        """Pay a tournament entry (or rebuy): buy-in → prize pool, fee → house (seed 001 ¶24)."""
        check_id(entry_id, "entry_id")
        split = split_entry_price(
            buy_in=buy_in, fee=fee, currency=await self.ledger.currency(currency)
        )
        opening: list[OpenAccount] = []
        pool = self._account(opening, AccountKind.TOURNAMENT_POOL, tournament_id, currency)
        source = await self._player(player, currency)
        refs = References(game=game, tournament_id=tournament_id)
        entry_kind = TransferKind.TOURNAMENT_REBUY if rebuy else TransferKind.TOURNAMENT_ENTRY
        fee_kind = TransferKind.TOURNAMENT_REBUY_FEE if rebuy else TransferKind.TOURNAMENT_FEE
        ops: list[Operation] = []
        if split.prize_pool:
            ops.append(
                Apply(
                    self._spec(
                        f"{entry_id}:entry",
                        source,
                        pool,
                        split.prize_pool,
                        currency,
                        entry_kind,
                        refs,
                    )
                )
            )
        if split.fee:
            house = self._account(opening, AccountKind.HOUSE_COMMISSION, game, currency)
            ops.append(
                Apply(
                    self._spec(
                        f"{entry_id}:fee", source, house, split.fee, currency, fee_kind, refs
                    )
                )
            )
        return await self._execute(
            ops,
            opening,
            batch_id=entry_id,
            operation="tournament_rebuy" if rebuy else "tournament_entry",
        )

    async def unregister(self, *, entry_id: str, refund_id: str) -> BatchResult:
        """Refund an entry in full (buy-in and fee) when a player unregisters before the start."""
        check_id(refund_id, "refund_id")
        parts = await self._existing([f"{entry_id}:entry", f"{entry_id}:fee"])
        if not parts:
            raise TransferNotFound(f"no tournament entry {entry_id!r}")
        ops: list[Operation] = [
            Reverse(
                original_id=part,
                transfer_id=f"{refund_id}:{part.rsplit(':', 1)[1]}",
                kind=TransferKind.UNREGISTER_REFUND,
            )
            for part in sorted(parts)
        ]
        return await self.ledger.execute(ops, batch_id=refund_id, operation="tournament_unregister")

    async def pay_prizes(
        self,
        *,
        payout_id: str,
        tournament_id: str,
        game: str,
        currency: str,
        prizes: Mapping[str, int],
        final: bool = True,
    ) -> BatchResult:
        """Pay prizes from the prize pool; with `final`, the pool must end empty."""
        check_id(payout_id, "payout_id")
        opening: list[OpenAccount] = []
        pool = self._account(opening, AccountKind.TOURNAMENT_POOL, tournament_id, currency)
        refs = References(game=game, tournament_id=tournament_id)
        ops: list[Operation] = []
        for player, amount in sorted(prizes.items()):
            if amount < 0:
                raise InvalidRequest(f"prize of {player!r} is negative")
            if amount:
                ops.append(
                    Apply(
                        self._spec(
                            f"{payout_id}:{player}",
                            pool,
                            await self._player(player, currency),
                            amount,
                            currency,
                            TransferKind.TOURNAMENT_PAYOUT,
                            refs,
                        )
                    )
                )
        if final:
            ops.append(ExpectPosted(account_id=pool, posted=0))
        if not ops:
            raise UnbalancedSettlement("no prizes to pay")
        return await self._execute(ops, opening, batch_id=payout_id, operation="tournament_payout")

    async def crash_refund_tournament(
        self, *, tournament_id: str, game: str, currency: str
    ) -> CrashRefund:
        """Refund every entry, fee and rebuy not yet refunded (seed 000 §13, OQ 28)."""
        opening: list[OpenAccount] = []
        pool = self._account(opening, AccountKind.TOURNAMENT_POOL, tournament_id, currency)
        transfers = await self._find(tournament_id=tournament_id)
        paid = [t for t in transfers if t.kind is TransferKind.TOURNAMENT_PAYOUT]
        if paid and currency in {t.currency for t in paid}:
            raise AlreadySettled(
                f"tournament {tournament_id!r} has paid prizes ({paid[0].transfer_id!r}); "
                "a finished tournament is not crash-refunded (reverse transfers instead)"
            )
        ops: list[Operation] = []
        reversed_by = {t.reversal_of: t.transfer_id for t in transfers if t.reversal_of}
        for t in transfers:
            if t.currency != currency:
                continue
            if t.status is TransferStatus.PENDING:
                ops.append(VoidHold(transfer_id=t.transfer_id))
            elif t.kind in _ENTRY_KINDS and t.status is TransferStatus.POSTED:
                refund_id = f"crash:{t.transfer_id}"
                if t.transfer_id not in reversed_by:
                    ops.append(
                        Reverse(
                            original_id=t.transfer_id,
                            transfer_id=refund_id,
                            kind=TransferKind.CRASH_REFUND,
                        )
                    )
        if ops:
            ops.append(ExpectPosted(account_id=pool, posted=0))
        return await self._crash(ops, opening, game, currency)
