"""`croupier conformance` for Joker: the `hand` and `score_pulka` kinds.

Format: docs/conformance.md (Joker section). A `hand` document replays one
hand from an explicit deal; a `score_pulka` document scores one pulka from each hand's
bid and tricks. Malformed documents raise `MalformedScenario`; an illegal action stops the
replay and is reported in `error` with the state just before it.

Output conventions of a `hand` (what a referee writes down): `bids` lists the bids made
so far; `tricks` has every player (0 until he takes one); `hand_scores` is `{}` until the
hand is complete; `trump` is null while the nine-card trump is being chosen, `"none"` for
no trump; `to_act` and `legal` are null once the hand is complete. Extra keys:
`trump_card`, `trick_winners`.

Options read from `options` (all optional): as `croupier.joker.core.table_options`
reads them (`parse_options`); a bad one makes the document malformed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from croupier.game import Malformed
from croupier.joker.core.cards import Card, UnknownCard, card
from croupier.joker.core.errors import IllegalAction, UnknownPlayer
from croupier.joker.core.hand import (
    SEATS,
    HandState,
    Phase,
    apply,
    legal_actions,
    new_hand,
    parse_command,
)
from croupier.joker.core.options import Options
from croupier.joker.core.premia import settle_pulka
from croupier.joker.core.scoring import HandOutcome, format_points, hand_score
from croupier.joker.core.table_options import parse_options
from croupier.kit.scenario import MalformedScenario

__all__ = ["run_scenario"]


def _int(value: object, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise MalformedScenario(f"{what} must be an integer")
    return value


def _options(raw: object) -> Options:
    """A document's `options` (`croupier.joker.core.table_options.parse_options`)."""
    try:
        return parse_options(raw)
    except Malformed as exc:
        raise MalformedScenario(exc.message) from None


def run_scenario(document: dict[str, Any]) -> dict[str, Any]:
    kind = document.get("kind", "hand")
    if kind == "hand":
        return _run_hand(document)
    if kind == "score_pulka":
        return _score_pulka(document)
    raise MalformedScenario(f"unknown joker kind {kind!r}; expected hand or score_pulka")


def _card(code: object) -> Card:
    if not isinstance(code, str):
        raise MalformedScenario(f"bad card {code!r}")
    try:
        return card(code)
    except UnknownCard as exc:
        raise MalformedScenario(str(exc)) from None


def _read_hand(document: dict[str, Any]) -> tuple[list[str], HandState]:
    players = document.get("players")
    if (
        not isinstance(players, list)
        or len(players) != SEATS
        or not all(isinstance(p, str) for p in players)
        or len(set(players)) != SEATS
    ):
        raise MalformedScenario("players must list 4 different player names")
    dealer = document.get("dealer")
    if dealer not in players:
        raise MalformedScenario("dealer must be one of the players")
    n = _int(document.get("cards_per_hand"), "cards_per_hand")
    if not 1 <= n <= 9:
        raise MalformedScenario("cards_per_hand is from 1 to 9")
    raw_hands = document.get("hands")
    if not isinstance(raw_hands, Mapping) or set(raw_hands) != set(players):
        raise MalformedScenario("hands must give every player's cards")
    hands: list[list[Card]] = []
    for player in players:
        codes = raw_hands[player]
        if not isinstance(codes, list) or len(codes) != n:
            raise MalformedScenario(f"{player} must hold {n} cards")
        hands.append([_card(c) for c in codes])
    seen = [c for h in hands for c in h]
    trump_card: Card | None = None
    if n < 9:
        if document.get("trump_card") is None:
            raise MalformedScenario("trump_card is required in hands of 1 to 8 cards")
        trump_card = _card(document["trump_card"])
        seen.append(trump_card)
    elif document.get("trump_card") is not None:
        raise MalformedScenario("nine-card hands have no trump_card")
    if len(set(seen)) != len(seen):
        raise MalformedScenario("a card is dealt twice")
    return players, new_hand(hands, players.index(dealer), n, trump_card)


def _run_hand(document: dict[str, Any]) -> dict[str, Any]:
    players, state = _read_hand(document)
    options = _options(document.get("options"))
    actions = document.get("actions", [])
    if not isinstance(actions, list):
        raise MalformedScenario("actions must be a list")
    error: dict[str, Any] | None = None
    for index, action in enumerate(actions):
        if not isinstance(action, dict) or not isinstance(action.get("player"), str):
            raise MalformedScenario(f"action {index} must be an object with a player")
        try:
            if action["player"] not in players:
                raise UnknownPlayer(f"{action['player']!r} is not at this table")
            seat = players.index(action["player"])
            state, _ = apply(state, seat, parse_command(action))
        except IllegalAction as exc:
            error = {"action_index": index, "code": exc.reason, "message": exc.message}
            break
    complete = state.phase is Phase.COMPLETE
    scores: dict[str, int] = {}
    if complete:
        scores = {
            p: hand_score(o, options.khishti, options.took_all)
            for p, o in zip(players, state.outcomes(), strict=True)
        }
    to_act = players[state.turn] if state.turn is not None else None
    return {
        "status": "complete" if complete else "awaiting_action",
        "error": error,
        "trump": None
        if state.phase is Phase.TRUMP
        else (state.trump.value if state.trump else "none"),
        "trump_card": state.trump_card.code if state.trump_card else None,
        "bids": {p: b for p, b in zip(players, state.bids, strict=True) if b is not None},
        "tricks": dict(zip(players, state.taken, strict=True)),
        "trick_winners": [players[w] for w in state.winners],
        "hand_scores": scores,
        "to_act": to_act,
        "legal": None if state.turn is None else legal_actions(state, state.turn),
    }


def _outcome(value: object, n: int, where: str) -> HandOutcome:
    if not isinstance(value, Mapping):
        raise MalformedScenario(f"{where} must be an object with bid and took")
    bid = _int(value.get("bid"), f"{where}.bid")
    took = _int(value.get("took"), f"{where}.took")
    if not (0 <= bid <= n and 0 <= took <= n):
        raise MalformedScenario(f"{where}: bid and took are from 0 to {n}")
    return HandOutcome(bid=bid, took=took, cards=n)


def _score_pulka(document: dict[str, Any]) -> dict[str, Any]:
    options = _options(document.get("options"))
    raw_hands = document.get("hands")
    if not isinstance(raw_hands, list) or not raw_hands:
        raise MalformedScenario("hands must be a non-empty list")
    sizes = document.get("cards_per_hand")
    if not isinstance(sizes, list) or len(sizes) != len(raw_hands):
        raise MalformedScenario("cards_per_hand must give one size per hand")
    first = raw_hands[0]
    if not isinstance(first, Mapping) or not first:
        raise MalformedScenario("each hand maps players to their bid and took")
    players = [str(p) for p in first]
    hands: list[dict[str, HandOutcome]] = []
    for index, (raw, size) in enumerate(zip(raw_hands, sizes, strict=True)):
        n = _int(size, f"cards_per_hand[{index}]")
        if not 1 <= n <= 9:
            raise MalformedScenario("cards_per_hand values are from 1 to 9")
        if not isinstance(raw, Mapping) or set(raw) != set(players):
            raise MalformedScenario(f"hand {index} must list the same players")
        hands.append({p: _outcome(raw[p], n, f"hands[{index}].{p}") for p in players})
    settlement = settle_pulka(players, hands, options)
    return {
        "error": None,
        "hand_scores": {s.player: list(s.hand_scores) for s in settlement.players},
        "premia": {s.player: s.premia for s in settlement.players},
        "moshla": {s.player: s.moshla for s in settlement.players},
        "crossed_out": {s.player: s.crossed_out for s in settlement.players},
        "total": {s.player: s.result for s in settlement.players},
        "sheet": {s.player: format_points(s.result) for s in settlement.players},
    }
