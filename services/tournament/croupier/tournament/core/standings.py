"""The tournament's state machine: `apply(state, action) -> (state, events)`.

Each action is checked in full before a new state is built, so a refusal (`Refused`)
leaves the state as it was. Rule numbers: docs/rules/rummy-tournaments.md.

- `StartRound`: every player at the table pays the fee of the level in force (rules 19,
  20); the first round whose table holds every player still in starts the final table
  (OQ 4, OQ 5), and any round start closes the rebuy window of players already out
  (rule 17, OQ 6).
- `EndRound`: payments and points (rules 21-23, 33, `croupier.game.points`), then the
  rebuys accepted during the round are credited (OQ 3), then every player at the table
  left with 0 chips is out (rule 9); when one player is left he holds every chip and the
  tournament is over (rule 2).
- `CancelRound`: every fee goes back, no payments and no points (rule 46, OQ 24); pending
  rebuys are credited.
- `RaiseLevel`: the next level (rule 18), +2 to every player still in (rule 34, OQ 17).
- `Disqualify`: an operator's decision (rule 49): he is out at once, for good (no
  rebuy), ranked last and wins nothing; his chips stay with him, out of play. A round he
  plays goes on at its table and settles as played (his chips moving, still out of
  play). The last player left wins.
- `Rebuy`: refused as `state.rebuy_refusal` says; an eliminated player gets the starting
  stack at once and is back in (rule 17), a player in a running round gets it when that
  round ends (rule 16, OQ 3), any other player at once (rule 12).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from croupier.game.limits import echo
from croupier.game.points import LEVEL_BONUS, entry_fees, payments, round_points
from croupier.tournament.core.actions import (
    Action,
    CancelRound,
    Disqualify,
    EndRound,
    Event,
    FinalTableStarted,
    LevelRaised,
    PlayerDisqualified,
    PlayerEliminated,
    RaiseLevel,
    Rebuy,
    RebuyAccepted,
    RebuyCredited,
    RoundCancelled,
    RoundSettled,
    RoundStarted,
    StartRound,
    TournamentFinished,
)
from croupier.tournament.core.errors import InvalidInput, NotAllowed, NotFound
from croupier.tournament.core.state import (
    Entrant,
    Exit,
    RunningRound,
    Tournament,
    entrant,
    players_in,
    rebuy_refusal,
    round_of,
)

__all__ = ["apply"]


def apply(state: Tournament, action: Action) -> tuple[Tournament, tuple[Event, ...]]:
    """The state after `action` and what happened, or `Refused` with `state` untouched."""
    if state.finished:
        raise NotAllowed("tournament_over", "the tournament is over; no action is accepted")
    if isinstance(action, StartRound):
        return _start(state, action)
    if isinstance(action, EndRound):
        return _end(state, action)
    if isinstance(action, CancelRound):
        return _cancel(state, action)
    if isinstance(action, RaiseLevel):
        return _raise_level(state)
    if isinstance(action, Disqualify):
        return _disqualify(state, action)
    return _rebuy(state, action)


def _disqualify(state: Tournament, action: Disqualify) -> tuple[Tournament, tuple[Event, ...]]:
    name = action.player
    player = entrant(state, name)
    if player.disqualified:
        raise NotAllowed("already_disqualified", f"{echo(name)} was disqualified already")
    exit_ = player.out or Exit(round_end=state.ends, at_final_table=False, starts_seen=-1)
    entrants = {**state.entrants, name: dataclasses.replace(player, out=exit_, disqualified=True)}
    events: list[Event] = [PlayerDisqualified(name)]
    left = [other for other, p in entrants.items() if p.out is None]
    if len(left) == 1:
        events.append(TournamentFinished(left[0]))
    eliminated = state.eliminated if player.out else (*state.eliminated, name)
    new = dataclasses.replace(
        state, entrants=entrants, eliminated=eliminated, finished=len(left) == 1
    )
    return new, tuple(events)


def _start(state: Tournament, action: StartRound) -> tuple[Tournament, tuple[Event, ...]]:
    round_id, table = action.round_id, action.table
    if not isinstance(round_id, str) or not round_id:
        raise InvalidInput("invalid_round", "a round needs a non-empty id")
    if round_id in state.used_round_ids:
        raise NotAllowed("round_id_used", f"round {echo(round_id)} was already started")
    size = state.options.table_size
    if not 2 <= len(table) <= size:
        raise InvalidInput("table_size", f"a table seats 2 to {size} players, got {len(table)}")
    if len(set(table)) != len(table):
        raise InvalidInput("duplicate_player", "a player is seated twice at the table")
    for name in table:
        if entrant(state, name).out is not None:
            raise NotAllowed("player_eliminated", f"{echo(name)} is out of the tournament")
        if round_of(state, name) is not None:
            raise NotAllowed("player_busy", f"{echo(name)} is already playing a round")
    terms = state.options.terms(state.level)
    fees = entry_fees([state.entrants[name].chips for name in table], terms.round_fee)
    entrants = dict(state.entrants)
    for name, fee in zip(table, fees, strict=True):
        entrants[name] = dataclasses.replace(entrants[name], chips=entrants[name].chips - fee)
    started = RunningRound(round_id, table, fees, terms, state.starts)
    events: list[Event] = [RoundStarted(round_id, table, fees, terms.round_fee, terms.chip_ratio)]
    final = state.final_table is None and set(table) == set(players_in(state))
    if final:
        events.append(FinalTableStarted(table))
    new = dataclasses.replace(
        state,
        entrants=entrants,
        running=(*state.running, started),
        used_round_ids=state.used_round_ids | {round_id},
        starts=state.starts + 1,
        final_table=table if final else state.final_table,
        final_table_start=state.starts if final else state.final_table_start,
    )
    return new, tuple(events)


def _running(state: Tournament, round_id: str) -> RunningRound:
    found = next((r for r in state.running if r.round_id == round_id), None)
    if found is None:
        if round_id in state.used_round_ids:
            raise NotAllowed("round_finished", f"round {echo(round_id)} is already over")
        raise NotFound("unknown_round", f"no round {echo(round_id)} was started")
    return found


def _end(state: Tournament, action: EndRound) -> tuple[Tournament, tuple[Event, ...]]:
    running = _running(state, action.round_id)
    winner = action.winner
    if winner not in running.table:
        raise InvalidInput(
            "winner_not_at_table", f"{echo(winner)} does not play round {echo(running.round_id)}"
        )
    losers = [name for name, _ in action.negative_points]
    expected = [name for name in running.table if name != winner]
    if len(losers) != len(set(losers)) or set(losers) != set(expected):
        raise InvalidInput(
            "wrong_losers", "negative points must name every other player at the table once"
        )
    # Seat order, so events and the limits (OQ 15) read the same whatever order was sent.
    given = dict(action.negative_points)
    negative = [(name, given[name]) for name in expected]
    entrants = dict(state.entrants)
    flag = state.options.winner_risk_limit
    paid = payments(
        negative,
        running.terms.chip_ratio,
        {name: entrants[name].chips for name in expected},
        entrants[winner].chips if flag else None,
    )
    pot = sum(running.paid)
    points = round_points(winner, negative)
    for name, amount in paid:
        entrants[name] = dataclasses.replace(entrants[name], chips=entrants[name].chips - amount)
    gain = pot + sum(amount for _, amount in paid)
    entrants[winner] = dataclasses.replace(entrants[winner], chips=entrants[winner].chips + gain)
    for name, earned in points:
        entrants[name] = dataclasses.replace(entrants[name], points=entrants[name].points + earned)
    events: list[Event] = [RoundSettled(running.round_id, winner, pot, paid, points)]
    events += _credit_pending(state, entrants, running.table)
    at_final = state.final_table_start is not None and running.ordinal >= state.final_table_start
    ends = state.ends + 1
    out = [name for name in running.table if entrants[name].chips == 0 and not entrants[name].out]
    for name in out:
        exit_ = Exit(round_end=ends, at_final_table=at_final, starts_seen=state.starts)
        entrants[name] = dataclasses.replace(entrants[name], out=exit_)
        events.append(PlayerEliminated(name, at_final))
    left = [name for name, player in entrants.items() if player.out is None]
    if len(left) == 1:
        events.append(TournamentFinished(left[0]))
    new = dataclasses.replace(
        state,
        entrants=entrants,
        running=tuple(r for r in state.running if r is not running),
        ends=ends,
        eliminated=(*state.eliminated, *out),
        finished=len(left) == 1,
    )
    return new, tuple(events)


def _credit_pending(
    state: Tournament, entrants: dict[str, Entrant], table: Sequence[str]
) -> list[Event]:
    """Credit the rebuys accepted during a round that just ended (OQ 3), in `entrants`."""
    events: list[Event] = []
    for name in table:
        player = entrants[name]
        if player.pending:
            chips = player.pending * state.options.starting_chips
            entrants[name] = dataclasses.replace(player, chips=player.chips + chips, pending=0)
            events.append(RebuyCredited(name, chips))
    return events


def _cancel(state: Tournament, action: CancelRound) -> tuple[Tournament, tuple[Event, ...]]:
    running = _running(state, action.round_id)
    entrants = dict(state.entrants)
    refunds = tuple(zip(running.table, running.paid, strict=True))
    for name, fee in refunds:
        entrants[name] = dataclasses.replace(entrants[name], chips=entrants[name].chips + fee)
    events: list[Event] = [RoundCancelled(running.round_id, refunds)]
    events += _credit_pending(state, entrants, running.table)
    new = dataclasses.replace(
        state, entrants=entrants, running=tuple(r for r in state.running if r is not running)
    )
    return new, tuple(events)


def _raise_level(state: Tournament) -> tuple[Tournament, tuple[Event, ...]]:
    level = state.level + 1
    bonus_to = players_in(state)
    entrants = dict(state.entrants)
    for name in bonus_to:
        entrants[name] = dataclasses.replace(
            entrants[name], points=entrants[name].points + LEVEL_BONUS
        )
    new = dataclasses.replace(state, entrants=entrants, level=level)
    return new, (LevelRaised(level, bonus_to),)


def _rebuy(state: Tournament, action: Rebuy) -> tuple[Tournament, tuple[Event, ...]]:
    name = action.player
    refusal = rebuy_refusal(state, name)
    if refusal is not None:
        raise refusal
    player = state.entrants[name]
    start = state.options.starting_chips
    rebuys = player.rebuys + 1
    if player.out is not None:
        updated = dataclasses.replace(player, chips=start, rebuys=rebuys, out=None)
        eliminated = tuple(other for other in state.eliminated if other != name)
        credited = True
    elif round_of(state, name) is not None:
        updated = dataclasses.replace(player, rebuys=rebuys, pending=player.pending + 1)
        eliminated, credited = state.eliminated, False
    else:
        updated = dataclasses.replace(player, chips=player.chips + start, rebuys=rebuys)
        eliminated, credited = state.eliminated, True
    new = dataclasses.replace(
        state, entrants={**state.entrants, name: updated}, eliminated=eliminated
    )
    return new, (RebuyAccepted(name, credited),)
