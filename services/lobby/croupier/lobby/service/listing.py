"""Which listed tables a caller sees: the listing's filters, and private tables only for
the accounts that may sit at them."""

from __future__ import annotations

from dataclasses import dataclass

from croupier.lobby.service.records import TableRecord

__all__ = ["TableFilter"]


@dataclass(frozen=True)
class TableFilter:
    """Unset fields (empty, 0, False) do not filter."""

    game: str = ""
    variant: str = ""
    currency: str = ""
    min_stake: int = 0
    max_stake: int = 0
    min_free_seats: int = 0
    include_private: bool = False

    def shows(self, record: TableRecord, player: str) -> bool:
        table = record.table
        terms = table.terms
        if table.closed or table.free_seats() < self.min_free_seats:
            return False
        if table.private and not (self.include_private and player and table.may_sit(player)):
            return False
        return (
            (not self.game or terms.game == self.game)
            and (not self.variant or terms.variant == self.variant.lower())
            and (not self.currency or terms.currency == self.currency)
            and terms.stake >= self.min_stake
            and (not self.max_stake or terms.stake <= self.max_stake)
        )
