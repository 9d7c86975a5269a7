"""Betting-round rules (seed 002 §2-§3, rules 7-8, 11, 13-18), reusable by every variant.

The functions read a `HandState` and never change it. The per-player `pot_capped` flag is the
cap hook: the table's pot limit sets it for everyone, and a Naiko Short Anchor (`naiko.py`)
sets it for its target for one betting round (rule 42).
"""

from __future__ import annotations

from typing import NamedTuple

from croupier.poker.core.state import HandState

# ROTATIONS[n][after]: the seats clockwise after `after`, ending with `after` itself.
ROTATIONS: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple((a + k) % n for k in range(1, n + 1)) for a in range(n)) if n else ()
    for n in range(10)
)


# OTHERS[n][p]: every seat but p.
OTHERS: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple(i for i in range(n) if i != p) for p in range(n)) for n in range(10)
)


class Options(NamedTuple):
    """What the player to act may do: the queryable legal actions (rule 18)."""

    actions: tuple[str, ...]  # subset of fold, check, call, bet, raise, allin
    call: int  # chips a call puts in (capped by the stack; 0 when checking)
    min_to: int  # smallest legal bet/raise-to (an all-in below it is legal too); 0 if none
    max_to: int  # largest legal bet/raise-to; 0 if none
    all_in_to: int  # what the player's bet becomes if he puts in every chip


def can_reraise(s: HandState, p: int) -> bool:
    """Rule 16 / OQ 3: raising is open to p unless he has acted and the total increase since
    his last action is less than one full raise increment (cumulative short all-ins)."""
    level = s.acted_level[p]
    return level < 0 or s.current_bet - level >= s.last_full


def _someone_else_can_bet(s: HandState, p: int) -> bool:
    """A bet or raise needs an opponent who could still put in more than the current bet;
    otherwise it could only be returned uncalled (PokerKit refuses it the same way)."""
    folded = s.folded
    stacks = s.stacks
    bets = s.bets
    cur = s.current_bet
    for i in range(s.n):
        if i != p and not folded[i] and stacks[i] > 0 and bets[i] + stacks[i] > cur:
            return True
    return False


def max_to_uncapped(s: HandState, p: int) -> int:
    return s.bets[p] + s.stacks[p]


def pot_limit_to(s: HandState, p: int) -> int:
    """Rule 17: current bet + (every chip in the pot, this round's bets included) + the
    player's amount to call. With no bet to face this is the pot."""
    return s.current_bet + sum(s.contrib) + (s.current_bet - s.bets[p])


def options(s: HandState, p: int) -> Options:
    """The options of seat p (cached on the state for the player to act)."""
    if p == s.to_act:
        cached: Options | None = s.cache
        if cached is None:
            cached = s.cache = compute_options(s, p)
        return cached
    return compute_options(s, p)


_new = tuple.__new__  # builds an Options without NamedTuple's Python-level __new__

# The possible action lists, built once (fold is always allowed).
_ACTS = {
    (check, opener, allin): tuple(
        a
        for a, on in (
            ("fold", True),
            ("check", check),
            ("call", not check),
            (opener, bool(opener)),
            ("allin", allin),
        )
        if on
    )
    for check in (True, False)
    for opener in ("", "bet", "raise")
    for allin in (True, False)
}

# The same, indexed by booleans: _OPEN[check][no bet yet][all-in allowed] (bet or raise open),
# _CLOSED[check][all-in allowed].
_OPEN = tuple(
    tuple(tuple(_ACTS[bool(c), "bet" if b else "raise", bool(a)] for a in (0, 1)) for b in (0, 1))
    for c in (0, 1)
)
_CLOSED = tuple(tuple(_ACTS[bool(c), "", bool(a)] for a in (0, 1)) for c in (0, 1))


def compute_options(s: HandState, p: int) -> Options:
    stacks = s.stacks
    bets = s.bets
    stack = stacks[p]
    bet = bets[p]
    cur = s.current_bet
    owe = cur - bet
    all_in_to = bet + stack
    check = owe <= 0
    call = 0 if check else owe if owe < stack else stack
    if all_in_to <= cur:  # no bet or raise: all-in only as a call (or less)
        return _new(Options, (_CLOSED[check][stack > 0], call, 0, 0, all_in_to))
    level = s.acted_level[p]
    last_full = s.last_full
    # rule 16 / OQ 3 (can_reraise) and an opponent able to call more (_someone_else_can_bet),
    # inlined; otherwise no bet or raise, and all-in is not a call either
    if level >= 0 and cur - level < last_full:
        return _new(Options, (_CLOSED[check][False], call, 0, 0, all_in_to))
    folded = s.folded
    for i in OTHERS[s.n][p]:
        if not folded[i] and stacks[i] > 0 and bets[i] + stacks[i] > cur:
            break
    else:
        return _new(Options, (_CLOSED[check][False], call, 0, 0, all_in_to))
    full_min = cur + last_full
    max_to = all_in_to
    if s.pot_capped[p]:
        cap = pot_limit_to(s, p)
        # rule 42: a cap never removes the minimum raise that would be legal anyway
        if cap < full_min:
            cap = full_min
        if cap < max_to:
            max_to = cap
    min_to = full_min if full_min < all_in_to else all_in_to
    acts = _OPEN[check][cur == 0][all_in_to <= max_to]
    return _new(Options, (acts, call, min_to, max_to, all_in_to))


def needs_action(s: HandState, p: int) -> bool:
    """Rules 8 and 11: p can still act (not folded, has chips) and has not acted since the
    last bet/raise or has not matched the current bet (the big blind's option included)."""
    return (
        not s.folded[p] and s.stacks[p] > 0 and (s.acted_level[p] < 0 or s.bets[p] < s.current_bet)
    )


def next_actor(s: HandState, after: int) -> int:
    """The next seat clockwise after `after` that must act, or -1 when the round is over.

    Rule 21: when at most one player can still bet and he has matched every other bet, the
    round is over (no one is left to bet against)."""
    folded = s.folded
    stacks = s.stacks
    bets = s.bets
    able = s.able
    if able >= 2:
        acted = s.acted_level
        cur = s.current_bet
        for i in ROTATIONS[s.n][after]:
            if not folded[i] and stacks[i] > 0 and (acted[i] < 0 or bets[i] < cur):
                return i
        return -1
    if able == 0:
        return -1
    lone = next(i for i in range(s.n) if not folded[i] and stacks[i] > 0)
    mine = bets[lone]
    for i in range(s.n):
        if i != lone and bets[i] > mine:
            return lone
    return -1
