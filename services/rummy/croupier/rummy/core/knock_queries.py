"""What the gin-family state machine (`knock_game`) answers without changing state: each
player's deadwood, legal actions, a player's view and the auto-player's action."""

from __future__ import annotations

from typing import Any

from croupier.rummy.core.cards import card_name, card_names
from croupier.rummy.core.knock_game import GinPhase, GinState, hand_deadwood
from croupier.rummy.core.notation import remove_cards

__all__ = ["current_deadwood", "legal_actions", "timeout_action", "view"]


def current_deadwood(state: GinState) -> dict[str, int]:
    """Deadwood per player now: the result's when over, else each hand's best arrangement."""
    if state.result is not None:
        return dict(state.result.deadwood)
    if state.knocker is not None:
        knocker = state.players[state.knocker]
        other = 1 - state.knocker
        return {
            knocker: state.knocker_deadwood,
            state.players[other]: hand_deadwood(state.rules, state.hands[other]),
        }
    return {p: hand_deadwood(state.rules, state.hands[i]) for i, p in enumerate(state.players)}


def legal_actions(state: GinState, player: str) -> dict[str, Any]:
    """What `player` may do now, in conformance notation (empty when not their turn)."""
    if state.phase is GinPhase.OVER or player != state.players[state.turn]:
        return {"actions": []}
    hand = state.hands[state.turn]
    if state.phase is GinPhase.FIRST_UPCARD:
        if state.passes < 2:
            return {"actions": ["pass", "draw"], "draw_from": ["discard"]}
        return {"actions": ["draw"], "draw_from": ["stock"]}
    if state.phase is GinPhase.DRAW:
        sources = ["stock"] if state.passes == 2 else ["stock", "discard"]
        return {"actions": ["draw"], "draw_from": sources}
    if state.phase is GinPhase.LAYOFF:
        return {"actions": ["layoff", "pass"], "hand": card_names(hand)}
    discards = sorted(
        {card for card in hand if card != state.taken_from_discard or hand.count(card) > 1}
    )
    actions = ["discard"]
    best = min(
        (hand_deadwood(state.rules, remove_cards(hand, [card]) or ()) for card in discards),
        default=999,
    )
    if best <= state.knock_limit:
        actions.append("knock")
    if best == 0:
        actions.append("gin")
    return {"actions": actions, "discards": card_names(discards), "best_deadwood": best}


def view(state: GinState, player: str) -> dict[str, Any]:
    """What `player` sees: own hand, the discard pile, table melds, card counts; nothing else."""
    seat = state.players.index(player) if player in state.players else None
    result = state.result
    return {
        "variant": state.rules.name,
        "phase": str(state.phase),
        "to_act": state.to_act,
        "hand": card_names(state.hands[seat]) if seat is not None else [],
        "discard_pile": card_names(state.discard_pile),
        "melds": [meld.to_json() for meld in state.table_melds],
        "card_counts": {p: len(state.hands[i]) for i, p in enumerate(state.players)},
        "stock_size": len(state.stock),
        "knock_limit": state.knock_limit,
        "result": None
        if result is None
        else {
            "ending": str(result.ending),
            "winner": result.winner,
            "deadwood": dict(result.deadwood),
            "penalty": dict(result.penalty),
        },
    }


def timeout_action(state: GinState, player: str) -> dict[str, Any]:
    """Rule 45 / OQ 26: draw from the stock and discard that card; never meld or knock.

    On the first up-card (where the stock may not be drawn yet) the auto-player passes; in
    the lay-off phase it lays off nothing. If the player already drew, the card drawn this
    turn is discarded (`"auto": true` lets it go straight back even when it was taken from
    the discard pile, as OQ 26 says).
    """
    if state.phase is GinPhase.FIRST_UPCARD and state.passes < 2:
        return {"action": "pass"}
    if state.phase in (GinPhase.DRAW, GinPhase.FIRST_UPCARD):
        return {"action": "draw", "from": "stock"}
    if state.phase is GinPhase.LAYOFF:
        return {"action": "pass"}
    hand = state.hands[state.turn]
    card = state.drawn if state.drawn is not None and state.drawn in hand else hand[-1]
    return {"action": "discard", "card": card_name(card), "auto": True}
