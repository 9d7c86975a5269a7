"""Turning an engine's result (exact integer deltas per player) into money movements.

The engine says who won what: deltas per player, adding up to zero. Each loser's stake hold
is posted for what they lost (into the table escrow); the escrow then pays each winner their
gain minus commission, and the commission goes to the house. The escrow is back where it
started, so an escrow is empty once its table is over.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from croupier.game.commission import RakePolicy, backgammon_commission
from croupier.game.money import Currency
from croupier.wallet.core.errors import InvalidRequest, UnbalancedSettlement

__all__ = [
    "CommissionRule",
    "SettlementAmounts",
    "backgammon_rule",
    "check_engine_result",
    "no_commission",
    "rake_rule",
    "settlement_amounts",
]

#: Commission owed by one winner on `gain` minor units.
CommissionRule = Callable[[int, Currency], int]


def no_commission(gain: int, currency: Currency) -> int:
    return 0


def backgammon_rule(gain: int, currency: Currency) -> int:
    """Seed 001 rules 39–43: the winner pays both players' commission on the amount passing."""
    return backgammon_commission(gain, currency).total


def rake_rule(policy: RakePolicy) -> CommissionRule:
    def rule(gain: int, currency: Currency) -> int:
        return policy.rake(gain, currency)

    return rule


@dataclass(frozen=True, slots=True, kw_only=True)
class SettlementAmounts:
    """losses: player → amount posted from their hold; winnings: player → (paid, commission)."""

    losses: Mapping[str, int]
    winnings: Mapping[str, tuple[int, int]]

    @property
    def commission(self) -> int:
        return sum(c for _, c in self.winnings.values())


def settlement_amounts(
    deltas: Mapping[str, int],
    holds: Mapping[str, int],
    currency: Currency,
    commission: CommissionRule,
) -> SettlementAmounts:
    """Check an engine result against the holds and split it into losses and winnings.

    `deltas`: player → net result before commission (Σ = 0). `holds`: player → amount held.

    >>> from croupier.game.money import CURRENCIES
    >>> s = settlement_amounts({"amnon": 1000, "micha": -1000}, {"amnon": 1000, "micha": 1000},
    ...                        CURRENCIES["USD"], backgammon_rule)
    >>> s.losses, s.winnings
    ({'micha': 1000}, {'amnon': (870, 130)})
    """
    if not deltas:
        raise InvalidRequest("the result names no players")
    for player, delta in deltas.items():
        if isinstance(delta, bool) or not isinstance(delta, int):
            raise InvalidRequest(f"delta of {player!r} must be an integer number of minor units")
    total = sum(deltas.values())
    if total != 0:
        raise UnbalancedSettlement(
            f"the players' deltas add up to {total}, not 0: every unit won must be lost by someone"
        )
    unheld = sorted(p for p in deltas if p not in holds)
    if unheld:
        raise UnbalancedSettlement(f"no stake hold for {unheld}; hold a stake before settling")
    losses: dict[str, int] = {}
    winnings: dict[str, tuple[int, int]] = {}
    for player in sorted(deltas):
        delta = deltas[player]
        if delta < 0:
            if -delta > holds[player]:
                raise UnbalancedSettlement(
                    f"{player!r} lost {-delta} but only {holds[player]} was held"
                )
            losses[player] = -delta
        elif delta > 0:
            fee = commission(delta, currency)
            if not 0 <= fee <= delta:
                raise UnbalancedSettlement(f"commission {fee} on a gain of {delta} is impossible")
            winnings[player] = (delta - fee, fee)
    return SettlementAmounts(losses=losses, winnings=winnings)


def check_engine_result(
    deltas: Mapping[str, int],
    commission: Mapping[str, int],
    currency: Currency,
    expected: CommissionRule | None,
) -> None:
    """Check a table engine's result (deltas after commission, commission per player).

    Σ deltas + Σ commission = 0 (no chip created or lost); commission ≥ 0 and only on real
    money; with `expected` (the wallet's own rule for the game, e.g. backgammon), each
    winner's commission must be what the wallet computes on their gain: the wallet is the
    one home of money math, and a disagreeing engine is a bug to stop, not to pay out.
    """
    if not deltas:
        raise InvalidRequest("the result names no players")
    for player, value in (*deltas.items(), *commission.items()):
        if isinstance(value, bool) or not isinstance(value, int):
            raise InvalidRequest(f"amounts of {player!r} must be integers (minor units)")
    unknown = sorted(set(commission) - set(deltas))
    if unknown:
        raise InvalidRequest(f"commission for players not in the result: {unknown}")
    if any(value < 0 for value in commission.values()):
        raise UnbalancedSettlement("commission cannot be negative")
    total = sum(deltas.values()) + sum(commission.values())
    if total != 0:
        raise UnbalancedSettlement(
            f"deltas plus commission add up to {total}, not 0: chips would be created or lost"
        )
    if not currency.carries_commission and any(commission.values()):
        raise UnbalancedSettlement(f"{currency.code} carries no commission")
    if expected is not None:
        for player, delta in deltas.items():
            charged = commission.get(player, 0)
            gain = delta + charged
            wanted = expected(gain, currency) if gain > 0 else 0
            if charged != wanted:
                raise UnbalancedSettlement(
                    f"commission of {player!r} is {charged}, the wallet computes {wanted} "
                    f"on a gain of {gain}"
                )
