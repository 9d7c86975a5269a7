"""The hand state: a value that `hand.apply` never changes (it copies, then changes the copy).

Seats are indexed 0..n-1 in the clockwise order the players were given. Per-seat data lives
in parallel lists for speed; treat every list as read-only (use the accessors, which return
tuples, from outside this package).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from croupier.poker.core.rules import TableConfig

PREFLOP, FLOP, TURN, RIVER = 0, 1, 2, 3
STREETS = ("preflop", "flop", "turn", "river")

AWAITING = "awaiting_action"
COMPLETE = "complete"


class HandRanks(NamedTuple):
    """How strong a showdown hand is: functions of a hand evaluator. The evaluator is a C
    extension, so it lives outside the core (`croupier.poker.adapters.evaluator.RANKS`) and
    reaches the rules as an argument of `deal.start_hand`."""

    # Hold'em: the rank of 2 hole + 5 board cards, 1 (royal flush) .. 7462; lower is stronger.
    rank7: Callable[[int, int, int, int, int, int, int], int]
    # Omaha: the value of exactly 2 of the hole cards and 3 of the board; higher is stronger.
    omaha_value: Callable[[Sequence[int], Sequence[int]], int]


class HandSetup(NamedTuple):
    """What never changes during a hand (one reference, shared by every copy)."""

    config: TableConfig
    button: int
    sb_seat: int  # -1: a dead small blind (nobody posts it; `deal.start_hand`)
    bb_seat: int
    initial: tuple[int, ...]  # starting stacks
    deck: tuple[int, ...]  # the undealt stub, top first
    ranks: HandRanks  # the showdown's hand values
    # Posts outside the blinds' positions, per seat (live, dead); () when nobody posts.
    # Live chips count toward the poster's bet; dead chips go to the main pot.
    posts: tuple[tuple[int, int], ...] = ()
    # Dead chips per seat (the posts' dead parts and the big-blind ante); () when none: they
    # are in `contrib` but settle apart from the bets, in the main pot.
    dead: tuple[int, ...] = ()


class HandState:
    """One hand of poker. Build it with `deal.start_hand`; advance it with `hand.apply`."""

    __slots__ = (
        "able",
        "acted_level",
        "actions",
        "bets",
        "board",
        "cache",
        "contrib",
        "current_bet",
        "deck_pos",
        "folded",
        "hole",
        "ids",
        "last_full",
        "live",
        "n",
        "naiko",
        "pot_capped",
        "result",
        "setup",
        "stacks",
        "status",
        "street",
        "to_act",
    )

    setup: HandSetup
    ids: tuple[str, ...]
    n: int
    hole: tuple[tuple[int, ...], ...]
    deck_pos: int
    board: list[int]
    stacks: list[int]  # chips behind
    bets: list[int]  # put in during the current betting round (blinds included)
    contrib: list[int]  # put in during the whole hand (antes, blinds, bets)
    folded: list[bool]
    # the current bet right after his last voluntary action this round; -1: not acted yet
    acted_level: list[int]
    pot_capped: list[bool]  # betting capped at the pot-limit maximum (table limit or an Anchor)
    live: int  # players who have not folded
    able: int  # players who have not folded and still have chips (can bet)
    street: int
    current_bet: int  # the bet to match this round (preflop: at least the big blind, OQ 2)
    last_full: int  # the last full bet/raise increment this round (rule 15)
    to_act: int  # seat index, or -1
    status: str
    actions: tuple[dict[str, Any], ...]  # every accepted action, with the chips it put in
    result: dict[str, Any] | None
    naiko: Any  # naiko.NaikoState in Naiko mode (immutable, shared between copies), else None
    cache: Any  # derived data for the player to act (betting.Options), rebuilt after a copy

    def copy(self, chips: bool = True) -> HandState:
        """A copy to change. The lists changed by most actions (stacks, bets, contrib,
        acted_level) are copied; `board`, `folded` and `pot_capped` are shared and must be
        replaced by a new list, never changed in place. `chips=False` (a fold or a check)
        shares stacks, bets and contrib too: the copy must then replace them, not change them."""
        s = object.__new__(HandState)
        s.setup = self.setup
        s.ids = self.ids
        s.n = self.n
        s.hole = self.hole
        s.deck_pos = self.deck_pos
        s.board = self.board  # shared: replaced, never changed in place
        if chips:
            s.stacks = self.stacks[:]
            s.bets = self.bets[:]
            s.contrib = self.contrib[:]
        else:  # shared: copy before changing (copy-on-write)
            s.stacks = self.stacks
            s.bets = self.bets
            s.contrib = self.contrib
        s.folded = self.folded  # shared: copy before changing (copy-on-write)
        s.acted_level = self.acted_level[:]
        s.pot_capped = self.pot_capped  # shared: copy before changing (copy-on-write)
        s.street = self.street
        s.live = self.live
        s.able = self.able
        s.current_bet = self.current_bet
        s.last_full = self.last_full
        s.to_act = self.to_act
        s.status = self.status
        s.actions = self.actions
        s.result = self.result
        s.naiko = self.naiko
        s.cache = None
        return s

    # Read-only accessors -------------------------------------------------------------

    @property
    def config(self) -> TableConfig:
        return self.setup.config

    @property
    def button(self) -> int:
        return self.setup.button

    @property
    def sb_seat(self) -> int:
        """The small blind's seat index, or -1 when the small blind is dead."""
        return self.setup.sb_seat

    @property
    def dead_small_blind(self) -> bool:
        return self.setup.sb_seat < 0

    @property
    def bb_seat(self) -> int:
        return self.setup.bb_seat

    @property
    def initial(self) -> tuple[int, ...]:
        return self.setup.initial

    @property
    def deck(self) -> tuple[int, ...]:
        return self.setup.deck

    @property
    def posts(self) -> tuple[tuple[int, int], ...]:
        """(live, dead) posted per seat outside the blinds, or () when nobody posted."""
        return self.setup.posts

    def seat_of(self, player: str) -> int:
        try:
            return self.ids.index(player)
        except ValueError:
            raise KeyError(player) from None

    @property
    def player_to_act(self) -> str | None:
        """Whose clock runs: the player to act, or an Anchor target in his response window."""
        if self.naiko is not None and self.naiko.pending is not None:
            pending: tuple[int, int] = self.naiko.pending
            return self.ids[pending[1]]
        return None if self.to_act < 0 else self.ids[self.to_act]

    @property
    def is_complete(self) -> bool:
        return self.status == COMPLETE

    @property
    def stack_list(self) -> tuple[int, ...]:
        return tuple(self.stacks)

    @property
    def board_cards(self) -> tuple[int, ...]:
        return tuple(self.board)

    @property
    def pot_total(self) -> int:
        """Every chip put in this hand so far (current round's bets included)."""
        return sum(self.contrib)

    def clockwise_from_button(self, seats: list[int]) -> list[int]:
        """Seats ordered clockwise starting with the first seat left of the button."""
        b, n = self.button, self.n
        return sorted(seats, key=lambda i: (i - b - 1) % n)
