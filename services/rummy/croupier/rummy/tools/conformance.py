"""`croupier conformance` for `"game": "rummy"` (docs/conformance.md, rummy section).

The deal is explicit (hands, up-card, stock top first); actions are replayed through the
same pure engine the tables run. A malformed document raises `MalformedScenario`; an
illegal action stops the replay and is reported in `error`.

Gin family: if the actions end while the defender may still lay off, the lay-offs are
over (the hand is scored with the lay-offs written). Output keys: status, error, ending,
winner, deadwood, penalty, and with `options`: chips_paid, chips_won (also fees, pot,
deltas, tournament_points); plus to_act and legal while the round runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from croupier.kit.scenario import MalformedScenario
from croupier.rummy.core import knock_game, knock_queries, laydown_game, laydown_queries
from croupier.rummy.core.cards import JOKER_BASE, Card, CardError, parse_card
from croupier.rummy.core.errors import RummyError
from croupier.rummy.core.outcome import RoundOutcome
from croupier.rummy.core.settlement import settle
from croupier.rummy.core.variant import Family
from croupier.rummy.core.variants import VARIANTS

__all__ = ["run_scenario"]

_CARD_KEYS = ("card", "discard", "as")


def _card(value: object, where: str, jokers: int = 4) -> Card:
    if not isinstance(value, str):
        raise MalformedScenario(f"{where}: a card name is expected, got {value!r}")
    try:
        card = parse_card(value)
    except CardError as exc:
        raise MalformedScenario(f"{where}: {exc}") from exc
    if card - JOKER_BASE >= jokers:
        raise MalformedScenario(f"{where}: no card {value!r} in this game's deck")
    return card


def _cards(value: object, where: str, jokers: int) -> list[Card]:
    if not isinstance(value, list):
        raise MalformedScenario(f"{where}: a list of cards is expected")
    return [_card(item, where, jokers) for item in value]


def _check_action_cards(action: Mapping[str, Any], where: str, jokers: int) -> None:
    for key in ("card", "discard"):
        if key in action:
            _card(action[key], f"{where}.{key}", jokers)
    melds = action.get("melds")
    if melds is not None:
        if not isinstance(melds, list):
            raise MalformedScenario(f"{where}.melds: a list of melds is expected")
        for meld in melds:
            _check_meld(meld, f"{where}.melds", jokers)
    if "cards" in action:
        _check_meld(action["cards"], f"{where}.cards", jokers)


def _check_meld(meld: object, where: str, jokers: int) -> None:
    if not isinstance(meld, list):
        raise MalformedScenario(f"{where}: a meld is a list of cards")
    for item in meld:
        if isinstance(item, Mapping):
            _card(item.get("card"), where, jokers)
            if item.get("as") is not None:
                _card(item["as"], where, 0)
        else:
            _card(item, where, jokers)


def _int(value: object, where: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise MalformedScenario(f"{where}: an integer is expected")
    return value


def run_scenario(document: dict[str, Any]) -> dict[str, Any]:
    """Replay one rummy-family document and report what a referee would write down."""
    variant_name = document.get("variant")
    if not isinstance(variant_name, str) or variant_name not in VARIANTS:
        raise MalformedScenario(
            f"unknown rummy variant {variant_name!r}; expected one of: {', '.join(VARIANTS)}"
        )
    rules = VARIANTS[variant_name]
    players = document.get("players")
    if (
        not isinstance(players, list)
        or len(players) < 2
        or not all(isinstance(p, str) for p in players)
        or len(set(players)) != len(players)
    ):
        raise MalformedScenario("players: a list of at least 2 distinct names is expected")
    dealer = document.get("dealer", players[-1])
    if not isinstance(dealer, str) or dealer not in players:
        raise MalformedScenario(f"dealer {dealer!r} is not a player")
    hands_doc = document.get("hands")
    if not isinstance(hands_doc, Mapping) or set(hands_doc) != set(players):
        raise MalformedScenario("hands: one hand per player is expected")
    hands = {p: _cards(hands_doc[p], f"hands.{p}", rules.jokers) for p in players}
    upcard_doc = document.get("upcard")
    upcard = None if upcard_doc is None else _card(upcard_doc, "upcard", rules.jokers)
    stock = _cards(document.get("stock", []), "stock", rules.jokers)
    actions = document.get("actions", [])
    if not isinstance(actions, list):
        raise MalformedScenario("actions: a list is expected")
    for index, action in enumerate(actions):
        if not isinstance(action, Mapping) or not isinstance(action.get("player"), str):
            raise MalformedScenario(f"actions[{index}]: an object with a player is expected")
        if not isinstance(action.get("action"), str):
            raise MalformedScenario(f"actions[{index}]: 'action' is missing")
        _check_action_cards(action, f"actions[{index}]", rules.jokers)
    options = document.get("options")
    if options is not None and not isinstance(options, Mapping):
        raise MalformedScenario("options: an object is expected")

    error: dict[str, Any] | None = None
    output: dict[str, Any]
    if rules.family is Family.KNOCK:
        if len(players) != 2:
            raise MalformedScenario("gin is played by 2 players")
        if upcard is None:
            raise MalformedScenario("upcard is required")
        state = knock_game.deal(rules, players, dealer, hands, upcard, stock)
        for index, action in enumerate(actions):
            try:
                state, _ = knock_game.apply(state, action["player"], action)
            except RummyError as exc:
                error = {"action_index": index, "code": exc.reason, "message": exc.message}
                break
        if error is None:
            state = knock_game.finish(state)
        result = state.result
        output = {
            "deadwood": knock_queries.current_deadwood(state),
            "to_act": state.to_act,
            "legal": knock_queries.legal_actions(state, state.to_act) if state.to_act else None,
        }
    else:
        try:
            lstate = laydown_game.deal(
                rules, players, dealer, hands, upcard, stock, _game_options(options)
            )
        except ValueError as exc:
            raise MalformedScenario(str(exc)) from exc
        for index, action in enumerate(actions):
            try:
                lstate, _ = laydown_game.apply(lstate, action["player"], action)
            except RummyError as exc:
                error = {"action_index": index, "code": exc.reason, "message": exc.message}
                break
        result = lstate.result
        output = {
            "deadwood": laydown_queries.current_deadwood(lstate),
            "to_act": lstate.to_act,
            "legal": laydown_queries.legal_actions(lstate, lstate.to_act)
            if lstate.to_act
            else None,
            "melds": [meld.to_json() for meld in lstate.table_melds],
        }
        if rules.scores_melds:
            output["scores"] = laydown_queries.current_scores(lstate)
    output.update(
        {
            "status": "complete" if result is not None else "awaiting_action",
            "error": error,
            "ending": None if result is None else str(result.ending),
            "winner": None if result is None else result.winner,
            "penalty": {} if result is None else dict(result.penalty),
        }
    )
    if result is not None and options is not None and "round_fee" in options:
        output.update(_settlement(players, result, options))
    return output


def _game_options(options: Mapping[str, Any] | None) -> dict[str, Any]:
    return {} if options is None else dict(options)


def _settlement(
    players: list[str], result: RoundOutcome, options: Mapping[str, Any]
) -> dict[str, Any]:
    fee = _int(options.get("round_fee"), "options.round_fee")
    ratio = _int(options.get("chip_ratio", 1), "options.chip_ratio")
    chips_doc = options.get("chips")
    if not isinstance(chips_doc, Mapping) or set(chips_doc) != set(players):
        raise MalformedScenario("options.chips: chips per player are expected")
    chips = {p: _int(chips_doc[p], f"options.chips.{p}") for p in players}
    flag = options.get("limit_to_winner_risk", True)
    if not isinstance(flag, bool):
        raise MalformedScenario("options.limit_to_winner_risk: true or false")
    if fee < 0 or ratio < 0 or any(value < 0 for value in chips.values()):
        raise MalformedScenario("options: amounts must not be negative")
    settlement = settle(
        players=players,
        winner=result.winner,
        penalty=result.penalty,
        round_fee=fee,
        chip_ratio=ratio,
        chips=chips,
        limit_to_winner_risk=flag,
    )
    return {
        "chips_paid": dict(settlement.chips_paid),
        "chips_won": settlement.chips_won,
        "fees": dict(settlement.fees),
        "pot": settlement.pot,
        "deltas": dict(settlement.deltas),
        "tournament_points": dict(settlement.tournament_points),
    }
