"""Money of tournaments: entries and rebuys (buy-in + fee), unregister refunds, prizes, and
the refund of a crashed tournament (seed 000 §4, §9, §13; seed 001 ¶24).

A tournament whose prizes are not its entries (a Spin: the drawn multiplier × the buy-in,
issue 25 rule 53) has its pool set to the prizes by the entry that completes it
(`prize_pool`): the difference comes from the game's prize fund, `house_promotions:<game>`
(an overlay), or goes to it (a surplus), in the entry's own batch. The fund is the
operator's money and never goes below zero (`AccountKind.may_go_negative`): a fund short
of an overlay refuses the entry, so a prize is never money created."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from croupier.game.commission import split_entry_price
from croupier.wallet.core.errors import (
    AlreadySettled,
    InvalidRequest,
    LedgerError,
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
#: The house's money in or out of a pool: given back (not a player's refund) when the
#: tournament is undone; a surplus first, so the pool never goes below zero meanwhile.
_FUNDING_KINDS = (
    TransferKind.TOURNAMENT_SURPLUS,
    TransferKind.TOURNAMENT_COUPON_ENTRY,
    TransferKind.TOURNAMENT_OVERLAY,
)
#: An entry's transfers (id "<entry_id>:<part>") and the kind of their refund, in the
#: order an unregistration gives them back.
_ENTRY_PARTS = {
    "surplus": TransferKind.REVERSAL,
    "coupon": TransferKind.REVERSAL,
    "entry": TransferKind.UNREGISTER_REFUND,
    "fee": TransferKind.UNREGISTER_REFUND,
    "overlay": TransferKind.REVERSAL,
}


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
        prize_pool: int | None = None,
        coupon_id: str = "",
    ) -> BatchResult:
        """Pay a tournament entry (or rebuy): buy-in → prize pool, fee → house (seed 001 ¶24).
        `prize_pool`: what the pool holds after this entry, the difference moved from or to
        the game's prize fund (module docstring). `coupon_id`: the player's coupon pays the
        entry instead (rule 48): the prize fund pays the buy-in, the fee is waived."""
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
        entry_part = "entry"
        taken = None
        if coupon_id:
            if self.coupons is None or rebuy:
                raise InvalidRequest(
                    "a coupon pays a first entry only, on a wallet that keeps them"
                )
            taken = await self.coupons.redeem(
                coupon_id,
                player=player,
                game=game,
                currency=currency,
                price=buy_in + fee,
                entry_id=entry_id,
                tournament_id=tournament_id,
            )
            source = self._account(opening, AccountKind.HOUSE_PROMOTIONS, game, currency)
            entry_kind, entry_part = TransferKind.TOURNAMENT_COUPON_ENTRY, "coupon"
            split = replace(split, fee=0)
        ops: list[Operation] = []
        if split.prize_pool:
            ops.append(
                Apply(
                    self._spec(
                        f"{entry_id}:{entry_part}",
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
        if prize_pool is not None:
            before = await self._pool_before(entry_id, pool, tournament_id)
            ops.extend(
                self._fund_pool(
                    opening, entry_id, pool, currency, before + split.prize_pool, prize_pool, refs
                )
            )
        try:
            return await self._execute(
                ops,
                opening,
                batch_id=entry_id,
                operation="tournament_rebuy" if rebuy else "tournament_entry",
            )
        except LedgerError:
            if taken is not None and self.coupons is not None:  # the entry failed: held again
                await self.coupons.give_back(entry_id=entry_id)
            raise

    async def _pool_before(self, entry_id: str, pool: str, tournament_id: str) -> int:
        """The pool's posted balance without this entry's own transfers: the same whether
        the entry is new or sent again (a replay must ask for the same transfers)."""
        balance = 0
        for t in await self._find(tournament_id=tournament_id):
            if t.status is not TransferStatus.POSTED or t.transfer_id.startswith(f"{entry_id}:"):
                continue
            amount = t.posted_amount or 0
            balance += (amount if t.credit_account_id == pool else 0) - (
                amount if t.debit_account_id == pool else 0
            )
        return balance

    def _fund_pool(
        self,
        opening: list[OpenAccount],
        entry_id: str,
        pool: str,
        currency: str,
        holding: int,
        prize_pool: int,
        refs: References,
    ) -> list[Operation]:
        """The overlay (fund → pool) or surplus (pool → fund) that makes a pool `holding`
        hold `prize_pool`, then the check that it does (a pool another request changed
        meanwhile refuses the batch instead of paying from a wrong sum)."""
        fund = self._account(opening, AccountKind.HOUSE_PROMOTIONS, refs.game, currency)
        ops: list[Operation] = []
        if prize_pool > holding:
            ops.append(
                Apply(
                    self._spec(
                        f"{entry_id}:overlay",
                        fund,
                        pool,
                        prize_pool - holding,
                        currency,
                        TransferKind.TOURNAMENT_OVERLAY,
                        refs,
                    )
                )
            )
        elif prize_pool < holding:
            ops.append(
                Apply(
                    self._spec(
                        f"{entry_id}:surplus",
                        pool,
                        fund,
                        holding - prize_pool,
                        currency,
                        TransferKind.TOURNAMENT_SURPLUS,
                        refs,
                    )
                )
            )
        ops.append(ExpectPosted(account_id=pool, posted=prize_pool))
        return ops

    async def unregister(self, *, entry_id: str, refund_id: str) -> BatchResult:
        """Refund an entry in full (buy-in and fee) when a player unregisters before the start;
        the pool's overlay or surplus the entry moved, if any, goes back too."""
        check_id(refund_id, "refund_id")
        parts = await self._existing([f"{entry_id}:{part}" for part in _ENTRY_PARTS])
        if not {f"{entry_id}:entry", f"{entry_id}:fee", f"{entry_id}:coupon"} & parts:
            raise TransferNotFound(f"no tournament entry {entry_id!r}")
        ops: list[Operation] = [
            Reverse(
                original_id=f"{entry_id}:{part}",
                transfer_id=f"{refund_id}:{part}",
                kind=_ENTRY_PARTS[part],
            )
            for part in _ENTRY_PARTS
            if f"{entry_id}:{part}" in parts
        ]
        result = await self.ledger.execute(
            ops, batch_id=refund_id, operation="tournament_unregister"
        )
        if self.coupons is not None and f"{entry_id}:coupon" in parts:
            await self.coupons.give_back(entry_id=entry_id)
        return result

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
        refundable = _FUNDING_KINDS + _ENTRY_KINDS
        for t in sorted(transfers, key=lambda t: t.kind not in _FUNDING_KINDS):
            if t.currency != currency:
                continue
            if t.status is TransferStatus.PENDING:
                ops.append(VoidHold(transfer_id=t.transfer_id))
            elif (
                t.kind in refundable
                and t.status is TransferStatus.POSTED
                and t.transfer_id not in reversed_by
            ):
                ops.append(
                    Reverse(
                        original_id=t.transfer_id,
                        transfer_id=f"crash:{t.transfer_id}",
                        kind=TransferKind.REVERSAL
                        if t.kind in _FUNDING_KINDS
                        else TransferKind.CRASH_REFUND,
                    )
                )
        if ops:
            ops.append(ExpectPosted(account_id=pool, posted=0))
        refund = await self._crash(ops, opening, game, currency)
        if self.coupons is not None:  # every coupon that paid an entry is held again
            await self.coupons.give_back(tournament_id=tournament_id)
        return refund
