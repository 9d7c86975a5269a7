"""A tournament that cannot continue because its stored state cannot be read back (rule
44, OQ 28): voided, its buy-ins and rebuys refunded through the wallet's crash refund,
and counted in the crash-refund metric. An operator's `VoidTournament` on it does the
same, and so does the director when it meets one while advancing the running
tournaments (a restart included), so that one bad record never stops the others.
"""

from __future__ import annotations

import logging

from croupier.tournament.adapters import metrics
from croupier.tournament.core.errors import NotAllowed
from croupier.tournament.service.events import Recorded, Voided
from croupier.tournament.service.ports import Unreadable, Wallet
from croupier.tournament.service.store import Store

__all__ = ["UNREADABLE_REASON", "void_unreadable"]

UNREADABLE_REASON = "its stored state could not be read back"
_log = logging.getLogger(__name__)


async def void_unreadable(
    store: Store, wallet: Wallet, unreadable: Unreadable, reason: str = UNREADABLE_REASON
) -> int:
    """Void and refund `unreadable` (registering or running); how many refunds. Without
    readable settings the wallet cannot be told the game and currency: refused, for an
    operator to settle by hand."""
    if unreadable.status not in ("registering", "running"):
        raise NotAllowed("not_voidable", f"the tournament is {unreadable.status}, nothing to void")
    if unreadable.game_currency is None:
        raise NotAllowed(
            "tournament_unreadable",
            f"tournament {unreadable.tournament_id}'s settings cannot be read: its refunds "
            "need an operator",
        )
    _log.error("tournament %s unreadable: %s", unreadable.tournament_id, unreadable.why)
    game, currency = unreadable.game_currency
    refunds = await wallet.refund_crashed(
        tournament_id=unreadable.tournament_id, game=game, currency=currency
    )
    voided = Recorded(unreadable.tournament_id, 0, store.clock(), Voided(reason))
    await store.void_unreadable(unreadable, voided)
    metrics.CRASH_REFUNDS.labels(game).inc()
    return refunds
