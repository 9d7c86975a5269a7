"""Poker tournaments (issue 25, Poker TDA): breaking, balancing, dead button, hand-for-hand.

- Breaking: while the players left fit at one table fewer, the highest-numbered table
  breaks. Its players draw seat cards: the seats are picked at the shortest tables first
  (sizes stay within one), each drawn among the free seats where a newcomer may be dealt
  in at once: not between the button and the small blind of the next hand (nor the dead
  small blind's seat); only when a table has no other free seat does he take one there and
  wait for the button to pass.
- Balancing: while a table has two players more than the shortest, the player due the
  big blind next at the fullest such table moves to the worst position at the shortest
  table: the free seat that reaches the big blind first, which may be the big blind of
  the next hand at once, and is never the small blind's seat unless nothing else is free.
  Before a table's first hand nobody is due, and the mover and seat are drawn.
- Never from a table in mid-hand (poker-network's pokertournament.py): only a table whose
  hand is over loses players; a table in mid-hand may receive them for its next hand.
  A table to break that is in mid-hand keeps its players until its hand is over, and
  balancing waits with it: the break reseats them, so balancing first would only add
  moves. All the tables to break are chosen first, so nobody moves twice.
- Dead button (`next_button_and_blinds`): the big blind always moves forward to the next
  player; the small blind is the last big blind's seat (dead if he is out) and the button
  the last small blind's seat (dead if nobody holds it). Heads-up the button posts the
  small blind, and the other player the big blind, which still moves forward.
  This is not the cash tables' rule (croupier.poker.core.seating.PokerTable.deal_plan):
  there the button moves one seat among the players and is never dead.
- Hand-for-hand (`hand_for_hand_due`) on the money bubble and the final-table bubble;
  players out in the same hand-for-hand hand share places by their chips at its start
  (`rank_simultaneous_busts`), prizes pooled by `ranking.split_prizes`.
"""

from __future__ import annotations

import heapq
from collections.abc import Collection, Mapping, Sequence

from croupier.game.fairness import FairStream
from croupier.game.limits import MAX_AMOUNT, OutOfBounds, check_amount, check_int, echo
from croupier.tournament.core.errors import InvalidInput, NotAllowed
from croupier.tournament.core.ranking import Place, groups, numbered
from croupier.tournament.core.seating import (
    Blinds,
    Draw,
    Move,
    Plan,
    Reason,
    Table,
    between,
    check_names,
    check_seed,
    check_tables,
    free_seat,
    seat_player,
)

__all__ = [
    "bubble_reached",
    "dealt_in",
    "due_big_blind",
    "hand_for_hand_due",
    "newcomer_seat",
    "next_button_and_blinds",
    "rank_simultaneous_busts",
    "ranked_busts",
    "tda_rebalance",
    "tda_rebalance_checked",
]


def _after(numbers: Sequence[int], seat: int) -> int:
    """The first of the sorted seat `numbers` clockwise after `seat`."""
    return next((n for n in numbers if n > seat), numbers[0])


def dealt_in(seats: Collection[int], previous: Blinds) -> list[int]:
    """The sorted `seats` dealt into the hand after the one `previous` describes: all but
    those seated since between its small and big blinds (the next button and small blind)."""
    return sorted(s for s in seats if not between(previous.small_blind, s, previous.big_blind))


def next_button_and_blinds(
    seats: Collection[int], previous: Blinds, busted: Collection[int] = ()
) -> Blinds:
    """The next hand's positions under the dead button rule (module docstring): `seats`
    are those held when the last hand ended, `busted` those whose player went out in it.
    A player seated since between the next button and small blind (the last small and
    big blinds) is not dealt in until the button has passed him, so never gets a blind."""
    playing = dealt_in(set(seats) - set(busted), previous)
    if len(playing) < 2:
        raise NotAllowed("not_enough_players", "a hand needs at least two players at the table")
    big_blind = _after(playing, previous.big_blind)
    if len(playing) == 2:
        button = _after(playing, big_blind)
        return Blinds(button, button, big_blind)
    return Blinds(previous.small_blind, previous.big_blind, big_blind)


def due_big_blind(table: Table) -> int | None:
    """The seat of the player due the big blind next hand at `table`, if it played one."""
    if table.blinds is None:
        return None
    try:
        return next_button_and_blinds([s for s, _ in table.seats], table.blinds).big_blind
    except NotAllowed:  # fewer than two to deal in: nobody is due
        return None


def newcomer_seat(table: Table, stream: FairStream) -> int:
    """A drawn free seat where a broken table's player is dealt in at once (docstring)."""
    blinds = table.blinds
    if blinds is not None:
        # From after the last big blind (the next small blind) to the last small blind
        # (the next button): past it come the seats between button and small blind.
        arc = (blinds.small_blind - blinds.big_blind) % table.size
        seat = free_seat(table, stream, blinds.big_blind + 1, arc)
        if seat:
            return seat
    return free_seat(table, stream)


def _worst_seat(table: Table, stream: FairStream) -> int:
    """The free seat that reaches the big blind first (module docstring)."""
    if table.blinds is None:
        return free_seat(table, stream)
    return free_seat(table, None, table.blinds.big_blind + 1)


def tda_rebalance(tables: Sequence[Table], seed: bytes, label: str = "tda-rebalance") -> Plan:
    """The moves that break and balance tables now (module docstring); `label` keeps
    apart the draws one seed makes (each rebalancing of a tournament)."""
    return tda_rebalance_checked(tables, check_tables(tables), check_seed(seed), label)


def tda_rebalance_checked(tables: Sequence[Table], size: int, seed: bytes, label: str) -> Plan:
    """`tda_rebalance` of tables the caller built and keeps valid itself (a director's
    own, all of `size` seats): without re-checking every seat and name each time."""
    draw = Draw(seed, label)
    stream = FairStream(seed, draw.label)
    at = {table.number: table for table in tables if table.seats}
    left = sum(len(table.seats) for table in at.values())
    moves: list[Move] = []

    def move(source: Table, seat: int, target: Table, to_seat: int, reason: Reason) -> None:
        player = dict(source.seats)[seat]
        moves.append(Move(player, source.number, seat, target.number, to_seat, reason))
        if source.number in at:
            at[source.number] = seat_player(at[source.number], seat, None)
        at[target.number] = seat_player(at[target.number], to_seat, player)

    breaking: list[Table] = []  # decided first: nobody moves to a table that breaks too
    while len(at) > 1 and left <= (len(at) - 1) * size:
        breaking.append(at.pop(max(at)))
    # The tables kept, shortest first (ties: lowest number): a break only fills them, so
    # the shortest is the heap's top, pushed back one longer once it takes a player (not
    # a scan of hundreds of tables for each player of a broken one).
    shortest_first = [(len(table.seats), number) for number, table in at.items()]
    heapq.heapify(shortest_first)
    for broken in breaking:
        if broken.running:
            continue
        # The drawn order of its players takes the seats in turn, each drawn at the
        # shortest table: the same as dealing them seat cards.
        for seat, _ in stream.shuffled(broken.seats):
            length, number = heapq.heappop(shortest_first)
            target = at[number]
            move(broken, seat, target, newcomer_seat(target, stream), "table_broken")
            heapq.heappush(shortest_first, (length + 1, number))
    if any(broken.running for broken in breaking):
        return Plan(tuple(moves), draw)
    while at:
        shortest = min(at.values(), key=lambda t: (len(t.seats), t.number))
        over = [t for t in at.values() if not t.running and len(t.seats) >= len(shortest.seats) + 2]
        if not over:
            break
        source = max(over, key=lambda t: (len(t.seats), -t.number))
        seat = due_big_blind(source) or source.seats[stream.below(len(source.seats))][0]
        move(source, seat, shortest, _worst_seat(shortest, stream), "balance")
    return Plan(tuple(moves), draw)


def hand_for_hand_due(players_left: int, paid_places: int, table_size: int = 0) -> bool:
    """Hand-for-hand on the money bubble (one more player than places paid) and on the
    final-table bubble (one more than a table seats; `table_size` 0: not asked)."""
    try:
        check_int(players_left, "players_left", 0, MAX_AMOUNT)
        check_int(paid_places, "paid_places", 1, MAX_AMOUNT)
        check_int(table_size, "table_size", 0, MAX_AMOUNT)
    except OutOfBounds as exc:
        raise InvalidInput("invalid_count", exc.message) from None
    return bubble_reached(players_left, paid_places, table_size)


def bubble_reached(players_left: int, paid_places: int, table_size: int = 0) -> bool:
    """`hand_for_hand_due` of counts the caller keeps itself (a director's own, after
    every hand): without checking them each time."""
    over = players_left - 1
    return over == paid_places or (table_size > 0 and over == table_size)


def rank_simultaneous_busts(busts: Mapping[str, int], best_place: int) -> tuple[Place, ...]:
    """Places `best_place`, ... of players out in one hand-for-hand hand: more chips at
    its start, better place; equal chips share a place (prizes: `ranking.split_prizes`).
    `busts` maps each player to his chips at the hand's start, in registration order."""
    check_names(busts)
    try:
        check_int(best_place, "best_place", 1, MAX_AMOUNT)
        for player, chips in busts.items():
            check_amount(chips, f"chips of {echo(player)} at the start of the hand", low=1)
    except OutOfBounds as exc:
        raise InvalidInput("invalid_bust", exc.message) from None
    return ranked_busts(busts, best_place)


def ranked_busts(busts: Mapping[str, int], best_place: int) -> tuple[Place, ...]:
    """`rank_simultaneous_busts` of players and chips the caller keeps itself (a
    director's own, after a hand): without checking them each time."""
    return numbered(groups(list(busts.items())), best_place)
