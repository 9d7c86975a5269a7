"""Melds: sets and runs, with wild jokers, and what may be added to a meld on the table.

A *set* is 3 or 4 cards of one rank in different suits. A *run* is 3 or more cards of one
suit in sequence; the ace is low (A-2-3) and, where the variant allows, high (Q-K-A), never
both (no K-A-2). A joker stands for any card a meld lacks; `MeldRules.min_naturals` is the
least number of natural cards a meld keeps.

A run is stored by *position*: 1 (ace low) .. 13 (king), 14 = ace high.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from croupier.rummy.core.cards import Card, card_name, is_joker, make_card, rank_of, suit_of

__all__ = [
    "InvalidMeld",
    "MeldEntry",
    "MeldRules",
    "TableMeld",
    "build_meld",
    "classify_meld",
    "lay_off",
    "take_joker",
]


@dataclass(frozen=True, kw_only=True)
class MeldRules:
    """What a variant allows in a meld."""

    ace_high: bool
    """Q-K-A is a run (besides A-2-3)."""
    jokers_wild: bool
    min_naturals: int = 1
    """Natural (non-joker) cards a meld must keep."""


class InvalidMeld(ValueError):
    """Cards that do not form a meld, or a card that does not fit one."""


MeldEntry = tuple[Card, Card | None]
"""A card and, for a joker, the card it stands for (None: let the rules choose)."""


def _position_card(position: int, suit: int) -> Card:
    return make_card(1 if position == 14 else position, suit)


@dataclass(frozen=True)
class TableMeld:
    """A meld laid on the table.

    `cards` are the physical cards (for a run in position order `low`..), `stands_for`
    the natural card each one plays as (itself for naturals).
    """

    kind: str  # "set" | "run"
    cards: tuple[Card, ...]
    stands_for: tuple[Card, ...]
    owner: str = ""
    low: int = 0
    """Runs: position of the first card (1..12); sets: 0."""

    @property
    def high(self) -> int:
        return self.low + len(self.cards) - 1

    @property
    def rank(self) -> int:
        return rank_of(self.stands_for[0])

    @property
    def suit(self) -> int:
        return suit_of(self.stands_for[0])

    def to_json(self) -> dict[str, object]:
        cards: list[object] = []
        for card, played_as in zip(self.cards, self.stands_for, strict=True):
            if is_joker(card):
                cards.append({"card": card_name(card), "as": card_name(played_as)})
            else:
                cards.append(card_name(card))
        return {"kind": self.kind, "owner": self.owner, "cards": cards}


def classify_meld(cards: Sequence[Card], rules: MeldRules) -> str | None:
    """`"set"`, `"run"` or None: a direct check used by the brute-force reference."""
    if len(cards) < 3:
        return None
    naturals = [card for card in cards if not is_joker(card)]
    jokers = len(cards) - len(naturals)
    if jokers and not rules.jokers_wild:
        return None
    if len(naturals) < max(1, rules.min_naturals):
        return None
    ranks = {rank_of(card) for card in naturals}
    suits = [suit_of(card) for card in naturals]
    if len(ranks) == 1 and len(set(suits)) == len(suits) and len(cards) <= 4:
        return "set"
    if len(set(suits)) == 1 and len(ranks) == len(naturals) and len(cards) <= 13:
        low_ranks = sorted(ranks)
        if low_ranks[-1] - low_ranks[0] + 1 <= len(cards):
            return "run"
        if rules.ace_high and 1 in ranks:
            high_ranks = sorted(14 if rank == 1 else rank for rank in ranks)
            if high_ranks[-1] - high_ranks[0] + 1 <= len(cards):
                return "run"
    return None


def _build_set(entries: Sequence[MeldEntry], rules: MeldRules, owner: str) -> TableMeld:
    naturals = [card for card, _ in entries if not is_joker(card)]
    rank = rank_of(naturals[0])
    suits = [suit_of(card) for card in naturals]
    if any(rank_of(card) != rank for card in naturals) or len(set(suits)) != len(suits):
        raise InvalidMeld("a set needs one rank in different suits")
    if len(entries) > 4:
        raise InvalidMeld("a set has at most 4 cards")
    free = [suit for suit in range(4) if suit not in suits]
    for card, played_as in entries:
        if is_joker(card) and played_as is not None:
            if is_joker(played_as) or rank_of(played_as) != rank or suit_of(played_as) not in free:
                raise InvalidMeld(f"{card_name(card)} cannot stand for {card_name(played_as)}")
            free.remove(suit_of(played_as))
    stands: list[Card] = []
    for card, played_as in entries:
        if not is_joker(card):
            stands.append(card)
        elif played_as is not None:
            stands.append(played_as)
        else:
            stands.append(make_card(rank, free.pop(0)))
    return TableMeld("set", tuple(card for card, _ in entries), tuple(stands), owner)


def _run_windows(entries: Sequence[MeldEntry], rules: MeldRules) -> list[tuple[int, bool]]:
    """Feasible (low, ace_high) windows for a run, the default (jokers above) first.
    A joker written with the card it stands for counts as that card: a joker played as
    the ace above a king makes the run ace-high as a natural ace would."""
    shown = [played_as if is_joker(card) else card for card, played_as in entries]
    placed = [card for card in shown if card is not None]
    has_ace = any(rank_of(card) == 1 for card in placed)
    length = len(entries)
    options: list[tuple[int, bool]] = []
    for ace_high in (False, True) if (rules.ace_high and has_ace) else (False,):
        positions = [14 if ace_high and rank_of(c) == 1 else rank_of(c) for c in placed]
        top = 14 if ace_high or (rules.ace_high and not has_ace) else 13
        bottom = 2 if ace_high else 1
        low_max = min(min(positions), top - length + 1)
        low_min = max(bottom, max(positions) - length + 1)
        options.extend((low, ace_high) for low in range(low_max, low_min - 1, -1))
    return options


def _build_run(entries: Sequence[MeldEntry], rules: MeldRules, owner: str) -> TableMeld:
    naturals = [card for card, _ in entries if not is_joker(card)]
    suit = suit_of(naturals[0])
    ranks = [rank_of(card) for card in naturals]
    if any(suit_of(card) != suit for card in naturals) or len(set(ranks)) != len(ranks):
        raise InvalidMeld("a run needs one suit and different ranks")
    if len(entries) > 13:
        raise InvalidMeld("a run has at most 13 cards")
    windows = _run_windows(entries, rules)
    if not windows:
        raise InvalidMeld("the cards are not in sequence")
    # Prefer the order the cards were written in, when it is a consistent run.
    written = _written_window(entries, windows)
    candidates = [written] if written is not None else windows
    for low, ace_high in candidates:
        placed = _place_run(entries, low, ace_high, suit)
        if placed is not None:
            cards, stands = placed
            return TableMeld("run", cards, stands, owner, low)
    raise InvalidMeld("the jokers do not fit the run")


def _written_window(
    entries: Sequence[MeldEntry], windows: list[tuple[int, bool]]
) -> tuple[int, bool] | None:
    for low, ace_high in windows:
        fits = True
        for index, (card, played_as) in enumerate(entries):
            position = low + index
            shown = played_as if is_joker(card) else card
            if shown is None:
                continue
            rank = rank_of(shown)
            if (14 if ace_high and rank == 1 else rank) != position:
                fits = False
                break
        if fits:
            return (low, ace_high)
    return None


def _place_run(
    entries: Sequence[MeldEntry], low: int, ace_high: bool, suit: int
) -> tuple[tuple[Card, ...], tuple[Card, ...]] | None:
    length = len(entries)
    slots: list[Card | None] = [None] * length
    for card, played_as in entries:
        shown = played_as if is_joker(card) else card
        if shown is None:
            continue
        if suit_of(shown) != suit:
            return None
        rank = rank_of(shown)
        position = 14 if ace_high and rank == 1 else rank
        index = position - low
        if not 0 <= index < length or slots[index] is not None:
            return None
        slots[index] = card
    free = [index for index in range(length) if slots[index] is None]
    loose = [card for card, played_as in entries if is_joker(card) and played_as is None]
    if len(free) != len(loose):
        return None
    for index, joker in zip(free, loose, strict=True):
        slots[index] = joker
    cards = tuple(card for card in slots if card is not None)
    stands = tuple(_position_card(low + index, suit) for index in range(length))
    return cards, stands


def build_meld(entries: Sequence[MeldEntry], rules: MeldRules, owner: str = "") -> TableMeld:
    """A meld from the cards written in an action; raises InvalidMeld when it is none."""
    cards = [card for card, _ in entries]
    kind = classify_meld(cards, rules)
    if kind is None:
        raise InvalidMeld("not a set or a run: " + " ".join(card_name(card) for card in cards))
    hinted_set = any(
        is_joker(card)
        and played_as is not None
        and rank_of(played_as) == rank_of(_first(cards))
        and suit_of(played_as) != suit_of(_first(cards))
        for card, played_as in entries
    )
    order = ("set", "run") if kind == "set" or hinted_set else ("run", "set")
    error: InvalidMeld | None = None
    for attempt in order:
        try:
            if attempt == "set":
                return _build_set(entries, rules, owner)
            return _build_run(entries, rules, owner)
        except InvalidMeld as exc:
            error = exc
    assert error is not None
    raise error


def _first(cards: Sequence[Card]) -> Card:
    return next(card for card in cards if not is_joker(card))


def lay_off(meld: TableMeld, card: Card, played_as: Card | None, rules: MeldRules) -> TableMeld:
    """The meld with `card` added at an end (runs) or as a further suit (sets)."""
    if is_joker(card) and not rules.jokers_wild:
        raise InvalidMeld("jokers are not wild in this game")
    if meld.kind == "set":
        if len(meld.cards) >= 4:
            raise InvalidMeld("the set is complete")
        natural_suits = {suit_of(c) for c in meld.cards if not is_joker(c)}
        if is_joker(card):
            target = played_as
            free = [s for s in range(4) if make_card(meld.rank, s) not in meld.stands_for]
            if target is None:
                target = make_card(meld.rank, free[0])
            elif rank_of(target) != meld.rank or suit_of(target) not in free:
                raise InvalidMeld(f"the joker cannot stand for {card_name(target)} here")
            return replace(meld, cards=(*meld.cards, card), stands_for=(*meld.stands_for, target))
        if rank_of(card) != meld.rank or suit_of(card) in natural_suits:
            raise InvalidMeld(f"{card_name(card)} does not fit the set")
        stands = list(meld.stands_for)
        if card in stands:  # a joker played as this suit moves to a free suit
            free = [s for s in range(4) if make_card(meld.rank, s) not in stands]
            stands[stands.index(card)] = make_card(meld.rank, free[0])
        return replace(meld, cards=(*meld.cards, card), stands_for=(*tuple(stands), card))
    # run
    top = 14 if rules.ace_high and meld.low > 1 else 13
    below = meld.low - 1
    above = meld.high + 1
    if is_joker(card):
        if played_as is not None:
            want = played_as
        elif above <= top:
            want = _position_card(above, meld.suit)
        elif below >= 1:
            want = _position_card(below, meld.suit)
        else:
            raise InvalidMeld("the run cannot grow")
    else:
        want = card
    if suit_of(want) != meld.suit:
        raise InvalidMeld(f"{card_name(card)} does not fit the run")
    rank = rank_of(want)
    if above <= top and (rank == above or (above == 14 and rank == 1)):
        return replace(
            meld,
            cards=(*meld.cards, card),
            stands_for=(*meld.stands_for, _position_card(above, meld.suit)),
        )
    if below >= 1 and rank == below:
        return replace(
            meld,
            cards=(card, *meld.cards),
            stands_for=(_position_card(below, meld.suit), *meld.stands_for),
            low=below,
        )
    raise InvalidMeld(f"{card_name(card)} does not fit the run")


def take_joker(meld: TableMeld, card: Card) -> tuple[TableMeld, Card]:
    """Put natural `card` in place of the joker that stands for it; returns (meld, joker)."""
    if is_joker(card):
        raise InvalidMeld("a joker is exchanged for a natural card")
    for index, (held, played_as) in enumerate(zip(meld.cards, meld.stands_for, strict=True)):
        if not is_joker(held):
            continue
        fits = played_as == card
        if meld.kind == "set" and rank_of(card) == meld.rank:
            natural_suits = {suit_of(c) for c in meld.cards if not is_joker(c)}
            fits = suit_of(card) not in natural_suits
        if fits:
            cards = list(meld.cards)
            stands = list(meld.stands_for)
            if meld.kind == "set" and card in stands and stands[index] != card:
                stands[stands.index(card)] = stands[index]
            cards[index] = card
            stands[index] = card
            return replace(meld, cards=tuple(cards), stands_for=tuple(stands)), held
    raise InvalidMeld(f"no joker in that meld stands for {card_name(card)}")
