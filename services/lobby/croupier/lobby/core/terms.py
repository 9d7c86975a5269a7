"""What the lobby reads from a table's options (the game's JSON notation, as the table host
receives them): the game, its variant, currency, stake and seats.

The stake is the one amount players choose a table by: backgammon's `stake`, poker's
`big_blind`, the rummy `round_fee`; Joker plays for points (stake 0). Two templates with
the same `shape` (the options without the stake) describe the same game, so tickets with
equal shapes and overlapping stake ranges can be matched.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

from croupier.game.limits import check_amount, check_int, echo, json_int
from croupier.lobby.core.errors import InvalidInput

__all__ = ["DEFAULT_CURRENCY", "GAMES", "STAKE_FIELDS", "Terms", "terms_of", "with_stake"]

JSON = Mapping[str, object]

GAMES = ("backgammon", "joker", "poker", "rummy")
STAKE_FIELDS = {"backgammon": "stake", "poker": "big_blind", "rummy": "round_fee"}
_VARIANT_FIELDS = {
    "backgammon": "mode",
    "poker": "variant",
    "rummy": "variant",
    "joker": "game_type",
}
#: The table host's default currency (its `Buyins`): play chips.
DEFAULT_CURRENCY = "CHIP"
_MAX_POKER_SEATS = 9
_MAX_RUMMY_PLAYERS = 6


@dataclass(frozen=True)
class Terms:
    game: str
    variant: str
    currency: str
    stake: int
    max_win: int
    seats: int
    bots_allowed: bool
    shape: str


def _amount(options: JSON, field: str) -> int:
    value = options.get(field, 0)
    return check_amount(json_int(value), f"options.{field}") if value not in (None, "") else 0


def _seats(game: str, options: JSON) -> int:
    if game == "backgammon":
        return 2
    if game == "joker":
        return 4
    field, high = (
        ("seats", _MAX_POKER_SEATS) if game == "poker" else ("players", _MAX_RUMMY_PLAYERS)
    )
    given = json_int(options.get(field, 0) or 0)
    if given == 0:
        return high if game == "poker" else 2
    return check_int(given, f"options.{field}", 2, high)


def _variant(game: str, options: JSON) -> str:
    """The variant as the game's notation names it ("single", "nlhe", "gin"), also when
    it comes as a protobuf enum's name ("MODE_SINGLE", "VARIANT_NLHE")."""
    field = _VARIANT_FIELDS[game]
    return str(options.get(field, "") or "").lower().removeprefix(f"{field}_")


def terms_of(game: str, options: JSON) -> Terms:
    """The terms of a table of `game` opened with `options`; `InvalidInput` for an unknown
    game or a malformed amount (a negative stake). The game's own checks run on the host."""
    if game not in GAMES:
        raise InvalidInput("unknown_game", f"game {echo(game)} is not one of {', '.join(GAMES)}")
    # A bad amount or seat count is `OutOfBounds`, a Malformed refusal naming the field.
    stake_field = STAKE_FIELDS.get(game)
    stake = _amount(options, stake_field) if stake_field else 0
    max_win = _amount(options, "max_win") if game == "backgammon" else 0
    seats = _seats(game, options)
    bots = options.get("bots_allowed", False)
    shape = {k: v for k, v in options.items() if k != stake_field}
    return Terms(
        game=game,
        variant=_variant(game, options),
        currency=str(options.get("currency") or DEFAULT_CURRENCY),
        stake=stake,
        max_win=max_win,
        seats=seats,
        bots_allowed=bots is True,
        shape=json.dumps([game, shape], sort_keys=True, default=str),
    )


def with_stake(game: str, options: JSON, stake: int) -> dict[str, object]:
    """`options` with the game's stake field set to `stake` (unchanged for Joker)."""
    field = STAKE_FIELDS.get(game)
    return {**options, field: stake} if field else dict(options)
