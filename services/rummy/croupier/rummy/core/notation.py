"""Reading actions written in the conformance notation (`{"action": "discard", "card": "Kd"}`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from croupier.rummy.core.cards import Card, CardError, is_joker, parse_card
from croupier.rummy.core.errors import MalformedRummyAction
from croupier.rummy.core.melds import MeldEntry

__all__ = ["action_card", "action_meld", "action_melds", "remove_cards"]


def action_card(action: Mapping[str, Any], key: str = "card") -> Card:
    value = action.get(key)
    if not isinstance(value, str):
        raise MalformedRummyAction("bad_action", f"the action needs a card in {key!r}")
    try:
        return parse_card(value)
    except CardError as exc:
        raise MalformedRummyAction("bad_action", str(exc)) from exc


def _entry(item: object) -> MeldEntry:
    try:
        if isinstance(item, str):
            return (parse_card(item), None)
        if isinstance(item, Mapping) and isinstance(item.get("card"), str):
            card = parse_card(item["card"])
            played_as = item.get("as")
            if played_as is None:
                return (card, None)
            if not isinstance(played_as, str):
                raise MalformedRummyAction("bad_action", "'as' must be a card")
            target = parse_card(played_as)
            if not is_joker(card) or is_joker(target):
                raise MalformedRummyAction("bad_action", "only a joker stands for another card")
            return (card, target)
    except CardError as exc:
        raise MalformedRummyAction("bad_action", str(exc)) from exc
    raise MalformedRummyAction("bad_action", f"bad meld card {item!r}")


def action_meld(value: object) -> list[MeldEntry]:
    if not isinstance(value, list) or not value:
        raise MalformedRummyAction("bad_action", "a meld is a list of cards")
    return [_entry(item) for item in value]


def action_melds(action: Mapping[str, Any], key: str = "melds") -> list[list[MeldEntry]] | None:
    value = action.get(key)
    if value is None:
        return None
    if not isinstance(value, list):
        raise MalformedRummyAction("bad_action", f"{key!r} is a list of melds")
    return [action_meld(meld) for meld in value]


def remove_cards(hand: Iterable[Card], cards: Iterable[Card]) -> tuple[Card, ...] | None:
    """`hand` without `cards` (a multiset difference), or None if some card is not held."""
    held = Counter(hand)
    wanted = Counter(cards)
    for card, count in wanted.items():
        if held[card] < count:
            return None
    remaining = list(hand)
    for card, count in wanted.items():
        for _ in range(count):
            remaining.remove(card)
    return tuple(remaining)
