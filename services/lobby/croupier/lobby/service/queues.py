"""Sit & Go and Spin queues (issue #19): each queue is an operator's tournament template
(`QueueTemplate`) that the lobby fills again and again on the tournament director.

A queue has one tournament filling at a time, its `sequence`-th. Joining registers the
player there through the director (which takes buy-in and fee through the wallet and
starts a Sit & Go or Spin the moment it is full), then the queue moves on to the next
one. The director holds the truth about who is registered; the lobby keeps the queue's
position (sequence and tournament id) and the count of its players (what `ListQueues`
shows, counted again on each join, leave and event about that tournament) in its store,
so:

- the tournament of a position is created with the request key `lobby-queue:<id>:<n>`:
  two lobby replicas (or a retry after a crash) creating the same one get the same id;
- a position whose tournament refuses registration because it filled or started (another
  replica's join, a crash before the lobby moved on) is skipped, and the join goes on to
  the next: a stale position costs one refused call, never a player in two tournaments;
- a tournament not full when its start time comes (`open_for` after its creation) is
  cancelled by the director with every entry refunded (a Sit & Go never starts short).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from croupier.game import RuleBroken
from croupier.game.limits import echo
from croupier.kit.errors import Unavailable
from croupier.lobby.core.errors import NotFound
from croupier.lobby.core.policy import check_id, check_player, check_stake_allowed
from croupier.lobby.service.ports import Clock, Director, QueueTemplate, Repository

__all__ = ["FILLED", "Joined", "QueueState", "TournamentQueues"]

FILLED = frozenset({"tournament_full", "registration_closed"})
"""The director's reasons for refusing a registration because the tournament is past
filling: the queue moves on to its next tournament."""
_TRIES = 5
"""Positions a join skips before it gives up (each skip is another replica's progress)."""


@dataclass(frozen=True)
class QueueState:
    """A queue as the listing shows it: its template and the tournament filling now."""

    template: QueueTemplate
    tournament_id: str
    waiting: int


@dataclass(frozen=True)
class Joined:
    tournament_id: str
    waiting: int
    players: int


class TournamentQueues:
    def __init__(
        self,
        *,
        repository: Repository,
        director: Director | None,
        templates: tuple[QueueTemplate, ...],
        clock: Clock,
        open_for: timedelta = timedelta(hours=24),
    ) -> None:
        """Without a director (a lobby deployed without tournaments) there are no queues."""
        self._repository = repository
        self._director = director
        self._templates = {t.queue_id: t for t in templates} if director else {}
        self._clock = clock
        self._open_for = open_for

    def _template(self, queue_id: str) -> QueueTemplate:
        check_id(queue_id, "queue_id")
        template = self._templates.get(queue_id)
        if template is None:
            known = ", ".join(sorted(self._templates)) or "none"
            raise NotFound("unknown_queue", f"no queue {echo(queue_id)}; queues: {known}")
        return template

    def _the_director(self) -> Director:
        # Reached only for a known queue, and there are queues only with a director.
        assert self._director is not None
        return self._director

    async def listed(self) -> list[QueueState]:
        states = []
        for template in self._templates.values():
            _, tournament_id = await self._repository.queue_position(template.queue_id)
            waiting = await self._repository.queue_waiting(template.queue_id)
            states.append(QueueState(template, tournament_id, waiting if tournament_id else 0))
        return states

    async def join(self, player: str, queue_id: str) -> Joined:
        """Register `player` in the queue's filling tournament (module docstring)."""
        check_player(player)
        template = self._template(queue_id)
        limits = await self._repository.limits(player)
        check_stake_allowed(player, limits, template.currency, template.buy_in)
        sequence, tournament_id = await self._repository.queue_position(queue_id)
        for _ in range(_TRIES):
            if not tournament_id:
                tournament_id = await self._the_director().create(
                    request_key=f"lobby-queue:{queue_id}:{sequence}",
                    template=template,
                    start_time=self._clock() + self._open_for,
                )
                await self._repository.move_queue(queue_id, sequence, tournament_id)
            try:
                waiting = await self._the_director().register(tournament_id, player)
            except RuleBroken as refused:  # the director's refusal, passed on
                if refused.reason not in FILLED:
                    raise
                sequence, tournament_id = await self._repository.move_queue(
                    queue_id, sequence + 1, ""
                )
                continue
            await self._repository.set_queue_waiting(tournament_id, waiting)
            if waiting >= template.players:  # it started: the next join fills a new one
                await self._repository.move_queue(queue_id, sequence + 1, "")
            return Joined(tournament_id, waiting, template.players)
        raise Unavailable(f"queue {queue_id} is filling too fast; retry")

    async def leave(self, player: str, queue_id: str) -> None:
        """Unregister `player` from the queue's filling tournament (refunded in full)."""
        check_player(player)
        self._template(queue_id)
        _, tournament_id = await self._repository.queue_position(queue_id)
        if not tournament_id:
            raise NotFound("not_queued", f"{echo(player)} is not in queue {echo(queue_id)}")
        await self._the_director().unregister(tournament_id, player)
        await self.recount(tournament_id)

    async def recount(self, tournament_id: str) -> None:
        """Count the players of `tournament_id` again, if a queue is filling it: after a
        leave, and on the director's events about it (registrations made elsewhere, a
        start, a cancel: `entrypoints.tournament_events`)."""
        if self._director is not None and await self._repository.fills(tournament_id):
            waiting = await self._director.registered(tournament_id)
            await self._repository.set_queue_waiting(tournament_id, waiting)
