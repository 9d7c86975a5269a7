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

from croupier.game.limits import OutOfBounds, check_amount, echo
from croupier.tournament.core.blinds import level_at
from croupier.tournament.core.errors import InvalidInput, NotAllowed, NotFound
from croupier.tournament.core.poker_advance import advance, place_busts
from croupier.tournament.core.poker_chips import ChipCounts
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
from croupier.tournament.core.poker_state import (
    PokerTournament,
    Step,
    check_clock,
    count_paid,
    count_sizes,
    draw_seed,
    evolve,
    paid_prizes,
    players_left,
    standings,
)
from croupier.tournament.core.seating import check_names, check_seed, initial_seating
from croupier.tournament.core.spin import draw_multiplier

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
    order = {player: index for index, player in enumerate(players)}
    state = PokerTournament(
        config=config,
        seed=seed,
        started_at=now,
        tables=seating.tables,
        seated=tuple(table.number for table in seating.tables),
        table_sizes=count_sizes(seating.tables, config.table_size),
        chips=ChipCounts.of(order, config.starting_stack),
        entries=dict.fromkeys(players, 1),
        order=order,
        out=(),
        in_hand={},
        clock=level_at(config.structure, 0),
        spin=spin,
        alive=count,
    )
    state = evolve(state, paid=count_paid(state))
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
    for player in players:
        count = stacks_after[player]
        if type(count) is not int or count < 0:  # the message is built only when refused
            try:
                check_amount(count, f"chips of {echo(player)} after the hand")
            except OutOfBounds as exc:
                raise InvalidInput("invalid_stacks", exc.message) from None
    if any(stacks_before[p] != state.chips[p] for p in players):
        raise InvalidInput(
            "stacks_mismatch", f"table {table}: the chips at the hand's start are not the state's"
        )
    if sum(stacks_after.values()) != sum(stacks_before.values()):
        raise InvalidInput("chips_not_conserved", f"table {table}: the hand made or lost chips")
    out = [(p, stacks_before[p]) for p in players if stacks_after[p] == 0]
    chips = state.chips.updated(stacks_after)
    at = state.tables[table - 1]
    gone = {p for p, _ in out}
    tables = list(state.tables)
    tables[table - 1] = evolve(
        at, running=False, seats=tuple((s, p) for s, p in at.seats if p not in gone)
    )
    in_hand = dict(state.in_hand)
    del in_hand[table]
    sizes = state.table_sizes
    if out:
        changed = list(sizes)
        changed[len(at.seats)] -= 1
        changed[len(at.seats) - len(out)] += 1
        sizes = tuple(changed)
    state = evolve(
        state,
        tables=tuple(tables),
        chips=chips,
        in_hand=in_hand,
        alive=state.alive - len(out),
        table_sizes=sizes,
    )
    decisions: list[Decision] = []
    if state.hand_for_hand:
        state = evolve(state, pending_busts=(*state.pending_busts, *out))
    elif out:
        state, busted = place_busts(state, out)
        decisions.append(busted)
    return advance(state, now, decisions, (table,))


def tick(state: PokerTournament, now: int) -> Step:
    """What the clock alone decides at `now`: `LevelStarted`, `BreakStarted`, and the
    `Deal`s of tables that waited for a break to end. Refused once `finished`."""
    if state.finished:
        raise NotAllowed("finished", "the tournament is over")
    return advance(state, check_clock(now), [])
