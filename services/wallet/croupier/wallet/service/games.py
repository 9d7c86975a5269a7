"""`GameMoney`: every money helper for games and tournaments, on one ledger service."""

from __future__ import annotations

from croupier.wallet.service.accounts import CrashRefund
from croupier.wallet.service.tables import TableMoney
from croupier.wallet.service.tournaments import TournamentMoney

__all__ = ["CrashRefund", "GameMoney"]


class GameMoney(TableMoney, TournamentMoney):
    """Table and tournament helpers together (what the gRPC API and the consumer use)."""
