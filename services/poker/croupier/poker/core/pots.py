"""Settling a hand's chips (seed 002 §4, rules 19-20, 23-24): uncalled bets, pot layers,
odd chips.

Pure functions over plain lists so that property tests can drive them directly.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Sequence
from typing import NamedTuple

_new = tuple.__new__  # builds a Pot without NamedTuple's Python-level __new__


class Pot(NamedTuple):
    amount: int
    eligible: tuple[int, ...]  # seats, clockwise from the button's left
    winners: tuple[int, ...] = ()  # seats, clockwise from the button's left
    shares: tuple[int, ...] = ()  # chips per winner, same order as winners


def uncalled(contrib: Sequence[int]) -> tuple[int, int]:
    """Rule 20: (seat, amount) of the part of the biggest contribution nobody matched, or
    (-1, 0). Contributions are whole-hand totals; an unmatched excess can only be the top one."""
    top = -1
    first = second = 0
    for i, c in enumerate(contrib):
        if c > first:
            top, first, second = i, c, first
        elif c > second:
            second = c
    if top < 0 or first == second:
        return -1, 0
    # `second` is the largest contribution of anyone else (ties with the top give 0 above)
    return top, first - second


def unreachable(contrib: Sequence[int], folded: Sequence[bool]) -> list[int]:
    """Per seat, folded chips above every live player's contribution. Only players who may
    fold with nothing to call can leave them (two posters of a live big blind, say, who
    both fold to a short all-in): no live player can win them, so, like an uncalled bet
    (rule 20), they go back to whoever put them in. All zeros in any other hand."""
    top = max((c for c, out in zip(contrib, folded, strict=True) if not out), default=0)
    return [c - top if out and c > top else 0 for c, out in zip(contrib, folded, strict=True)]


def layers(contrib: Sequence[int], live: Sequence[bool], order: Sequence[int]) -> list[Pot]:
    """Rule 19: pots by contribution layer. Each layer's boundary is a live (not folded)
    player's total; folded players' chips fill the layers they reach but they are never
    eligible. `order` lists the seats clockwise from the button's left."""
    levels = sorted({contrib[i] for i in order if live[i]})
    ranked = sorted(contrib)
    below = [0]  # below[k]: sum of the k smallest contributions
    for c in ranked:
        below.append(below[-1] + c)
    m = len(ranked)
    pots: list[Pot] = []
    done = 0  # chips already in lower layers
    for level in levels:
        if level <= 0:
            continue
        k = bisect_left(ranked, level)
        upto = below[k] + level * (m - k)  # every chip up to this level: sum of min(c, level)
        if upto > done:
            eligible = tuple([i for i in order if live[i] and contrib[i] >= level])
            pots.append(_new(Pot, (upto - done, eligible, (), ())))
        done = upto
    return pots


def settle(contrib: Sequence[int], seats: Sequence[int], values: Sequence[int]) -> list[Pot]:
    """`award(layers(contrib, live, order), values)` in one pass, for the showdown's settlement:
    `seats` are the live seats clockwise from the button's left, `values` their hand values
    by seat (higher is stronger)."""
    if not seats:
        return []
    get = values.__getitem__
    levels = sorted(set(map(contrib.__getitem__, seats)))
    lowest = levels[0]  # every live seat reaches it
    ranked = sorted(contrib)
    m = len(ranked)
    k = below = 0  # ranked[:k] are the contributions under the current level; below: their sum
    done = 0  # chips already in lower layers
    pots: list[Pot] = []
    for level in levels:
        if level <= 0:
            continue
        while ranked[k] < level:  # stops at the latest on the top contribution (>= level)
            below += ranked[k]
            k += 1
        upto = below + level * (m - k)  # every chip up to this level: sum of min(c, level)
        amount = upto - done
        done = upto
        if not amount:
            continue
        if level == lowest:
            eligible = tuple(seats)
        else:
            eligible = tuple([i for i in seats if contrib[i] >= level])
        if len(eligible) == 1:
            pots.append(_new(Pot, (amount, eligible, eligible, (amount,))))
            continue
        vals = list(map(get, eligible))
        best = max(vals)
        if vals.count(best) == 1:
            winner = (eligible[vals.index(best)],)
            pots.append(_new(Pot, (amount, eligible, winner, (amount,))))
        else:
            winners = tuple([i for i, v in zip(eligible, vals, strict=True) if v == best])
            pots.append(_new(Pot, (amount, eligible, winners, split(amount, winners))))
    return pots


def split(amount: int, winners: Sequence[int]) -> tuple[int, ...]:
    """Rule 24 / OQ 11: equal shares; leftover chips one at a time to the winners in the given
    order (clockwise from the first winner left of the button)."""
    share, rest = divmod(amount, len(winners))
    return tuple(share + (1 if k < rest else 0) for k in range(len(winners)))


def award(pots: Sequence[Pot], value: Callable[[int], int] | Sequence[int]) -> list[Pot]:
    """Rule 23: each pot to its eligible player(s) with the best hand value (`value` maps a
    seat to its hand value: a function or a per-seat sequence)."""
    get = value.__getitem__ if isinstance(value, Sequence) else value
    done: list[Pot] = []
    for amount, eligible, _, _ in pots:
        if len(eligible) == 1:
            done.append(_new(Pot, (amount, eligible, eligible, (amount,))))
            continue
        best = get(eligible[0])
        winners: list[int] = [eligible[0]]
        for i in eligible[1:]:
            v = get(i)
            if v > best:
                best = v
                winners = [i]
            elif v == best:
                winners.append(i)
        if len(winners) == 1:
            done.append(_new(Pot, (amount, eligible, (winners[0],), (amount,))))
        else:
            done.append(_new(Pot, (amount, eligible, tuple(winners), split(amount, winners))))
    return done
