"""A rummy table's options, read and checked before the table opens.

Plain JSON or the protobuf JSON of `croupier.rummy.v1.Options` (enums by name such as
`VARIANT_GIN`, int64 as text): `variant` (required), `players` (the seats a round waits
for), `round_fee`, `chip_ratio` (default 1), `limit_to_winner_risk` (default true), and
for the host `turn_seconds`, `reconnect_seconds`, `reserve_seconds`, `currency`. Anything
else is refused by name (`croupier.game.Malformed`). Without `players` (or 0) a round
starts as soon as the variant's minimum is seated, so under the host, which deals at
once, a 3–4 player table needs it.
"""

from __future__ import annotations

from croupier.game import JSON, Malformed
from croupier.rummy.core.variant import VariantRules
from croupier.rummy.core.variants import VARIANTS

__all__ = ["OPTION_KEYS", "parse_options"]

OPTION_KEYS = frozenset(
    {
        "variant",
        "players",
        "round_fee",
        "chip_ratio",
        "limit_to_winner_risk",
        "turn_seconds",
        "reconnect_seconds",
        "reserve_seconds",
        "currency",
    }
)


def _integer(raw: JSON, key: str, default: int) -> int:
    value = raw.get(key, default)
    if isinstance(value, (bool, float)):
        raise Malformed(f"options.{key} must be an integer")
    try:
        number = int(value)  # protobuf JSON writes int64 as text
    except (TypeError, ValueError):
        raise Malformed(f"options.{key} must be an integer") from None
    if number < 0:
        raise Malformed(f"options.{key} must not be negative")
    return number


def parse_options(raw: JSON) -> tuple[VariantRules, int, int, bool, int]:
    """(rules, round fee, chip ratio, winner-risk flag, players) from a table's options."""
    unknown = sorted(set(raw) - OPTION_KEYS)
    if unknown:
        known = ", ".join(sorted(OPTION_KEYS))
        raise Malformed(f"unknown rummy option(s) {', '.join(unknown)}; known: {known}")
    given = raw.get("variant", "")
    variant = str(given).lower().removeprefix("variant_")
    if not isinstance(given, str) or variant not in VARIANTS:
        names = ", ".join(sorted(VARIANTS))
        raise Malformed(f"options.variant {given!r} is not a rummy variant ({names})")
    rules = VARIANTS[variant]
    flag = raw.get("limit_to_winner_risk", True)
    if not isinstance(flag, bool):
        raise Malformed("options.limit_to_winner_risk must be true or false")
    for key in ("turn_seconds", "reconnect_seconds", "reserve_seconds"):
        _integer(raw, key, 0)
    players = _integer(raw, "players", 0)
    if players and not rules.min_players <= players <= rules.max_players:
        raise Malformed(
            f"options.players: {rules.name} is played by {rules.min_players} to "
            f"{rules.max_players} players, not {players}",
        )
    return rules, _integer(raw, "round_fee", 0), _integer(raw, "chip_ratio", 1), flag, players
