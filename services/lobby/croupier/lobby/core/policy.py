"""Policy checks before a seat or a ticket: an account's stake limits per currency and its
self-exclusion flag (kept by the lobby; the wallet keeps the money), and the shape of the
ids a caller names."""

from __future__ import annotations

from dataclasses import dataclass, field

from croupier.game.limits import echo
from croupier.lobby.core.errors import InvalidInput, NotAllowed

__all__ = ["MAX_ID", "AccountLimits", "check_id", "check_player", "check_stake_allowed"]

MAX_ID = 100


def check_id(value: str, what: str) -> str:
    """An id a caller names: 1-`MAX_ID` letters, digits, `-`, `_`, `:` or `.`."""
    plain = value.replace("-", "").replace("_", "").replace(":", "").replace(".", "")
    if not value or len(value) > MAX_ID or not (plain.isascii() and plain.isalnum()):
        raise InvalidInput(
            f"invalid_{what}",
            f"{what} {echo(value)} must be 1-{MAX_ID} letters, digits, -, _, : or .",
        )
    return value


def check_player(player: str) -> str:
    return check_id(player, "player_id")


@dataclass(frozen=True)
class AccountLimits:
    """The highest stake per currency (a currency not named is not limited), and whether
    the account excluded itself from play."""

    max_stakes: tuple[tuple[str, int], ...] = field(default=())
    self_excluded: bool = False

    def max_stake(self, currency: str) -> int | None:
        return dict(self.max_stakes).get(currency)


def check_stake_allowed(player: str, limits: AccountLimits, currency: str, stake: int) -> None:
    """Refuse a self-excluded account, or a stake above the account's limit."""
    if limits.self_excluded:
        raise NotAllowed("self_excluded", f"{echo(player)} is self-excluded from play")
    limit = limits.max_stake(currency)
    if limit is not None and stake > limit:
        raise NotAllowed(
            "stake_above_limit",
            f"a stake of {stake} {currency} is above the account's limit of {limit} {currency}",
        )
