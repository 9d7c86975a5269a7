"""The immutable state of a points tournament and the questions a director asks of it.

A `Tournament` is replaced, never changed: `standings.apply` returns a new one. Chips are
integers; a player's `chips` are what he holds in hand, not what sits in a running round's
pot or a rebuy not credited yet. Rule numbers: docs/rules/rummy-tournaments.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from croupier.game.limits import echo
from croupier.tournament.core.errors import InvalidInput, NotAllowed, NotFound, Refused
from croupier.tournament.core.options import Level, Options

__all__ = [
    "Entrant",
    "Exit",
    "RunningRound",
    "Tournament",
    "can_rebuy",
    "entrant",
    "idle_players",
    "new_tournament",
    "players_in",
    "rebuy_refusal",
    "round_of",
]


@dataclass(frozen=True)
class Exit:
    """How a player went out with 0 chips at the end of a round (rule 9)."""

    round_end: int
    """The ordinal of the `round_end` that put him out: players out together tie (rule 40)."""
    at_final_table: bool
    """The round he went out in started at or after the final table's first round (rule 38)."""
    starts_seen: int
    """Rounds started before he went out: his rebuy window (rule 17) ends when one more starts."""


@dataclass(frozen=True)
class Entrant:
    name: str
    chips: int
    points: int = 0
    rebuys: int = 0
    """Rebuys accepted so far, those not credited yet included (rule 13)."""
    pending: int = 0
    """Rebuys accepted during his running round, credited when it ends (OQ 3)."""
    out: Exit | None = None
    disqualified: bool = False
    """Out by an operator's decision (rule 49): ranked last, no prize, no rebuy; his chips
    stay with him, out of play."""


@dataclass(frozen=True)
class RunningRound:
    round_id: str
    table: tuple[str, ...]
    paid: tuple[int, ...]
    """What each player of `table` paid into the pot (rule 20); the pot is their sum."""
    terms: Level
    """The fee and ratio of the level in force when the round started (rule 19)."""
    ordinal: int
    """How many rounds started before this one."""


@dataclass(frozen=True)
class Tournament:
    options: Options
    entrants: Mapping[str, Entrant]
    """Every registered player, in registration order."""
    level: int = 1
    running: tuple[RunningRound, ...] = ()
    used_round_ids: frozenset[str] = frozenset()
    starts: int = 0
    ends: int = 0
    final_table: tuple[str, ...] | None = None
    final_table_start: int | None = None
    """The ordinal of the final table's first round; from then on no rebuy (rule 15)."""
    eliminated: tuple[str, ...] = ()
    """Players out now, in the order they went out (a player who rebought is not listed)."""
    finished: bool = False


def new_tournament(options: Options, players: Sequence[str]) -> Tournament:
    """A tournament at level 1 with `options.starting_chips` for each player (rules 8, 18)."""
    if len(players) < 2:
        raise InvalidInput("too_few_players", "a tournament needs at least 2 players")
    if not all(isinstance(name, str) and name for name in players):
        raise InvalidInput("invalid_player", "player names must be non-empty strings")
    if len(set(players)) != len(players):
        raise InvalidInput("duplicate_player", "a player is registered twice")
    options.check_players(len(players))
    return Tournament(
        options=options,
        entrants={name: Entrant(name, options.starting_chips) for name in players},
    )


def entrant(state: Tournament, name: str) -> Entrant:
    """The registered player `name`, or `NotFound`."""
    found = state.entrants.get(name)
    if found is None:
        raise NotFound("unknown_player", f"{echo(name)} is not registered in this tournament")
    return found


def players_in(state: Tournament) -> tuple[str, ...]:
    """Players not eliminated (chips in hand or in a running round's pot), by registration."""
    return tuple(name for name, player in state.entrants.items() if player.out is None)


def round_of(state: Tournament, name: str) -> RunningRound | None:
    """The running round `name` plays in, if any."""
    return next((r for r in state.running if name in r.table), None)


def idle_players(state: Tournament) -> tuple[str, ...]:
    """Players still in and in no running round: those a director may seat now."""
    return tuple(name for name in players_in(state) if round_of(state, name) is None)


def rebuy_refusal(state: Tournament, name: str) -> Refused | None:
    """Why `name` may not rebuy now, or None when he may (rules 11, 13-17, OQ 3, OQ 6).

    A player still in may rebuy only while chips in hand + the fee he paid into his
    running round + the starting stacks of the rebuys he bought during it (not credited
    until it ends) are at most the starting stack (rule 16); an eliminated player only
    inside his window (rule 17). Raises `NotFound` for a player who is not registered.
    """
    if state.finished:
        return NotAllowed("tournament_over", "the tournament is over")
    player = entrant(state, name)
    if player.disqualified:
        return NotAllowed("disqualified", f"{echo(name)} was disqualified (rule 49)")
    policy = state.options.rebuys
    if policy is None:
        return NotAllowed("no_rebuys", "this tournament has no rebuys")
    if player.rebuys >= policy.max_per_player:
        return NotAllowed(
            "rebuy_limit", f"{echo(name)} has used all {policy.max_per_player} rebuys"
        )
    if state.level > policy.max_level:
        return NotAllowed(
            "rebuy_level",
            f"rebuys end after level {policy.max_level}; the tournament is at level {state.level}",
        )
    if state.final_table_start is not None:
        return NotAllowed("final_table", "no rebuys once the final table has started")
    start = state.options.starting_chips
    if player.out is not None:
        if player.out.starts_seen != state.starts:
            return NotAllowed(
                "rebuy_window_closed",
                f"{echo(name)} could rebuy only before the next round started",
            )
        return None
    # Rule 16, OQ 3: the chips he will hold once his round ends count, so the fee he paid
    # into it and the rebuys bought during it (credited at its end) count with his chips
    # in hand; a second rebuy in one round cannot take him above a top-up to the start.
    running = round_of(state, name)
    paid = 0 if running is None else running.paid[running.table.index(name)]
    owed = player.pending * start
    held = player.chips + paid + owed
    if held > start:
        return NotAllowed(
            "stack_above_start",
            f"{echo(name)} may rebuy only while chips in hand + the fee paid into the running "
            f"round + rebuys not yet credited ({player.chips} + {paid} + {owed} = {held}) are "
            f"at most the starting {start}",
        )
    return None


def can_rebuy(state: Tournament, name: str) -> bool:
    """Whether a `Rebuy(name)` would be accepted now (`NotFound` if not registered)."""
    return rebuy_refusal(state, name) is None
