"""Starting a hand (seed 002 §2, rules 6-10): antes, blinds and posts, the deal from a deck
order or a seed, and the first player to act.

    state = start_hand(config, [("a", 200), ("b", 200)], button=0, hole=..., deck=...)

No I/O, no clock, no randomness: the deck order is an input (`deal` and `deal_from_seed`
build a hand from a whole deck order). Playing the hand is `croupier.poker.core.hand`.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping, Sequence
from itertools import chain

from croupier.game.fairness import FairStream, shuffled
from croupier.poker.core import cards as C
from croupier.poker.core import naiko
from croupier.poker.core.hand import advance
from croupier.poker.core.rules import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    TableConfig,
)
from croupier.poker.core.state import (
    AWAITING,
    PREFLOP,
    HandRanks,
    HandSetup,
    HandState,
)

_tuple_new = tuple.__new__
_first = operator.itemgetter(0)
_second = operator.itemgetter(1)
_INT_ONLY = {int}
_PAIR = {2}
_CARDS = frozenset(C.DECK)


# Starting a hand ---------------------------------------------------------------------


def start_hand(
    config: TableConfig,
    players: Sequence[tuple[str, int]],
    button: int,
    hole: Sequence[Sequence[int]],
    deck: Sequence[int],
    destellos: Sequence[int] | None = None,
    carousel: Sequence[str] | None = None,
    posts: Mapping[int, tuple[int, int]] | None = None,
    *,
    ranks: HandRanks,
    dead_small_blind: bool = False,
) -> HandState:
    """A new hand with antes and blinds posted (rules 6, 9, 10) and the first actor chosen.

    A big-blind ante (`config.big_blind_ante`) is posted by the big blind (heads-up the
    player who is not on the button, rule 9) after his blind, from what his stack has left
    ("big blind first"); it is dead money, like the dead part of a post below.

    Naiko mode also takes each player's Destello balance carried in (default 0; +1 each as
    the hand starts, rule 25) and the hand's Carousel of 3 powers (rules 28-29).

    `players` are (id, stack) in clockwise seat order, `button` a seat index, `hole` each
    seat's hole cards, `deck` the undealt stub, top first (board = next 3, 1, 1; no burns).
    `posts` (OQ 22, the table's entry and missed-blind posts): seat index -> (live, dead)
    chips posted by a player outside the blinds' positions. The dead part is taken first and
    goes to the main pot (like an ante of his alone: never his bet, never returned as
    uncalled); the live part is his bet, as a big blind's is, and he still acts in turn
    (check when unraised). A stack too short for a post is all-in (rule 10).
    `ranks` values the hands at the showdown (`croupier.poker.adapters.evaluator.RANKS`).

    `dead_small_blind` (a tournament's dead button rule, TDA: the last big blind busted, so
    nobody holds the small blind's seat): nobody posts a small blind, and the big blind is
    the seat left of the button. Rules 7 and 24 are unchanged, so preflop the first player
    left of the big blind acts first and the button last before the big blind's option;
    after the flop the big blind (first left of the button) acts first. Three players at
    least: heads-up the button posts the small blind (rule 9).
    Raises ValueError for an impossible setup.
    """
    n = len(players)
    if not MIN_PLAYERS <= n <= MAX_PLAYERS:
        raise ValueError(f"a hand needs {MIN_PLAYERS} to {MAX_PLAYERS} players, got {n}")
    ids = tuple(map(_first, players))
    if len(set(ids)) != n:
        raise ValueError("player ids must be distinct")
    stacks = list(map(_second, players))
    # the checks below run element by element only when the quick ones fail
    if set(map(type, stacks)) != _INT_ONLY or min(stacks) <= 0 or set(map(len, players)) != _PAIR:
        for pid, st in players:
            if type(st) is not int or st <= 0:
                raise ValueError(f"player {pid!r} needs a positive integer stack")
    if not 0 <= button < n:
        raise ValueError("the button must be a seat index")
    holes = tuple(map(tuple, hole))
    if len(holes) != n or set(map(len, holes)) != {config.hole_count}:
        raise ValueError(f"each player needs exactly {config.hole_count} hole cards")
    used = [*chain.from_iterable(holes), *deck]
    distinct = set(used)
    if len(distinct) != len(used):
        raise ValueError("a card appears twice")
    if not distinct <= _CARDS and (min(used) < 0 or max(used) > 51):
        raise ValueError("not a card")

    s = object.__new__(HandState)
    s.ids = ids
    s.n = n
    if dead_small_blind:
        if n == 2:
            raise ValueError("heads-up the button posts the small blind: none can be dead")
        sb_seat, bb_seat = -1, (button + 1) % n
    elif n == 2:  # rule 9: heads-up, the button posts the small blind
        sb_seat, bb_seat = button, (button + 1) % 2
    else:  # rule 6
        sb_seat, bb_seat = (button + 1) % n, (button + 2) % n
    posted: tuple[tuple[int, int], ...] = ()
    if posts:
        if any(not 0 <= i < n for i in posts) or any(
            type(x) is not int or x < 0 for pair in posts.values() for x in pair
        ):
            raise ValueError("posts are seat index -> (live, dead) non-negative integers")
        if sb_seat in posts or bb_seat in posts:
            raise ValueError("the blinds' seats post their blinds, not an extra post")
        posted = tuple(posts.get(i, (0, 0)) for i in range(n))
    s.setup = _tuple_new(
        HandSetup,
        (config, button, sb_seat, bb_seat, tuple(stacks), tuple(deck), ranks, posted, ()),
    )
    s.hole = holes
    s.deck_pos = 0
    s.board = []
    s.stacks = stacks
    s.bets = [0] * n
    s.contrib = [0] * n
    s.folded = [False] * n
    s.acted_level = [-1] * n
    s.pot_capped = [config.pot_limit] * n
    s.street = PREFLOP
    s.status = AWAITING
    s.actions = ()
    s.result = None
    s.cache = None
    s.naiko = None
    if config.variant == "naiko":
        if carousel is None:
            raise ValueError("a Naiko hand needs its Carousel of 3 powers")
        s.naiko = naiko.start(n, list(destellos or [0] * n), frozenset(carousel))
    elif destellos or carousel:
        raise ValueError("Destellos and a Carousel exist only in Naiko mode")
    contrib = s.contrib
    ante = config.ante
    if ante:
        for i in range(n):
            a = ante if ante < stacks[i] else stacks[i]
            stacks[i] -= a
            contrib[i] += a
    for seat, blind in ((sb_seat, config.small_blind), (bb_seat, config.big_blind)):
        if seat < 0:  # the dead small blind: nobody posts it
            continue
        a = blind if blind < stacks[seat] else stacks[seat]  # rule 10: short blind all-in
        stacks[seat] -= a
        s.bets[seat] += a
        contrib[seat] += a
    dead = [0] * n
    bba = config.big_blind_ante
    if bba:  # after the blind: "big blind first" (TDA 2024)
        d = bba if bba < stacks[bb_seat] else stacks[bb_seat]
        stacks[bb_seat] -= d
        contrib[bb_seat] += d
        dead[bb_seat] = d
    if posted:
        dead_posts = []
        for seat, (live, owed) in enumerate(posted):
            d = owed if owed < stacks[seat] else stacks[seat]
            stacks[seat] -= d
            contrib[seat] += d
            dead[seat] += d  # the big blind's seat posts nothing here: adds 0
            a = live if live < stacks[seat] else stacks[seat]
            stacks[seat] -= a
            s.bets[seat] += a
            contrib[seat] += a
            dead_posts.append((a, d))
        s.setup = s.setup._replace(posts=tuple(dead_posts))  # what was actually posted
    if any(dead):
        s.setup = s.setup._replace(dead=tuple(dead))
    s.live = n
    s.able = n - stacks.count(0)  # stacks are never negative
    if config.short_big_blind == "full":
        s.current_bet = config.big_blind  # OQ 2: the full big blind is owed even if it is short
    else:
        s.current_bet = max(s.bets)
    s.last_full = config.big_blind
    s.to_act = -1
    advance(s, bb_seat, [])  # rule 7: first to act is left of the big blind
    return s


def deal(
    config: TableConfig,
    players: Sequence[tuple[str, int]],
    button: int,
    order: Sequence[int],
    destellos: Sequence[int] | None = None,
    carousel: Sequence[str] | None = None,
    posts: Mapping[int, tuple[int, int]] | None = None,
    *,
    ranks: HandRanks,
    dead_small_blind: bool = False,
) -> HandState:
    """A hand dealt from a whole deck order: one card at a time clockwise from the button's
    left, as many rounds as the variant has hole cards; the rest is the stub."""
    n = len(players)
    k = config.hole_count
    hole: list[list[int]] = [[] for _ in range(n)]
    pos = 0
    for _ in range(k):
        for j in range(n):
            hole[(button + 1 + j) % n].append(order[pos])
            pos += 1
    return start_hand(
        config,
        players,
        button,
        hole,
        order[pos:],
        destellos,
        carousel,
        posts,
        ranks=ranks,
        dead_small_blind=dead_small_blind,
    )


def deal_from_seed(
    config: TableConfig,
    players: Sequence[tuple[str, int]],
    button: int,
    seed: bytes,
    destellos: Sequence[int] | None = None,
    posts: Mapping[int, tuple[int, int]] | None = None,
    *,
    ranks: HandRanks,
    dead_small_blind: bool = False,
) -> HandState:
    """A hand dealt from the deck order a 32-byte seed gives (`croupier.game.fairness`); in
    Naiko mode the Carousel is drawn uniformly from the 3 legal ones (OQ 14, label
    "carousel")."""
    carousel = None
    if config.variant == "naiko":
        pick = FairStream(seed, "carousel").below(len(naiko.LEGAL_CAROUSELS))
        carousel = sorted(naiko.LEGAL_CAROUSELS[pick])
    order = shuffled(C.DECK, seed, "deck")
    return deal(
        config,
        players,
        button,
        order,
        destellos,
        carousel,
        posts,
        ranks=ranks,
        dead_small_blind=dead_small_blind,
    )
