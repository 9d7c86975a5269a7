"""Build poker hands for tests from a few facts (players, button, cards, actions)."""

from __future__ import annotations

import functools
import importlib.util
import sys
import warnings
from collections.abc import Sequence
from types import ModuleType
from typing import Any

from pokerkit import Mode, NoLimitTexasHoldem, PotLimitOmahaHoldem

from croupier.poker.core import cards as C
from croupier.poker.core.hand import apply
from croupier.poker.core.state import HandState
from croupier.poker.tools.conformance import run_scenario, setup
from tests.support.paths import ROOT


def doc(
    players: Sequence[tuple[str, int]],
    button: str,
    actions: Sequence[Any] = (),
    hole: dict[str, list[str]] | None = None,
    board: Sequence[str] = (),
    variant: str = "nlhe",
    blinds: tuple[int, int] = (1, 2),
    ante: int = 0,
    limit: str | None = None,
    destellos: dict[str, int] | None = None,
    carousel: Sequence[str] = ("peek", "swap", "anchor"),
    dead_small_blind: bool = False,
) -> dict[str, Any]:
    """A conformance document; unspecified hole cards and board come from a fixed deck."""
    count = 4 if variant == "plo" else 2
    used = {c for cs in (hole or {}).values() for c in cs} | set(board)
    spare = [c for c in C.NAMES[::-1] if c not in used]  # aces first, deterministic
    holes: dict[str, list[str]] = {}
    for pid, _ in players:
        if hole and pid in hole:
            holes[pid] = list(hole[pid])
        else:
            holes[pid], spare = spare[:count], spare[count:]
    deck = list(board) + spare
    out: dict[str, Any] = {
        "game": "poker",
        "variant": variant,
        "blinds": list(blinds),
        "ante": ante,
        "players": [{"id": p, "stack": s} for p, s in players],
        "button": button,
        "hole_cards": holes,
        "deck": deck,
        "actions": [_action(a) for a in actions],
    }
    if limit:
        out["limit"] = limit
    if dead_small_blind:
        out["dead_small_blind"] = True
    if variant == "naiko":
        out["destellos"] = dict(destellos or {})
        out["carousel"] = list(carousel)
    return out


def _action(a: Any) -> dict[str, Any]:
    """("p", "call"), ("p", "raise", 6), ("p", "power", "peek"), ("p", "power", "swap", "2d"),
    ("p", "power", "anchor", "target"), or a ready dict."""
    if isinstance(a, dict):
        return a
    out: dict[str, Any] = {"player": a[0], "action": a[1]}
    if a[1] == "power":
        out["power"] = a[2]
        if a[2] == "swap":
            out["card"] = a[3]
        elif a[2] == "anchor":
            out["target"] = a[3]
    elif len(a) == 3:
        out["to"] = a[2]
    return out


def run(*args: Any, **kwargs: Any) -> dict[str, Any]:
    return run_scenario(doc(*args, **kwargs))


def state_after(*args: Any, **kwargs: Any) -> HandState:
    """The engine state after the document's actions (all must be legal)."""
    d = doc(*args, **kwargs)
    state = setup(d)
    for a in d["actions"]:
        state, _ = apply(state, a["player"], a)
    return state


@functools.cache
def pokerkit_script() -> ModuleType:
    """scripts/poker_vs_pokerkit.py, the cross-check against PokerKit, as a module."""
    path = ROOT / "scripts" / "poker_vs_pokerkit.py"
    spec = importlib.util.spec_from_file_location("poker_vs_pokerkit", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["poker_vs_pokerkit"] = module  # dataclasses need the module registered
    spec.loader.exec_module(module)
    return module


def pokerkit_stacks(start: HandState, actions: Sequence[dict[str, Any]]) -> list[int]:
    """PokerKit's final stacks (by our seat) for the hand `start` with `actions`: the
    blinds, a dead small blind and a big-blind ante converted (`_pokerkit_state`)."""
    with warnings.catch_warnings():
        # PokerKit burns from its own deck order and warns when our board deals a card it
        # burnt: burnt cards play no part here
        warnings.simplefilter("ignore", UserWarning)
        return _pokerkit_stacks(start, actions)


def _pokerkit_state(start: HandState, order: list[int]) -> Any:
    """PokerKit's hand for `start`, its players in `order` (our seats from the button's
    left). A big-blind ante: PokerKit posts antes before blinds, so it is given, as its
    ante, what ours posted after the full blind. A dead small blind: PokerKit's player 0,
    our big blind, posts the only blind (scripts/poker_vs_pokerkit.py)."""
    cfg = start.config
    bb = start.bb_seat
    ante = min(cfg.big_blind_ante, max(0, start.initial[bb] - cfg.big_blind))
    dead = start.dead_small_blind
    blinds = (cfg.big_blind, 0) if dead else (cfg.small_blind, cfg.big_blind)
    game = PotLimitOmahaHoldem if cfg.omaha else NoLimitTexasHoldem
    return game.create_state(
        pokerkit_script().AUTOMATIONS,
        False,  # untrimmed antes: non-uniform, dead (PokerKit's big-blind ante)
        # heads-up PokerKit swaps the antes, so index 1 is the big blind's there too
        {order.index(bb) if dead else 1: ante},
        blinds,
        cfg.big_blind,
        [start.initial[seat] for seat in order],
        start.n,
        mode=Mode.TOURNAMENT,
    )


def _pokerkit_stacks(start: HandState, actions: Sequence[dict[str, Any]]) -> list[int]:
    n = start.n
    order = [(start.button + 1 + k) % n for k in range(n)]  # PokerKit index k -> our seat
    pk = _pokerkit_state(start, order)
    for seat in order:
        pk.deal_hole("".join(C.names(start.hole[seat])))
    deck = C.names(start.deck)

    def deal_board() -> None:
        dealt = sum(len(b) for b in pk.board_cards)
        pk.deal_board("".join(deck[dealt : dealt + (1 if dealt else 3)]))

    state = start
    for action in actions:
        while pk.can_deal_board():
            deal_board()
        assert pk.actor_index == order.index(state.to_act), (action, pk.actor_index)
        before = state
        state, _ = apply(state, action["player"], action)
        pokerkit_script()._pk_act(pk, action, before)
    while pk.status:  # let PokerKit finish
        if pk.actor_index is not None and pk.checking_or_calling_amount == 0:
            pk.check_or_call()  # rule 21: it asks the one player able to bet to check
        elif pk.can_deal_board():
            deal_board()
        else:
            raise AssertionError("PokerKit is stuck")
    return [pk.stacks[order.index(seat)] for seat in range(n)]


def assert_same_as_pokerkit(start: HandState, actions: Sequence[dict[str, Any]]) -> HandState:
    """The hand played to its end by both engines: the same final stacks (odd chips
    converted, scripts/poker_vs_pokerkit.py). Our final state."""
    state = start
    for action in actions:
        state, _ = apply(state, action["player"], action)
    assert state.result is not None, "the hand must be over"
    theirs = pokerkit_stacks(start, actions)
    mine = list(state.stacks)
    assert mine == theirs or pokerkit_script()._as_pokerkit(state) == theirs, (mine, theirs)
    return state
