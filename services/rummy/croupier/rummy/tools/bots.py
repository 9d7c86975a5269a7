"""A simple deterministic gin player, for bots-only benchmarks and the OpenSpiel cross-check.

Policy: take an up-card only if it lowers the best deadwood reachable after a discard;
discard the card that leaves the least deadwood (ties: the higher card); knock as soon as
allowed (gin when possible) with the best arrangement; as defender, lay off one card at a
time while that lowers the final deadwood.
"""

from __future__ import annotations

from typing import Any

from croupier.rummy.core.arrangement import best_arrangement
from croupier.rummy.core.cards import Card, card_name, card_names
from croupier.rummy.core.knock_game import GinPhase, GinState
from croupier.rummy.core.laydown_game import LaydownPhase, LaydownState
from croupier.rummy.core.melds import InvalidMeld, build_meld, lay_off
from croupier.rummy.core.notation import remove_cards

__all__ = ["gin_bot_action", "laydown_bot_action"]


def _deadwood(state: GinState, cards: tuple[Card, ...]) -> int:
    return best_arrangement(cards, state.rules.melds, state.rules.values).deadwood


def _best_discard(state: GinState, hand: tuple[Card, ...], keep: Card | None) -> tuple[int, Card]:
    best: tuple[int, int, Card] | None = None
    for card in sorted(set(hand)):
        if card == keep:
            continue
        rest = remove_cards(hand, [card]) or ()
        score = (_deadwood(state, rest), -state.rules.values[card], card)
        if best is None or score < best:
            best = score
    assert best is not None
    return best[0], best[2]


def gin_bot_action(state: GinState, knock_at: int | None = None) -> dict[str, Any]:
    """The bot's action for the player to act; it knocks only at `knock_at` deadwood or less
    (default: the knock limit; 0 plays for gin)."""
    seat = state.turn
    hand = state.hands[seat]
    if state.phase in (GinPhase.FIRST_UPCARD, GinPhase.DRAW):
        first = state.phase is GinPhase.FIRST_UPCARD
        may_take = bool(state.discard_pile) and (first or state.passes != 2)
        if may_take:
            upcard = state.discard_pile[-1]
            after, _ = _best_discard(state, (*hand, upcard), upcard)
            if after < _deadwood(state, hand):
                return {"action": "draw", "from": "discard"}
        return {"action": "pass"} if first else {"action": "draw", "from": "stock"}
    if state.phase is GinPhase.DISCARD:
        deadwood, card = _best_discard(state, hand, state.taken_from_discard)
        limit = state.knock_limit if knock_at is None else min(knock_at, state.knock_limit)
        if deadwood <= limit:
            rest = remove_cards(hand, [card]) or ()
            melds = best_arrangement(rest, state.rules.melds, state.rules.values).melds
            return {
                "action": "gin" if deadwood == 0 else "knock",
                "discard": card_name(card),
                "melds": [card_names(meld) for meld in melds],
            }
        return {"action": "discard", "card": card_name(card)}
    # lay-offs: the single lay-off that lowers the final deadwood most, else stop
    now = _deadwood(state, hand)
    best: tuple[int, Card, int] | None = None
    for card in sorted(set(hand)):
        for index, meld in enumerate(state.table_melds):
            try:
                lay_off(meld, card, None, state.rules.melds)
            except InvalidMeld:
                continue
            after = _deadwood(state, remove_cards(hand, [card]) or ())
            if after < now and (best is None or after < best[0]):
                best = (after, card, index)
    if best is None:
        return {"action": "pass"}
    return {"action": "layoff", "card": card_name(best[1]), "meld": best[2]}


def laydown_bot_action(state: LaydownState) -> dict[str, Any]:
    """A simple rummy-family player: draws from the stock, lays its best melds once they
    reach the opening minimum, lays off what fits, discards its highest deadwood card."""
    if state.phase is LaydownPhase.DRAW:
        return {"action": "draw", "from": "stock"}
    rules = state.rules
    seat = state.turn
    hand = state.hands[seat]
    arrangement = best_arrangement(hand, rules.melds, rules.values)
    opened = state.opened[seat] or state.laid_this_turn
    if arrangement.melds:
        melds = [
            build_meld([(card, None) for card in meld], rules.melds) for meld in arrangement.melds
        ]
        value = sum(rules.opening_value(m.stands_for, m.low, m.kind) for m in melds)
        if opened or state.opening_value + value >= rules.opening_minimum:
            written = [card_names(meld.cards) for meld in melds]
            left = arrangement.deadwood_cards
            if not left:
                return {"action": "out", "melds": written}
            if len(left) == 1 and left[0] not in state.taken:
                return {"action": "out", "melds": written, "discard": card_name(left[0])}
            return {"action": "meld", "melds": written}
    if opened:
        for card in sorted(set(hand)):
            for index, meld in enumerate(state.table_melds):
                try:
                    lay_off(meld, card, None, rules.melds)
                except InvalidMeld:
                    continue
                if len(hand) > 1 or card not in state.taken:
                    return {"action": "layoff", "card": card_name(card), "meld": index}
    choices = (
        [card for card in arrangement.deadwood_cards if card not in state.taken]
        or [card for card in hand if card not in state.taken]
        or list(hand)
    )
    worst = max(choices, key=lambda card: (rules.values[card], card))
    return {"action": "discard", "card": card_name(worst)}
