"""The hand state machine (seed 002 §2-§4): start a hand, apply actions, settle it.

    state = start_hand(config, [("a", 200), ("b", 200)], button=0, hole=..., deck=...)
    legal_actions(state, "a")      # {"actions": [...], "call": 1, "min_raise_to": 4, ...}
    state, events = apply(state, "a", {"action": "raise", "to": 6})

`apply` never changes the state it is given (copy-on-apply) and raises `IllegalAction`
(state unchanged) for anything the rules do not allow. No I/O, no clock, no randomness: the
deck order is an input (`deal` and `deal_from_seed` build a hand from a whole deck order).
"""

from __future__ import annotations

import operator
from collections.abc import Mapping, Sequence
from itertools import chain
from typing import Any

from croupier.game.fairness import FairStream, shuffled
from croupier.game.limits import echo
from croupier.poker import cards as C
from croupier.poker import naiko
from croupier.poker.betting import ROTATIONS, Options, compute_options, next_actor, options
from croupier.poker.evaluator import omaha_value, rank7
from croupier.poker.pots import Pot, award, layers, settle, split, uncalled, unreachable
from croupier.poker.rules import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    IllegalAction,
    MalformedAction,
    NotInHand,
    TableConfig,
)
from croupier.poker.state import (
    AWAITING,
    COMPLETE,
    PREFLOP,
    RIVER,
    STREETS,
    HandSetup,
    HandState,
)

Event = dict[str, Any]
_tuple_new = tuple.__new__
_first = operator.itemgetter(0)
_second = operator.itemgetter(1)
_INT_ONLY = {int}
_PAIR = {2}
_CARDS = frozenset(C.DECK)
_NAMES = C.NAMES


# Starting a hand ---------------------------------------------------------------------


def start_hand(
    config: TableConfig,
    players: Sequence[tuple[str, int]],
    button: int,
    hole: Sequence[Sequence[int]],
    deck: Sequence[int],
    destellos: Sequence[int] | None = None,
    carousel: Sequence[str] | None = None,
    posts: Mapping[int, tuple[int, int]] | None = None,
) -> HandState:
    """A new hand with antes and blinds posted (rules 6, 9, 10) and the first actor chosen.

    A big-blind ante (`config.big_blind_ante`) is posted by the big blind (heads-up the
    player who is not on the button, rule 9) after his blind, from what his stack has left
    ("big blind first"); it is dead money, like the dead part of a post below.

    Naiko mode also takes each player's Destello balance carried in (default 0; +1 each as
    the hand starts, rule 25) and the hand's Carousel of 3 powers (rules 28-29).

    `players` are (id, stack) in clockwise seat order, `button` a seat index, `hole` each
    seat's hole cards, `deck` the undealt stub, top first (board = next 3, 1, 1; no burns).
    `posts` (OQ 22, the table's entry and missed-blind posts): seat index -> (live, dead)
    chips posted by a player outside the blinds' positions. The dead part is taken first and
    goes to the main pot (like an ante of his alone: never his bet, never returned as
    uncalled); the live part is his bet, as a big blind's is, and he still acts in turn
    (check when unraised). A stack too short for a post is all-in (rule 10).
    Raises ValueError for an impossible setup.
    """
    n = len(players)
    if not MIN_PLAYERS <= n <= MAX_PLAYERS:
        raise ValueError(f"a hand needs {MIN_PLAYERS} to {MAX_PLAYERS} players, got {n}")
    ids = tuple(map(_first, players))
    if len(set(ids)) != n:
        raise ValueError("player ids must be distinct")
    stacks = list(map(_second, players))
    # the checks below run element by element only when the quick ones fail
    if set(map(type, stacks)) != _INT_ONLY or min(stacks) <= 0 or set(map(len, players)) != _PAIR:
        for pid, st in players:
            if type(st) is not int or st <= 0:
                raise ValueError(f"player {pid!r} needs a positive integer stack")
    if not 0 <= button < n:
        raise ValueError("the button must be a seat index")
    holes = tuple(map(tuple, hole))
    if len(holes) != n or set(map(len, holes)) != {config.hole_count}:
        raise ValueError(f"each player needs exactly {config.hole_count} hole cards")
    used = [*chain.from_iterable(holes), *deck]
    distinct = set(used)
    if len(distinct) != len(used):
        raise ValueError("a card appears twice")
    if not distinct <= _CARDS and (min(used) < 0 or max(used) > 51):
        raise ValueError("not a card")

    s = object.__new__(HandState)
    s.ids = ids
    s.n = n
    if n == 2:  # rule 9: heads-up, the button posts the small blind
        sb_seat, bb_seat = button, (button + 1) % 2
    else:  # rule 6
        sb_seat, bb_seat = (button + 1) % n, (button + 2) % n
    posted: tuple[tuple[int, int], ...] = ()
    if posts:
        if any(not 0 <= i < n for i in posts) or any(
            type(x) is not int or x < 0 for pair in posts.values() for x in pair
        ):
            raise ValueError("posts are seat index -> (live, dead) non-negative integers")
        if sb_seat in posts or bb_seat in posts:
            raise ValueError("the blinds' seats post their blinds, not an extra post")
        posted = tuple(posts.get(i, (0, 0)) for i in range(n))
    s.setup = _tuple_new(
        HandSetup, (config, button, sb_seat, bb_seat, tuple(stacks), tuple(deck), posted, ())
    )
    s.hole = holes
    s.deck_pos = 0
    s.board = []
    s.stacks = stacks
    s.bets = [0] * n
    s.contrib = [0] * n
    s.folded = [False] * n
    s.acted_level = [-1] * n
    s.pot_capped = [config.pot_limit] * n
    s.street = PREFLOP
    s.status = AWAITING
    s.actions = ()
    s.result = None
    s.cache = None
    s.naiko = None
    if config.variant == "naiko":
        if carousel is None:
            raise ValueError("a Naiko hand needs its Carousel of 3 powers")
        s.naiko = naiko.start(n, list(destellos or [0] * n), frozenset(carousel))
    elif destellos or carousel:
        raise ValueError("Destellos and a Carousel exist only in Naiko mode")
    contrib = s.contrib
    ante = config.ante
    if ante:
        for i in range(n):
            a = ante if ante < stacks[i] else stacks[i]
            stacks[i] -= a
            contrib[i] += a
    for seat, blind in ((sb_seat, config.small_blind), (bb_seat, config.big_blind)):
        a = blind if blind < stacks[seat] else stacks[seat]  # rule 10: short blind all-in
        stacks[seat] -= a
        s.bets[seat] += a
        contrib[seat] += a
    dead = [0] * n
    bba = config.big_blind_ante
    if bba:  # after the blind: "big blind first" (TDA 2024)
        d = bba if bba < stacks[bb_seat] else stacks[bb_seat]
        stacks[bb_seat] -= d
        contrib[bb_seat] += d
        dead[bb_seat] = d
    if posted:
        dead_posts = []
        for seat, (live, owed) in enumerate(posted):
            d = owed if owed < stacks[seat] else stacks[seat]
            stacks[seat] -= d
            contrib[seat] += d
            dead[seat] += d  # the big blind's seat posts nothing here: adds 0
            a = live if live < stacks[seat] else stacks[seat]
            stacks[seat] -= a
            s.bets[seat] += a
            contrib[seat] += a
            dead_posts.append((a, d))
        s.setup = s.setup._replace(posts=tuple(dead_posts))  # what was actually posted
    if any(dead):
        s.setup = s.setup._replace(dead=tuple(dead))
    s.live = n
    s.able = n - stacks.count(0)  # stacks are never negative
    if config.short_big_blind == "full":
        s.current_bet = config.big_blind  # OQ 2: the full big blind is owed even if it is short
    else:
        s.current_bet = max(s.bets)
    s.last_full = config.big_blind
    s.to_act = -1
    _advance(s, bb_seat, [])  # rule 7: first to act is left of the big blind
    return s


def deal(
    config: TableConfig,
    players: Sequence[tuple[str, int]],
    button: int,
    order: Sequence[int],
    destellos: Sequence[int] | None = None,
    carousel: Sequence[str] | None = None,
    posts: Mapping[int, tuple[int, int]] | None = None,
) -> HandState:
    """A hand dealt from a whole deck order: one card at a time clockwise from the button's
    left, as many rounds as the variant has hole cards; the rest is the stub."""
    n = len(players)
    k = config.hole_count
    hole: list[list[int]] = [[] for _ in range(n)]
    pos = 0
    for _ in range(k):
        for j in range(n):
            hole[(button + 1 + j) % n].append(order[pos])
            pos += 1
    return start_hand(config, players, button, hole, order[pos:], destellos, carousel, posts)


def deal_from_seed(
    config: TableConfig,
    players: Sequence[tuple[str, int]],
    button: int,
    seed: bytes,
    destellos: Sequence[int] | None = None,
    posts: Mapping[int, tuple[int, int]] | None = None,
) -> HandState:
    """A hand dealt from the deck order a 32-byte seed gives (`croupier.game.fairness`); in
    Naiko mode the Carousel is drawn uniformly from the 3 legal ones (OQ 14, label
    "carousel")."""
    carousel = None
    if config.variant == "naiko":
        pick = FairStream(seed, "carousel").below(len(naiko.LEGAL_CAROUSELS))
        carousel = sorted(naiko.LEGAL_CAROUSELS[pick])
    return deal(config, players, button, shuffled(C.DECK, seed, "deck"), destellos, carousel, posts)


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


def collected_pots(s: HandState) -> list[Pot]:
    """Pots as a table shows them during a hand: chips from finished betting rounds, by layer
    (the current round's bets are still in front of the players)."""
    contrib = [c - b for c, b in zip(s.contrib, s.bets, strict=True)]
    live = [not f for f in s.folded]
    order = s.clockwise_from_button(list(range(s.n)))
    dead = s.setup.dead
    if not dead:
        return layers(contrib, live, order)
    pots = layers([c - d for c, d in zip(contrib, dead, strict=True)], live, order)
    return _with_dead(pots, sum(dead), tuple(i for i in order if live[i]), None)


def _with_dead(
    pots: list[Pot], dead: int, seats: tuple[int, ...], values: Sequence[int] | None
) -> list[Pot]:
    """Dead chips (posts' dead parts, the big-blind ante) go to the main pot, the one every
    live player is eligible for (made first when the live chips formed none); its winners
    and shares follow (rule 24)."""
    if not dead:
        return pots
    if pots and pots[0].eligible == seats:
        main = pots[0]
        amount = main.amount + dead
        shares = split(amount, main.winners) if main.winners else ()
        return [Pot(amount, seats, main.winners, shares), *pots[1:]]
    main = Pot(dead, seats)
    if values is not None:
        main = award([main], values)[0]
    return [main, *pots]


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
    if t.live > 1 and t.able >= 2:  # _advance's common case, inlined: the next seat to act
        folded = t.folded
        stacks = t.stacks
        bets = t.bets
        acted = t.acted_level
        cur = t.current_bet
        for i in ROTATIONS[t.n][p]:
            if not folded[i] and stacks[i] > 0 and (acted[i] < 0 or bets[i] < cur):
                t.to_act = i
                return t, events
    _advance(t, p, events)
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


def _advance(t: HandState, last: int, events: list[Event]) -> None:
    """After an action by `last`: next actor, next street, run-out or the end of the hand."""
    if t.live == 1:  # rule 12: everyone else folded
        _finish(t, events, showdown=False)
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
    _finish(t, events, showdown=True)


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


def pots_json(t: HandState, pots: Sequence[Pot]) -> list[dict[str, Any]]:
    name = t.ids.__getitem__
    return [
        {
            "amount": amount,
            "eligible": list(map(name, eligible)),
            "winners": list(map(name, winners)),
        }
        for amount, eligible, winners, _ in pots
    ]


_NO_VALUES = (0,) * 9  # uncontested: every pot has a single eligible player


def _finish(t: HandState, events: list[Event], showdown: bool) -> None:
    """Return the uncalled bet, build the pot layers and award them (rules 19-24)."""
    n = t.n
    ids = t.ids
    contrib = t.contrib
    stacks = t.stacks
    dead = t.setup.dead or None
    seat, back = uncalled(contrib if dead is None else list(map(operator.sub, contrib, dead)))
    returned: dict[str, int] = {}
    if back:  # (after a fold or a check the lists are shared with the previous state)
        t.contrib = contrib = contrib[:]
        t.stacks = stacks = stacks[:]
        contrib[seat] -= back
        stacks[seat] += back
        returned[ids[seat]] = back
    # Folded chips no live player can reach (two posters folding to a short all-in)
    # go back too.
    live_chips = contrib if dead is None else list(map(operator.sub, contrib, dead))
    for i, excess in enumerate(unreachable(live_chips, t.folded)):
        if excess:
            if not back:  # copy once, as above
                t.contrib = contrib = contrib[:]
                t.stacks = stacks = stacks[:]
                back = excess
            contrib[i] -= excess
            stacks[i] += excess
            returned[ids[i]] = returned.get(ids[i], 0) + excess
    order = ROTATIONS[n][t.setup.button]
    folded = t.folded
    seats = [i for i in order if not folded[i]]  # live, clockwise from the button's left
    shown: dict[str, list[str]] = {}
    values: Sequence[int] = _NO_VALUES
    if showdown:  # rule 22: every remaining hand is shown
        board = t.board
        hole = t.hole
        names = C.NAMES
        values = shown_values = [0] * n
        if t.setup.config.omaha:
            for i in seats:
                shown_values[i] = omaha_value(hole[i], board)
                shown[ids[i]] = [names[c] for c in hole[i]]
        else:
            b1, b2, b3, b4, b5 = board
            for i in seats:
                h1, h2 = hole[i]
                shown_values[i] = -rank7(h1, h2, b1, b2, b3, b4, b5)  # higher is stronger
                shown[ids[i]] = [names[h1], names[h2]]
    if dead is None:
        pots = settle(contrib, seats, values)
    else:  # dead chips: settle the live chips, then add the dead ones to the main pot
        pots = settle(list(map(operator.sub, contrib, dead)), seats, values)
        pots = _with_dead(pots, sum(dead), tuple(seats), values)
    won = [0] * n
    name = ids.__getitem__
    pots_out: list[dict[str, Any]] = []
    pot_shares: list[list[int]] = []
    for amount, eligible, winners, shares in pots:
        if len(winners) == 1:
            won[winners[0]] += amount
        else:
            for w, share in zip(winners, shares, strict=False):
                won[w] += share
        pots_out.append(
            {
                "amount": amount,
                "eligible": list(map(name, eligible)),
                "winners": list(map(name, winners)),
            }
        )
        pot_shares.append(list(shares))  # per pot, as winners
    winnings: dict[str, int] = {}
    for i in order:
        if won[i]:
            winnings[ids[i]] = won[i]
    t.stacks = stacks = list(map(operator.add, stacks, won))
    t.status = COMPLETE
    t.to_act = -1
    t.result = {
        "pots": pots_out,
        "pot_shares": pot_shares,
        "returned": returned,
        "winnings": winnings,
        "stacks": dict(zip(ids, stacks, strict=False)),
        "deltas": dict(zip(ids, map(operator.sub, stacks, t.setup.initial), strict=False)),
        "shown": shown,
    }
    if shown:
        events.append({"type": "showdown", "hands": shown})
    events.append(
        {"type": "hand_end", "pots": pots_out, "returned": returned, "winnings": winnings}
    )
