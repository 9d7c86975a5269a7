"""One policy per game: the seat's own view (the JSON the table host sends that seat, the
same a human's client gets) -> an action in the game's notation, or None when the seat has
nothing to do now (rule 59: same rules, same information as a human).

- poker: the existing rule and random bots (`croupier.poker.tools.bots`), plus the table
  action a busted bot needs (a top-up of a buy-in, so it keeps playing);
- Joker: a legal card, bid or trump chosen at random among the view's `legal` ones (a
  joker played with a legal use, and a suit when it leads);
- backgammon: rolls, plays a legal play at random, takes every double, never doubles, and
  turns down a resignation;
- rummy: the view bot (`croupier.rummy.tools.view_bot`): draws, lays down, lays off and
  discards by its hand's deadwood; past `RUMMY_SHAKE_AFTER` decisions in one round it
  discards at random, since two such bots can pass the same cards round and round once
  the discard pile is turned over (a person would change course; the round must end).

Every action comes from the view's `legal` part, so a policy cannot break a rule the view
does not show; the host refuses anything else all the same.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, Protocol

from croupier.joker.core.cards import card
from croupier.poker.tools.bots import make_bot
from croupier.rummy.tools.view_bot import bot_action as rummy_bot_action

__all__ = ["GAMES_PLAYED", "Policy", "policy_for"]

JSON = dict[str, Any]


class Policy(Protocol):
    def decide(self, view: JSON) -> JSON | None:
        """The seat's action on `view`, or None (not its turn, nothing to do)."""
        ...


class PokerPolicy:
    """A poker bot of `kind` ("rule" or "random") that tops up a buy-in when busted."""

    def __init__(self, player: str, rng: random.Random, buy_in: int, kind: str = "rule") -> None:
        self._player = player
        self._bot = make_bot(kind, player, rng)
        self._buy_in = buy_in

    def decide(self, view: JSON) -> JSON | None:
        mine = next((s for s in view.get("table", []) if s["player"] == self._player), None)
        if mine is None:
            return None
        busted = int(mine["stack"]) == 0 and not int(mine.get("pending_top_up", 0))
        if busted and "top_up" in view.get("table_actions", []):
            return {"action": "top_up", "amount": self._buy_in}
        return self._bot.decide(view)


class JokerPolicy:
    """A legal trump, bid or card at random."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng

    def decide(self, view: JSON) -> JSON | None:
        legal: JSON = view.get("legal") or {}
        actions = legal.get("actions") or []
        if not actions or view.get("over"):
            return None
        choose = self._rng.choice
        if actions == ["trump"]:
            return {"action": "trump", "suit": choose(legal["suits"])}
        if actions == ["bid"]:
            return {"action": "bid", "tricks": choose(legal["tricks"])}
        code = choose(legal["cards"])
        action: JSON = {"action": "play", "card": code}
        if card(code).is_joker:
            action["joker"] = choose(legal["joker"])
            if "suits" in legal:  # leading with a joker names the suit
                action["suit"] = choose(legal["suits"])
        return action


class BackgammonPolicy:
    """Ready, roll, a random legal play; takes doubles, never doubles, rejects resigning."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng

    def decide(self, view: JSON) -> JSON | None:
        legal: JSON = view.get("legal") or {}
        actions = legal.get("actions") or []
        for simple in ("ready", "roll", "take", "reject"):
            if simple in actions:
                return {"action": simple}
        if "move" in actions:
            return {"action": "move", "play": self._rng.choice(legal["plays"])}
        return None


#: Decisions of one seat in one round after which a rummy bot discards at random.
RUMMY_SHAKE_AFTER = 300


class RummyPolicy:
    """The rummy view bot, for every variant, shaken out of a cycle (module docstring)."""

    def __init__(self, player: str, rng: random.Random) -> None:
        self._player = player
        self._rng = rng
        self._round: object = None
        self._decisions = 0

    def decide(self, view: JSON) -> JSON | None:
        legal: JSON = view.get("legal") or {}
        seen: JSON = view.get("round") or {}
        if not legal.get("actions") or seen.get("to_act") != self._player:
            return None
        if view.get("round_number") != self._round:
            self._round, self._decisions = view.get("round_number"), 0
        self._decisions += 1
        action = rummy_bot_action(view, self._player)
        if self._decisions > RUMMY_SHAKE_AFTER and action["action"] == "discard":
            cards = legal.get("discards") or seen["hand"]
            return {"action": "discard", "card": self._rng.choice(cards)}
        return action


def _poker(player: str, rng: random.Random, options: JSON) -> Policy:
    return PokerPolicy(player, rng, buy_in_of(options))


PoliciesByGame = dict[str, Callable[[str, random.Random, JSON], Policy]]
_POLICIES: PoliciesByGame = {
    "poker": _poker,
    "joker": lambda player, rng, options: JokerPolicy(rng),
    "backgammon": lambda player, rng, options: BackgammonPolicy(rng),
    "rummy": lambda player, rng, options: RummyPolicy(player, rng),
}
GAMES_PLAYED = frozenset(_POLICIES)


def policy_for(game: str, player: str, rng: random.Random, options: JSON) -> Policy | None:
    """`player`'s policy at a table of `game` opened with `options`; None for a game the
    bots do not play."""
    make = _POLICIES.get(game)
    return None if make is None else make(player, rng, options)


#: Big blinds a bot buys in for where the table sets no buy-in range.
DEFAULT_BUY_IN_BIG_BLINDS = 100


def buy_in_of(options: JSON) -> int:
    """The chips a bot brings to a poker table: the most the table takes, else its least,
    else 100 big blinds. Protobuf's JSON writes int64 as text, hence the int()."""
    most, least = int(options.get("max_buy_in") or 0), int(options.get("min_buy_in") or 0)
    if most or least:
        return most or least
    blinds = options.get("blinds")
    big = int(blinds[1]) if isinstance(blinds, list) else int(options.get("big_blind") or 0)
    return DEFAULT_BUY_IN_BIG_BLINDS * max(big, 1)


#: Round fees a bot brings to a rummy table (its losses are paid from the same chips).
RUMMY_BUY_IN_ROUND_FEES = 100


def stack_for(game: str, options: JSON) -> int:
    """The chips a bot brings to a table of `game` (0 where the game has no stacks)."""
    if game == "poker":
        return buy_in_of(options)
    if game == "rummy":
        return RUMMY_BUY_IN_ROUND_FEES * max(int(options.get("round_fee") or 0), 1)
    return 0
