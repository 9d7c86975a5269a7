"""Build poker hands for tests from a few facts (players, button, cards, actions)."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any

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


def pokerkit_script() -> ModuleType:
    """scripts/poker_vs_pokerkit.py, the cross-check against PokerKit, as a module."""
    path = ROOT / "scripts" / "poker_vs_pokerkit.py"
    spec = importlib.util.spec_from_file_location("poker_vs_pokerkit", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["poker_vs_pokerkit"] = module  # dataclasses need the module registered
    spec.loader.exec_module(module)
    return module
