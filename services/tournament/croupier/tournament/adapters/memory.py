"""In-memory adapters for unit tests: a repository and a wallet that records its calls."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

from croupier.game import Duplicate, RuleBroken
from croupier.tournament.service.events import Recorded
from croupier.tournament.service.model import Status, TournamentRecord
from croupier.tournament.service.ports import Conflict, Unreadable

__all__ = ["InMemoryRepository", "InMemoryWallet"]


class InMemoryRepository:
    def __init__(self) -> None:
        self.records: dict[str, TournamentRecord] = {}
        self.events: dict[str, list[Recorded]] = {}
        self._by_key: dict[str, str] = {}

    async def create(
        self, record: TournamentRecord, event: Recorded
    ) -> tuple[TournamentRecord, bool]:
        existing = self._by_key.get(record.request_key)
        if existing is not None:
            return self.records[existing], False
        self._by_key[record.request_key] = record.tournament_id
        self.records[record.tournament_id] = record
        self.events[record.tournament_id] = [event]
        return record, True

    async def get(self, tournament_id: str) -> TournamentRecord | None:
        return self.records.get(tournament_id)

    async def save(self, record: TournamentRecord, events: Sequence[Recorded]) -> None:
        stored = self.records[record.tournament_id]
        if stored.version != record.version - 1:
            raise Conflict("the tournament changed meanwhile; retry")
        self.records[record.tournament_id] = record
        self.events[record.tournament_id].extend(events)

    async def due(self, now: datetime) -> list[str]:
        return [
            record.tournament_id
            for record in self.records.values()
            if record.status is Status.REGISTERING and record.settings.start_time <= now
        ]

    async def events_after(self, tournament_id: str, sequence: int) -> list[Recorded]:
        return [e for e in self.events.get(tournament_id, []) if e.sequence > sequence]

    async def running(self) -> list[str]:
        return [t for t, record in self.records.items() if record.status is Status.RUNNING]

    async def void_unreadable(self, unreadable: Unreadable, event: Recorded) -> None:
        record = self.records[unreadable.tournament_id]
        self.records[record.tournament_id] = replace(
            record, status=Status.VOIDED, events=record.events + 1, version=record.version + 1
        )
        self.events[record.tournament_id].append(replace(event, sequence=record.events + 1))

    async def listed(
        self, statuses: frozenset[Status], after: tuple[datetime, str] | None, limit: int
    ) -> list[TournamentRecord]:
        ordered = sorted(
            (r for r in self.records.values() if r.status in statuses),
            key=lambda r: (r.settings.start_time, r.tournament_id),
        )
        return [
            r for r in ordered if after is None or (r.settings.start_time, r.tournament_id) > after
        ][:limit]


@dataclass
class InMemoryWallet:
    """Balances per player; entries by key (a repeated key moves nothing again)."""

    balances: dict[str, int] = field(default_factory=dict)
    entries: dict[str, tuple[str, int]] = field(default_factory=dict)
    """entry_id → (player, amount taken)."""
    refunds: set[str] = field(default_factory=set)
    crashed: list[str] = field(default_factory=list)
    buy_ins: dict[str, tuple[str, int]] = field(default_factory=dict)
    """entry_id → (tournament, what went to its prize pool)."""
    payouts: dict[str, tuple[str, dict[str, int]]] = field(default_factory=dict)
    """payout_id → (tournament, the prizes paid)."""
    prize_funds: dict[tuple[str, str], int] = field(default_factory=dict)
    """(game, currency) → the house's prize fund."""
    overlays: dict[str, tuple[str, tuple[str, str], int]] = field(default_factory=dict)
    """entry_id → (tournament, its fund, what the fund added to the pool: < 0 took)."""
    coupons: dict[str, tuple[str, int]] = field(default_factory=dict)
    """Coupons held: coupon_id → (player, the entry price it pays at most)."""
    issued: dict[str, tuple[str, int]] = field(default_factory=dict)
    """Every coupon issued (prizes), by id: (player, value)."""
    redeemed: dict[str, tuple[str, tuple[str, int], tuple[str, str], int]] = field(
        default_factory=dict
    )
    """entry_id → (coupon_id, the coupon, the fund that paid the buy-in, the buy-in)."""

    def pool(self, tournament_id: str) -> int:
        """The prize pool: entries and rebuys not refunded, less the prizes paid."""
        paid_in = sum(
            amount
            for entry_id, (tournament, amount) in self.buy_ins.items()
            if tournament == tournament_id
            and not {f"{entry_id}:refund", f"{entry_id}:crash"} & self.refunds
        )
        paid_out = sum(
            sum(prizes.values())
            for tournament, prizes in self.payouts.values()
            if tournament == tournament_id
        )
        added = sum(
            amount
            for tournament, _, amount in self.overlays.values()
            if tournament == tournament_id
        )
        return paid_in + added - paid_out

    async def issue_coupon(
        self,
        *,
        coupon_id: str,
        player: str,
        game: str,
        currency: str,
        value: int,
        expires_at: datetime,
    ) -> None:
        issued = (player, value)
        if coupon_id in self.issued:  # sent again: nothing more
            if self.issued[coupon_id] != issued:
                raise Duplicate(f"coupon {coupon_id} was issued with other terms")
            return
        self.issued[coupon_id] = issued
        self.coupons[coupon_id] = issued

    async def prize_fund(self, *, game: str, currency: str) -> int:
        return self.prize_funds.get((game, currency), 0)

    async def enter(
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
    ) -> None:
        if entry_id in self.entries:
            return
        fund = (game, currency)
        if coupon_id:
            self._redeem(coupon_id, entry_id, tournament_id, fund, player, buy_in, fee, rebuy)
            return
        balance = self.balances.get(player, 0)
        if balance < buy_in + fee:
            raise RuleBroken(f"{player} cannot pay {buy_in + fee}", "insufficient_funds")
        added = 0 if prize_pool is None else prize_pool - self.pool(tournament_id) - buy_in
        if added > self.prize_funds.get(fund, 0):
            raise RuleBroken("the prize fund cannot add to the pool", "insufficient_funds")
        self.balances[player] = balance - buy_in - fee
        self.entries[entry_id] = (player, buy_in + fee)
        self.buy_ins[entry_id] = (tournament_id, buy_in)
        if added:
            self.prize_funds[fund] = self.prize_funds.get(fund, 0) - added
            self.overlays[entry_id] = (tournament_id, fund, added)

    def _redeem(
        self,
        coupon_id: str,
        entry_id: str,
        tournament_id: str,
        fund: tuple[str, str],
        player: str,
        buy_in: int,
        fee: int,
        rebuy: bool,
    ) -> None:
        """The wallet's coupon entry: the player's coupon taken, the fund pays the buy-in."""
        coupon = self.coupons.get(coupon_id)
        if coupon is None or coupon[0] != player:
            raise RuleBroken(f"{player} holds no coupon {coupon_id}", "coupon_not_found")
        if rebuy or coupon[1] < buy_in + fee:
            raise RuleBroken(f"coupon {coupon_id} cannot pay this entry", "coupon_not_usable")
        if self.prize_funds.get(fund, 0) < buy_in:
            raise RuleBroken("the prize fund cannot pay the buy-in", "insufficient_funds")
        del self.coupons[coupon_id]
        self.prize_funds[fund] -= buy_in
        self.entries[entry_id] = (player, 0)
        self.buy_ins[entry_id] = (tournament_id, buy_in)
        self.redeemed[entry_id] = (coupon_id, coupon, fund, buy_in)

    async def refund_entry(self, *, entry_id: str, refund_id: str) -> None:
        if refund_id in self.refunds:
            return
        player, amount = self.entries[entry_id]
        self.balances[player] += amount
        self.refunds.add(refund_id)
        self._give_overlay_back(entry_id)

    def _give_coupon_back(self, entry_id: str) -> None:
        """An undone coupon entry: the coupon held again, the buy-in back to the fund."""
        if entry_id in self.redeemed:
            coupon_id, coupon, fund, buy_in = self.redeemed.pop(entry_id)
            self.coupons[coupon_id] = coupon
            self.prize_funds[fund] += buy_in

    def _give_overlay_back(self, entry_id: str) -> None:
        """An undone entry's overlay (or surplus) goes back where it came from, and its
        coupon to its player."""
        self._give_coupon_back(entry_id)
        if entry_id in self.overlays:
            _, fund, added = self.overlays.pop(entry_id)
            self.prize_funds[fund] += added

    async def refund_crashed(self, *, tournament_id: str, game: str, currency: str) -> int:
        refunded = 0
        for entry_id, (player, amount) in self.entries.items():
            done = {f"{entry_id}:refund", f"{entry_id}:crash"} & self.refunds
            if entry_id.startswith(f"{tournament_id}:") and not done:
                self.balances[player] += amount
                self.refunds.add(f"{entry_id}:crash")
                refunded += 1
                self._give_overlay_back(entry_id)
        self.crashed.append(tournament_id)
        return refunded

    async def pay_prizes(
        self,
        *,
        payout_id: str,
        tournament_id: str,
        game: str,
        currency: str,
        prizes: Mapping[str, int],
    ) -> None:
        if payout_id in self.payouts:
            return
        if sum(prizes.values()) != self.pool(tournament_id):
            raise RuleBroken("the final payout must empty the prize pool", "pool_not_empty")
        for player, amount in prizes.items():
            self.balances[player] = self.balances.get(player, 0) + amount
        self.payouts[payout_id] = (tournament_id, dict(prizes))
