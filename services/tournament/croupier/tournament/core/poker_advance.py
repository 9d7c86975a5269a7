"""What follows every change to a poker tournament (`poker_tournament` module docstring):
the clock, the places of a hand-for-hand round, the finish, the balancer's moves,
hand-for-hand on or off, and the next deals with their positions."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from croupier.game.fairness import FairStream
from croupier.tournament.core.balancing import (
    bubble_reached,
    dealt_in,
    next_button_and_blinds,
    ranked_busts,
    tda_rebalance_checked,
)
from croupier.tournament.core.blinds import level_at
from croupier.tournament.core.errors import InvalidInput, NotAllowed
from croupier.tournament.core.poker_decisions import (
    BreakStarted,
    Busted,
    Deal,
    Decision,
    Finished,
    HandForHand,
    LevelStarted,
    Moves,
    TableClosed,
)
from croupier.tournament.core.poker_state import (
    PokerTournament,
    Step,
    count_sizes,
    draw_seed,
    evolve,
    paid_prizes,
    players_left,
    standings,
)
from croupier.tournament.core.ranking import split_prizes
from croupier.tournament.core.seating import Blinds, Table, apply_moves

__all__ = ["advance", "place_busts"]


def place_busts(
    state: PokerTournament, busts: Sequence[tuple[str, int]]
) -> tuple[PokerTournament, Busted]:
    """Places for players out together, after the players still in."""
    if len(busts) > 1:  # equal chips share a place listed in entry order
        busts = sorted(busts, key=lambda bust: state.order[bust[0]])
    ranked = ranked_busts(dict(busts), state.alive + 1)
    out = (*state.out, *(entry.players for entry in reversed(ranked)))
    return evolve(state, out=out), Busted(ranked)


def advance(
    state: PokerTournament,
    now: int,
    decisions: list[Decision],
    changed: Collection[int] | None = None,
) -> Step:
    """Everything that follows a change: clock, hand-for-hand round end, finish, moves,
    hand-for-hand on or off, deals (module docstring). `changed` names the tables whose
    players or hand changed (None: maybe any): outside a break or hand-for-hand every
    other table is dealt already, so only these can be due a deal (a room of hundreds of
    tables is not scanned after each hand)."""
    waited = state.clock.in_break or state.hand_for_hand
    if now < state.started_at:
        raise InvalidInput("invalid_clock", f"now ({now}) is before the start ({state.started_at})")
    clock = level_at(state.config.structure, now - state.started_at)
    if clock[:2] != state.clock[:2]:
        if clock.in_break:
            decisions.append(BreakStarted(clock.seconds_to_next or 0))
        else:
            decisions.append(
                LevelStarted(clock.level_index, state.config.structure.levels[clock.level_index])
            )
    if clock != state.clock:
        state = evolve(state, clock=clock)
    idle = not state.in_hand
    round_over = state.hand_for_hand and idle
    if round_over and state.pending_busts:
        state, busted = place_busts(evolve(state, pending_busts=()), state.pending_busts)
        decisions.append(busted)
    if players_left(state) <= 1:
        return _finish(state, decisions)
    candidates = None if changed is None or waited else set(changed)
    if _balancer_has_work(state):
        state = _rebalance(state, decisions, candidates)
    if not state.hand_for_hand or round_over:
        state = _hand_for_hand(state, decisions)
    return Step(*_deal(state, decisions, candidates))


def _finish(state: PokerTournament, decisions: list[Decision]) -> Step:
    state = evolve(state, finished=True, hand_for_hand=False)
    places = standings(state)
    won = split_prizes(places, paid_prizes(state))
    decisions.append(Finished(places, {p: won.get(p, 0) for p in state.chips}))
    return Step(state, tuple(decisions))


def _balancer_has_work(state: PokerTournament) -> bool:
    """Whether `tda_rebalance` would move anyone now: an idle table among those to break
    (the highest-numbered while the rest seat everyone), or else an idle table two players
    over the shortest. Cheap, so the balancer (which checks every name) runs only then."""
    tables, seated = state.tables, state.seated  # in table number order
    # The fewest tables that seat everyone: the ones past them break.
    kept = min(len(seated), max(1, -(-state.alive // state.config.table_size)))
    if kept < len(seated):
        return any(not tables[n - 1].running for n in seated[kept:])
    counts = state.table_sizes
    shortest = next(size for size, count in enumerate(counts) if count)
    if not any(counts[shortest + 2 :]):
        return False
    return any(
        len(tables[n - 1].seats) >= shortest + 2 and not tables[n - 1].running for n in seated
    )


def _rebalance(
    state: PokerTournament, decisions: list[Decision], changed: set[int] | None
) -> PokerTournament:
    """The balancer's moves applied; the tables they touch added to `changed`."""
    label = f"tda-rebalance-{state.draws}"
    size = state.config.table_size
    plan = tda_rebalance_checked(state.seated_tables(), size, draw_seed(state, label), label)
    if not plan.moves:
        return state
    decisions.append(Moves(plan))
    tables = apply_moves(state.tables, plan.moves)
    closed = [n for n in state.seated if not tables[n - 1].seats]
    decisions.extend(TableClosed(n) for n in closed)
    seated = tuple(n for n in state.seated if n not in closed)
    sizes = count_sizes(tables, state.config.table_size)
    state = evolve(state, tables=tables, seated=seated, table_sizes=sizes, draws=state.draws + 1)
    if changed is not None:
        changed.update(n for move in plan.moves for n in (move.from_table, move.to_table))
    return state


def _hand_for_hand(state: PokerTournament, decisions: list[Decision]) -> PokerTournament:
    size = state.config.table_size
    paid = state.paid  # a freeroll of virtual chips may pay no place
    due = paid > 0 and bubble_reached(players_left(state), paid, size)
    if due:  # not at a single table: nothing to wait for
        due = len(state.seated) > 1
    if due != state.hand_for_hand:
        decisions.append(HandForHand(due))
        state = evolve(state, hand_for_hand=due)
    return state


def _deal(
    state: PokerTournament, decisions: list[Decision], candidates: set[int] | None
) -> tuple[PokerTournament, tuple[Decision, ...]]:
    if state.clock.in_break or (state.hand_for_hand and state.in_hand):
        return state, tuple(decisions)
    if state.hand_for_hand or candidates is None:
        looked = state.seated_tables()
    else:
        looked = [state.tables[n - 1] for n in sorted(candidates)]
    ready = [t for t in looked if not t.running and len(t.seats) >= 2]
    if not ready:
        return state, tuple(decisions)
    tables = list(state.tables)
    in_hand = dict(state.in_hand)
    for table in ready:
        blinds, seats = _positions(state, table)
        by_seat = dict(table.seats)
        players = tuple(by_seat[seat] for seat in seats)
        tables[table.number - 1] = evolve(table, running=True, blinds=blinds)
        in_hand[table.number] = players
        decisions.append(Deal(table.number, blinds, players, state.level, tuple(seats)))
    return evolve(state, tables=tuple(tables), in_hand=in_hand), tuple(decisions)


def _positions(state: PokerTournament, table: Table) -> tuple[Blinds, list[int]]:
    """The next hand's positions and the seats dealt in: dead button rule after a first
    hand whose button was drawn (also redrawn if too few could be dealt in, e.g. two left
    of whom one waits for the button)."""
    seats = dict(table.seats)
    if table.blinds is not None:
        try:
            blinds = next_button_and_blinds(seats, table.blinds)
            return blinds, dealt_in(seats, table.blinds)
        except NotAllowed:
            pass
    numbers = sorted(seats)
    stream = FairStream(state.seed, f"button-{table.number}-{state.draws}")
    index = stream.below(len(numbers))
    button = numbers[index]
    if len(numbers) == 2:
        blinds = Blinds(button, button, numbers[1 - index])
    else:
        small = numbers[(index + 1) % len(numbers)]
        blinds = Blinds(button, small, numbers[(index + 2) % len(numbers)])
    return blinds, numbers
