"""Who may enter a poker tournament, and when (issue 25, rules 52-54, 59).

Before the start: a Sit & Go or Spin takes registrations until full (then the director
calls `poker_tournament.start`, rule 52); a scheduled tournament from
`registration_opens_at` until `max_players`. After the start (scheduled only): late
entries and re-entries (`enter`) while late registration is open, i.e. until level
`late_registration_level` ends (its following break is closed); a re-entry is for a
player who is out, when `max_entries` allows another entry.

A refusal is a `Refused` with its reason (reused by the director's error table):
`registration_not_open`, `already_registered`, `tournament_full`, `bots_not_allowed`,
`late_registration_closed`, `reentry_not_allowed`, `reentry_limit`, `still_playing`,
`finished`.
"""

from __future__ import annotations

from collections.abc import Sequence

from croupier.game.fairness import FairStream
from croupier.game.limits import echo
from croupier.tournament.core.balancing import newcomer_seat
from croupier.tournament.core.blinds import level_at
from croupier.tournament.core.errors import AlreadyThere, NotAllowed, Refused
from croupier.tournament.core.poker_advance import advance
from croupier.tournament.core.poker_config import PokerConfig
from croupier.tournament.core.poker_decisions import Decision, Entered
from croupier.tournament.core.poker_state import (
    PokerTournament,
    Step,
    check_clock,
    count_paid,
    count_sizes,
    draw_seed,
    evolve,
)
from croupier.tournament.core.seating import Table, check_names, seat_player

__all__ = [
    "enter",
    "entry_refusal",
    "is_full",
    "late_registration_open",
    "registration_refusal",
]


def is_full(config: PokerConfig, registered: Sequence[str]) -> bool:
    """Every seat taken: a Sit & Go or Spin starts now (rule 52)."""
    return len(registered) >= config.max_players


def registration_refusal(
    config: PokerConfig, registered: Sequence[str], player: str, now: int, *, bot: bool = False
) -> Refused | None:
    """Why `player` may not register before the start (None: he may); `bot` for a bot."""
    check_names([player])
    now = check_clock(now)
    if config.scheduled and now < config.registration_opens_at:
        return NotAllowed(
            "registration_not_open", f"registration opens at {config.registration_opens_at}"
        )
    if player in registered:
        return AlreadyThere("already_registered", f"{echo(player)} is already registered")
    if is_full(config, registered):
        return NotAllowed("tournament_full", f"all {config.max_players} places are taken")
    if bot and not config.bots_allowed:
        return NotAllowed("bots_not_allowed", "this tournament does not take bots")
    return None


def late_registration_open(state: PokerTournament, now: int) -> bool:
    """Entries are taken at `now`: a scheduled tournament before the end of level
    `late_registration_level` (module docstring)."""
    config = state.config
    if not config.scheduled or state.finished or now < state.started_at:
        return False
    clock = level_at(config.structure, now - state.started_at)
    return clock.level_index < config.late_registration_level


def entry_refusal(state: PokerTournament, player: str, now: int) -> Refused | None:
    """Why `player` may not enter (late) or re-enter now (None: he may)."""
    check_names([player])
    now = check_clock(now)
    config = state.config
    if state.finished:
        return NotAllowed("finished", "the tournament is over")
    if not late_registration_open(state, now):
        return NotAllowed(
            "late_registration_closed",
            f"late registration closed at the end of level {config.late_registration_level}"
            if config.late_registration_level
            else "this tournament takes no entries after its start",
        )
    entries = state.entries.get(player, 0)
    if entries == 0:
        if len(state.entries) >= config.max_players:
            return NotAllowed("tournament_full", f"all {config.max_players} places are taken")
        return None
    if state.chips[player] > 0:
        return NotAllowed("still_playing", f"{echo(player)} is still in with chips")
    if config.max_entries == 1:
        return NotAllowed("reentry_not_allowed", "this tournament is a freezeout: no re-entry")
    if entries >= config.max_entries:
        return NotAllowed(
            "reentry_limit", f"{echo(player)} has entered the {config.max_entries} times allowed"
        )
    return None


def enter(state: PokerTournament, player: str, now: int) -> Step:
    """A late entry or re-entry: the starting stack, `Entered` at the shortest table (a
    new one when all are full) in a drawn seat where he is dealt in at once if one is
    free (`balancing.newcomer_seat`), then what follows (moves, deals). Refused
    (`entry_refusal`) with the state unchanged."""
    refusal = entry_refusal(state, player, now)
    if refusal is not None:
        raise refusal
    config = state.config
    open_tables = [t for t in state.seated_tables() if len(t.seats) < config.table_size]
    tables = list(state.tables)
    seated = state.seated
    if open_tables:
        target = min(open_tables, key=lambda t: (len(t.seats), t.number))
    else:
        target = Table(len(tables) + 1, config.table_size)
        tables.append(target)
        seated = (*seated, target.number)
    label = f"entry-{state.draws}"
    seat = newcomer_seat(target, FairStream(draw_seed(state, label), label))
    tables[target.number - 1] = seat_player(target, seat, player)
    entry = state.entries.get(player, 0) + 1
    order = state.order if player in state.order else {**state.order, player: len(state.order)}
    out = tuple(g for g in (tuple(p for p in group if p != player) for group in state.out) if g)
    state = evolve(
        state,
        tables=tuple(tables),
        seated=seated,
        table_sizes=count_sizes(tables, config.table_size),
        chips=state.chips.entered(order, player, config.starting_stack),
        entries={**state.entries, player: entry},
        order=order,
        out=out,
        draws=state.draws + 1,
        alive=state.alive + 1,
    )
    state = evolve(state, paid=count_paid(state))
    decisions: list[Decision] = [Entered(player, target.number, seat, entry)]
    return advance(state, now, decisions)
