"""Money of a table's play: stake holds, settlements of hands and games from engine
results, and crash refunds of a table (its seats' buy-ins and cash-outs: `seats.py`)."""

from __future__ import annotations

from collections.abc import Mapping

from croupier.game.limits import MAX_AMOUNT, echo
from croupier.wallet.core.errors import InvalidRequest
from croupier.wallet.core.model import (
    AccountKind,
    References,
    Transfer,
    TransferKind,
    TransferSpec,
    TransferStatus,
    check_amount,
    check_id,
)
from croupier.wallet.core.settlement import (
    CommissionRule,
    backgammon_rule,
    check_engine_result,
    no_commission,
    settlement_amounts,
)
from croupier.wallet.service.accounts import CrashRefund, GameAccounts, seat_owner
from croupier.wallet.service.ledger import BatchResult
from croupier.wallet.service.operations import (
    Apply,
    ExpectPosted,
    OpenAccount,
    Operation,
    PostHold,
    VoidHold,
)

__all__ = ["TableSettlements"]


class TableSettlements(GameAccounts):
    """Stake holds, settlements and crash refunds of tables."""

    async def hold_stake(
        self,
        *,
        transfer_id: str,
        player: str,
        game: str,
        table_id: str,
        currency: str,
        amount: int,
        hand_id: str = "",
    ) -> tuple[Transfer, bool]:
        """Hold a stake (pending) from the player towards the table escrow before play."""
        opening: list[OpenAccount] = []
        escrow = self._account(opening, AccountKind.TABLE_ESCROW, table_id, currency)
        spec = TransferSpec(
            transfer_id=transfer_id,
            debit_account_id=await self._player(player, currency),
            credit_account_id=escrow,
            amount=amount,
            currency=currency,
            kind=TransferKind.STAKE_HOLD,
            pending=True,
            references=References(game=game, table_id=table_id, hand_id=hand_id),
        )
        return await self._transfer_opening(spec, opening)

    async def settle_result(
        self,
        *,
        settlement_id: str,
        game: str,
        table_id: str,
        currency: str,
        deltas: Mapping[str, int],
        commission: Mapping[str, int],
        hand_id: str = "",
    ) -> BatchResult:
        """Settle a table-hosted hand from the engine's result, between the players' seats.

        `deltas` are after commission and `commission` is per player (Σ both = 0), as the
        table host sends them. Losers' seats pay into the table pot, the pot pays winners'
        seats and the house; the pot ends empty. For backgammon the commission is checked
        against the wallet's own calculator (seed 001).
        """
        check_id(settlement_id, "settlement_id")
        for what, amounts in (("deltas", deltas), ("commission", commission)):
            for player, amount in amounts.items():
                check_amount(amount, f"{what}[{echo(player)}]", low=-MAX_AMOUNT)
        currency_info = await self.ledger.currency(currency)
        expected = backgammon_rule if game == "backgammon" else None
        check_engine_result(deltas, commission, currency_info, expected)
        opening: list[OpenAccount] = []
        pot = self._account(opening, AccountKind.TABLE_ESCROW, table_id, currency)
        refs = References(game=game, table_id=table_id, hand_id=hand_id)
        seats = {p: self._seat_account(table_id, p, currency) for p in deltas}
        ops: list[Operation] = []
        for player, delta in sorted(deltas.items()):
            if delta < 0:
                ops.append(
                    Apply(
                        self._spec(
                            f"{settlement_id}:stake:{player}",
                            seats[player],
                            pot,
                            -delta,
                            currency,
                            TransferKind.STAKE,
                            refs,
                        )
                    )
                )
        for player, delta in sorted(deltas.items()):
            if delta > 0:
                seat = self._account(
                    opening, AccountKind.TABLE_ESCROW, seat_owner(table_id, player), currency
                )
                ops.append(
                    Apply(
                        self._spec(
                            f"{settlement_id}:win:{player}",
                            pot,
                            seat,
                            delta,
                            currency,
                            TransferKind.WINNINGS,
                            refs,
                        )
                    )
                )
        if any(commission.values()):
            house = self._account(opening, AccountKind.HOUSE_COMMISSION, game, currency)
            for player, fee in sorted(commission.items()):
                if fee:
                    ops.append(
                        Apply(
                            self._spec(
                                f"{settlement_id}:commission:{player}",
                                pot,
                                house,
                                fee,
                                currency,
                                TransferKind.COMMISSION,
                                refs,
                            )
                        )
                    )
        if not ops:
            # A hand with no money moving (everyone broke even): nothing to record.
            return BatchResult(transfers=(), replayed=True)
        ops.append(ExpectPosted(account_id=pot, posted=0))
        return await self._execute(ops, opening, batch_id=settlement_id, operation="settle_result")

    async def settle_game(
        self,
        *,
        settlement_id: str,
        game: str,
        table_id: str,
        currency: str,
        holds: Mapping[str, str],
        deltas: Mapping[str, int],
        commission: CommissionRule = no_commission,
        hand_id: str = "",
    ) -> BatchResult:
        """Settle a hand or game from the engine's deltas, all-or-nothing.

        `holds`: player → id of their stake hold. Losers' holds are posted for what they
        lost, other holds are voided; the escrow pays each winner their gain minus
        commission, and the commission goes to `house_commission:<game>`.
        """
        check_id(settlement_id, "settlement_id")
        opening: list[OpenAccount] = []
        escrow = self._account(opening, AccountKind.TABLE_ESCROW, table_id, currency)
        currency_info = await self.ledger.currency(currency)
        held: dict[str, Transfer] = {}
        for player, hold_id in holds.items():
            hold = await self._transfer(hold_id)
            if hold.credit_account_id != escrow or hold.debit_account_id != await self._player(
                player, currency
            ):
                raise InvalidRequest(
                    f"hold {hold_id!r} is not {player!r}'s stake "
                    f"on table {table_id!r} in {currency}"
                )
            held[player] = hold
        amounts = settlement_amounts(
            deltas, {p: h.amount for p, h in held.items()}, currency_info, commission
        )
        refs = References(game=game, table_id=table_id, hand_id=hand_id)
        ops: list[Operation] = []
        for player in sorted(held):
            hold_id = held[player].transfer_id
            if player in amounts.losses:
                ops.append(PostHold(transfer_id=hold_id, amount=amounts.losses[player]))
            else:
                ops.append(VoidHold(transfer_id=hold_id))
        house = ""
        if amounts.commission:
            house = self._account(opening, AccountKind.HOUSE_COMMISSION, game, currency)
        for player, (paid, fee) in sorted(amounts.winnings.items()):
            target = await self._player(player, currency)
            if paid:
                ops.append(
                    Apply(
                        self._spec(
                            f"{settlement_id}:win:{player}",
                            escrow,
                            target,
                            paid,
                            currency,
                            TransferKind.WINNINGS,
                            refs,
                        )
                    )
                )
            if fee:
                ops.append(
                    Apply(
                        self._spec(
                            f"{settlement_id}:commission:{player}",
                            escrow,
                            house,
                            fee,
                            currency,
                            TransferKind.COMMISSION,
                            refs,
                        )
                    )
                )
        return await self._execute(ops, opening, batch_id=settlement_id, operation="settle_game")

    async def crash_refund_table(
        self, *, table_id: str, game: str, currency: str = ""
    ) -> CrashRefund:
        """A crashed table: void its holds and return every seat's money to its player.

        `currency=""` refunds every currency the table used. The pot must end empty (a
        hand's settlement is atomic, so it does, unless stake holds were posted and never
        settled: then nothing applies and an operator must look).
        """
        check_id(table_id, "table_id")
        if not currency:
            used = sorted({t.currency for t in await self._find(table_id=table_id)})
            parts = [
                await self.crash_refund_table(table_id=table_id, game=game, currency=code)
                for code in used
            ]
            return CrashRefund(
                voided=tuple(t for p in parts for t in p.voided),
                refunds=tuple(t for p in parts for t in p.refunds),
                replayed=all(p.replayed for p in parts),
            )
        opening: list[OpenAccount] = []
        pot = self._account(opening, AccountKind.TABLE_ESCROW, table_id, currency)
        transfers = await self._find(table_id=table_id)
        ops: list[Operation] = []
        seats: dict[str, str] = {}  # seat account → player account
        for t in transfers:
            if t.currency != currency:
                continue
            if t.status is TransferStatus.PENDING:
                ops.append(VoidHold(transfer_id=t.transfer_id))
            elif t.kind is TransferKind.BUY_IN:
                seats[t.credit_account_id] = t.debit_account_id
        refs = References(game=game, table_id=table_id)
        for seat, player_account in sorted(seats.items()):
            refund_id = f"crash:{seat}"
            if await self._existing([refund_id]):
                continue
            left = (await self.ledger.account(seat)).posted
            if left > 0:
                ops.append(
                    Apply(
                        self._spec(
                            refund_id,
                            seat,
                            player_account,
                            left,
                            currency,
                            TransferKind.CRASH_REFUND,
                            refs,
                        )
                    )
                )
        for seat in sorted(seats):
            ops.append(ExpectPosted(account_id=seat, posted=0))
        if ops:
            ops.append(ExpectPosted(account_id=pot, posted=0))
        return await self._crash(ops, opening, game, currency)
