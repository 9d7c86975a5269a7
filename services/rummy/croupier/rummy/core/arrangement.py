"""The meld arrangement of a hand that leaves the least deadwood: exact, jokers included.

`best_arrangement` searches, card by card in a fixed order, every way the lowest card still
free can be used: left as deadwood, or in any set or run (with or without jokers) made of
cards still free. Results are memoised on (free cards, jokers left), so the search is exact
(it never commits to a greedy choice) and stays small: a 14-card hand with two jokers
visits a few hundred states.

`brute_force_arrangement` is an independent reference used by the tests and the benchmark:
it lists every subset of each same-suit and same-rank pool (plus jokers), keeps those
`classify_meld` accepts, and tries every disjoint combination.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations, product

from croupier.rummy.core.cards import Card, is_joker, make_card, rank_of, suit_of
from croupier.rummy.core.melds import MeldRules, classify_meld

__all__ = ["Arrangement", "best_arrangement", "brute_force_min_deadwood", "min_deadwood"]

_JOKER_SLOT = -1


@dataclass(frozen=True)
class Arrangement:
    """Melds (jokers placed) and the deadwood left; `deadwood` is in the variant's values."""

    melds: tuple[tuple[Card, ...], ...]
    deadwood_cards: tuple[Card, ...]
    deadwood: int


def _candidates(
    naturals: Sequence[Card], jokers: int, rules: MeldRules
) -> list[list[tuple[int, int, tuple[int, ...]]]]:
    """Per natural index i: melds whose first free card is i, as (mask, jokers, layout).

    `layout` lists natural indexes and _JOKER_SLOT in meld order.
    """
    count = len(naturals)
    where: dict[Card, list[int]] = {}
    for index, card in enumerate(naturals):
        # Only the first copy of a two-pack card is ever used by a candidate: the search
        # keeps masks canonical (see best_arrangement), so whenever one copy is free the
        # first one is.
        where.setdefault(card, [index])
    min_naturals = max(1, rules.min_naturals)
    result: list[list[tuple[int, int, tuple[int, ...]]]] = []
    for i, card in enumerate(naturals):
        found: dict[tuple[int, int], tuple[int, ...]] = {}
        rank, suit = rank_of(card), suit_of(card)
        # Sets: other suits of the same rank, later in the order.
        pools = []
        for other in range(4):
            if other == suit:
                continue
            copies = [j for j in where.get(make_card(rank, other), ()) if j > i]
            if copies:
                pools.append(copies)
        for size in range(len(pools) + 1):
            for chosen in combinations(pools, size):
                for picks in product(*chosen):
                    natural_count = 1 + size
                    mask = 1 << i
                    for j in picks:
                        mask |= 1 << j
                    for used in range(jokers + 1):
                        total = natural_count + used
                        if total > 4:
                            break
                        if total >= 3 and natural_count >= min_naturals:
                            layout = (i, *picks) + (_JOKER_SLOT,) * used
                            found.setdefault((mask, used), layout)
        # Runs in which card i is the lowest natural (or the ace at the top).
        positions = [rank] + ([14] if rank == 1 and rules.ace_high else [])
        for position in positions:
            top = 13 if (position == 1 or not rules.ace_high) else 14
            bottom = 2 if position == 14 else 1
            # Below a natural anchor only jokers fit (lower cards of its suit come first);
            # below an ace played high, the suit's cards do.
            lowest = bottom if position == 14 else max(bottom, position - jokers)
            for low in range(lowest, position - 1 if position == 14 else position + 1):
                _extend_run(low, position, top, i, suit, where, jokers, min_naturals, found)
        result.append([(mask, used, layout) for (mask, used), layout in found.items()])
    _ = count
    return result


def _extend_run(
    low: int,
    position: int,
    top: int,
    anchor: int,
    suit: int,
    where: dict[Card, list[int]],
    jokers: int,
    min_naturals: int,
    found: dict[tuple[int, int], tuple[int, ...]],
) -> None:
    # Walk positions low..top, choosing a later natural copy or a joker for each.
    stack: list[tuple[int, int, int, int, tuple[int, ...]]] = [(low, 0, 0, 0, ())]
    while stack:
        at, mask, used, natural_count, layout = stack.pop()
        length = at - low
        if at > position and length >= 3 and natural_count >= min_naturals:
            found.setdefault((mask, used), layout)
        if at > top:
            continue
        if at == position:
            stack.append((at + 1, mask | (1 << anchor), used, natural_count + 1, (*layout, anchor)))
            continue
        card = make_card(1 if at == 14 else at, suit)
        for j in where.get(card, ()):
            if j > anchor and not mask >> j & 1:
                stack.append((at + 1, mask | (1 << j), used, natural_count + 1, (*layout, j)))
        if used < jokers:
            stack.append((at + 1, mask, used + 1, natural_count, (*layout, _JOKER_SLOT)))


def best_arrangement(cards: Sequence[Card], rules: MeldRules, values: Sequence[int]) -> Arrangement:
    """The arrangement with the least deadwood (ties: any one of them).

    `values[card]` is the card's deadwood value (jokers included).

    >>> from croupier.rummy.core.cards import parse_cards
    >>> gin = MeldRules(ace_high=False, jokers_wild=False)
    >>> values = [min(10, c % 13 + 1) for c in range(52)]
    >>> best_arrangement(parse_cards("4h 5h 6h 9c 9d 9s Kd 2c".split()), gin, values).deadwood
    12
    """
    naturals = sorted(card for card in cards if not is_joker(card))
    joker_cards = sorted(card for card in cards if is_joker(card))
    jokers = len(joker_cards)
    if jokers and not rules.jokers_wild:
        naturals_only = naturals
        joker_value = sum(values[card] for card in joker_cards)
        sub = best_arrangement(naturals_only, rules, values)
        leftover = (*sub.deadwood_cards, *joker_cards)
        return Arrangement(sub.melds, leftover, sub.deadwood + joker_value)
    joker_value = values[joker_cards[0]] if joker_cards else 0
    card_values = [values[card] for card in naturals]
    candidates = _candidates(naturals, jokers, rules)
    memo: dict[int, int] = {}
    choice: dict[int, tuple[int, int, tuple[int, ...]] | None] = {}
    # Two copies of a card (two packs) are interchangeable: a state where only the later
    # copy is free is the same as one where only the earlier copy is, so masks are
    # canonicalised (the earlier copy is the free one) before they are memoised.
    pairs = [
        (1 << i, 1 << j)
        for i in range(len(naturals))
        for j in range(i + 1, len(naturals))
        if naturals[i] == naturals[j]
    ]

    def canonical(mask: int) -> int:
        for low, high in pairs:
            if mask & high and not mask & low:
                mask ^= low | high
        return mask

    def solve(mask: int, left: int) -> int:
        key = mask << 3 | left
        cached = memo.get(key)
        if cached is not None:
            return cached
        if mask == 0:
            memo[key] = left * joker_value
            choice[key] = None
            return memo[key]
        i = (mask & -mask).bit_length() - 1
        best = card_values[i] + solve(canonical(mask ^ (1 << i)), left)
        picked: tuple[int, int, tuple[int, ...]] | None = None
        for candidate in candidates[i]:
            meld_mask, used, _ = candidate
            if used <= left and meld_mask & mask == meld_mask:
                value = solve(canonical(mask ^ meld_mask), left - used)
                if value < best:
                    best = value
                    picked = candidate
        memo[key] = best
        choice[key] = picked
        return best

    full = (1 << len(naturals)) - 1
    total = solve(full, jokers)
    melds: list[tuple[Card, ...]] = []
    dead: list[Card] = []
    free_jokers = list(joker_cards)
    mask, left = full, jokers
    while mask:
        key = mask << 3 | left
        picked = choice[key]
        i = (mask & -mask).bit_length() - 1
        if picked is None:
            dead.append(naturals[i])
            mask = canonical(mask ^ (1 << i))
            continue
        meld_mask, used, layout = picked
        melds.append(tuple(free_jokers.pop(0) if j == _JOKER_SLOT else naturals[j] for j in layout))
        mask = canonical(mask ^ meld_mask)
        left -= used
    dead.extend(free_jokers)
    return Arrangement(tuple(melds), tuple(dead), total)


def min_deadwood(cards: Sequence[Card], rules: MeldRules, values: Sequence[int]) -> int:
    """Least deadwood of `cards` (see best_arrangement)."""
    return best_arrangement(cards, rules, values).deadwood


def brute_force_min_deadwood(cards: Sequence[Card], rules: MeldRules, values: Sequence[int]) -> int:
    """Reference answer by exhaustive search over every valid meld (slow; tests/benchmark)."""
    items = list(cards)
    joker_indexes = [k for k, card in enumerate(items) if is_joker(card)]
    if not rules.jokers_wild:
        joker_indexes = []
    pools: list[list[int]] = []
    for suit in range(4):
        pools.append([k for k, c in enumerate(items) if not is_joker(c) and suit_of(c) == suit])
    for rank in range(1, 14):
        pools.append([k for k, c in enumerate(items) if not is_joker(c) and rank_of(c) == rank])
    melds: set[int] = set()
    for pool in pools:
        members = pool + joker_indexes
        for size in range(3, len(members) + 1):
            for subset in combinations(members, size):
                if classify_meld([items[k] for k in subset], rules) is not None:
                    mask = 0
                    for k in subset:
                        mask |= 1 << k
                    melds.add(mask)
    containing: list[list[int]] = [[] for _ in items]
    for mask in sorted(melds):
        lowest = (mask & -mask).bit_length() - 1
        containing[lowest].append(mask)
    memo: dict[int, int] = {}

    def search(free: int) -> int:
        if free == 0:
            return 0
        cached = memo.get(free)
        if cached is not None:
            return cached
        lowest = (free & -free).bit_length() - 1
        best = values[items[lowest]] + search(free ^ (1 << lowest))
        for mask in containing[lowest]:
            if mask & free == mask:
                best = min(best, search(free ^ mask))
        memo[free] = best
        return best

    return search((1 << len(items)) - 1)
