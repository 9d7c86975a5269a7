"""A round of either family: seeded deals and one set of functions for both families
(the table, `croupier.rummy.core.rummy_table`, plays its rounds through these).

- `start(rules, players, dealer, seed)`: deal from a 32-byte seed with
  `croupier.game.fairness.shuffled(deck, seed, "deck")`, one card at a time from the
  dealer's left, then the up-card, then the stock;
- `apply`, `legal_actions`, `view`, `timeout_action`, `outcome`: dispatch to the family's
  state machine; `cancel`: end a round with no winner and no charge (seed 000 rule 46);
  `settle_round`: exact integer chips (seed 000 §10).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from croupier.game import Event
from croupier.game.fairness import shuffled
from croupier.rummy.core import knock_game, knock_queries, laydown_game, laydown_queries
from croupier.rummy.core.cards import Card, standard_deck
from croupier.rummy.core.knock_game import GinPhase, GinState
from croupier.rummy.core.laydown_game import LaydownPhase, LaydownState
from croupier.rummy.core.outcome import Ending, RoundOutcome
from croupier.rummy.core.settlement import Settlement, settle
from croupier.rummy.core.variant import Family, VariantRules

__all__ = [
    "RoundState",
    "apply",
    "cancel",
    "deal_cards",
    "legal_actions",
    "outcome",
    "settle_round",
    "start",
    "timeout_action",
    "to_act",
    "view",
]

RoundState = GinState | LaydownState


def deal_cards(
    rules: VariantRules, players: Sequence[str], dealer: str, deck: Sequence[Card]
) -> tuple[dict[str, list[Card]], Card, list[Card]]:
    """Hands, up-card and stock (top first) from a deck in dealing order."""
    cards = list(deck)
    count = rules.dealt(len(players))
    first = (list(players).index(dealer) + 1) % len(players)
    order = [players[(first + step) % len(players)] for step in range(len(players))]
    hands: dict[str, list[Card]] = {player: [] for player in players}
    position = 0
    for _ in range(count):
        for player in order:
            hands[player].append(cards[position])
            position += 1
    upcard = cards[position]
    return hands, upcard, cards[position + 1 :]


def start(rules: VariantRules, players: Sequence[str], dealer: str, seed: bytes) -> RoundState:
    """A new round dealt from `seed` (the only randomness; see croupier.game.fairness)."""
    deck = shuffled(standard_deck(rules.decks, rules.jokers), seed, "deck")
    hands, upcard, stock = deal_cards(rules, players, dealer, deck)
    if rules.family is Family.KNOCK:
        return knock_game.deal(rules, players, dealer, hands, upcard, stock)
    return laydown_game.deal(rules, players, dealer, hands, upcard, stock)


def apply(
    state: RoundState, player: str, action: Mapping[str, Any]
) -> tuple[RoundState, list[Event]]:
    if isinstance(state, GinState):
        return knock_game.apply(state, player, action)
    return laydown_game.apply(state, player, action)


def cancel(state: RoundState) -> RoundState:
    """Rule 46 / OQ 24: the round ends with no winner; nobody is charged negative points
    (and no hand is revealed: no deadwood is recorded), so its settlement gives every
    fee back."""
    outcome = RoundOutcome(Ending.CANCELLED, None, {}, {})
    if isinstance(state, GinState):
        return replace(state, phase=GinPhase.OVER, result=outcome)
    return replace(state, phase=LaydownPhase.OVER, result=outcome)


def to_act(state: RoundState) -> str | None:
    return state.to_act


def legal_actions(state: RoundState, player: str) -> dict[str, Any]:
    if isinstance(state, GinState):
        return knock_queries.legal_actions(state, player)
    return laydown_queries.legal_actions(state, player)


def view(state: RoundState, player: str) -> dict[str, Any]:
    if isinstance(state, GinState):
        return knock_queries.view(state, player)
    return laydown_queries.view(state, player)


def timeout_action(state: RoundState, player: str) -> dict[str, Any]:
    if isinstance(state, GinState):
        return knock_queries.timeout_action(state, player)
    return laydown_queries.timeout_action(state, player)


def outcome(state: RoundState) -> RoundOutcome | None:
    return state.result


def settle_round(
    state: RoundState,
    *,
    round_fee: int,
    chip_ratio: int,
    chips: Mapping[str, int],
    limit_to_winner_risk: bool = True,
) -> Settlement | None:
    """The chips of a finished round (None while it runs)."""
    result = state.result
    if result is None:
        return None
    return settle(
        players=state.players,
        winner=result.winner,
        penalty=result.penalty,
        round_fee=round_fee,
        chip_ratio=chip_ratio,
        chips=chips,
        limit_to_winner_risk=limit_to_winner_risk,
    )
