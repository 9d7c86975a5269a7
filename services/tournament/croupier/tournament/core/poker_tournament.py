"""A poker tournament run hand by hand (issue 25, rules 52-55, Poker TDA): the director's
decisions as a pure function of what the tables report.

The director calls `start` once (the players, a committed 32-byte seed, the clock), then
`hand_finished` each time a table reports a hand's end, `tick` when the clock passes a
level or break boundary with no hand ending, and `poker_entries.enter` for late entries
and re-entries. Each returns a `Step`: the new state and the `Decision`s to carry out, in
order: apply each `Moves` between hands (only idle tables lose players), then start a
hand at each `Deal`'s table with its positions, players and level.

Every draw (seats, first buttons, Spin multiplier, moves, late seats) derives from the
one seed under its own label (`croupier.game.fairness`): publish `commitment(seed)`
before `start` and reveal the seed once `Finished`, and anyone re-derives every draw.

- Dealing: an idle table with two players or more is dealt at once, except during a
  break (tables finish the hand in play and wait for `tick` after the break) and in
  hand-for-hand, where every table waits until all are idle and then all are dealt
  together. A table's first button is drawn; after that the dead button rule
  (`balancing.next_button_and_blinds`) places the button and blinds.
- Busts: a player with 0 chips after a hand is out. Players out in one hand share places
  ranked by their chips at its start (TDA; poker-network); in hand-for-hand all busts of
  the round (every table's hand) are ranked together when its last table finishes.
  Places count the players still in: the first of 100 out is 100th.
- Between hands the TDA balancer (`balancing.tda_rebalance`) breaks and balances tables;
  a table left without players is `TableClosed`.
- Hand-for-hand (`balancing.hand_for_hand_due`) on the money bubble and the final-table
  bubble while more than one table plays; it stops when the bubble bursts.
- Finished: one player left; `Finished` gives the ranking and each player's prize
  (`ranking.split_prizes`: shared places pool their prizes).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import NamedTuple

from croupier.game.fairness import FairStream
from croupier.game.limits import MAX_AMOUNT, OutOfBounds, check_amount, echo
from croupier.tournament.core.balancing import (
    dealt_in,
    hand_for_hand_due,
    next_button_and_blinds,
    rank_simultaneous_busts,
    tda_rebalance_checked,
)
from croupier.tournament.core.blinds import Level, LevelClock, level_at
from croupier.tournament.core.errors import InvalidInput, NotAllowed, NotFound
from croupier.tournament.core.payouts import prizes_for
from croupier.tournament.core.poker_config import PokerConfig
from croupier.tournament.core.poker_decisions import (
    BreakStarted,
    Busted,
    Deal,
    Decision,
    Entered,
    Finished,
    HandForHand,
    LevelStarted,
    Moves,
    Seated,
    SpinDrawn,
    TableClosed,
)
from croupier.tournament.core.ranking import Place, groups, numbered, split_prizes
from croupier.tournament.core.seating import (
    Blinds,
    Table,
    apply_moves,
    check_names,
    check_seed,
    initial_seating,
)
from croupier.tournament.core.spin import Multiplier, draw_multiplier
from croupier.tournament.core.spin import prizes as spin_prizes

__all__ = [
    "BreakStarted",
    "Busted",
    "Deal",
    "Decision",
    "Entered",
    "Finished",
    "HandForHand",
    "LevelStarted",
    "Moves",
    "PokerTournament",
    "Seated",
    "SpinDrawn",
    "Step",
    "TableClosed",
    "advance",
    "check_clock",
    "count_paid",
    "draw_seed",
    "hand_finished",
    "paid_prizes",
    "players_left",
    "standings",
    "start",
    "tick",
]


@dataclass(frozen=True)
class PokerTournament:
    """A running (or finished) poker tournament; replaced, never changed."""

    config: PokerConfig
    seed: bytes
    started_at: int
    tables: tuple[Table, ...]
    """Table number n is `tables[n - 1]`; a closed table stays, without seats."""
    chips: Mapping[str, int]
    """Every player who entered, in entry order: his chips now (0: out)."""
    entries: Mapping[str, int]
    """How many times each player entered (re-entries: more than 1)."""
    order: Mapping[str, int]
    """Each player's rank in entry order (ties list players in it)."""
    out: tuple[tuple[str, ...], ...]
    """Players out, the first out first; players in one group share a place (a
    re-entered player is in again: not listed). Places are numbered from these at any
    time (`standings`), so late entries never leave a gap or a clash."""
    in_hand: Mapping[int, tuple[str, ...]]
    """Each running table's players dealt into its hand (`Deal.players`)."""
    clock: LevelClock
    spin: Multiplier | None
    """A Spin's drawn row; None for other kinds."""
    alive: int = 0
    """Players with chips (kept with `chips`: a tournament of thousands asks every hand)."""
    paid: int = 0
    """Places paid for the entries so far (`count_paid`), kept as entries come."""
    hand_for_hand: bool = False
    pending_busts: tuple[tuple[str, int], ...] = ()
    """Hand-for-hand: the players out this round with their chips at its start, ranked
    together when the round's last table finishes."""
    draws: int = 0
    """Draws made after the start (moves, late seats): each under its own label."""
    finished: bool = False

    @property
    def level(self) -> Level:
        return self.config.structure.levels[self.clock.level_index]


class Step(NamedTuple):
    state: PokerTournament
    decisions: tuple[Decision, ...]


def check_clock(now: object, what: str = "now") -> int:
    try:
        return check_amount(now, what)
    except OutOfBounds as exc:
        raise InvalidInput("invalid_clock", exc.message) from None


def start(config: PokerConfig, players: Sequence[str], seed: bytes, now: int) -> Step:
    """The tournament's first step: `Seated` (a drawn seat each, rule 7), a Spin's
    `SpinDrawn`, the first level and a `Deal` at every table. Refused: a Sit & Go or Spin
    not full (`not_full`, rule 52), a scheduled one with fewer than `min_players`
    (`not_enough_players`) or before `starts_at` (`too_early`)."""
    if not isinstance(config, PokerConfig):
        raise InvalidInput("invalid_tournament", "config must be a PokerConfig")
    check_names(players)
    check_seed(seed)
    check_clock(now)
    count = len(players)
    if count > config.max_players:
        raise NotAllowed("tournament_full", f"{count} players for {config.max_players} seats")
    if not config.scheduled and count < config.max_players:
        raise NotAllowed(
            "not_full", f"a Sit & Go starts when full: {count} of {config.max_players} seats"
        )
    if count < config.min_players:
        raise NotAllowed(
            "not_enough_players", f"{count} players registered, at least {config.min_players}"
        )
    if config.scheduled and now < config.starts_at:
        raise NotAllowed("too_early", f"the tournament starts at {config.starts_at}")
    seating = initial_seating(players, config.table_size, seed)
    spin = draw_multiplier(config.spin_table, seed) if config.kind == "spin" else None
    state = PokerTournament(
        config=config,
        seed=seed,
        started_at=now,
        tables=seating.tables,
        chips=dict.fromkeys(players, config.starting_stack),
        entries=dict.fromkeys(players, 1),
        order={player: index for index, player in enumerate(players)},
        out=(),
        in_hand={},
        clock=level_at(config.structure, 0),
        spin=spin,
        alive=count,
    )
    state = replace(state, paid=count_paid(state))
    decisions: list[Decision] = [Seated(seating.tables)]
    if spin is not None:
        decisions.append(SpinDrawn(spin, paid_prizes(state)))
    decisions.append(LevelStarted(0, state.level))
    return advance(state, now, decisions)


def hand_finished(
    state: PokerTournament,
    table: int,
    stacks_before: Mapping[str, int],
    stacks_after: Mapping[str, int],
    now: int,
) -> Step:
    """The decisions after `table`'s hand: `Busted` (its players with 0 chips; held until
    the round ends in hand-for-hand), then the clock's, `Moves`, `TableClosed`,
    `HandForHand`, `Deal`s and `Finished`. Both mappings name the players dealt into the
    hand (its `Deal.players`), by chips at the hand's start (as the state has them) and
    at its end; a hand moves chips between them but never makes or loses any. Refused,
    the state unchanged: a finished tournament (`finished`), an unknown table
    (`unknown_table`) or one with no hand in play (`no_hand`), stacks naming other
    players (`unknown_player`), negative or not whole (`invalid_stacks`), disagreeing with
    the state (`stacks_mismatch`) or not adding up (`chips_not_conserved`)."""
    if state.finished:
        raise NotAllowed("finished", "the tournament is over")
    now = check_clock(now)
    if isinstance(table, bool) or not isinstance(table, int) or not 1 <= table <= len(state.tables):
        raise NotFound("unknown_table", f"no table {echo(table)} in this tournament")
    players = state.in_hand.get(table)
    if players is None:
        raise NotAllowed("no_hand", f"table {table} has no hand in play")
    for stacks in (stacks_before, stacks_after):
        if not isinstance(stacks, Mapping) or stacks.keys() != set(players):
            raise NotFound(
                "unknown_player", f"the stacks must name the players dealt in at table {table}"
            )
    try:
        for player in players:
            check_amount(stacks_after[player], f"chips of {echo(player)} after the hand")
    except OutOfBounds as exc:
        raise InvalidInput("invalid_stacks", exc.message) from None
    if any(stacks_before[p] != state.chips[p] for p in players):
        raise InvalidInput(
            "stacks_mismatch", f"table {table}: the chips at the hand's start are not the state's"
        )
    if sum(stacks_after.values()) != sum(stacks_before.values()):
        raise InvalidInput("chips_not_conserved", f"table {table}: the hand made or lost chips")
    out = [(p, stacks_before[p]) for p in players if stacks_after[p] == 0]
    chips = {**state.chips, **stacks_after}
    at = state.tables[table - 1]
    gone = {p for p, _ in out}
    tables = list(state.tables)
    tables[table - 1] = replace(
        at, running=False, seats=tuple((s, p) for s, p in at.seats if p not in gone)
    )
    in_hand = dict(state.in_hand)
    del in_hand[table]
    state = replace(
        state, tables=tuple(tables), chips=chips, in_hand=in_hand, alive=state.alive - len(out)
    )
    decisions: list[Decision] = []
    if state.hand_for_hand:
        state = replace(state, pending_busts=(*state.pending_busts, *out))
    elif out:
        state, busted = _place(state, out)
        decisions.append(busted)
    return advance(state, now, decisions)


def tick(state: PokerTournament, now: int) -> Step:
    """What the clock alone decides at `now`: `LevelStarted`, `BreakStarted`, and the
    `Deal`s of tables that waited for a break to end. Refused once `finished`."""
    if state.finished:
        raise NotAllowed("finished", "the tournament is over")
    return advance(state, check_clock(now), [])


def players_left(state: PokerTournament) -> int:
    """Players with chips (and, in a hand-for-hand round, its busts not yet placed)."""
    return state.alive + len(state.pending_busts)


def paid_prizes(state: PokerTournament) -> tuple[int, ...]:
    """The prizes by place, 1st first, for the entries so far: a Spin's from its drawn
    row, else the payout table's bracket for the number of entries (pool: buy_in each)."""
    config = state.config
    if state.spin is not None:
        return spin_prizes(state.spin, config.buy_in)
    entries = sum(state.entries.values())
    return prizes_for(config.payouts, entries, min(config.buy_in * entries, MAX_AMOUNT))


def standings(state: PokerTournament) -> tuple[Place, ...]:
    """The live ranking: players in by chips (equal chips share a place), then players
    out by place; final once `finished`."""
    alive = groups([(p, c) for p, c in state.chips.items() if c > 0])
    return numbered([*alive, *reversed(state.out)])


def _place(
    state: PokerTournament, busts: Sequence[tuple[str, int]]
) -> tuple[PokerTournament, Busted]:
    """Places for players out together, after the players still in."""
    if len(busts) > 1:  # equal chips share a place listed in entry order
        busts = sorted(busts, key=lambda bust: state.order[bust[0]])
    ranked = rank_simultaneous_busts(dict(busts), state.alive + 1)
    out = (*state.out, *(entry.players for entry in reversed(ranked)))
    return replace(state, out=out), Busted(ranked)


def count_paid(state: PokerTournament) -> int:
    """How many places win a prize for the entries so far."""
    return sum(1 for prize in paid_prizes(state) if prize > 0)


def draw_seed(state: PokerTournament, label: str) -> bytes:
    """A 32-byte seed for one later draw, derived from the tournament's seed."""
    stream = FairStream(state.seed, label)
    return bytes(stream.below(256) for _ in range(32))


def advance(state: PokerTournament, now: int, decisions: list[Decision]) -> Step:
    """Everything that follows a change: clock, hand-for-hand round end, finish, moves,
    hand-for-hand on or off, deals (module docstring)."""
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
        state = replace(state, clock=clock)
    idle = not state.in_hand
    round_over = state.hand_for_hand and idle
    if round_over and state.pending_busts:
        state, busted = _place(replace(state, pending_busts=()), state.pending_busts)
        decisions.append(busted)
    if players_left(state) <= 1:
        return _finish(state, decisions)
    if _balancer_has_work(state):
        state = _rebalance(state, decisions)
    if not state.hand_for_hand or round_over:
        state = _hand_for_hand(state, decisions)
    return Step(*_deal(state, decisions))


def _finish(state: PokerTournament, decisions: list[Decision]) -> Step:
    state = replace(state, finished=True, hand_for_hand=False)
    places = standings(state)
    won = split_prizes(places, paid_prizes(state))
    decisions.append(Finished(places, {p: won.get(p, 0) for p in state.chips}))
    return Step(state, tuple(decisions))


def _balancer_has_work(state: PokerTournament) -> bool:
    """Whether `tda_rebalance` would move anyone now: an idle table among those to break
    (the highest-numbered while the rest seat everyone), or else an idle table two players
    over the shortest. Cheap, so the balancer (which checks every name) runs only then."""
    occupied = [t for t in state.tables if t.seats]  # in table number order
    sizes = [len(t.seats) for t in occupied]
    # The fewest tables that seat everyone: the ones past them break.
    kept = min(len(occupied), max(1, -(-state.alive // state.config.table_size)))
    if kept < len(occupied):
        return any(not t.running for t in occupied[kept:])
    shortest = min(sizes)
    if max(sizes) < shortest + 2:
        return False
    return any(not t.running and len(t.seats) >= shortest + 2 for t in occupied)


def _rebalance(state: PokerTournament, decisions: list[Decision]) -> PokerTournament:
    had = {t.number for t in state.tables if t.seats}
    if not had:
        return state
    label = f"tda-rebalance-{state.draws}"
    size = state.config.table_size
    plan = tda_rebalance_checked(state.tables, size, draw_seed(state, label), label)
    if plan.moves:
        decisions.append(Moves(plan))
        state = replace(state, tables=apply_moves(state.tables, plan.moves), draws=state.draws + 1)
    decisions.extend(TableClosed(t.number) for t in state.tables if t.number in had and not t.seats)
    return state


def _hand_for_hand(state: PokerTournament, decisions: list[Decision]) -> PokerTournament:
    in_play = sum(1 for t in state.tables if t.seats)
    size = state.config.table_size
    paid = state.paid  # a freeroll of virtual chips may pay no place
    due = in_play > 1 and paid > 0 and hand_for_hand_due(players_left(state), paid, size)
    if due != state.hand_for_hand:
        decisions.append(HandForHand(due))
        state = replace(state, hand_for_hand=due)
    return state


def _deal(
    state: PokerTournament, decisions: list[Decision]
) -> tuple[PokerTournament, tuple[Decision, ...]]:
    if state.clock.in_break or (state.hand_for_hand and state.in_hand):
        return state, tuple(decisions)
    ready = [t for t in state.tables if not t.running and len(t.seats) >= 2]
    if not ready:
        return state, tuple(decisions)
    tables = list(state.tables)
    in_hand = dict(state.in_hand)
    for table in ready:
        blinds, seats = _positions(state, table)
        players = tuple(dict(table.seats)[seat] for seat in seats)
        tables[table.number - 1] = replace(table, running=True, blinds=blinds)
        in_hand[table.number] = players
        decisions.append(Deal(table.number, blinds, players, state.level, tuple(seats)))
    return replace(state, tables=tuple(tables), in_hand=in_hand), tuple(decisions)


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
