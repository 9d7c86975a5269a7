"""Rule 49: an operator disqualifies a player for a breach of the chat rules or terms of
use. Rummy tournaments only (seed 000; poker's rules have their own policy): the core
(`standings.apply`, `Disqualify`) puts him out at once for good, ranked last and without
a prize (a round he plays finishes at its table and settles as played); his rebuy offer,
if any, is withdrawn; the director then plays on (the last player left wins, and the
prizes are paid as the ranking says).
"""

from __future__ import annotations

from dataclasses import replace

from croupier.tournament.core.actions import Disqualify
from croupier.tournament.core.errors import InvalidInput, NotAllowed
from croupier.tournament.core.standings import apply
from croupier.tournament.service.events import Disqualified
from croupier.tournament.service.model import Status, check_text
from croupier.tournament.service.plan import announcements
from croupier.tournament.service.rounds import Rounds
from croupier.tournament.service.store import Store

__all__ = ["disqualify"]


async def disqualify(
    store: Store, rounds: Rounds, tournament_id: str, player: str, reason: str
) -> None:
    """Disqualify `player` (module docstring); refusals leave everything as it was."""
    if not check_text(reason, "reason"):
        raise InvalidInput("invalid_text", "reason is required: say why, for the audit trail")
    async with store.lock(tournament_id):
        record = await store.load(tournament_id)
        if record.settings.poker is not None:
            raise NotAllowed(
                "disqualify_unsupported", "a poker tournament has no disqualification call"
            )
        state = record.standings()
        if record.status is not Status.RUNNING or state is None:
            raise NotAllowed(
                "not_running",
                f"only a running tournament's players are disqualified; this one is "
                f"{record.status.value} (unregister or void it instead)",
            )
        action = Disqualify(player)
        after, events = apply(state, action)  # the core's refusals, nothing saved
        offers = tuple(offer for offer in record.offers if offer.player != player)
        changed = replace(record, actions=(*record.actions, action), offers=offers)
        await store.save(changed, Disqualified(player, reason), *announcements(after, events))
    await rounds.advance(tournament_id)  # the next rounds, or the end and its prizes
