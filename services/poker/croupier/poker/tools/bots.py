"""Poker bots (seed 002 §7, rule 59): they play through the table API with their own view only.

A bot is a function of one thing: the JSON view the table host sends to its seat
(`PokerEngine.view`, the same as a human client's `view_json`). It never sees the engine's
state, other players' hole cards or anybody's purchases, so its strength cannot depend on
them. Its own randomness is a `random.Random` the caller seeds (bots are not part of the
pure engine).

Two strengths:

- `RuleBot`: hand strength by Monte-Carlo equity against the live opponents' unknown cards
  (the evaluator), compared with the pot odds; in Naiko mode it uses powers legally: Sneak
  Peek when it has a drawing decision, Sleeve Swap on a weak preflop hand, Short Anchor on
  an opponent before it bets a strong hand, Protective Seal when anchored with a hand worth
  raising.
- `RandomBot`: a uniformly random legal action (powers included), for load tests.

`decide(view)` returns an action in the conformance notation, or None when the seat has
nothing to do. Every action it returns is one of the view's `legal` actions.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from typing import Any

from croupier.poker.adapters.evaluator import omaha_value, seven
from croupier.poker.core import cards as C

JSON = dict[str, Any]

BOT_KINDS = ("rule", "random")


def hand_of(view: JSON) -> JSON | None:
    hand: JSON | None = view.get("hand")
    if hand is None or hand.get("status") == "complete":
        return None
    return hand


def my_seat(hand: JSON, me: str) -> JSON:
    return next(s for s in hand["seats"] if s["player"] == me)


def pot_size(hand: JSON) -> int:
    """Every chip in the middle: collected pots plus this round's bets."""
    return sum(int(p["amount"]) for p in hand["pots"]) + sum(int(s["bet"]) for s in hand["seats"])


def equity(
    hole: Sequence[int],
    board: Sequence[int],
    opponents: int,
    samples: int,
    rng: random.Random,
) -> float:
    """Share of the pot this hand wins against `opponents` random hands (ties shared)."""
    if opponents <= 0:
        return 1.0
    omaha = len(hole) == 4
    known = set(hole) | set(board)
    stub = [c for c in range(52) if c not in known]
    need = 5 - len(board)
    per_opp = len(hole)
    won = 0.0
    for _ in range(samples):
        drawn = rng.sample(stub, need + opponents * per_opp)
        full = (*board, *drawn[:need])
        mine = omaha_value(hole, full) if omaha else seven(hole[0], hole[1], *full)
        best, ties = True, 1
        for k in range(opponents):
            start = need + k * per_opp
            opp = drawn[start : start + per_opp]
            value = omaha_value(opp, full) if omaha else seven(opp[0], opp[1], *full)
            if value > mine:
                best = False
                break
            if value == mine:
                ties += 1
        if best:
            won += 1.0 / ties
    return won / samples


class RandomBot:
    """A random legal action (powers included): load tests and fuzzing, not strength."""

    kind = "random"

    def __init__(self, player: str, rng: random.Random) -> None:
        self.player = player
        self.rng = rng

    def decide(self, view: JSON) -> JSON | None:
        hand = hand_of(view)
        if hand is None or hand.get("to_act") != self.player:
            return None
        legal = hand["legal"]
        actions: list[str] = list(legal["actions"])
        if not actions:
            return None
        calm = [a for a in actions if a != "allin"]
        # All-in rarely (2 %), so a load-test table does not bust at once.
        kind = self.rng.choice(calm if calm and self.rng.random() >= 0.02 else actions)
        if kind == "power":
            return _power(self.rng.choice(legal["powers"]), hand, legal, self.player, self.rng)
        if kind in ("bet", "raise"):
            low, high = int(legal["min_raise_to"]), int(legal["max_raise_to"])
            # Mostly small amounts, so a load-test table does not bust at once.
            top = min(high, low + (high - low) // 8)
            return {"action": kind, "to": self.rng.randint(low, max(low, top))}
        return {"action": kind}


def _power(power: str, hand: JSON, legal: JSON, me: str, rng: random.Random) -> JSON:
    action: JSON = {"action": "power", "power": power}
    if power == "swap":
        action["card"] = rng.choice(my_seat(hand, me)["hole_cards"])
    elif power == "anchor":
        action["target"] = rng.choice(legal["anchor_targets"])
    return action


class RuleBot:
    """Equity against random hands versus pot odds; powers used when they help (Naiko)."""

    kind = "rule"

    def __init__(self, player: str, rng: random.Random, samples: int = 40) -> None:
        self.player = player
        self.rng = rng
        self.samples = samples

    def decide(self, view: JSON) -> JSON | None:
        hand = hand_of(view)
        if hand is None or hand.get("to_act") != self.player:
            return None
        legal = hand["legal"]
        actions: list[str] = list(legal["actions"])
        if not actions:
            return None
        me = my_seat(hand, self.player)
        if "seal" in actions:  # an Anchor aimed at us: keep the normal limit with a good hand
            return {"action": "seal" if self._equity(hand, me) >= 0.45 else "no_seal"}
        strength = self._equity(hand, me)
        powers: list[str] = list(legal.get("powers", []))
        if "power" in actions and powers:
            power = self._power(hand, legal, me, powers, strength)
            if power is not None:
                return power
        return self._bet(hand, legal, actions, strength)

    def _equity(self, hand: JSON, me: JSON) -> float:
        hole = C.parse_all(me["hole_cards"])
        board = C.parse_all(hand["board"])
        live = sum(1 for s in hand["seats"] if not s["folded"] and s["player"] != self.player)
        return equity(hole, board, min(live, 4), self.samples, self.rng)

    def _power(
        self, hand: JSON, legal: JSON, me: JSON, powers: list[str], strength: float
    ) -> JSON | None:
        if "swap" in powers and strength < 0.3:
            hole = C.parse_all(me["hole_cards"])
            low = min(hole, key=C.rank)
            return {"action": "power", "power": "swap", "card": C.name(low)}
        call = int(legal["call"])
        if "peek" in powers and call > 0 and 0.25 <= strength < 0.6:
            return {"action": "power", "power": "peek"}
        if "anchor" in powers and strength >= 0.6 and legal.get("anchor_targets"):
            # Limit the opponent with the biggest stack, who could re-raise the most.
            stacks = {s["player"]: int(s["stack"]) for s in hand["seats"]}
            target = max(legal["anchor_targets"], key=lambda p: (stacks.get(p, 0), p))
            return {"action": "power", "power": "anchor", "target": target}
        return None

    def _bet(self, hand: JSON, legal: JSON, actions: list[str], strength: float) -> JSON:
        call = int(legal["call"])
        pot = pot_size(hand)
        low, high = int(legal["min_raise_to"]), int(legal["max_raise_to"])
        sizing = "bet" if "bet" in actions else "raise" if "raise" in actions else None
        if sizing is not None and strength >= (0.55 if call == 0 else 0.7):
            current = max(int(s["bet"]) for s in hand["seats"])
            target = current + call + (pot * 2) // 3
            return {"action": sizing, "to": max(low, min(high, target))}
        if call == 0:
            return {"action": "check"} if "check" in actions else {"action": "fold"}
        pot_odds = call / (pot + call)
        if strength >= pot_odds and "call" in actions:
            return {"action": "call"}
        if strength >= pot_odds and "allin" in actions:
            return {"action": "allin"}
        return {"action": "fold"}


Bot = RuleBot | RandomBot


def make_bot(kind: str, player: str, rng: random.Random) -> Bot:
    if kind == "rule":
        return RuleBot(player, rng)
    if kind == "random":
        return RandomBot(player, rng)
    raise ValueError(f"bot kind is one of {', '.join(BOT_KINDS)}, got {kind!r}")


def seed_for(label: str, number: int) -> bytes:
    """A deterministic 32-byte hand seed (tests and benchmarks; the host draws real ones)."""
    return hashlib.sha256(f"{label}/{number}".encode()).digest()


def play_in_process(
    options: JSON,
    kinds: Sequence[str],
    hands: int,
    *,
    buy_in: int = 1000,
    label: str = "bots",
) -> dict[str, Any]:
    """A bots-only table run in this process on the pure adapter (no host, no I/O).

    Each bot decides from `PokerEngine.view` for its own seat, exactly what the host would
    send it. A busted bot leaves and sits again with a new buy-in between hands. Returns
    counts (hands, decisions, powers by kind) and each bot's net result.
    """
    from croupier.game import Act, SeatPlayer, StartHand, UnseatPlayer
    from croupier.poker.engine import ENGINE

    state = ENGINE.open(options)
    players = [f"{kind}{i}" for i, kind in enumerate(kinds)]
    bots = {
        p: make_bot(k, p, random.Random(f"{label}/{p}"))
        for p, k in zip(players, kinds, strict=True)
    }
    bought = dict.fromkeys(players, 0)
    for number, player in enumerate(players):
        state, _ = ENGINE.apply(state, SeatPlayer(player, number, buy_in, True))
        bought[player] += buy_in
    decisions = 0
    powers: dict[str, int] = {}
    while state.hand_number < hands:
        for number, player, chips in state.seats:
            if chips == 0:
                state, _ = ENGINE.apply(state, UnseatPlayer(player))
                state, _ = ENGINE.apply(state, SeatPlayer(player, number, buy_in, True))
                bought[player] += buy_in
        state, _ = ENGINE.apply(state, StartHand(seed_for(label, state.hand_number + 1)))
        while turns := ENGINE.turns(state):
            player = turns[0].player
            action = bots[player].decide(ENGINE.view(state, player))
            if action is None:
                raise AssertionError(f"bot {player} had nothing to do on its turn")
            state, _ = ENGINE.apply(state, Act(player, action))
            decisions += 1
            kind = str(action.get("power", action["action"]))
            if action["action"] in ("power", "seal"):
                powers[kind] = powers.get(kind, 0) + 1
    net = {p: chips - bought[p] for _, p, chips in state.seats}
    return {"hands": state.hand_number, "decisions": decisions, "powers": powers, "net": net}
