"""What the director decides between rounds, from a record, its points state and the
time: pure functions, the I/O is `rounds.Rounds`'s.

- Levels rise on the clock: level n is in force from the start time + (n − 1) × the
  level's duration (rules 18, 19; the core gives each round the terms in force when it
  starts, OQ 17).
- A round's result from the table host becomes the core's `EndRound` (the winner and the
  losers' negative points, which the core turns into chips: one copy of the arithmetic),
  or `CancelRound` when nobody won (the stock ran out, or rule 46 cancelled it: the fees
  go back, OQ 24).
- An eliminated player who may rebuy gets an offer open for the tournament's window
  (rule 17, OQ 6: 20-30 s); no round starts while one is open, so the window ends when
  the next round starts.
- The prizes once one player holds every chip: the payout table's prizes for the entrants
  and the pool (rule 47, OQ 27), places shared as the ranking says (rule 40, OQ 18).
- The next rounds: the players out leave their seats, the balancer closes tables and
  moves players (rule 42, OQ 22: never from a table whose round is running), and every
  idle table of two or more starts a round, its players in seat order. The first round
  whose table holds everyone left is the final table's (OQ 5; the core marks it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from croupier.tournament.core import actions as core
from croupier.tournament.core.actions import (
    Action,
    CancelRound,
    Event,
    PlayerEliminated,
    RaiseLevel,
    StartRound,
    end_round,
)
from croupier.tournament.core.payouts import prizes_for
from croupier.tournament.core.ranking import prize_split
from croupier.tournament.core.seating import Table, apply_moves, rummy_rebalance
from croupier.tournament.core.standings import apply
from croupier.tournament.core.state import Tournament, can_rebuy
from croupier.tournament.service import events as announced
from croupier.tournament.service.model import RebuyOffer, SeatAt, TournamentRecord
from croupier.tournament.service.ports import RoundTable

__all__ = [
    "RoundResult",
    "announcements",
    "apply_all",
    "levels_due",
    "next_rounds",
    "offers_for",
    "prizes_won",
    "result_action",
    "round_table",
]


@dataclass(frozen=True)
class RoundResult:
    """A round's end as the table host announced it (`croupier.table.events`)."""

    table_id: str
    winner: str | None
    """None: nobody won (the stock ran out, or the round was cancelled, rule 46)."""
    negative_points: Mapping[str, int]


def apply_all(state: Tournament, actions: Sequence[Action]) -> tuple[Tournament, tuple[Event, ...]]:
    """`actions` applied in order by the core, and every event they caused."""
    events: list[Event] = []
    for action in actions:
        state, caused = apply(state, action)
        events += caused
    return state, tuple(events)


def levels_due(record: TournamentRecord, state: Tournament, now: datetime) -> list[Action]:
    """A `RaiseLevel` per level whose time has come and which is not in force yet; none
    once the tournament is over (its last round may end after a level's time: the core
    would refuse the raise, and the prizes would never be paid)."""
    if state.finished:
        return []
    elapsed = (now - record.settings.start_time).total_seconds()
    due = 1 + int(max(elapsed, 0) // record.settings.level_seconds)
    return [RaiseLevel() for _ in range(due - state.level)]


def result_action(round_id: str, result: RoundResult) -> Action:
    if result.winner is None:
        return CancelRound(round_id)
    return end_round(round_id, result.winner, result.negative_points)


def offers_for(
    record: TournamentRecord, state: Tournament, events: Sequence[Event], now: datetime
) -> tuple[RebuyOffer, ...]:
    """The open offers after `events`: one for each player just eliminated who may rebuy."""
    terms = record.settings.rebuys
    if terms is None:
        return record.offers
    until = now + timedelta(seconds=terms.window_seconds)
    new = tuple(
        RebuyOffer(event.player, until)
        for event in events
        if isinstance(event, PlayerEliminated) and can_rebuy(state, event.player)
    )
    return record.offers + new


def next_rounds(
    record: TournamentRecord, state: Tournament
) -> tuple[tuple[SeatAt, ...], list[StartRound]]:
    """The seats after balancing and the rounds to start now (rule 42, OQ 22). The movers
    are drawn from the tournament's seed under a label of their own for each count of
    rounds started, so a replay of the tournament moves the same players and an auditor
    re-derives every draw from the record."""
    # One pass over the seats and the running rounds, not one per table: a room of
    # hundreds of tables is balanced after every round (benchmarks/rummy_tournament).
    at: dict[int, list[tuple[int, str]]] = {}
    for seat in record.seats:
        if state.entrants[seat.player].out is None:
            at.setdefault(seat.table, []).append((seat.seat, seat.player))
    playing = {player for running in state.running for player in running.table}
    size = record.settings.table_size
    tables = [
        Table(
            number,
            size,
            tuple(at[number]),
            running=any(player in playing for _, player in at[number]),
        )
        for number in sorted(at)
    ]
    if not tables:
        return (), []
    tables = list(
        apply_moves(
            tables,
            rummy_rebalance(tables, record.seating_seed, f"rummy-rebalance/{state.starts}").moves,
        )
    )
    starts: list[StartRound] = []
    for table in tables:
        if not table.running and len(table.seats) >= 2:
            round_id = f"{record.tournament_id}/round-{state.starts + len(starts) + 1}"
            starts.append(StartRound(round_id, table.players))
    balanced = tuple(
        SeatAt(table.number, seat, player) for table in tables for seat, player in table.seats
    )
    return balanced, starts


def round_table(record: TournamentRecord, state: Tournament, round_id: str) -> RoundTable:
    """The host's table for a running round: its terms and each player's chips before the
    round's fee (in hand + paid; the host's table takes the fee itself)."""
    running = next(r for r in state.running if r.round_id == round_id)
    settings = record.settings
    return RoundTable(
        round_id=round_id,
        variant=settings.variant,
        round_fee=running.terms.round_fee,
        chip_ratio=running.terms.chip_ratio,
        winner_risk_limit=settings.winner_risk_limit,
        turn_seconds=settings.turn_seconds,
        stacks=tuple(
            (name, state.entrants[name].chips + paid)
            for name, paid in zip(running.table, running.paid, strict=True)
        ),
    )


def prizes_won(record: TournamentRecord, state: Tournament) -> dict[str, int] | None:
    """Every entrant's prize once the tournament is over (0 for most), else None."""
    if not state.finished:
        return None
    places = prizes_for(record.settings.payouts, len(record.players()), record.prize_pool())
    return prize_split(state, places)


def announcements(
    state: Tournament, events: Sequence[Event], offers: Sequence[RebuyOffer] = ()
) -> list[announced.Event]:
    """What the director announces of the core's `events` (`state`: the state after them;
    `offers`: the rebuy offers open now). The end is announced with its prizes, apart."""
    until = {offer.player: offer.until for offer in offers}
    said: list[announced.Event] = []
    for event in events:
        if isinstance(event, core.RoundStarted):
            said.append(
                announced.RoundStarted(
                    event.round_id,
                    event.table,
                    event.fees,
                    event.round_fee,
                    event.chip_ratio,
                    final_table=False,
                )
            )
        elif isinstance(event, core.FinalTableStarted):
            last = said[-1]
            assert isinstance(last, announced.RoundStarted)  # the core says it right after
            said[-1] = replace(last, final_table=True)
        elif isinstance(event, core.RoundSettled):
            said.append(
                announced.RoundEnded(
                    event.round_id,
                    event.winner,
                    event.pot,
                    tuple(sorted(event.payments)),
                    tuple(sorted(event.points)),
                )
            )
        elif isinstance(event, core.RoundCancelled):
            said.append(announced.RoundEnded(event.round_id, "", 0, (), ()))
        elif isinstance(event, core.LevelRaised):
            said.append(announced.LevelRaised(event.level, event.bonus_to))
        elif isinstance(event, PlayerEliminated):
            said.append(announced.PlayerEliminated(event.player, until.get(event.player)))
        elif isinstance(event, core.RebuyAccepted):
            said.append(announced.PlayerRebought(event.player, state.entrants[event.player].rebuys))
    return said
