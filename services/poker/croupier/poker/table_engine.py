"""Poker as the table host runs it (`croupier.game.GameRules`): translation only.

The rules live in `engine` (a hand) and `naiko` (powers); this module keeps what lasts
between hands (seats, stacks, the button, Naiko Destello balances) and turns host commands
into engine calls:

- `SeatPlayer` takes a free seat with a buy-in (stack) of at least 1 chip and
  `min_buy_in`; a player who goes broke keeps his seat and watches (§6, rule 50). A new
  player waits for the big blind (`PokerTable.deal_plan`, OQ 22), unless fewer than two
  players are playing. `is_bot=True` labels the seat BOT (rule 59;
  refused when `bots_allowed` is false). A private table (`invite_code`, `invited`) seats
  only invited players.
- `UnseatPlayer` between hands frees the seat; during a hand the player is marked as
  leaving and his remaining turns are played at once as the clock would (check when legal,
  else fold; an open Seal window: no Seal; OQ 20): the host stops timing an unseated
  player. He leaves when the hand ends.
- `StartHand(seed)` moves the button one seat clockwise (OQ 22) among the players playing
  and deals from the seed (`engine.deal_from_seed`; Naiko: the Carousel too).
- `Act` is `engine.apply`; an illegal action raises `IllegalAction`, a `RuleBroken`. Table
  actions (`TABLE_ACTIONS`) work between hands too: `sit_out` (from the next hand; blinds
  that pass meanwhile are missed), `sit_in` (at once, or waiting for the big blind after
  missed blinds; `"post": true` posts at once), `post_blind` and `top_up` (below).

Entering and missed blinds (OQ 22, the standard online rules; choices written down here):

- The button moves one seat clockwise per hand among the players who play on; blinds are
  never skipped backwards and there is no dead button. Heads-up (rule 9: the button posts
  the small blind) the big blind goes to the player after the last big blind, so that
  nobody has it twice running when a table goes from 3 players to 2.
- A new player waits for his big blind (dealt in on the hand whose big blind falls on his
  seat, posting just that blind), or sends `post_blind`: he is then dealt in on the next
  hand with one big blind posted live, wherever he sits, except between the button and
  the small blind (he would be the small blind): there he waits until the button has
  passed him. A live post is his bet: he acts in turn and may check if nobody raised.
- A player sitting out (or busted: no chips) misses a blind when it would have been his
  (his seat between the button and the big blind of a hand he is not dealt in). Coming
  back (`sit_in`, or a busted player's `top_up`) he waits for his big blind, which clears
  what he owes, or posts what he missed: the big blind live plus the small blind dead if
  he missed the big blind; the small blind dead if he missed only the small blind. Dead
  chips go to the main pot: not part of his bet, never returned as uncalled
  (`engine.start_hand`'s `posts`).
- When fewer than two players play on, nobody waits and nobody posts: everybody with chips
  is dealt in and what was owed is forgiven.

Top-up and busted players (§6, rule 50): `{"action": "top_up", "amount": N}` adds chips,
at most up to `max_buy_in` (0: no limit) counted on the stack at the start of the hand in
play plus top-ups pending; at once when the player is not in the running hand, else when
the hand ends (a hand's `HandResult.deltas` never include it), and then only up to
`max_buy_in` on the stack he ends the hand with: the rest is given back
(`top_up_returned`, which a cash table pays out like a leaving stack). A busted player keeps his
seat and watches; the table plays on without him; his top-up is a new buy-in of at least
`min_buy_in`. `player_left` events carry the `stack` the player leaves with (what a cash
table gives back, `croupier.table.buyins`).
- `turn_key` and `turn_ms` (the host's `TracksTurns`, `TimesTurns`): a power does not
  restart the turn clock; the Seal response window is a decision of the target's own,
  timed by `seal_window_seconds`; the anchoring player's turn pauses meanwhile and
  resumes where it stopped (OQ 17).

The finished hand's `HandResult` has exact integer deltas (final - starting stack) that sum
to zero, and the public record (pots, returned, winnings, shown hands) in `details`.

Options: JSON in the conformance notation (`variant`, `blinds` or `small_blind`/`big_blind`,
`ante` or `big_blind_ante` (not both), `limit`, `seats`, `min_buy_in`, `max_buy_in`,
`invite_code`, `invited`) plus what the host reads (`currency`, `decision_seconds`,
`seal_window_seconds` (default 8; shown in Naiko views), `bots_allowed`,
`reconnect_seconds`), or the `croupier.poker.v1.Options` message as JSON (enum names, int64
as text). `bots_allowed` absent: public tables allow bots, private ones do not; present
(JSON, or the protobuf field set, `optional`): as said. A table whose `currency` is not a
play currency (`croupier.table.buyins`) plays for money: a Hold'em or Omaha table may, as
its opener chooses; a Naiko table plays for virtual chips that are never money (rules 50,
55) and refuses such a currency.

Bounds (`croupier.game.limits`, so that no view overflows a protobuf int64): every amount
(blinds, antes, buy-in limits, a seat's stack, the stack a top-up makes) is at most
`MAX_AMOUNT`, every clock option at most `MAX_CLOCK_SECONDS`; past them a command is
refused with INVALID_ARGUMENT before anything is logged.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from google.protobuf.message import Message

from croupier.common.v1 import common_pb2
from croupier.game import (
    JSON,
    Act,
    Command,
    Event,
    HandResult,
    Malformed,
    NotYours,
    RuleBroken,
    SeatPlayer,
    StartHand,
    Unknown,
    UnseatPlayer,
)
from croupier.game.fairness import shuffled
from croupier.game.limits import (
    MAX_AMOUNT,
    OutOfBounds,
    check_amount,
    check_int,
    check_seconds,
    echo,
    json_int,
)
from croupier.poker import cards as C
from croupier.poker import engine, history
from croupier.poker.rules import MAX_PLAYERS, MIN_PLAYERS, TableConfig
from croupier.poker.state import HandState
from croupier.poker.v1 import poker_pb2
from croupier.table.service.money import PLAY_CURRENCIES
from croupier.table.v1 import table_pb2

VARIANTS = {
    "nlhe": "nlhe",
    "plo": "plo",
    "naiko": "naiko",
    "VARIANT_NLHE": "nlhe",
    "VARIANT_PLO": "plo",
    "VARIANT_NAIKO": "naiko",
}
LIMITS = {
    "": "",
    "no-limit": "no-limit",
    "pot-limit": "pot-limit",
    "LIMIT_UNSPECIFIED": "",
    "LIMIT_NO_LIMIT": "no-limit",
    "LIMIT_POT_LIMIT": "pot-limit",
}
ENGINE_OPTIONS = (
    "variant",
    "blinds",
    "small_blind",
    "big_blind",
    "ante",
    "big_blind_ante",
    "limit",
    "seats",
    "min_buy_in",
    "max_buy_in",
    "invite_code",
    "invited",
)
# Read by the host or the lobby, not by the rules.
HOST_OPTIONS = (
    "currency",
    "decision_seconds",
    "seal_window_seconds",
    "bots_allowed",
    "turn_seconds",
    "reconnect_seconds",
)


def _invalid(message: str) -> Malformed:
    return Malformed(message)


def _bounded(check: Callable[[object, str], int], value: object, what: str) -> int:
    """`value` checked against its bound in `croupier.game.limits`; else INVALID_ARGUMENT."""
    try:
        return check(json_int(value), what)
    except OutOfBounds as exc:
        raise _invalid(exc.message) from None


def _amount(raw: JSON, name: str, default: int) -> int:
    return _bounded(check_amount, raw.get(name, default), f"options.{name}")


def _seat_count(value: object, what: str) -> int:
    """A table's number of seats: 0 (unset in protobuf: the default) or 2 to 9 (OQ 13)."""
    if type(value) is int and value == 0:
        return 0
    return check_int(value, what, MIN_PLAYERS, MAX_PLAYERS)


DEFAULT_SEAL_WINDOW_SECONDS = 8  # §9.4 "at present 8 seconds"
CLOCK_OPTIONS = ("decision_seconds", "turn_seconds", "reconnect_seconds")


@dataclass(frozen=True)
class TableOptions:
    config: TableConfig
    seats: int = MAX_PLAYERS
    min_buy_in: int = 0
    max_buy_in: int = 0  # 0: no maximum
    seal_window_seconds: int = DEFAULT_SEAL_WINDOW_SECONDS
    bots_allowed: bool = True
    invite_code: str = ""  # private table (§6): only invited players sit
    invited: frozenset[str] = frozenset()

    @property
    def private(self) -> bool:
        return bool(self.invite_code or self.invited)


def table_options(raw: JSON) -> TableOptions:
    unknown = sorted(set(raw) - set(ENGINE_OPTIONS) - set(HOST_OPTIONS))
    if unknown:
        raise _invalid(f"unknown poker option(s) {', '.join(unknown)}")
    variant = raw.get("variant", "nlhe")
    if variant not in VARIANTS:
        raise _invalid(f"options.variant is nlhe, plo or naiko, got {variant!r}")
    limit = raw.get("limit", "")
    if limit not in LIMITS:
        raise _invalid(f"options.limit is no-limit or pot-limit, got {limit!r}")
    if "blinds" in raw:
        blinds = raw["blinds"]
        if not isinstance(blinds, list) or len(blinds) != 2:
            raise _invalid("options.blinds is [small, big]")
        small = _bounded(check_amount, blinds[0], "options.blinds[0]")
        big = _bounded(check_amount, blinds[1], "options.blinds[1]")
    else:
        small, big = _amount(raw, "small_blind", 1), _amount(raw, "big_blind", 2)
    seats = _bounded(_seat_count, raw.get("seats", 0), "options.seats") or MAX_PLAYERS
    for clock in CLOCK_OPTIONS:  # read by the host; bounded here before the table opens
        _bounded(check_seconds, raw.get(clock, 0), f"options.{clock}")
    try:
        config = TableConfig(
            variant=VARIANTS[variant],
            small_blind=small,
            big_blind=big,
            ante=_amount(raw, "ante", 0),
            limit=LIMITS[limit],
            big_blind_ante=_amount(raw, "big_blind_ante", 0),
        )
    except ValueError as exc:
        raise _invalid(str(exc)) from None
    seal_window = _bounded(
        check_seconds, raw.get("seal_window_seconds", 0), "options.seal_window_seconds"
    )
    invite_code = raw.get("invite_code", "")
    if not isinstance(invite_code, str):
        raise _invalid("options.invite_code is text")
    invited = raw.get("invited", [])
    if not isinstance(invited, list) or not all(isinstance(p, str) and p for p in invited):
        raise _invalid("options.invited is a list of player ids")
    currency = raw.get("currency", "")
    if not isinstance(currency, str):
        raise _invalid(f"options.currency is a currency code, got {echo(currency)}")
    if VARIANTS[variant] == "naiko" and currency and currency not in PLAY_CURRENCIES:
        raise _invalid(
            "a Naiko table plays for virtual chips that are never money (rules 50, 55): "
            f"options.currency is one of {', '.join(sorted(PLAY_CURRENCIES))}, "
            f"not {echo(currency)}"
        )
    # Bots fill public tables unless switched off; a private table has them only when its
    # host switched them on (absent: the default for the kind of table).
    private = bool(invite_code or invited)
    bots_allowed = raw.get("bots_allowed", not private)
    if not isinstance(bots_allowed, bool):
        raise _invalid(f"options.bots_allowed is true or false, got {bots_allowed!r}")
    return TableOptions(
        config,
        seats,
        _amount(raw, "min_buy_in", 0),
        _amount(raw, "max_buy_in", 0),
        seal_window or DEFAULT_SEAL_WINDOW_SECONDS,
        bots_allowed,
        invite_code,
        frozenset(invited),
    )


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


TABLE_ACTIONS = ("sit_out", "sit_in", "post_blind", "top_up")
# Entries of a hand's action list that do not end a turn: a power (§10.1) and the Anchor
# target's answer, which belongs to the window (the anchoring player's turn goes on).
NOT_DECISIONS = ("power", "seal", "no_seal")


def _events(raw: Sequence[dict[str, Any]]) -> list[Event]:
    out = []
    for e in raw:
        data = {k: v for k, v in e.items() if k != "type"}
        out.append(Event(str(e["type"]), data))
    return out


class PokerEngine:
    name = "poker"
    # 2: posts to enter, missed blinds owed by busted players, top-ups capped when they
    # land (logs written by version 1 are not replayed under these rules). 3: going
    # heads-up, the big blind moves forward (the button may not move one seat).
    version = "3"

    def open(self, options: JSON) -> PokerTable:
        return PokerTable(options=table_options(options))

    def apply(self, state: PokerTable, command: Command) -> tuple[PokerTable, list[Event]]:
        if isinstance(command, SeatPlayer):
            return self._seat(state, command)
        if isinstance(command, UnseatPlayer):
            return self._unseat(state, command.player)
        if isinstance(command, StartHand):
            return self._start(state, command.seed)
        if isinstance(command, Act) and command.action.get("action") in TABLE_ACTIONS:
            return self._table_action(state, command.player, command.action)
        if isinstance(command, Act):
            if state.hand is None or not state.running:
                raise RuleBroken("no hand is running")
            if command.player in state.leaving:
                raise RuleBroken(f"{command.player!r} has left the table")
            _check_target(state.hand, command.action)
            hand, raw = engine.apply(state.hand, command.player, command.action)
            return self._after_action(replace(state, hand=hand), _events(raw))
        raise _invalid(f"unsupported command {command!r}")

    def _seat(self, state: PokerTable, command: SeatPlayer) -> tuple[PokerTable, list[Event]]:
        opts = state.options
        if not 0 <= command.seat < opts.seats:
            raise _invalid(f"this table has seats 0 to {opts.seats - 1}")
        if any(p == command.player for _, p, _ in state.seats):
            raise RuleBroken(f"{command.player!r} is already seated")
        if any(n == command.seat for n, _, _ in state.seats):
            raise RuleBroken(f"seat {command.seat} is taken")
        if command.is_bot and not opts.bots_allowed:
            raise NotYours("bots are not enabled at this table")
        holds_code = bool(opts.invite_code) and command.invite_code == opts.invite_code
        invited = command.is_bot or command.player in opts.invited or holds_code
        if opts.private and not invited:
            raise NotYours("this private table is for invited players only")
        stack = _bounded(check_amount, command.stack, "stack")
        # A seat needs chips: one taken with none would never be dealt in (only a player
        # who went broke at the table stays seated to watch, rule 50).
        least = max(1, opts.min_buy_in)
        if stack < least:
            raise _invalid(f"the buy-in is at least {least}")
        if opts.max_buy_in and stack > opts.max_buy_in:
            raise _invalid(f"the buy-in is at most {opts.max_buy_in}")
        seats = tuple(sorted((*state.seats, (command.seat, command.player, stack))))
        destellos = (*state.destellos, (command.player, 0))  # OQ 4: 0 on taking a seat
        bots = state.bots | {command.player} if command.is_bot else state.bots
        waiting = state.waiting | {command.player}  # until his big blind (or nobody plays)
        event = Event(
            "player_seated",
            {
                "player": command.player,
                "seat": command.seat,
                "stack": stack,
                "is_bot": command.is_bot,
            },
        )
        new = replace(state, seats=seats, destellos=destellos, bots=bots, waiting=waiting)
        return new, [event]

    def _table_action(
        self, state: PokerTable, player: str, action: JSON
    ) -> tuple[PokerTable, list[Event]]:
        """Table actions, also between hands: `sit_out`, `sit_in` (`"post": true` to post
        at once), `post_blind`, `top_up`."""
        if not any(p == player for _, p, _ in state.seats):
            raise Unknown(f"{player!r} is not seated")
        if player in state.leaving:
            raise RuleBroken(f"{player!r} has left the table")
        kind = action["action"]
        if kind == "top_up":
            return self._top_up(state, player, action.get("amount"))
        if kind == "post_blind":
            return self._post_blind(state, player)
        post = action.get("post", False)
        if not isinstance(post, bool):
            raise _invalid(f"post is true or false, got {post!r}")
        state, events = self._sit(state, player, str(kind))
        if post and player in state.waiting:
            state, more = self._post_blind(state, player)
            events = [*events, *more]
        return state, events

    def _sit(self, state: PokerTable, player: str, kind: str) -> tuple[PokerTable, list[Event]]:
        """`sit_out` (from the next hand; this one plays on) and `sit_in` (at once, or after
        waiting for the big blind (or posting) when he missed his blinds)."""
        if kind == "sit_out":
            if player in state.sitting_out:
                raise RuleBroken("you are already sitting out")
            # Sitting out withdraws a choice to post: he chooses again when he comes back.
            new = replace(
                state,
                sitting_out=state.sitting_out | {player},
                posting=state.posting - {player},
            )
            return new, [Event("player_sitting_out", {"player": player})]
        if player not in state.sitting_out:
            raise RuleBroken("you are not sitting out")
        waiting = state.waiting | {player} if any(state.owed(player)) else state.waiting
        new = replace(state, sitting_out=state.sitting_out - {player}, waiting=waiting)
        live, dead = new.owed(player)
        event = Event(
            "player_sitting_in",
            {
                "player": player,
                "waits_for_big_blind": player in waiting,
                "owes_big_blind": live,
                "owes_dead_small_blind": dead,
            },
        )
        return new, [event]

    def _post_blind(self, state: PokerTable, player: str) -> tuple[PokerTable, list[Event]]:
        """A waiting player chooses to post (OQ 22): dealt in on the next hand the rules
        allow, with his post (`PokerTable.entry_post`) instead of waiting for his big blind."""
        if player in state.sitting_out:
            raise RuleBroken("you are sitting out: sit in first")
        if player not in state.waiting:
            raise RuleBroken("you are not waiting for the big blind")
        if player in state.posting:
            raise RuleBroken("you already chose to post")
        live, dead = state.entry_post(player)
        new = replace(state, posting=state.posting | {player})
        return new, [Event("player_posting", {"player": player, "live": live, "dead": dead})]

    def _top_up(
        self, state: PokerTable, player: str, raw: object
    ) -> tuple[PokerTable, list[Event]]:
        """Chips added to a seat (§6, rule 50): at once when the player is not in the hand
        being played (a busted player too), else when it ends. The stack may reach at most
        `max_buy_in` (its stack at the start of the hand in play, plus what is pending); a
        busted player's top-up is a rebuy of at least `min_buy_in`."""
        if not isinstance(raw, int) or isinstance(raw, bool) or raw <= 0:
            raise _invalid(f"a top-up needs a positive integer amount, got {echo(raw)}")
        opts = state.options
        pending = dict(state.top_ups)
        stack = state.chips(player) + pending.get(player, 0)
        _bounded(check_amount, stack + raw, "the stack after the top-up")
        least, most = state.top_up_range(player)
        if raw > most:  # past max_buy_in (MAX_AMOUNT was refused above)
            raise RuleBroken(
                f"a top-up may bring the stack to at most {opts.max_buy_in}: "
                + (f"at most {most} more" if most else "it is there already"),
            )
        if raw < least:
            raise RuleBroken(
                f"a busted player buys in again with at least {opts.min_buy_in}",
            )
        in_hand = state.running and state.hand is not None and player in state.hand.ids
        data: JSON = {"player": player, "amount": raw}
        if in_hand:
            pending[player] = pending.get(player, 0) + raw
            new = replace(state, top_ups=tuple(sorted(pending.items())))
            data["pending"] = pending[player]
        else:
            seats = tuple((n, p, st + raw if p == player else st) for n, p, st in state.seats)
            # A busted player whose blinds passed him waits for his big blind (or posts).
            waiting = state.waiting | {player} if any(state.owed(player)) else state.waiting
            new = replace(state, seats=seats, waiting=waiting)
            data["stack"] = new.chips(player)
        return new, [Event("player_topped_up", data)]

    def _unseat(self, state: PokerTable, player: str) -> tuple[PokerTable, list[Event]]:
        if not any(p == player for _, p, _ in state.seats):
            raise Unknown(f"{player!r} is not seated")
        if state.running and state.hand is not None and player in state.hand.ids:
            event = Event("player_leaving", {"player": player})
            return self._after_action(replace(state, leaving=state.leaving | {player}), [event])
        stack = state.chips(player) + dict(state.top_ups).get(player, 0)
        return _remove(state, player), [Event("player_left", {"player": player, "stack": stack})]

    def _start(self, state: PokerTable, seed: bytes) -> tuple[PokerTable, list[Event]]:
        if not self.can_start_hand(state):
            raise RuleBroken("a hand needs 2 seated players with chips")
        plan = state.deal_plan()
        dealt = plan.dealt
        numbers = [n for n, _, _ in dealt]
        button_seat = plan.button  # OQ 22: one seat clockwise
        dealt_ids = {p for _, p, _ in dealt}
        state = replace(
            state,
            waiting=state.waiting - dealt_ids,
            posting=state.posting - dealt_ids,
            missed=(state.missed - dealt_ids) | plan.missed,
            missed_big=(state.missed_big - dealt_ids) | plan.missed_big,
        )
        players = [(p, st) for _, p, st in dealt]
        ids = [p for p, _ in players]
        balances = dict(state.destellos)
        hand = engine.deal_from_seed(
            state.options.config,
            players,
            numbers.index(button_seat),
            seed,
            [balances.get(p, 0) for p, _ in players]
            if state.options.config.variant == "naiko"
            else None,
            {ids.index(p): post for p, post in plan.posts.items()} or None,
        )
        number = state.hand_number + 1
        new = replace(
            state,
            hand=hand,
            button=button_seat,
            big_blind=numbers[hand.bb_seat],
            hand_number=number,
        )
        events = [
            Event(
                "hand_started",
                {
                    "hand_number": number,
                    "button": hand.ids[hand.button],
                    "players": [{"player": p, "stack": st} for p, st in players],
                    "small_blind": hand.ids[hand.sb_seat],
                    "big_blind": hand.ids[hand.bb_seat],
                },
            )
        ]
        if hand.posts:  # OQ 22: entry and missed-blind posts, public like the blinds
            events[0].data["posts"] = {
                p: {"live": live, "dead": dead}
                for p, (live, dead) in zip(hand.ids, hand.posts, strict=True)
                if live or dead
            }
        if hand.naiko is not None:
            events.append(Event("carousel", {"powers": sorted(hand.naiko.carousel)}))
        if hand.is_complete:  # everyone all-in from the blinds
            new, more = self._settle(new)
            events += more
        return new, events

    def _after_action(
        self, state: PokerTable, events: list[Event]
    ) -> tuple[PokerTable, list[Event]]:
        """Play the turns of players who left during the hand (OQ 20: check when legal,
        else fold; no Seal), then settle the hand if it is over.

        The host stops timing a player once he is unseated, so his remaining turns in the
        hand are played here, at once and deterministically (a replay does the same).
        """
        while state.running and state.hand is not None:
            actor = state.hand.player_to_act
            if actor is None or actor not in state.leaving:
                break
            action = engine.timeout_action(state.hand, actor)
            hand, raw = engine.apply(state.hand, actor, action)
            state = replace(state, hand=hand)
            events = [*events, Event("played_for_leaving_player", {"player": actor, **action})]
            events += _events(raw)
        if state.hand is not None and state.hand.is_complete:
            more: list[Event]
            state, more = self._settle(state)
            events = [*events, *more]
        return state, events

    def _settle(self, state: PokerTable) -> tuple[PokerTable, list[Event]]:
        hand = state.hand
        assert hand is not None and hand.result is not None
        final = hand.result["stacks"]
        cap = state.options.max_buy_in
        pending = dict(state.top_ups)  # top-ups made during the hand land now, up to the cap
        returned_top_ups: list[Event] = []
        seats_after = []
        for n, p, st in state.seats:
            stack = final.get(p, st)
            added = pending.get(p, 0)
            if cap and added:
                kept = min(added, max(0, cap - stack))
                if kept < added:
                    returned_top_ups.append(
                        Event("top_up_returned", {"player": p, "amount": added - kept})
                    )
                added = kept
            seats_after.append((n, p, stack + added))
        seats = tuple(seats_after)
        destellos = state.destellos
        if hand.naiko is not None:
            after = dict(zip(hand.ids, hand.naiko.destellos, strict=True))
            destellos = tuple((p, after.get(p, d)) for p, d in state.destellos)
        new = replace(state, seats=seats, destellos=destellos, top_ups=())
        events = returned_top_ups
        for player in sorted(state.leaving):
            events.append(Event("player_left", {"player": player, "stack": new.chips(player)}))
            new = _remove(new, player)
        return replace(new, leaving=frozenset()), events

    def stacks(self, state: PokerTable) -> dict[str, int]:
        """What each seated player would leave with now (`croupier.game.HoldsStacks`):
        his chips, top-ups pending included (during a hand: as the hand started)."""
        pending = dict(state.top_ups)
        return {p: st + pending.get(p, 0) for _, p, st in state.seats}

    def can_start_hand(self, state: PokerTable) -> bool:
        return not state.running and len(state.dealt_in()) >= MIN_PLAYERS

    def to_act(self, state: PokerTable) -> list[str]:
        if state.hand is None or not state.running:
            return []
        actor = state.hand.player_to_act
        return [] if actor is None else [actor]

    def turn_key(self, state: PokerTable, player: str) -> str | None:
        """Which decision `player`'s clock is timing (`croupier.game.TracksTurns`).

        A power does not end a turn (§10.1), so the key counts poker actions only: the
        clock keeps running from the turn's start through the power to the poker action.
        An Anchor target in his Seal response window is timing the window (its own key,
        its own allowance: `turn_ms`). The anchoring player is not in `to_act` while the
        window is open and his key is the same before and after it, so the host pauses
        his turn and resumes it where it stopped (OQ 17).
        """
        hand = state.hand
        if hand is None or not state.running or player not in hand.ids:
            return None
        nk = hand.naiko
        decisions = sum(1 for a in hand.actions if a.get("action") not in NOT_DECISIONS)
        if nk is not None and nk.pending is not None and hand.ids[nk.pending[1]] == player:
            return f"{state.hand_number}/seal/{decisions}"
        return f"{state.hand_number}/turn/{decisions}"

    def turn_ms(self, state: PokerTable, player: str) -> int | None:
        """The host's `TimesTurns`: the allowance of `player`'s current decision when it is
        not the table's clock: the Seal response window (§9.4: 8 s by default,
        `seal_window_seconds`), timed for the target only and with no reserve."""
        hand = state.hand
        if hand is None or not state.running or hand.naiko is None:
            return None
        pending = hand.naiko.pending
        if pending is not None and hand.ids[pending[1]] == player:
            return state.options.seal_window_seconds * 1000
        return None

    def legal_actions(self, state: PokerTable, player: str) -> JSON:
        """The hand's legal actions (rule 18) when one is running, then the table actions
        the player may take now (also between hands)."""
        legal: JSON = {"actions": []}
        if state.hand is not None and state.running:
            legal = engine.legal_actions(state.hand, player)
        return {**legal, "actions": [*legal["actions"], *state.table_actions(player)]}

    def view(self, state: PokerTable, player: str) -> JSON:
        return self._view(state, player)

    def public_view(self, state: PokerTable) -> JSON:
        return self._view(state, None)

    def _view(self, state: PokerTable, player: str | None) -> JSON:
        top_ups = dict(state.top_ups)
        out: JSON = {
            "hand_number": state.hand_number,
            "table": [
                {
                    "seat": n,
                    "player": p,
                    "stack": st,
                    "leaving": p in state.leaving,
                    "bot": p in state.bots,
                    "waiting_for_big_blind": p in state.waiting,
                    "sitting_out": p in state.sitting_out,
                    "posting_blind": p in state.posting,
                    "owes": list(state.owed(p)),
                    "pending_top_up": top_ups.get(p, 0),
                }
                for n, p, st in state.seats
            ],
        }
        if player is not None:
            out["table_actions"] = state.table_actions(player)
        if state.options.config.variant == "naiko":
            out["table_destellos"] = dict(state.destellos)
            out["seal_window_seconds"] = state.options.seal_window_seconds
        if state.hand is not None:
            out["hand"] = engine.view(state.hand, player)
        return out

    def timeout_action(self, state: PokerTable, player: str) -> JSON:
        if state.hand is None or not state.running:
            raise RuleBroken("no hand is running")
        return engine.timeout_action(state.hand, player)

    def result(self, state: PokerTable) -> HandResult | None:
        hand = state.hand
        if hand is None or hand.result is None:
            return None
        res = hand.result
        details = {k: res[k] for k in ("pots", "pot_shares", "returned", "winnings", "shown")}
        details["board"] = C.names(hand.board)
        return HandResult(
            hand_number=state.hand_number, deltas=dict(res["deltas"]), details=details
        )

    def randomness(self, seed: bytes) -> list[Any]:
        return C.names(shuffled(C.DECK, seed, "deck"))

    def snapshot(self, state: PokerTable) -> JSON:
        return {
            "seats": [list(s) for s in state.seats],
            "destellos": dict(state.destellos),
            "button": state.button,
            "big_blind": state.big_blind,
            "hand_number": state.hand_number,
            "leaving": sorted(state.leaving),
            "bots": sorted(state.bots),
            "waiting": sorted(state.waiting),
            "sitting_out": sorted(state.sitting_out),
            "missed": sorted(state.missed),
            "missed_big": sorted(state.missed_big),
            "posting": sorted(state.posting),
            "top_ups": dict(state.top_ups),
            "hand": None if state.hand is None else history.record(state.hand),
        }

    # ---- protobuf (croupier.table.grpc_api.ProtoCodec) --------------------------------

    def action_from_message(self, message: Message) -> JSON:
        return action_from_message(message)

    def view_to_message(self, view: JSON) -> table_pb2.GameView:
        return table_pb2.GameView(poker=view_message(view))


def _check_target(hand: HandState, action: JSON) -> None:
    """An Anchor aimed at nobody in this hand is NOT_FOUND (the engine checks the rest)."""
    if action.get("action") == "power" and action.get("power") == "anchor":
        target = action.get("target")
        if isinstance(target, str) and target and target not in hand.ids:
            raise Unknown(f"no player {echo(target)} in this hand to anchor")


def _remove(state: PokerTable, player: str) -> PokerTable:
    return replace(
        state,
        bots=state.bots - {player},
        waiting=state.waiting - {player},
        sitting_out=state.sitting_out - {player},
        missed=state.missed - {player},
        missed_big=state.missed_big - {player},
        posting=state.posting - {player},
        top_ups=tuple(t for t in state.top_ups if t[0] != player),
        seats=tuple(s for s in state.seats if s[1] != player),
        destellos=tuple(d for d in state.destellos if d[0] != player),  # OQ 5: reset on leaving
    )


# ---- protobuf actions and views --------------------------------------------------------

KINDS = {
    poker_pb2.ACTION_KIND_FOLD: "fold",
    poker_pb2.ACTION_KIND_CHECK: "check",
    poker_pb2.ACTION_KIND_CALL: "call",
    poker_pb2.ACTION_KIND_BET: "bet",
    poker_pb2.ACTION_KIND_RAISE: "raise",
    poker_pb2.ACTION_KIND_ALL_IN: "allin",
    poker_pb2.ACTION_KIND_POWER: "power",
    poker_pb2.ACTION_KIND_SEAL: "seal",
    poker_pb2.ACTION_KIND_NO_SEAL: "no_seal",
    poker_pb2.ACTION_KIND_SIT_OUT: "sit_out",
    poker_pb2.ACTION_KIND_SIT_IN: "sit_in",
    poker_pb2.ACTION_KIND_TOP_UP: "top_up",
    poker_pb2.ACTION_KIND_POST_BLIND: "post_blind",
}
KIND_ENUMS = {name: number for number, name in KINDS.items()}
POWERS = {
    poker_pb2.POWER_PEEK: "peek",
    poker_pb2.POWER_SWAP: "swap",
    poker_pb2.POWER_ANCHOR: "anchor",
}
POWER_ENUMS = {
    "peek": poker_pb2.POWER_PEEK,
    "swap": poker_pb2.POWER_SWAP,
    "anchor": poker_pb2.POWER_ANCHOR,
    "seal": poker_pb2.POWER_SEAL,
}
STREETS = {
    "preflop": poker_pb2.STREET_PREFLOP,
    "flop": poker_pb2.STREET_FLOP,
    "turn": poker_pb2.STREET_TURN,
    "river": poker_pb2.STREET_RIVER,
}


def action_from_message(message: Message) -> JSON:
    """A `croupier.poker.v1.Action` in the conformance notation (legality is the engine's)."""
    if not isinstance(message, poker_pb2.Action):
        raise _invalid(f"a poker action is a croupier.poker.v1.Action, not {type(message)}")
    kind = KINDS.get(message.kind)
    if kind is None:
        raise _invalid("action kind is required: ACTION_KIND_FOLD, _CHECK, _CALL, _BET, ...")
    action: JSON = {"action": kind}
    if kind in ("bet", "raise"):
        action["to"] = message.to
    if kind == "top_up":
        action["amount"] = message.amount
    if kind == "sit_in" and message.post:
        action["post"] = True
    if kind == "power":
        power = POWERS.get(message.power)
        if power is None:
            raise _invalid("a power action names POWER_PEEK, POWER_SWAP or POWER_ANCHOR")
        action["power"] = power
        if power == "swap":
            action["card"] = message.card.code
        if power == "anchor":
            action["target"] = message.target
    return action


def _cards(codes: Sequence[str]) -> list[common_pb2.Card]:
    return [common_pb2.Card(code=c) for c in codes]


def view_message(view: JSON) -> poker_pb2.View:
    """`croupier.poker.v1.View` from a table view JSON; copies, never adds hidden cards."""
    message = poker_pb2.View(hand_number=view.get("hand_number", 0))
    bots = {seat["player"] for seat in view.get("table", []) if seat.get("bot")}
    for seat in view.get("table", []):
        message.table.append(
            poker_pb2.TableSeat(
                seat=seat["seat"],
                player_id=seat["player"],
                stack=seat["stack"],
                is_bot=seat.get("bot", False),
                waiting_for_big_blind=seat.get("waiting_for_big_blind", False),
                sitting_out=seat.get("sitting_out", False),
                leaving=seat.get("leaving", False),
                posting_blind=seat.get("posting_blind", False),
                owes_big_blind=seat.get("owes", [0, 0])[0],
                owes_dead_small_blind=seat.get("owes", [0, 0])[1],
                pending_top_up=seat.get("pending_top_up", 0),
            )
        )
    message.seal_window_seconds = view.get("seal_window_seconds", 0)
    message.table_destellos.update(view.get("table_destellos", {}))
    message.table_actions.extend(KIND_ENUMS[a] for a in view.get("table_actions", []))
    hand = view.get("hand")
    if hand is None:
        for seat in view.get("table", []):
            message.seats.append(
                poker_pb2.Seat(
                    player_id=seat["player"], stack=seat["stack"], is_bot=seat["player"] in bots
                )
            )
        return message
    message.button = hand["button"]
    message.street = STREETS.get(hand["street"], poker_pb2.STREET_UNSPECIFIED)
    message.board.extend(_cards(hand["board"]))
    message.to_act = hand.get("to_act") or ""
    destellos = hand.get("destellos", {})
    for seat in hand["seats"]:
        message.seats.append(
            poker_pb2.Seat(
                player_id=seat["player"],
                stack=seat["stack"],
                bet=seat["bet"],
                folded=seat["folded"],
                all_in=seat["all_in"],
                is_bot=seat["player"] in bots,
                destellos=destellos.get(seat["player"], 0),
                hole_cards=_cards(seat.get("hole_cards", [])),
                hole_card_count=seat["hole_card_count"],
            )
        )
    for pot in hand["pots"]:
        message.pots.append(
            poker_pb2.Pot(amount=pot["amount"], eligible=pot["eligible"], winners=pot["winners"])
        )
    legal = hand.get("legal")
    if legal:
        message.legal.CopyFrom(
            poker_pb2.LegalActions(
                actions=[KIND_ENUMS[a] for a in legal["actions"]],
                call=legal["call"],
                min_raise_to=legal["min_raise_to"],
                max_raise_to=legal["max_raise_to"],
                powers=[POWER_ENUMS[p] for p in legal.get("powers", [])],
                anchor_targets=legal.get("anchor_targets", []),
            )
        )
    message.carousel.extend(POWER_ENUMS[p] for p in hand.get("carousel", []))
    private = hand.get("private", {})
    if "peeked" in private:
        message.peeked.CopyFrom(common_pb2.Card(code=private["peeked"]))
    if "swapped_in" in private:
        message.swapped_in.CopyFrom(common_pb2.Card(code=private["swapped_in"]))
    result = hand.get("result")
    if result is not None:
        res = message.result
        for pot, shares in zip(result["pots"], result["pot_shares"], strict=True):
            res.pots.append(
                poker_pb2.Pot(
                    amount=pot["amount"],
                    eligible=pot["eligible"],
                    winners=pot["winners"],
                    shares=shares,
                )
            )
        res.returned.update(result["returned"])
        res.winnings.update(result["winnings"])
        res.deltas.update(result["deltas"])
        for player, cards in result["shown"].items():
            res.shown.append(poker_pb2.ShownHand(player_id=player, cards=_cards(cards)))
    return message


ENGINE = PokerEngine()
