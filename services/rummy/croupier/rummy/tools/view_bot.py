"""A simple rummy player that reads nothing but its own seat's view (the JSON the table
host sends that seat, the same a human's client gets) and the variant's public rules: the
bots service's rummy policy, and the rummy tests' bots.

Knock family (gin, Oklahoma gin): take an up-card only if it lowers the deadwood reachable
after a discard; discard what leaves the least deadwood; knock (gin when possible) as soon
as allowed; as defender lay off while it lowers the deadwood. Laydown family (Rummy, 51,
40, 500): draw from the stock; lay down the best arrangement once opened (or once it meets
the opening minimum), going out when it can; lay off once opened; discard the highest
deadwood card. Every action is one the view's `legal` part allows; the table melds are
rebuilt from the view (a joker where the view says it stands).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from croupier.rummy.core.arrangement import best_arrangement
from croupier.rummy.core.cards import Card, card_name, card_names, parse_card, parse_cards
from croupier.rummy.core.melds import InvalidMeld, MeldEntry, TableMeld, build_meld, lay_off
from croupier.rummy.core.notation import remove_cards
from croupier.rummy.core.variant import Family, VariantRules
from croupier.rummy.core.variants import VARIANTS

__all__ = ["bot_action", "gin_action", "laydown_action", "table_melds"]


def _deadwood(rules: VariantRules, cards: Iterable[Card]) -> int:
    return best_arrangement(tuple(cards), rules.melds, rules.values).deadwood


def _best_discard(
    rules: VariantRules, hand: list[Card], choices: Iterable[Card]
) -> tuple[int, Card]:
    scored = [
        (_deadwood(rules, remove_cards(hand, [card]) or ()), -rules.values[card], card)
        for card in sorted(set(choices))
    ]
    best = min(scored)
    return best[0], best[2]


def table_melds(rules: VariantRules, melds: list[dict[str, Any]]) -> list[TableMeld]:
    """The table's melds rebuilt from the view (jokers where the view says they stand)."""
    built = []
    for meld in melds:
        entries: list[MeldEntry] = [
            (parse_card(c), None)
            if isinstance(c, str)
            else (parse_card(c["card"]), parse_card(c["as"]))
            for c in meld["cards"]
        ]
        built.append(build_meld(entries, rules.melds, meld["owner"]))
    return built


def _layoff(rules: VariantRules, hand: list[Card], melds: list[dict[str, Any]]) -> Any:
    for card in sorted(set(hand)):
        for index, meld in enumerate(table_melds(rules, melds)):
            try:
                lay_off(meld, card, None, rules.melds)
            except InvalidMeld:
                continue
            return {"action": "layoff", "card": card_name(card), "meld": index}
    return None


def gin_action(view: dict[str, Any], knock_at: int | None = None) -> dict[str, Any]:
    seen, legal = view["round"], view["legal"]
    rules = VARIANTS[seen["variant"]]
    hand = parse_cards(seen["hand"])
    actions = legal["actions"]
    if seen["phase"] in ("first_upcard", "draw"):
        if "discard" in legal.get("draw_from", []) and seen["discard_pile"]:
            upcard = parse_card(seen["discard_pile"][-1])
            kept = [c for c in hand]  # the up-card itself may not go straight back
            after, _ = _best_discard(rules, [*hand, upcard], kept)
            if after < _deadwood(rules, hand):
                return {"action": "draw", "from": "discard"}
        return {"action": "pass"} if "pass" in actions else {"action": "draw", "from": "stock"}
    if seen["phase"] == "discard":
        deadwood, card = _best_discard(rules, hand, parse_cards(legal["discards"]))
        limit = seen["knock_limit"] if knock_at is None else min(knock_at, seen["knock_limit"])
        if deadwood <= limit and "knock" in actions:
            rest = remove_cards(hand, [card]) or ()
            melds = best_arrangement(rest, rules.melds, rules.values).melds
            return {
                "action": "gin" if deadwood == 0 else "knock",
                "discard": card_name(card),
                "melds": [card_names(m) for m in melds],
            }
        return {"action": "discard", "card": card_name(card)}
    assert seen["phase"] == "layoff", seen["phase"]
    now = _deadwood(rules, hand)
    layoff = _layoff(rules, hand, seen["melds"])
    if layoff is not None:
        rest = remove_cards(hand, [parse_card(layoff["card"])]) or ()
        if _deadwood(rules, rest) < now:
            return dict(layoff)
    return {"action": "pass"}


def laydown_action(view: dict[str, Any], me: str) -> dict[str, Any]:
    seen = view["round"]
    rules = VARIANTS[seen["variant"]]
    if seen["phase"] == "draw":
        return {"action": "draw", "from": "stock"}
    hand = parse_cards(seen["hand"])
    opened = any(meld["owner"] == me for meld in seen["melds"])
    arrangement = best_arrangement(hand, rules.melds, rules.values)
    if arrangement.melds:
        melds = [build_meld([(c, None) for c in meld], rules.melds) for meld in arrangement.melds]
        value = sum(rules.opening_value(m.stands_for, m.low, m.kind) for m in melds)
        if opened or value >= rules.opening_minimum:
            written = [card_names(m.cards) for m in melds]
            left = arrangement.deadwood_cards
            if not left:
                return {"action": "out", "melds": written}
            if len(left) == 1:
                return {"action": "out", "melds": written, "discard": card_name(left[0])}
            return {"action": "meld", "melds": written}
    if opened and len(hand) > 1:
        layoff = _layoff(rules, hand, seen["melds"])
        if layoff is not None:
            return dict(layoff)
    choices = arrangement.deadwood_cards or tuple(hand)
    worst = max(choices, key=lambda card: (rules.values[card], card))
    return {"action": "discard", "card": card_name(worst)}


def bot_action(view: dict[str, Any], me: str, knock_at: int | None = None) -> dict[str, Any]:
    """A simple player using nothing but `me`'s own view (and the variant's public rules)."""
    if VARIANTS[view["variant"]].family is Family.KNOCK:
        return gin_action(view, knock_at)
    return laydown_action(view, me)
