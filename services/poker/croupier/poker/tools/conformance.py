"""`run_scenario(document)` for `"game": "poker"` (docs/conformance.md, poker).

Variants `nlhe`, `plo` and `naiko` (no-limit Hold'em with powers: `destellos` carried in and
the hand's `carousel`; output adds `destellos` after the hand and `private`). Antes: `ante`
(every player) or `big_blind_ante` (the big blind alone, blind first), not both.
`dead_small_blind: true` (a tournament's dead button rule): no small blind, the big blind
left of the button.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from croupier.kit.scenario import MalformedScenario
from croupier.poker.adapters.evaluator import RANKS
from croupier.poker.core import cards as C
from croupier.poker.core import naiko
from croupier.poker.core.deal import start_hand
from croupier.poker.core.hand import apply, legal_actions
from croupier.poker.core.rules import IllegalAction, TableConfig
from croupier.poker.core.showdown import collected_pots, pots_json
from croupier.poker.core.state import HandState


def _int(value: object, what: str, minimum: int = 0) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        raise MalformedScenario(f"{what} must be an integer >= {minimum}")
    return value


def setup(document: Mapping[str, Any]) -> HandState:
    """The hand a document describes, before any action (MalformedScenario if it cannot)."""
    variant = document.get("variant")
    if variant not in ("nlhe", "plo", "naiko"):
        raise MalformedScenario(f"unknown poker variant {variant!r}; expected nlhe, plo or naiko")
    limit = document.get("limit") or ""
    blinds = document.get("blinds")
    if not isinstance(blinds, list) or len(blinds) != 2:
        raise MalformedScenario("blinds must be [small, big]")
    sb = _int(blinds[0], "the small blind")
    bb = _int(blinds[1], "the big blind", 1)
    ante = _int(document.get("ante", 0), "ante")
    # Instead of `ante`: a document giving both (non-zero) is malformed (TableConfig says so).
    big_blind_ante = _int(document.get("big_blind_ante", 0), "big_blind_ante")
    try:
        config = TableConfig(
            variant=variant,
            small_blind=sb,
            big_blind=bb,
            ante=ante,
            limit=limit,
            big_blind_ante=big_blind_ante,
        )
    except ValueError as exc:
        raise MalformedScenario(str(exc)) from None
    raw_players = document.get("players")
    if not isinstance(raw_players, list):
        raise MalformedScenario("players must be a list of {id, stack}")
    players: list[tuple[str, int]] = []
    for entry in raw_players:
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
            raise MalformedScenario("each player needs a string id and a stack")
        players.append((entry["id"], _int(entry.get("stack"), f"stack of {entry['id']}", 1)))
    ids = [p[0] for p in players]
    button = document.get("button")
    if button not in ids:
        raise MalformedScenario(f"button {button!r} is not one of the players")
    hole_doc = document.get("hole_cards")
    if not isinstance(hole_doc, dict):
        raise MalformedScenario("hole_cards must map each player to his cards")
    deck_doc = document.get("deck")
    if not isinstance(deck_doc, list):
        raise MalformedScenario("deck must be a list of cards")
    destellos: list[int] | None = None
    carousel: list[str] | None = None
    if variant == "naiko":
        raw = document.get("destellos") or {}
        if not isinstance(raw, dict) or any(k not in ids for k in raw):
            raise MalformedScenario("destellos must map players to their balances")
        destellos = [_int(raw.get(pid, 0), f"destellos of {pid}") for pid in ids]
        carousel = document.get("carousel")
        if not isinstance(carousel, list) or not all(isinstance(c, str) for c in carousel):
            raise MalformedScenario("a naiko scenario needs its carousel: 3 power names")
        if len(set(carousel)) != len(carousel):
            raise MalformedScenario("the carousel lists 3 different powers")
    posts = _posts(document.get("posts", {}), ids)
    dead_small_blind = document.get("dead_small_blind", False)
    if not isinstance(dead_small_blind, bool):
        raise MalformedScenario("dead_small_blind must be true or false")
    try:
        hole = [C.parse_all(hole_doc.get(pid) or ()) for pid in ids]
        deck = C.parse_all(deck_doc)
        return start_hand(
            config,
            players,
            ids.index(button),
            hole,
            deck,
            destellos,
            carousel,
            posts,
            ranks=RANKS,
            dead_small_blind=dead_small_blind,
        )
    except ValueError as exc:
        raise MalformedScenario(str(exc)) from None


def _posts(raw: object, ids: list[str]) -> dict[int, tuple[int, int]] | None:
    """Optional `posts` (a table's hand history has them, OQ 22): player -> {"live": n,
    "dead": m}, chips posted outside the blinds' positions."""
    if not isinstance(raw, dict) or any(
        k not in ids or not isinstance(v, dict) for k, v in raw.items()
    ):
        raise MalformedScenario('posts must map players to {"live": n, "dead": m}')
    return {
        ids.index(pid): (
            _int(post.get("live", 0), "a live post"),
            _int(post.get("dead", 0), "a dead post"),
        )
        for pid, post in raw.items()
    } or None


def replay(document: Mapping[str, Any]) -> tuple[HandState, dict[str, Any] | None]:
    """Apply the document's actions; stop at the first illegal one (its error returned)."""
    state = setup(document)
    actions = document.get("actions", [])
    if not isinstance(actions, list):
        raise MalformedScenario("actions must be a list")
    for index, action in enumerate(actions):
        if not isinstance(action, dict) or not isinstance(action.get("player"), str):
            raise MalformedScenario(f"action {index} needs a player and an action")
        try:
            state, _ = apply(state, action["player"], action)
        except IllegalAction as exc:
            return state, {"action_index": index, "code": exc.reason, "message": exc.message}
        except ValueError as exc:
            raise MalformedScenario(f"action {index}: {exc}") from None
    return state, None


def output(state: HandState, error: dict[str, Any] | None) -> dict[str, Any]:
    """The referee's record of a state (README output keys)."""
    res = state.result
    if res is not None:
        return {
            "status": "complete",
            "error": error,
            "board": C.names(state.board),
            "stacks": dict(res["stacks"]),
            "pots": res["pots"],
            "returned": res["returned"],
            "winnings": res["winnings"],
            "shown": res["shown"],
            "to_act": None,
            "legal": None,
        }
    actor = state.player_to_act
    legal = legal_actions(state, actor) if actor is not None else None
    return {
        "status": "awaiting_action",
        "error": error,
        "board": C.names(state.board),
        "stacks": {pid: state.stacks[i] for i, pid in enumerate(state.ids)},
        "pots": pots_json(state, collected_pots(state)),
        "returned": {},
        "winnings": {},
        "to_act": actor,
        "legal": legal,
    }


def run_scenario(document: dict[str, Any]) -> dict[str, Any]:
    if document.get("game") != "poker":
        raise MalformedScenario("not a poker scenario")
    state, error = replay(document)
    out = output(state, error)
    nk = state.naiko
    if nk is not None:
        out["destellos"] = dict(zip(state.ids, nk.destellos, strict=True))
        out["private"] = naiko.private(state)
        out["carousel"] = sorted(nk.carousel)
    return out
