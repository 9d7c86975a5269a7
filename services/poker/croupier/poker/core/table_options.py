"""A poker table's options: read, checked and bounded before the table opens.

Options are JSON in the conformance notation (`variant`, `blinds` or
`small_blind`/`big_blind`, `ante` or `big_blind_ante` (not both), `limit`, `seats`,
`min_buy_in`, `max_buy_in`, `invite_code`, `invited`) plus what the host reads (`currency`,
`decision_seconds`, `seal_window_seconds` (default 8; shown in Naiko views), `bots_allowed`,
`reconnect_seconds`), `hand_players` (a tournament hand's table deals no hand before that
many players are seated, so that its one hand deals them all), `dead_small_blind` (true: a
tournament hand's table, `hand_players` 3 or more, whose hand the director's dead button
rule left without a small blind: seat 0 has the button, seat 1 the big blind), or the
`croupier.poker.v1.Options` message as JSON (enum names, int64
as text). `bots_allowed` absent: public tables allow bots, private ones do not; present
(JSON, or the protobuf field set, `optional`): as said. A table whose `currency` is real
money (`croupier.game.money`: its kind is not play money or chips) plays for money: a
Hold'em or Omaha table may, as its opener chooses; a Naiko table plays for virtual chips
that are never money (rules 50, 55) and refuses such a currency.

Bounds (`croupier.game.limits`, so that no view overflows a protobuf int64): every amount
(blinds, antes, buy-in limits, a seat's stack, the stack a top-up makes) is at most
`MAX_AMOUNT`, every clock option at most `MAX_CLOCK_SECONDS`; past them a command is
refused (`croupier.game.Malformed`) before anything is logged.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from croupier.game import JSON, Malformed
from croupier.game.limits import (
    OutOfBounds,
    check_amount,
    check_int,
    check_seconds,
    echo,
    json_int,
)
from croupier.game.money import CURRENCIES, CurrencyKind
from croupier.poker.core.rules import MAX_PLAYERS, MIN_PLAYERS, TableConfig

# Play money and virtual chips: the currencies a Naiko table may play for.
PLAY_CURRENCIES = frozenset(c.code for c in CURRENCIES.values() if c.kind is not CurrencyKind.REAL)

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
    "hand_players",
    "dead_small_blind",
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


def bounded(check: Callable[[object, str], int], value: object, what: str) -> int:
    """`value` checked against its bound in `croupier.game.limits`; else `Malformed`."""
    try:
        return check(json_int(value), what)
    except OutOfBounds as exc:
        raise Malformed(exc.message) from None


def _amount(raw: JSON, name: str, default: int) -> int:
    return bounded(check_amount, raw.get(name, default), f"options.{name}")


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
    hand_players: int = 0  # no hand is dealt before this many are seated (0: two)
    dead_small_blind: bool = False  # the (tournament hand) table's first hand has none

    @property
    def private(self) -> bool:
        return bool(self.invite_code or self.invited)


def table_options(raw: JSON) -> TableOptions:
    unknown = sorted(set(raw) - set(ENGINE_OPTIONS) - set(HOST_OPTIONS))
    if unknown:
        raise Malformed(f"unknown poker option(s) {', '.join(unknown)}")
    variant = raw.get("variant", "nlhe")
    if variant not in VARIANTS:
        raise Malformed(f"options.variant is nlhe, plo or naiko, got {variant!r}")
    limit = raw.get("limit", "")
    if limit not in LIMITS:
        raise Malformed(f"options.limit is no-limit or pot-limit, got {limit!r}")
    if "blinds" in raw:
        blinds = raw["blinds"]
        if not isinstance(blinds, list) or len(blinds) != 2:
            raise Malformed("options.blinds is [small, big]")
        small = bounded(check_amount, blinds[0], "options.blinds[0]")
        big = bounded(check_amount, blinds[1], "options.blinds[1]")
    else:
        small, big = _amount(raw, "small_blind", 1), _amount(raw, "big_blind", 2)
    seats = bounded(_seat_count, raw.get("seats", 0), "options.seats") or MAX_PLAYERS
    for clock in CLOCK_OPTIONS:  # read by the host; bounded here before the table opens
        bounded(check_seconds, raw.get(clock, 0), f"options.{clock}")
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
        raise Malformed(str(exc)) from None
    seal_window = bounded(
        check_seconds, raw.get("seal_window_seconds", 0), "options.seal_window_seconds"
    )
    invite_code = raw.get("invite_code", "")
    if not isinstance(invite_code, str):
        raise Malformed("options.invite_code is text")
    invited = raw.get("invited", [])
    if not isinstance(invited, list) or not all(isinstance(p, str) and p for p in invited):
        raise Malformed("options.invited is a list of player ids")
    currency = raw.get("currency", "")
    if not isinstance(currency, str):
        raise Malformed(f"options.currency is a currency code, got {echo(currency)}")
    if VARIANTS[variant] == "naiko" and currency and currency not in PLAY_CURRENCIES:
        raise Malformed(
            "a Naiko table plays for virtual chips that are never money (rules 50, 55): "
            f"options.currency is one of {', '.join(sorted(PLAY_CURRENCIES))}, "
            f"not {echo(currency)}"
        )
    # Bots fill public tables unless switched off; a private table has them only when its
    # host switched them on (absent: the default for the kind of table).
    private = bool(invite_code or invited)
    bots_allowed = raw.get("bots_allowed", not private)
    if not isinstance(bots_allowed, bool):
        raise Malformed(f"options.bots_allowed is true or false, got {bots_allowed!r}")
    hand_players = bounded(_seat_count, raw.get("hand_players", 0), "options.hand_players")
    if hand_players > seats:
        raise Malformed(f"options.hand_players ({hand_players}) is more than seats ({seats})")
    dead_small_blind = raw.get("dead_small_blind", False)
    if not isinstance(dead_small_blind, bool):
        raise Malformed(f"options.dead_small_blind is true or false, got {echo(dead_small_blind)}")
    if dead_small_blind and hand_players < 3:
        # Only a tournament hand's table knows who its one hand deals; heads-up the button
        # posts the small blind (rule 9), so none can be dead.
        raise Malformed(
            "options.dead_small_blind is for a tournament hand's table of 3 players or more "
            "(options.hand_players)"
        )
    return TableOptions(
        config,
        seats,
        _amount(raw, "min_buy_in", 0),
        _amount(raw, "max_buy_in", 0),
        seal_window or DEFAULT_SEAL_WINDOW_SECONDS,
        bots_allowed,
        invite_code,
        frozenset(invited),
        hand_players,
        dead_small_blind,
    )
