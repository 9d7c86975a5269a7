"""Money on and off a table's seats: buy-in, cash-out, and whether the wallet holds a
table's money at all."""

from __future__ import annotations

from collections.abc import Iterable

from croupier.game.money import CurrencyKind
from croupier.wallet.core.errors import AccountNotFound, TransferNotFound, UnbalancedSettlement
from croupier.wallet.core.model import (
    AccountKind,
    References,
    Transfer,
    TransferKind,
    TransferSpec,
)
from croupier.wallet.service.accounts import GameAccounts, seat_owner
from croupier.wallet.service.operations import OpenAccount

__all__ = ["SeatMoney"]


class SeatMoney(GameAccounts):
    """A player's seat account at a table: money bought in, cashed out."""

    async def buy_in(
        self, *, transfer_id: str, player: str, game: str, table_id: str, currency: str, amount: int
    ) -> tuple[Transfer, bool]:
        """Move money onto a table (posted): player → their seat account at the table."""
        opening: list[OpenAccount] = []
        seat = self._account(
            opening, AccountKind.TABLE_ESCROW, seat_owner(table_id, player), currency
        )
        spec = TransferSpec(
            transfer_id=transfer_id,
            debit_account_id=await self._player(player, currency),
            credit_account_id=seat,
            amount=amount,
            currency=currency,
            kind=TransferKind.BUY_IN,
            references=References(game=game, table_id=table_id),
        )
        return await self._transfer_opening(spec, opening)

    async def cash_out(
        self,
        *,
        transfer_id: str,
        player: str,
        game: str,
        table_id: str,
        currency: str,
        amount: int | None = None,
    ) -> tuple[Transfer, bool]:
        """Move money off a table: seat → player; `amount=None` takes the whole seat."""
        # No seat is opened: one that does not exist has nothing to cash out.
        seat = self._seat_account(table_id, player, currency)
        if amount is None:
            try:
                return (await self.ledger.transfer_record(transfer_id)), True
            except TransferNotFound:
                pass
            try:
                amount = (await self.ledger.account(seat)).available
            except AccountNotFound:
                amount = 0
            if amount <= 0:
                raise UnbalancedSettlement(f"{player!r} has nothing to cash out at {table_id!r}")
        spec = TransferSpec(
            transfer_id=transfer_id,
            debit_account_id=seat,
            credit_account_id=await self._player(player, currency),
            amount=amount,
            currency=currency,
            kind=TransferKind.CASH_OUT,
            references=References(game=game, table_id=table_id),
        )
        return await self.ledger.transfer(spec)

    async def is_unfunded_play_table(
        self, *, table_id: str, currency: str, players: Iterable[str]
    ) -> bool:
        """Whether a table's settlement is about none of the wallet's money: a play currency
        (PLAY, CHIP) and no seat of any of its players. Play-chip tables keep their chips in
        the table host (no buy-in reaches the wallet); a real-money table without seats is
        an error the caller must hear about."""
        if (await self.ledger.currency(currency)).kind is CurrencyKind.REAL:
            return False
        for player in players:
            try:
                await self.ledger.account(self._seat_account(table_id, player, currency))
            except AccountNotFound:
                continue
            return False
        return True
