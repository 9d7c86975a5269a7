"""What is read from a backgammon table: whose turn, views, the game's settlement, the dice.

Money: a single game settles after each game (capped payout, commission, rules 5 and
39-45); a series settles its stake once, when it ends (OQ 4); other games of a series end
with no money moving (every player named with 0). Commission is charged only in a
real-money currency and never at a tournament table (rules 2, 45), with the one
calculator (`croupier.game.commission`).
"""

from __future__ import annotations

from croupier.backgammon.core import game
from croupier.backgammon.core.abandonment import Abandonment
from croupier.backgammon.core.errors import WrongPhase
from croupier.backgammon.core.table import BackgammonTable, awaiting_ready
from croupier.game import JSON, HandResult
from croupier.game.commission import backgammon_commission
from croupier.game.fairness import FairStream
from croupier.game.money import CURRENCIES

__all__ = [
    "legal_actions",
    "public_view",
    "randomness",
    "result",
    "snapshot",
    "timeout_action",
    "to_act",
    "turn_key",
    "view",
]

DEALT_DICE = 256  # how many dice of a seed a hand history lists


def to_act(state: BackgammonTable) -> list[str]:
    if state.game is None or state.game.actor is None:
        return []
    return [state.game.players[state.game.actor]]


def turn_key(state: BackgammonTable, player: str) -> str | None:
    """Which turn `player`'s clock is timing (rule 7), for a host that restarts a turn
    clock only when this changes: rolling and moving are one turn (same key), an answer
    to a double or a resignation is a decision of its own. None: not acting. (The host
    does not ask for it yet; it restarts the clock on every action.)"""
    g = state.game
    if g is None or g.actor is None or g.players[g.actor] != player:
        return None
    decision = "turn" if g.phase in ("turn", "moving", "beavered") else str(g.phase)
    return f"{g.game_number}:{g.moves_made}:{decision}"


def legal_actions(state: BackgammonTable, player: str) -> JSON:
    if state.game is None:
        return {"actions": []}
    if awaiting_ready(state):
        ready = player in state.seats and player not in state.ready
        return {"actions": ["ready"] if ready else []}
    return game.legal_actions(state.game, player)


def view(state: BackgammonTable, player: str) -> JSON:
    seen = public_view(state)
    if state.game is not None and player in state.game.players:
        seen["legal"] = legal_actions(state, player)
    return seen


def public_view(state: BackgammonTable) -> JSON:
    if state.game is None:
        seen: JSON = {"players": list(state.seats), "phase": "idle"}
    else:
        seen = game.public_view(state.game)
    seen["currency"] = state.currency
    if awaiting_ready(state):
        seen["ready"] = sorted(state.ready)
    if state.abandoned is not None:
        seen["abandoned"] = state.abandoned.public()
    return seen


def timeout_action(state: BackgammonTable, player: str) -> JSON:
    if state.game is None:
        raise WrongPhase("the game has not started")
    return game.timeout_action(state.game, player)


def result(state: BackgammonTable) -> HandResult | None:
    """The settlement of the game that just ended (or was abandoned), None while it runs."""
    if state.abandoned is not None:
        return _abandonment_result(state, state.abandoned)
    g = state.game
    if g is None or g.phase != "game_over" or g.last_result is None:
        return None
    r = g.last_result
    details: JSON = {
        "winner": g.players[r.winner],
        "result": r.result,
        "cube": r.cube,
        "points": r.points,
        "how": r.how,
    }
    if g.options.mode == "match":
        details["score"] = {g.players[0]: g.score[0], g.players[1]: g.score[1]}
        details["match_winner"] = None if g.match_winner is None else g.players[g.match_winner]
    money = game.settlement(g)
    if money is None:  # a game inside a series: points, no money (OQ 4)
        return HandResult(
            hand_number=state.games_started,
            currency=state.currency,
            deltas=dict.fromkeys(g.players, 0),
            details=details,
        )
    winner, loser, m = money
    details["amount"] = m.amount
    return _money(state, g.players[winner], g.players[loser], m.amount, details)


def _money(
    state: BackgammonTable, winner: str, loser: str, amount: int, details: JSON
) -> HandResult:
    commission = _commission(state, amount)
    return HandResult(
        hand_number=state.games_started,
        currency=state.currency,
        deltas={winner: amount - commission, loser: -amount},
        commission={winner: commission} if commission else {},
        details=details,
    )


def _commission(state: BackgammonTable, amount: int) -> int:
    """Total commission on `amount` passing (rules 39-45; real money only)."""
    if amount <= 0:
        return 0
    currency = CURRENCIES[state.currency]
    return backgammon_commission(amount, currency, tournament=state.options.tournament).total


def _abandonment_result(state: BackgammonTable, a: Abandonment) -> HandResult:
    details: JSON = {
        "how": "abandoned",
        "left": a.leaver,
        "evaluated_for": a.player,
        a.kind: a.value,
        "amount": a.amount,
        "winner": a.payee,
        **a.details,
    }
    if a.payee is None or a.payer is None:
        return HandResult(
            hand_number=state.games_started,
            currency=state.currency,
            deltas={a.leaver: 0, a.player: 0},
            details=details,
        )
    return _money(state, a.payee, a.payer, a.amount, details)


def randomness(seed: bytes) -> list[int]:
    """The dice a seed gives, in order (opening roll first; ties are re-rolled)."""
    stream = FairStream(seed, "dice")
    return [stream.die() for _ in range(DEALT_DICE)]


def snapshot(state: BackgammonTable) -> JSON:
    return {
        "seats": list(state.seats),
        "games_started": state.games_started,
        "currency": state.currency,
        "game": None if state.game is None else game.snapshot(state.game),
        "abandoned": None if state.abandoned is None else state.abandoned.public(),
        "ready": sorted(state.ready),
    }
