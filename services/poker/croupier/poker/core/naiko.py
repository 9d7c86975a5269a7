"""Naiko mode (seed 002 §5, §9; rules 4, 25-49): Hold'em with powers paid in Destellos.

The powers run on top of the ordinary betting round (`betting.py`): Short Anchor only flips
its target's `pot_capped` flag for the current round, which is the cap hook every betting
round already honours (rule 42).

- Sneak Peek (`peek`, 1): the user alone sees the stub's top card (rules 36-38).
- Sleeve Swap (`swap`, 2): preflop, before the user's first voluntary action; one hole card is
  replaced by the stub's top card (rules 39-40).
- Short Anchor (`anchor`, 2): an opponent who has not acted this round plays pot-limit for the
  rest of it (rules 41-45); if he can answer, a response window opens for `seal` / `no_seal`
  (rules 46-49), and no other action is accepted until he answers.
- Protective Seal (`seal`, 1): voids the Anchor; both costs stay paid.

Limits: each power once per player per hand, one power per turn before the poker action, at
most 3 regular activations per betting round (Seal not counted). A rejected attempt raises
`IllegalAction` and changes nothing (rule 34).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from croupier.poker.core import cards as C
from croupier.poker.core.rules import IllegalAction, MalformedAction
from croupier.poker.core.state import PREFLOP, RIVER, HandState

PEEK, SWAP, ANCHOR, SEAL = "peek", "swap", "anchor", "seal"
POWERS = (PEEK, SWAP, ANCHOR, SEAL)
COST = {PEEK: 1, SWAP: 2, ANCHOR: 2, SEAL: 1}
MAX_DESTELLOS = 3
ROUND_LIMIT = 3  # regular activations per betting round, all players together (rule 33)
# Rule 29: a Carousel with the Seal also has the Anchor, so these are the only legal ones.
LEGAL_CAROUSELS = (
    frozenset({PEEK, SWAP, ANCHOR}),
    frozenset({PEEK, ANCHOR, SEAL}),
    frozenset({SWAP, ANCHOR, SEAL}),
)


@dataclass(frozen=True, slots=True)
class NaikoState:
    """The powers' part of a hand. Replaced (never changed) when something happens."""

    carousel: frozenset[str]
    carried_in: tuple[int, ...]  # balances before this hand's +1 (for the hand history)
    destellos: tuple[int, ...]
    used: tuple[frozenset[str], ...]  # powers each seat used this hand
    activations: int = 0  # valid regular activations this betting round
    anchored: frozenset[int] = frozenset()  # seats targeted by a valid Anchor this round
    pending: tuple[int, int] | None = None  # (anchoring seat, target) while the window is open
    turn_power: int = -1  # the seat that used a power in the current turn
    peeked: tuple[int | None, ...] = ()
    swapped_in: tuple[int | None, ...] = ()


def start(n: int, destellos: list[int], carousel: frozenset[str]) -> NaikoState:
    """Rule 25: +1 Destello for each player dealt in, capped at 3 (a gain above 3 is lost)."""
    if carousel not in LEGAL_CAROUSELS:
        raise ValueError(
            "a Carousel holds 3 of peek, swap, anchor, seal, always with anchor (rule 29)"
        )
    if len(destellos) != n or any(d < 0 for d in destellos):
        raise ValueError("each player needs a non-negative Destello balance")
    return NaikoState(
        carousel=carousel,
        carried_in=tuple(destellos),
        destellos=tuple(min(d + 1, MAX_DESTELLOS) for d in destellos),
        used=tuple(frozenset() for _ in range(n)),
        peeked=(None,) * n,
        swapped_in=(None,) * n,
    )


def new_round(nk: NaikoState) -> NaikoState:
    """Rules 33, 44, 45: the round's activation count and Anchor targets start afresh."""
    return replace(nk, activations=0, anchored=frozenset(), turn_power=-1)


def can_seal(nk: NaikoState, target: int) -> bool:
    """Rule 46: the window opens only when the target could answer with a Seal."""
    return SEAL in nk.carousel and SEAL not in nk.used[target] and nk.destellos[target] >= 1


def _pay(values: tuple[int, ...], seat: int, amount: int) -> tuple[int, ...]:
    out = list(values)
    out[seat] -= amount
    return tuple(out)


def _use(used: tuple[frozenset[str], ...], seat: int, power: str) -> tuple[frozenset[str], ...]:
    out = list(used)
    out[seat] = out[seat] | {power}
    return tuple(out)


def _set(values: tuple[int | None, ...], seat: int, card: int) -> tuple[int | None, ...]:
    out = list(values)
    out[seat] = card
    return tuple(out)


def _reject(reason: str, message: str) -> IllegalAction:
    return IllegalAction(reason, message)


def answer(s: HandState, player: str, kind: str) -> tuple[HandState, list[dict[str, Any]]]:
    """The Anchor target's `seal` or `no_seal` while the response window is open."""
    nk = s.naiko
    if nk is None:
        raise _reject("powers_not_available", "powers exist only in Naiko mode")
    if nk.pending is None:
        raise _reject("no_anchor_to_answer", "there is no Short Anchor waiting for an answer")
    user, target = nk.pending
    if s.ids[target] != player:
        raise _reject("not_the_anchor_target", f"only {s.ids[target]} may answer the Anchor")
    t = s.copy()
    if kind == SEAL:  # rule 47: the Anchor is void; both costs stay paid
        t.naiko = replace(
            nk,
            pending=None,
            destellos=_pay(nk.destellos, target, COST[SEAL]),
            used=_use(nk.used, target, SEAL),
        )
        event = {"type": "power", "player": player, "power": SEAL, "target": s.ids[user]}
    else:  # rule 48: the Anchor applies; the target pays nothing
        t.naiko = replace(nk, pending=None)
        capped = t.pot_capped[:]
        capped[target] = True
        t.pot_capped = capped
        event = {"type": "no_seal", "player": player}
    return t, [event]


def activate(
    s: HandState, p: int, action: Mapping[str, Any]
) -> tuple[HandState, list[dict[str, Any]]]:
    """A regular power by the player to act (seat p), before his poker action."""
    nk = s.naiko
    if nk is None:
        raise _reject("powers_not_available", "powers exist only in Naiko mode (rule 4)")
    power = action.get("power")
    if power not in (PEEK, SWAP, ANCHOR):
        raise MalformedAction(
            "unknown_power", f"unknown power {power!r}; expected peek, swap or anchor"
        )
    if power not in nk.carousel:
        raise _reject("power_not_in_carousel", f"{power} is not in this hand's Carousel")
    if power in nk.used[p]:
        raise _reject("power_already_used", f"{power} was already used this hand")
    if nk.turn_power == p:
        raise _reject("one_power_per_turn", "only one power per turn; take your poker action")
    if nk.destellos[p] < COST[power]:
        raise _reject(
            "not_enough_destellos", f"{power} costs {COST[power]}; you have {nk.destellos[p]}"
        )
    if nk.activations >= ROUND_LIMIT:
        raise _reject("round_limit_reached", "3 powers were already used this betting round")
    t = s.copy()
    nk = replace(
        nk,
        destellos=_pay(nk.destellos, p, COST[power]),
        used=_use(nk.used, p, power),
        activations=nk.activations + 1,
        turn_power=p,
    )
    event: dict[str, Any] = {"type": "power", "player": s.ids[p], "power": power}
    if power == PEEK:
        if s.street >= RIVER:
            raise _reject("wrong_street", "Sneak Peek cannot be used on the river")
        if s.deck_pos >= len(s.deck):
            raise _reject("deck_empty", "there is no card left to peek at")
        nk = replace(nk, peeked=_set(nk.peeked, p, s.deck[s.deck_pos]))  # rule 37
    elif power == SWAP:
        if s.street != PREFLOP or s.acted_level[p] >= 0:
            raise _reject(
                "wrong_timing", "Sleeve Swap is only allowed preflop before your first action"
            )
        name = action.get("card")
        try:
            card = C.parse(name) if isinstance(name, str) else -1
        except C.BadCard:
            card = -1
        if card not in s.hole[p]:
            raise MalformedAction("not_your_card", "name one of your own hole cards to give up")
        if s.deck_pos >= len(s.deck):
            raise _reject("deck_empty", "there is no card left to swap in")
        new = s.deck[s.deck_pos]  # rule 40: the stub's top card at this moment
        t.deck_pos = s.deck_pos + 1
        hole = list(s.hole)
        hole[p] = tuple(new if c == card else c for c in s.hole[p])
        t.hole = tuple(hole)
        nk = replace(nk, swapped_in=_set(nk.swapped_in, p, new))
    else:
        target_id = action.get("target")
        if not isinstance(target_id, str) or target_id not in s.ids:
            raise MalformedAction("bad_target", "name the opponent to anchor")
        target = s.ids.index(target_id)
        if target == p:
            raise _reject("bad_target", "you cannot anchor yourself")
        if s.folded[target] or s.stacks[target] == 0:
            raise _reject("bad_target", f"{target_id} has folded or is all-in")
        if s.acted_level[target] >= 0:
            raise _reject("bad_target", f"{target_id} has already acted this betting round")
        if target in nk.anchored:
            raise _reject("already_anchored", f"{target_id} was already anchored this round")
        nk = replace(nk, anchored=nk.anchored | {target})
        event["target"] = target_id
        if can_seal(nk, target):
            nk = replace(nk, pending=(p, target))  # rule 46: the target's response window
        else:
            capped = t.pot_capped[:]
            capped[target] = True
            t.pot_capped = capped
    t.naiko = nk
    return t, [event]


def poker_action_taken(nk: NaikoState) -> NaikoState:
    """The turn's poker action ends the turn's power allowance."""
    return replace(nk, turn_power=-1) if nk.turn_power >= 0 else nk


def private(s: HandState) -> dict[str, dict[str, str]]:
    """What each player saw privately (conformance `private`)."""
    nk = s.naiko
    out: dict[str, dict[str, str]] = {}
    if nk is None:
        return out
    for i, pid in enumerate(s.ids):
        entry: dict[str, str] = {}
        if nk.peeked[i] is not None:
            entry["peeked"] = C.name(nk.peeked[i])
        if nk.swapped_in[i] is not None:
            entry["swapped_in"] = C.name(nk.swapped_in[i])
        if entry:
            out[pid] = entry
    return out


def usable(s: HandState, p: int) -> dict[str, Any]:
    """The powers seat p could activate now, and the Anchor's possible targets."""
    powers: list[str] = []
    targets: list[str] = []
    for power in (PEEK, SWAP, ANCHOR):
        if power == ANCHOR:
            for i, pid in enumerate(s.ids):
                if i != p and _accepted(s, p, {"power": ANCHOR, "target": pid}):
                    targets.append(pid)
            if targets:
                powers.append(ANCHOR)
        elif _accepted(s, p, {"power": power, "card": C.name(s.hole[p][0])}):
            powers.append(power)
    return {"powers": powers, "anchor_targets": targets}


def _accepted(s: HandState, p: int, action: Mapping[str, Any]) -> bool:
    try:
        activate(s, p, action)
    except IllegalAction:
        return False
    return True
