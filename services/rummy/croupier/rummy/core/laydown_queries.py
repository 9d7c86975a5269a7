"""What the rummy-family state machine (`laydown_game`) answers without changing state:
deadwood and Rummy 500 scores, legal actions, a player's view and the auto-player's
action."""

from __future__ import annotations

from typing import Any

from croupier.rummy.core.cards import card_name, card_names
from croupier.rummy.core.laydown_state import LaydownPhase, LaydownState

__all__ = ["current_deadwood", "current_scores", "legal_actions", "timeout_action", "view"]


def current_deadwood(state: LaydownState) -> dict[str, int]:
    """Value of the cards each player holds (the round's deadwood once it is over)."""
    if state.result is not None:
        return dict(state.result.deadwood)
    return {p: state.rules.hand_value(state.hands[i]) for i, p in enumerate(state.players)}


def current_scores(state: LaydownState) -> dict[str, int]:
    """Rummy 500: melds laid − cards in hand, per player."""
    if state.result is not None and state.result.scores:
        return dict(state.result.scores)
    return {
        p: state.laid_value[i] - state.rules.hand_value(state.hands[i])
        for i, p in enumerate(state.players)
    }


def legal_actions(state: LaydownState, player: str) -> dict[str, Any]:
    if state.phase is LaydownPhase.OVER or player != state.players[state.turn]:
        return {"actions": []}
    if state.phase is LaydownPhase.DRAW:
        sources = ["stock"] + (["discard"] if state.discard_pile else [])
        legal: dict[str, Any] = {"actions": ["draw"], "draw_from": sources}
        if state.rules.whole_pile and state.discard_pile:
            legal["max_count"] = len(state.discard_pile)
        return legal
    actions = ["meld", "discard", "out"]
    if state.opened[state.turn] or state.laid_this_turn:
        actions[1:1] = ["layoff", "take_joker"]
    return {"actions": actions, "hand": card_names(state.hands[state.turn])}


def view(state: LaydownState, player: str) -> dict[str, Any]:
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
        "result": None
        if result is None
        else {
            "ending": str(result.ending),
            "winner": result.winner,
            "deadwood": dict(result.deadwood),
            "penalty": dict(result.penalty),
        },
    }


def timeout_action(state: LaydownState, player: str) -> dict[str, Any]:
    """Rule 45 / OQ 26: draw from the stock and discard that card; never meld.

    If the player already drew, the card drawn this turn is discarded (the checks that
    close a turn are waived for this automatic discard: `"auto": true`).
    """
    if state.phase is LaydownPhase.DRAW:
        return {"action": "draw", "from": "stock"}
    hand = state.hands[state.turn]
    card = state.drawn if state.drawn is not None and state.drawn in hand else hand[-1]
    return {"action": "discard", "card": card_name(card), "auto": True}
