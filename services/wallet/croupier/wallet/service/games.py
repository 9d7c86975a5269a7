"""`GameMoney`: every money helper for games and tournaments, on one ledger service."""

from __future__ import annotations

from croupier.wallet.service.accounts import CrashRefund
from croupier.wallet.service.seats import SeatMoney
from croupier.wallet.service.tables import TableSettlements
from croupier.wallet.service.tournaments import TournamentMoney

__all__ = ["CrashRefund", "GameMoney"]


class GameMoney(SeatMoney, TableSettlements, TournamentMoney):
    """Table and tournament helpers together (what the gRPC API and the consumer use)."""
