"""A backgammon table: two seats, one game or series after another, and its money.

Two seats fill up; each `StartHand` starts the next game with its seed (the opening roll
and every later die come from `FairStream(seed, "dice")`); actions are in conformance
notation (`{"action": "roll"}`, `{"action": "move", "play": "8/5 6/5"}`, `double`,
`take`, ...); a clock expiry plays `{"action": "timeout"}` (OQ 5: that player loses: a
single game at the current cube x 1, a series as a whole; answering a double, it is a
drop), which only the clock may declare.

Next game: a series' games follow each other at once (one agreement, ¶4); after a
single (money) game the next one starts only when both players have sent
`{"action": "ready"}`: each money game is an amount agreed anew (¶2, ¶5), so a player
is never dealt into another stake he did not ask for, and either may leave instead
(nothing is at stake between games).

Amounts are minor units of the table's `currency` option (default CHIP, the host's
default). A player leaving a running game is settled by `core.abandonment`. What is read
from a table (views, the settlement of the game that ended) is `core.table_rules`.

Real money needs a funded account (rule 2): at a real-money table every seat holds the
player's *cover*, the most one game can cost him by the rules (`stake_cover`), before the
game is dealt. Sitting down brings it (`player_seated` says `buy_in`), and a player whose
stack the last game left short brings the difference with his `ready` (`player_ready`
says `buy_in`); the table host buys what an event says in through the wallet before it
logs the command, so a refusal (no funds) refuses the command. A game waits while a
seat is short. Results move the stacks (`core.table_rules`); a player leaves with his.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from croupier.backgammon.core import game
from croupier.backgammon.core.abandonment import Abandonment, abandonment, at_stake
from croupier.backgammon.core.commission import MAX_CUBE, single_game_payout
from croupier.backgammon.core.errors import (
    InvalidAction,
    SeatUnavailable,
    UnknownPlayer,
    WrongPhase,
)
from croupier.backgammon.core.notation import IllegalPlay, parse_play
from croupier.game import JSON, Event
from croupier.game.limits import echo
from croupier.game.money import CURRENCIES

__all__ = [
    "DEFAULT_CURRENCY",
    "BackgammonTable",
    "act",
    "awaiting_ready",
    "can_start_hand",
    "may_ready",
    "open_table",
    "parse_currency",
    "parse_options",
    "seat",
    "short_of_cover",
    "stake_cover",
    "start_game",
    "unseat",
]

SEATS = 2
DEFAULT_CURRENCY = "CHIP"  # the host's default (TableHost(currency=...))

Step = tuple["BackgammonTable", list[Event]]


@dataclass(frozen=True)
class BackgammonTable:
    options: game.Options
    seats: tuple[str, ...] = ()
    game: game.State | None = None
    games_started: int = 0
    currency: str = DEFAULT_CURRENCY
    abandoned: Abandonment | None = None
    ready: frozenset[str] = frozenset()  # players ready for the next single game
    # Real-money tables: what each seated player has at the table (player, minor units).
    stacks: tuple[tuple[str, int], ...] = ()

    def stack(self, player: str) -> int:
        return dict(self.stacks).get(player, 0)


def parse_options(raw: JSON) -> game.Options:
    """Table options (protobuf JSON of croupier.backgammon.v1.Options, or plain values)."""
    name = str(raw.get("mode", "single")).lower()
    name = {"mode_single": "single", "mode_series": "match", "series": "match"}.get(name, name)
    if name not in ("single", "match"):
        raise InvalidAction(f"mode must be single or series, not {echo(name)}")
    mode = game.Mode(name)

    def number(key: str, default: int | None) -> int | None:
        value = raw.get(key, default)
        if value is None:
            return None
        try:
            return int(value)  # protobuf JSON writes int64 as text
        except (TypeError, ValueError):
            raise InvalidAction(f"{key} must be an integer") from None

    if mode == "match" and raw.get("beaver"):
        raise InvalidAction("beavers are a single-game option (rule 19)")
    options = game.Options(
        mode=mode,
        stake=number("stake", 0) or 0,
        max_win=number("max_win", None),
        beaver=bool(raw.get("beaver", False)),
        points=number("points", 0) or 0,
        crawford=bool(raw.get("crawford", True)),
        tournament=bool(raw.get("tournament", False)),
    )
    options.validate()
    return options


def parse_currency(raw: JSON) -> str:
    """The table's currency option (a code the wallet knows); CHIP when absent."""
    code = str(raw.get("currency") or DEFAULT_CURRENCY).upper()
    if code not in CURRENCIES:
        known = ", ".join(sorted(CURRENCIES))
        raise InvalidAction(f"unknown currency {echo(code)}; known: {known}")
    return code


def open_table(raw: JSON) -> BackgammonTable:
    """A new table from its options."""
    options, currency = parse_options(raw), parse_currency(raw)
    if options.tournament and CURRENCIES[currency].carries_commission:
        # Tournament games are played for the tournament's chips; the money (entry,
        # fee, prizes) moves through the tournament's own wallet operations.
        raise InvalidAction("a tournament table plays for chips: use currency CHIP")
    return BackgammonTable(options=options, currency=currency)


def stake_cover(state: BackgammonTable) -> int:
    """What a seat must hold before a game is dealt: the most the game (a series: the
    series) can cost the player, 0 at play-money and tournament tables (rule 2, 45).

    A single game's loser pays stake x cube x multiplier capped at the maximum (rule 5);
    the cube stops at 64 (rule 18) and the multiplier at 3 (rule 38), so without a
    maximum (OQ 16) that is 192 x stake. Every other way a single game ends costs no more:
    a refused double or beaver (rules 16, 21: stake x a cube of at most 64), a loss on
    time (OQ 5: x 1), a disconnection (OQ 7: |E| <= 3 at the cube), all under the same
    maximum (OQ 13). A series settles its stake once (OQ 4), an abandoned one a share of
    it (`core.abandonment`)."""
    options = state.options
    if options.tournament or not CURRENCIES[state.currency].carries_commission:
        return 0
    if options.mode == "match":
        return options.stake
    return single_game_payout(options.stake, MAX_CUBE, 3, options.max_win)


def short_of_cover(state: BackgammonTable, player: str) -> int:
    """How much `player`'s stack lacks of the cover (0: funded, or no money at stake)."""
    return max(0, stake_cover(state) - state.stack(player))


def seat(state: BackgammonTable, player: str, stack: int = 0) -> Step:
    if state.game is not None or len(state.seats) >= SEATS:
        raise SeatUnavailable("the table is full")
    if player in state.seats:
        raise SeatUnavailable(f"{echo(player)} is already seated")
    if stack:
        raise InvalidAction(
            "a backgammon seat takes no stack: a money game's cover is set by the table's "
            "stake and maximum"
        )
    seated = replace(state, seats=(*state.seats, player))
    cover = stake_cover(state)
    if not cover:
        return seated, [Event("player_seated", {"player": player})]
    funded = replace(seated, stacks=tuple(sorted((*state.stacks, (player, cover)))))
    return funded, [Event("player_seated", {"player": player, "buy_in": cover})]


def unseat(state: BackgammonTable, player: str, evaluation: JSON | None) -> Step:
    """`player` leaves; a running game is settled from `evaluation` (`core.abandonment`)."""
    if player not in state.seats:
        raise UnknownPlayer(f"{echo(player)} is not seated at this table")
    seats = tuple(p for p in state.seats if p != player)
    if state.game is not None and at_stake(state.game):
        record = abandonment(state.game, player, evaluation)
        left = replace(state, seats=seats, game=None, abandoned=record)
        abandoned = Event("game_abandoned", record.public())
        return left, [abandoned, Event("player_left", {"player": player})]
    left = replace(state, seats=seats, game=None, ready=frozenset())
    return left, [Event("player_left", {"player": player})]


def awaiting_ready(state: BackgammonTable) -> bool:
    """A single game is over and the next waits for both players' `ready`."""
    g = state.game
    return g is not None and g.options.mode == "single" and g.phase == "game_over"


def can_start_hand(state: BackgammonTable) -> bool:
    if len(state.seats) != SEATS or any(short_of_cover(state, p) for p in state.seats):
        return False
    if state.game is None:
        return True
    g = state.game
    if g.phase not in ("idle", "game_over"):
        return False
    if awaiting_ready(state):
        return set(state.seats) <= state.ready
    return not (g.options.mode == "match" and g.match_winner is not None)


def start_game(state: BackgammonTable, seed: bytes) -> Step:
    if not can_start_hand(state):
        raise WrongPhase("no game can start now")
    current = state.game or game.new_table(state.options, state.seats)
    started, events = game.start_game(current, seed=seed)
    started_table = replace(
        state,
        game=started,
        games_started=state.games_started + 1,
        abandoned=None,
        ready=frozenset(),
    )
    return started_table, events


def act(state: BackgammonTable, player: str, action: JSON, *, by_clock: bool) -> Step:
    if action.get("action") == "ready":
        return _ready(state, player)
    if state.game is None:
        raise WrongPhase("the game has not started")
    if action.get("action") == "timeout" and not by_clock:
        raise InvalidAction("a loss on time is the clock's to declare")
    _check_play_text(action)
    new_game, events = game.apply(state.game, player, action)
    return replace(state, game=new_game), events


def may_ready(state: BackgammonTable, player: str) -> bool:
    """`ready` is his to send: the last single game is over and he has not said it yet,
    or no game runs and his stack is short of the next one's cover."""
    if player not in state.seats:
        return False
    if awaiting_ready(state):
        return player not in state.ready
    idle = state.game is None or state.game.phase in ("idle", "game_over")
    return idle and short_of_cover(state, player) > 0


def _ready(state: BackgammonTable, player: str) -> Step:
    if player not in state.seats:
        raise UnknownPlayer(f"{echo(player)} is not seated at this table")
    if not may_ready(state, player):
        if player in state.ready:
            raise WrongPhase("you are already ready for the next game")
        raise WrongPhase("ready is for the next single game, once the last one is over")
    ready = replace(state, ready=state.ready | {player})
    shortfall = short_of_cover(state, player)
    if not shortfall:
        return ready, [Event("player_ready", {"player": player})]
    stacks = dict(state.stacks)
    stacks[player] = stacks.get(player, 0) + shortfall
    funded = replace(ready, stacks=tuple(sorted(stacks.items())))
    return funded, [Event("player_ready", {"player": player, "buy_in": shortfall})]


def _check_play_text(action: JSON) -> None:
    """A move whose play cannot be read is malformed; one that reads but is not legal for
    the roll is refused by the rules (`IllegalMove`)."""
    play = action.get("play") if isinstance(action, dict) else None
    if action.get("action") == "move" and isinstance(play, str):
        try:
            parse_play(play)
        except IllegalPlay as exc:
            raise InvalidAction(str(exc)) from None
