"""The rummy-family round's state (immutable) and the explicit deal that starts it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from croupier.rummy.core.cards import Card
from croupier.rummy.core.melds import TableMeld
from croupier.rummy.core.outcome import RoundOutcome
from croupier.rummy.core.variant import VariantRules

__all__ = ["LaydownPhase", "LaydownState", "deal", "with_seat"]


class LaydownPhase(StrEnum):
    DRAW = "draw"
    PLAY = "play"
    OVER = "over"


@dataclass(frozen=True)
class LaydownState:
    rules: VariantRules
    players: tuple[str, ...]
    dealer: str
    hands: tuple[tuple[Card, ...], ...]
    stock: tuple[Card, ...]
    """Top first."""
    discard_pile: tuple[Card, ...]
    """Bottom first; the last card is the top."""
    phase: LaydownPhase
    turn: int
    table_melds: tuple[TableMeld, ...] = ()
    opened: tuple[bool, ...] = ()
    """Per seat: has laid melds down in an earlier turn."""
    laid_value: tuple[int, ...] = ()
    """Per seat: value of the cards the player put on the table (Rummy 500 scoring)."""
    opening_value: int = 0
    """Value of the melds laid this turn by a player who had not opened before it."""
    laid_this_turn: bool = False
    must_meld: Card | None = None
    """A card taken from the discard pile that must be melded or laid off this turn."""
    taken: tuple[Card, ...] = ()
    """Cards taken from the discard pile this turn."""
    jokers_taken: tuple[Card, ...] = ()
    drawn: Card | None = None
    result: RoundOutcome | None = None

    @property
    def to_act(self) -> str | None:
        return None if self.phase is LaydownPhase.OVER else self.players[self.turn]


def deal(
    rules: VariantRules,
    players: Sequence[str],
    dealer: str,
    hands: Mapping[str, Sequence[Card]],
    upcard: Card | None,
    stock: Sequence[Card],
    options: Mapping[str, Any] | None = None,
) -> LaydownState:
    """The state after an explicit deal; the player left of the dealer draws first."""
    if not rules.min_players <= len(players) <= rules.max_players:
        raise ValueError(
            f"{rules.name} is played by {rules.min_players}-{rules.max_players} players"
        )
    if dealer not in players:
        raise ValueError("the dealer must be a player")
    first = (list(players).index(dealer) + 1) % len(players)
    return LaydownState(
        rules=rules,
        players=tuple(players),
        dealer=dealer,
        hands=tuple(tuple(hands[player]) for player in players),
        stock=tuple(stock),
        discard_pile=() if upcard is None else (upcard,),
        phase=LaydownPhase.DRAW,
        turn=first,
        opened=tuple(False for _ in players),
        laid_value=tuple(0 for _ in players),
    )


def with_seat(values: tuple[Any, ...], seat: int, value: Any) -> tuple[Any, ...]:
    return tuple(value if index == seat else old for index, old in enumerate(values))
