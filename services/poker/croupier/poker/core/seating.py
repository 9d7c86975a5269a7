"""A poker table between hands: its seats, stacks, button, and who is dealt in next.

`PokerTable` is the table's state value (never changed once returned: the rules in
`croupier.poker.core.table` build a new one). `PokerTable.deal_plan` holds the standard
online rules for entering and missed blinds (OQ 22), written down in `core.table`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from croupier.game.limits import MAX_AMOUNT
from croupier.poker.core.rules import MIN_PLAYERS
from croupier.poker.core.state import HandState
from croupier.poker.core.table_options import TableOptions

# The actions a seated player may take between hands too (`croupier.poker.core.table`).
TABLE_ACTIONS = ("sit_out", "sit_in", "post_blind", "top_up")


@dataclass(frozen=True)
class PokerTable:
    options: TableOptions
    seats: tuple[tuple[int, str, int], ...] = ()  # (seat number, player, chips), by seat
    destellos: tuple[tuple[str, int], ...] = ()  # Naiko balances kept while seated (§5)
    button: int = -1  # seat number of the last hand's button
    big_blind: int = -1  # ... and of its big blind
    hand: HandState | None = None
    hand_number: int = 0
    leaving: frozenset[str] = field(default_factory=frozenset)
    bots: frozenset[str] = field(default_factory=frozenset)  # seats labelled BOT (rule 59)
    waiting: frozenset[str] = field(default_factory=frozenset)  # for the big blind (OQ 22)
    sitting_out: frozenset[str] = field(default_factory=frozenset)
    missed: frozenset[str] = field(default_factory=frozenset)  # missed blinds while out
    missed_big: frozenset[str] = field(default_factory=frozenset)  # ... the big one among them
    posting: frozenset[str] = field(default_factory=frozenset)  # waiting, chose to post
    top_ups: tuple[tuple[str, int], ...] = ()  # added during the hand, stacked when it ends

    def chips(self, player: str) -> int:
        return next(st for _, p, st in self.seats if p == player)

    def top_up_range(self, player: str) -> tuple[int, int]:
        """(least, most) chips `player` may top up now (§6, rule 50): the stack he has
        (as the hand in play started, plus top-ups pending) reaches at most `max_buy_in`
        (else `MAX_AMOUNT`); a busted player buys in again with at least `min_buy_in`.
        Nothing fits when least > most."""
        opts = self.options
        stack = self.chips(player) + dict(self.top_ups).get(player, 0)
        least = max(1, opts.min_buy_in) if stack == 0 else 1
        return least, max(0, (opts.max_buy_in or MAX_AMOUNT) - stack)

    def table_actions(self, player: str) -> list[str]:
        """The table actions (`TABLE_ACTIONS`) `player` may take now: none when he is not
        seated or is leaving."""
        if player in self.leaving or not any(p == player for _, p, _ in self.seats):
            return []
        out = ["sit_in" if player in self.sitting_out else "sit_out"]
        if player in self.waiting and player not in self.posting | self.sitting_out:
            out.append("post_blind")
        least, most = self.top_up_range(player)
        if least <= most:
            out.append("top_up")
        return out

    def owed(self, player: str) -> tuple[int, int]:
        """(live, dead) the player owes for blinds missed while out: the big blind live
        and the small blind dead when he missed the big one, the small blind dead when he
        missed only that one, else nothing (OQ 22, standard online). Owing nothing (a
        missed small blind of 0), he comes back at once."""
        cfg = self.options.config
        if player in self.missed_big:
            return cfg.big_blind, cfg.small_blind
        if player in self.missed:
            return 0, cfg.small_blind
        return 0, 0

    def entry_post(self, player: str) -> tuple[int, int]:
        """(live, dead) a waiting player posts to be dealt in before his big blind: what he
        owes, or (new player) one big blind live."""
        live, dead = self.owed(player)
        if not live and not dead:
            live = self.options.config.big_blind
        return live, dead

    @property
    def running(self) -> bool:
        return self.hand is not None and not self.hand.is_complete

    def dealt_in(self) -> list[tuple[int, str, int]]:
        return self.deal_plan().dealt

    def deal_plan(self) -> DealPlan:
        """Who the next hand deals in, and where the button goes (OQ 22, standard online).

        - The button moves one seat clockwise among the players who play on; heads-up,
          the big blind moves to the player after the last big blind (the button takes
          the other seat).
        - A player who sat down while a game runs, or came back after missing his blinds,
          waits for the big blind: he is dealt in on the hand whose big blind falls on his
          seat (the second seat after the button among the playing seats and him). When
          fewer than two players play on, nobody waits: everybody with chips is dealt in.
        - Or he posts (`post_blind`): he is dealt in on the next hand with his post,
          unless his seat is between the button and the small blind (he would be the
          small blind): then he waits until the button has passed him. On his big blind's
          hand he just posts the big blind.
        - A player sitting out, or busted (no chips), is not dealt in; if the small or big
          blind would have been his, he missed it and waits for the big blind (or posts)
          when he sits in again (or tops up).
        - A seat with no chips watches (§6).
        """
        ring = self.options.seats
        with_chips = [s for s in self.seats if s[2] > 0 and s[1] not in self.sitting_out]
        playing = [s for s in with_chips if s[1] not in self.waiting]
        waiting = [s for s in with_chips if s[1] in self.waiting]
        if len(playing) < MIN_PLAYERS:
            playing, waiting = with_chips, []
        if len(playing) < MIN_PLAYERS:
            return DealPlan([], -1)
        numbers = [n for n, _, _ in playing]
        if len(numbers) == MIN_PLAYERS and self.big_blind >= 0:
            # Heads-up the button posts the small blind (rule 9), and the big blind moves
            # forward to the player after the last one: going from 3 players to 2 (the
            # button left), moving the button one seat would give the last big blind the
            # big blind again.
            button = _after(numbers, _after(numbers, self.big_blind))
        else:
            button = _after(numbers, self.button)
        first = _after(numbers, button)  # the small blind's seat among the playing
        second = _after(numbers, first)

        def gap(a: int, x: int, b: int) -> bool:  # x strictly between a and b, clockwise
            return 0 < (x - a) % ring < ((b - a) % ring or ring)

        entering = [s for s in waiting if gap(first, s[0], second)]
        entering.sort(key=lambda s: (s[0] - first) % ring)
        posters = [
            s
            for s in waiting
            if s[1] in self.posting and s not in entering[:1] and not gap(button, s[0], first)
        ]
        dealt = sorted([*playing, *entering[:1], *posters])
        big = entering[0][0] if entering else second  # the big blind's seat
        out = [  # not dealt in, and owing what passes them: sitting out, or busted
            (n, p)
            for n, p, chips in self.seats
            if p in self.sitting_out
            # Busted: owing what passes him, unless he is a new seat waiting to enter (a
            # busted player who sat out and in again still owes: no dodging a blind).
            or (
                chips == 0 and p not in self.leaving and (p not in self.waiting or p in self.missed)
            )
        ]
        return DealPlan(
            dealt,
            button,
            frozenset(p for _, p, _ in entering[:1]),
            frozenset(p for n, p in out if gap(button, n, big)),
            frozenset(p for n, p in out if gap(first, n, big)),
            {p: self.entry_post(p) for _, p, _ in posters},
        )


@dataclass(frozen=True)
class DealPlan:
    dealt: list[tuple[int, str, int]]
    button: int
    entering: frozenset[str] = frozenset()  # waiting players whose big blind it is
    missed: frozenset[str] = frozenset()  # sitting out (or busted) on a blind of theirs
    missed_big: frozenset[str] = frozenset()  # ... on the big blind
    posts: dict[str, tuple[int, int]] = field(default_factory=dict)  # (live, dead)


def _after(numbers: Sequence[int], seat: int) -> int:
    """The first of the (sorted) seat numbers clockwise after `seat`."""
    later = [n for n in numbers if n > seat]
    return later[0] if later else numbers[0]
