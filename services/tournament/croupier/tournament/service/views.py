"""What the lobby and the standings show of a tournament, read from its record and the
points core (ranking, prizes, payout table)."""

from __future__ import annotations

from dataclasses import dataclass

from croupier.game.fairness import commitment
from croupier.tournament.core import ranking
from croupier.tournament.core.payouts import prizes_for
from croupier.tournament.core.poker_tournament import paid_prizes
from croupier.tournament.core.poker_tournament import standings as poker_ranking
from croupier.tournament.service.model import Status, TournamentRecord
from croupier.tournament.service.plan import prizes_won
from croupier.tournament.service.poker_play import poker_state

__all__ = ["LobbyView", "StandingLine", "lobby_view", "standings"]

TOP_PRIZES = 3
"""The lobby shows the first three prizes; the full table is in the settings (rule 47)."""


@dataclass(frozen=True)
class StandingLine:
    player: str
    rank: int
    chips: int
    points: int
    eliminated: bool
    rebuys: int
    prize: int


@dataclass(frozen=True)
class LobbyView:
    record: TournamentRecord
    current_level: int
    ranking: tuple[StandingLine, ...]
    prize_pool: int
    top_prizes: tuple[int, ...]
    seed_commitment: str
    """Published from creation: the seed shown once started must hash to it."""
    spin_multiplier: int
    """A started Spin's multiplier (0 otherwise): re-derived from its seed."""


def _poker_standings(record: TournamentRecord) -> tuple[tuple[StandingLine, ...], bool]:
    """The poker core's ranking: players in by chips, then those out by place; the prizes
    (places shared as ranked, prizes pooled) once finished. `rebuys`: re-entries."""
    state = poker_state(record)
    if state is None:
        return (), False
    places = poker_ranking(state)
    won = ranking.split_prizes(places, paid_prizes(state)) if state.finished else {}
    lines = tuple(
        StandingLine(
            player=name,
            rank=place.place,
            chips=state.chips[name],
            points=0,
            eliminated=state.chips[name] == 0,
            rebuys=state.entries[name] - 1,
            prize=won.get(name, 0),
        )
        for place in places
        for name in place.players
    )
    return lines, state.finished


def standings(record: TournamentRecord) -> tuple[tuple[StandingLine, ...], bool]:
    """Every entrant, best place first, and whether the ranking is final (rules 35-41)."""
    if record.settings.poker is not None:
        return _poker_standings(record)
    state = record.standings()
    if state is None:
        return (), False
    won = prizes_won(record, state) or {}
    lines = tuple(
        StandingLine(
            player=name,
            rank=place.place,
            chips=state.entrants[name].chips,
            points=state.entrants[name].points,
            eliminated=state.entrants[name].out is not None,
            rebuys=state.entrants[name].rebuys,
            prize=won.get(name, 0),
        )
        for place in ranking.ranking(state)
        for name in place.players
    )
    return lines, state.finished


def lobby_view(record: TournamentRecord) -> LobbyView:
    state = record.standings()
    refunded = record.status in (Status.CANCELLED, Status.VOIDED)
    pool = 0 if refunded else record.prize_pool()
    prizes = prizes_for(record.settings.payouts, len(record.players()), pool)
    poker = poker_state(record) if record.settings.poker is not None else None
    if poker is not None:  # the poker core's prizes (a Spin's: by its drawn multiplier)
        prizes = paid_prizes(poker)
        if poker.spin is not None and not refunded:
            pool = sum(prizes)  # the wallet's prize fund brought the pool to them
    return LobbyView(
        record=record,
        current_level=1 if state is None else state.level,
        ranking=standings(record)[0],
        prize_pool=pool,
        top_prizes=prizes[:TOP_PRIZES],
        seed_commitment=commitment(record.seating_seed) if record.seating_seed else "",
        spin_multiplier=poker.spin.multiplier if poker and poker.spin else 0,
    )
