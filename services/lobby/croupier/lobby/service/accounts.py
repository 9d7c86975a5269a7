"""An account's stake limits and self-exclusion, set by an operator (responsible gaming)
and checked by every open, join and ticket (`core.policy`)."""

from __future__ import annotations

from collections.abc import Mapping

from croupier.game.limits import check_amount, echo
from croupier.lobby.core.errors import InvalidInput
from croupier.lobby.core.policy import AccountLimits, check_player
from croupier.lobby.service.ports import Repository

__all__ = ["Accounts"]


class Accounts:
    def __init__(self, repository: Repository) -> None:
        self._repository = repository

    async def set_limits(
        self, player: str, max_stakes: Mapping[str, int], self_excluded: bool
    ) -> AccountLimits:
        check_player(player)
        for currency, amount in max_stakes.items():
            if not (currency.isascii() and currency.isalpha() and 3 <= len(currency) <= 8):
                raise InvalidInput("invalid_currency", f"currency {echo(currency)} is not a code")
            check_amount(amount, f"max_stakes[{currency}]")
        limits = AccountLimits(tuple(sorted(max_stakes.items())), self_excluded)
        await self._repository.set_limits(player, limits)
        return limits

    async def limits(self, player: str) -> AccountLimits:
        check_player(player)
        return await self._repository.limits(player)
