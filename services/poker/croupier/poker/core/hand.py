"""The hand state machine (seed 002 §3-§4): queries, applying actions, the next street.

    legal_actions(state, "a")      # {"actions": [...], "call": 1, "min_raise_to": 4, ...}
    state, events = apply(state, "a", {"action": "raise", "to": 6})

`apply` never changes the state it is given (copy-on-apply) and raises `IllegalAction`
(state unchanged) for anything the rules do not allow. A hand starts in
`croupier.poker.core.deal`, and ends in `croupier.poker.core.showdown`. No I/O, no clock,
no randomness.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from croupier.game.limits import echo
from croupier.poker.core import cards as C
from croupier.poker.core import naiko
from croupier.poker.core.betting import ROTATIONS, Options, compute_options, next_actor, options
from croupier.poker.core.rules import (
    IllegalAction,
    MalformedAction,
    NotInHand,
)
from croupier.poker.core.showdown import Event, collected_pots, finish, pots_json
from croupier.poker.core.state import (
    COMPLETE,
    PREFLOP,
    RIVER,
    STREETS,
    HandState,
)

_NAMES = C.NAMES


# Queries -------------------------------------------------------------------------------


def player_options(s: HandState, player: str) -> Options | None:
    """The player's options when it is his turn, else None."""
    p = s.to_act
    if p < 0 or s.ids[p] != player:
        return None
    cached: Options | None = s.cache
    if cached is None:
        cached = s.cache = compute_options(s, p)
    return cached


def legal_actions(s: HandState, player: str) -> dict[str, Any]:
    """Rule 18, in conformance notation. Not his turn (or hand over): no actions. In Naiko
    mode also the usable powers (and Anchor targets), or `seal`/`no_seal` in the window."""
    nk = s.naiko
    if nk is not None and nk.pending is not None and s.status != COMPLETE:
        if s.ids[nk.pending[1]] == player:
            return {"actions": ["seal", "no_seal"], "call": 0, "min_raise_to": 0, "max_raise_to": 0}
        return {"actions": [], "call": 0, "min_raise_to": 0, "max_raise_to": 0}
    o = player_options(s, player)
    if o is None:
        return {"actions": [], "call": 0, "min_raise_to": 0, "max_raise_to": 0}
    out: dict[str, Any] = {
        "actions": list(o.actions),
        "call": o.call,
        "min_raise_to": o.min_to,
        "max_raise_to": o.max_to,
    }
    if nk is not None:
        out.update(naiko.usable(s, s.to_act))
        if out["powers"]:
            out["actions"].append("power")
    return out


def timeout_action(s: HandState, player: str) -> dict[str, Any]:
    """Rule 56 / §7: check when legal, otherwise fold; an open Anchor window: no Seal (48)."""
    nk = s.naiko
    if nk is not None and nk.pending is not None and s.ids[nk.pending[1]] == player:
        return {"action": "no_seal"}
    o = player_options(s, player)
    if o is not None and "check" in o.actions:
        return {"action": "check"}
    return {"action": "fold"}


def view(s: HandState, player: str | None) -> dict[str, Any]:
    """What `player` may see (None: a spectator). Others' hole cards only once shown."""
    shown: Mapping[str, list[str]] = (s.result or {}).get("shown", {})
    seats = []
    for i, pid in enumerate(s.ids):
        seat: dict[str, Any] = {
            "player": pid,
            "stack": s.stacks[i],
            "bet": s.bets[i],
            "folded": s.folded[i],
            "all_in": not s.folded[i] and s.stacks[i] == 0,
            "hole_card_count": len(s.hole[i]),
        }
        if pid == player:
            seat["hole_cards"] = C.names(s.hole[i])
        elif pid in shown:
            seat["hole_cards"] = list(shown[pid])
        seats.append(seat)
    out: dict[str, Any] = {
        "status": s.status,
        "street": STREETS[min(s.street, RIVER)],
        "button": s.ids[s.button],
        "seats": seats,
        "board": C.names(s.board),
        "pots": s.result["pots"] if s.result else pots_json(s, collected_pots(s)),
        "to_act": s.player_to_act,
        "legal": legal_actions(s, player) if player is not None else None,
    }
    nk = s.naiko
    if nk is not None:
        out["carousel"] = sorted(nk.carousel)
        out["destellos"] = dict(zip(s.ids, nk.destellos, strict=True))
        if player in s.ids:
            out["private"] = naiko.private(s).get(player, {})
    if s.result is not None:
        out["result"] = s.result
    return out


def result(s: HandState) -> dict[str, Any] | None:
    """The settlement once the hand is over: pots, returned, winnings, stacks, deltas."""
    return s.result


# Applying actions ----------------------------------------------------------------------


def apply(s: HandState, player: str, action: Mapping[str, Any]) -> tuple[HandState, list[Event]]:
    """Apply one action; returns the new state and the public events. Raises IllegalAction
    with a precise reason (the given state is never changed)."""
    if s.status == COMPLETE:
        raise IllegalAction("hand_over", "the hand is over")
    kind = action.get("action")
    if s.naiko is not None or kind in _POWER_KINDS:
        return _apply_naiko(s, player, kind, action)
    return _apply_poker(s, player, kind, action)


_POWER_KINDS = ("power", "seal", "no_seal")


def _apply_naiko(
    s: HandState, player: str, kind: Any, action: Mapping[str, Any]
) -> tuple[HandState, list[Event]]:
    """Powers, Anchor answers, and poker actions in Naiko mode (rules 4, 25-49)."""
    nk = s.naiko
    if nk is None:
        raise IllegalAction("powers_not_available", "powers exist only in Naiko mode (rule 4)")
    if kind == "seal" or kind == "no_seal":
        t, events = naiko.answer(s, player, kind)
        entry: dict[str, Any] = {"player": player, "action": kind}
    else:
        if nk.pending is not None:
            target = s.ids[nk.pending[1]]
            raise IllegalAction(
                "awaiting_anchor_answer", f"waiting for {target} to answer the Short Anchor"
            )
        if kind != "power":
            t, events = _apply_poker(s, player, kind, action)
            if t.naiko is not None and t.naiko.turn_power >= 0:
                t.naiko = naiko.poker_action_taken(t.naiko)
            return t, events
        p = s.to_act
        _check_turn(s, player)
        t, events = naiko.activate(s, p, action)
        entry = {"player": player, "action": "power", "power": action["power"]}
        for key in ("card", "target"):
            if key in action:
                entry[key] = action[key]
    t.actions = (*s.actions, entry)
    return t, events


def _check_turn(s: HandState, player: str) -> None:
    if s.ids[s.to_act] != player:
        if player not in s.ids:
            raise NotInHand("unknown_player", f"no player {player!r} in this hand")
        raise IllegalAction("not_your_turn", f"it is {s.ids[s.to_act]}'s turn, not {player}'s")


def _apply_poker(
    s: HandState, player: str, kind: Any, action: Mapping[str, Any]
) -> tuple[HandState, list[Event]]:
    p = s.to_act
    if s.ids[p] != player:
        if player not in s.ids:
            raise NotInHand("unknown_player", f"no player {player!r} in this hand")
        raise IllegalAction("not_your_turn", f"it is {s.ids[p]}'s turn, not {player}'s")
    # the most frequent kinds first; every branch copies only once the action is legal
    if kind == "call":
        cur = s.current_bet
        owe = cur - s.bets[p]
        if owe <= 0:
            raise IllegalAction("nothing_to_call", "there is nothing to call; check instead")
        stack = s.stacks[p]
        t = s.copy()
        if owe >= stack:  # all-in for the call (or less)
            owe = stack
            t.able -= 1
        t.stacks[p] = left = stack - owe  # a call never raises the bet (_put, inlined)
        t.bets[p] += owe
        t.contrib[p] += owe
        t.acted_level[p] = cur
        entry: dict[str, Any] = {
            "type": "action",
            "player": player,
            "action": "call",
            "amount": owe,
        }
        if left == 0:
            entry["all_in"] = True
    elif kind == "fold":
        t = s.copy(False)
        t.folded = folded = s.folded[:]
        folded[p] = True
        t.acted_level[p] = s.current_bet
        t.live -= 1
        if s.stacks[p] > 0:
            t.able -= 1
        entry = {"type": "action", "player": player, "action": "fold"}
    elif kind == "bet" or kind == "raise":
        to = action.get("to")
        if type(to) is not int and (not isinstance(to, int) or isinstance(to, bool)):
            raise MalformedAction("missing_amount", f"a {kind} needs an integer 'to' amount")
        _check_bet_to(s, p, kind, to, options(s, p))
        t = s.copy()
        put = to - s.bets[p]
        _put(t, p, put)
        entry = {"type": "action", "player": player, "action": kind, "to": to, "amount": put}
        if t.stacks[p] == 0:
            entry["all_in"] = True
    elif kind == "check":
        if s.current_bet > s.bets[p]:
            owe = min(s.current_bet - s.bets[p], s.stacks[p])
            raise IllegalAction("cannot_check", f"cannot check: there is {owe} to call")
        t = s.copy(False)
        t.acted_level[p] = t.current_bet
        entry = {"type": "action", "player": player, "action": "check"}
        if t.stacks[p] == 0:
            entry["all_in"] = True
    elif kind == "allin":
        o = options(s, p)
        if "allin" not in o.actions:
            if "raise" in o.actions or "bet" in o.actions:
                raise IllegalAction(
                    "above_maximum",
                    f"all-in to {o.all_in_to} is above the pot limit: at most {o.max_to}",
                )
            raise IllegalAction(
                "raising_closed",
                "raising is not reopened (an all-in below a full raise); call or fold",
            )
        t = s.copy()
        put = s.stacks[p]
        _put(t, p, put)
        entry = {
            "type": "action",
            "player": player,
            "action": "allin",
            "to": t.bets[p],
            "amount": put,
        }
        if t.stacks[p] == 0:
            entry["all_in"] = True
    else:
        raise MalformedAction("unknown_action", f"unknown action {kind!r}")
    # The event is also the action log's entry (events are read-only for their receivers).
    t.actions = s.actions + (entry,)  # noqa: RUF005 - one allocation, on the hot path
    events: list[Event] = [entry]
    if t.live > 1 and t.able >= 2:  # advance's common case, inlined: the next seat to act
        folded = t.folded
        stacks = t.stacks
        bets = t.bets
        acted = t.acted_level
        cur = t.current_bet
        for i in ROTATIONS[t.n][p]:
            if not folded[i] and stacks[i] > 0 and (acted[i] < 0 or bets[i] < cur):
                t.to_act = i
                return t, events
    advance(t, p, events)
    return t, events


def _check_bet_to(s: HandState, p: int, kind: str, to: int, o: Options) -> None:
    if kind == "bet" and s.current_bet > 0:
        raise IllegalAction(
            "bet_facing_bet", f"there is already a bet of {s.current_bet}; raise instead"
        )
    if kind == "raise" and s.current_bet == 0:
        raise IllegalAction("nothing_to_raise", "there is no bet to raise; bet instead")
    if kind not in o.actions:
        if o.all_in_to <= s.current_bet:
            raise IllegalAction(
                "insufficient_chips",
                f"not enough chips to {kind}: calling puts in all {s.stacks[p]}",
            )
        raise IllegalAction(
            "raising_closed",
            "raising is not reopened (an all-in below a full raise); call or fold",
        )
    if to > o.all_in_to:
        raise IllegalAction(
            "exceeds_stack",
            f"{kind} to {echo(to)} is more than the stack allows: at most {o.all_in_to}",
        )
    if to > o.max_to:
        raise IllegalAction(
            "above_maximum", f"{kind} to {to} is above the pot limit: at most {o.max_to}"
        )
    if to < o.min_to or (to < s.current_bet + s.last_full and to != o.all_in_to):
        word = "bet" if kind == "bet" else "raise-to"
        raise IllegalAction(
            "below_minimum",
            f"{kind} to {echo(to)} is below the minimum {word} of {s.current_bet + s.last_full}"
            " (only an all-in may be smaller)",
        )


def _put(t: HandState, p: int, amount: int) -> None:
    """p puts `amount` chips in (rules 15-16 for what a raise changes)."""
    left = t.stacks[p] - amount
    t.stacks[p] = left
    if left == 0 and amount:
        t.able -= 1
    new = t.bets[p] + amount
    t.bets[p] = new
    t.contrib[p] += amount
    cur = t.current_bet
    if new > cur:
        inc = new - cur
        if inc >= t.last_full:  # a full bet/raise; a short all-in leaves the increment alone
            t.last_full = inc
        t.current_bet = new
    t.acted_level[p] = t.current_bet


def advance(t: HandState, last: int, events: list[Event]) -> None:
    """After an action by `last`: next actor, next street, run-out or the end of the hand."""
    if t.live == 1:  # rule 12: everyone else folded
        finish(t, events, showdown=False)
        return
    able = t.able
    if able >= 2:  # next_actor's common case, inlined: the first seat that must act
        folded = t.folded
        stacks = t.stacks
        bets = t.bets
        acted = t.acted_level
        cur = t.current_bet
        for i in ROTATIONS[t.n][last]:
            if not folded[i] and stacks[i] > 0 and (acted[i] < 0 or bets[i] < cur):
                t.to_act = i
                return
    else:
        nxt = next_actor(t, last)
        if nxt >= 0:
            t.to_act = nxt
            return
    while t.street < RIVER:
        _next_street(t, events)
        if able >= 2:
            # rule 7: the first able player left of the button (nobody has acted or bet yet:
            # next_actor's test reduces to not folded and chips behind)
            folded = t.folded
            stacks = t.stacks
            for i in ROTATIONS[t.n][t.setup.button]:
                if not folded[i] and stacks[i] > 0:
                    t.to_act = i
                    return
        # rule 21: nobody (or only one player) can bet: deal the rest at once
    finish(t, events, showdown=True)


def _next_street(t: HandState, events: list[Event]) -> None:
    setup = t.setup
    street = t.street
    count = 3 if street == PREFLOP else 1
    pos = t.deck_pos
    cards = setup.deck[pos : pos + count]
    if len(cards) < count:
        raise ValueError("the deck ran out of cards for the board")
    t.deck_pos = pos + count
    t.board = [*t.board, *cards]
    t.street = street = street + 1
    n = t.n
    t.bets = [0] * n
    t.acted_level = [-1] * n
    t.current_bet = 0
    cfg = setup.config
    t.last_full = cfg.big_blind
    if t.naiko is not None:
        # only an Anchor changes a seat's cap (rule 42); outside Naiko mode it stays the table's
        t.pot_capped = [cfg.pot_limit] * n
        t.naiko = naiko.new_round(t.naiko)
    events.append(
        {"type": "street", "street": STREETS[street], "cards": list(map(_NAMES.__getitem__, cards))}
    )
