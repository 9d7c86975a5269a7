"""The hand history: a complete, replayable JSON record of one hand, and its reader.

The record is a superset of a conformance document (`"game": "poker"`), so the same hand
can also be fed to `croupier conformance`. It holds the seats and starting stacks, every
card (hole cards and the undealt stub in order), every accepted action with the chips it
put in, and the settlement: board, pots with eligible players and winners, returned
(uncalled) amounts, winnings, final stacks and the hands shown at showdown.

`replay(record, ranks)` rebuilds the hand from the inputs alone (and the hand values
`ranks`, `croupier.poker.adapters.evaluator.RANKS`) and checks that it reaches exactly the
recorded settlement.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from croupier.poker.core import cards as C
from croupier.poker.core import naiko
from croupier.poker.core.deal import start_hand
from croupier.poker.core.hand import apply
from croupier.poker.core.rules import TableConfig
from croupier.poker.core.state import HandRanks, HandState

FORMAT = "croupier.poker.hand-history/1"
SETTLEMENT_KEYS = ("board", "pots", "returned", "winnings", "stacks", "shown")


class HistoryMismatch(ValueError):
    """Replaying a history did not reproduce what it records."""


def record(state: HandState) -> dict[str, Any]:
    """The history of a hand (finished or not; the settlement keys appear once it is over)."""
    cfg = state.config
    doc: dict[str, Any] = {
        "format": FORMAT,
        "game": "poker",
        "variant": cfg.variant,
        "limit": "pot-limit" if cfg.pot_limit else "no-limit",
        "short_big_blind": cfg.short_big_blind,
        "blinds": [cfg.small_blind, cfg.big_blind],
        "ante": cfg.ante,
        # written only when set: the histories of other tables stay as they were
        **({"big_blind_ante": cfg.big_blind_ante} if cfg.big_blind_ante else {}),
        "players": [
            {"id": pid, "stack": st} for pid, st in zip(state.ids, state.initial, strict=True)
        ],
        "button": state.ids[state.button],
        **({"dead_small_blind": True} if state.dead_small_blind else {}),
        **_posts(state),
        "hole_cards": dict(zip(state.ids, _dealt_hole(state), strict=True)),
        "deck": C.names(state.deck),
        "actions": [{k: v for k, v in a.items() if k != "type"} for a in state.actions],
        "status": state.status,
    }
    nk = state.naiko
    if nk is not None:
        doc["destellos"] = dict(zip(state.ids, nk.carried_in, strict=True))
        doc["carousel"] = sorted(nk.carousel)
        doc["destellos_after"] = dict(zip(state.ids, nk.destellos, strict=True))
        doc["private"] = naiko.private(state)
    if state.result is not None:
        doc["board"] = C.names(state.board)
        for key in SETTLEMENT_KEYS[1:]:
            doc[key] = state.result[key]
    return doc


def _posts(state: HandState) -> dict[str, Any]:
    """Entry and missed-blind posts (live, dead) outside the blinds, when any (OQ 22)."""
    if not state.posts:
        return {}
    return {
        "posts": {
            pid: {"live": live, "dead": dead}
            for pid, (live, dead) in zip(state.ids, state.posts, strict=True)
            if live or dead
        }
    }


def _dealt_hole(state: HandState) -> list[list[str]]:
    """The hole cards as dealt (a Sleeve Swap's given-up card back in place of the new one)."""
    hole = [C.names(h) for h in state.hole]
    nk = state.naiko
    if nk is not None:
        for entry in state.actions:
            if entry.get("power") == "swap":
                i = state.ids.index(entry["player"])
                new = nk.swapped_in[i]
                hole[i] = [entry["card"] if c == C.name(new) else c for c in hole[i]]
    return hole


def start(record: Mapping[str, Any], ranks: HandRanks) -> HandState:
    """The hand a history describes, before its first action."""
    config = TableConfig(
        variant=record["variant"],
        small_blind=record["blinds"][0],
        big_blind=record["blinds"][1],
        ante=record.get("ante", 0),
        limit=record.get("limit", ""),
        short_big_blind=record.get("short_big_blind", "full"),
        big_blind_ante=record.get("big_blind_ante", 0),
    )
    players = [(p["id"], p["stack"]) for p in record["players"]]
    ids = [p[0] for p in players]
    hole = [C.parse_all(record["hole_cards"][pid]) for pid in ids]
    destellos = None
    if record["variant"] == "naiko":
        destellos = [record.get("destellos", {}).get(pid, 0) for pid in ids]
    posts = {
        ids.index(pid): (int(post.get("live", 0)), int(post.get("dead", 0)))
        for pid, post in record.get("posts", {}).items()
    }
    return start_hand(
        config,
        players,
        ids.index(record["button"]),
        hole,
        C.parse_all(record["deck"]),
        destellos,
        record.get("carousel"),
        posts or None,
        ranks=ranks,
        dead_small_blind=record.get("dead_small_blind", False),
    )


def replay(record: Mapping[str, Any], ranks: HandRanks) -> HandState:
    """Replay a history and check it reproduces the recorded actions and settlement."""
    state = start(record, ranks)
    for index, action in enumerate(record["actions"]):
        state, _ = apply(state, action["player"], action)
        got = state.actions[-1]
        for key in ("amount", "to"):
            if key in action and action[key] != got.get(key):
                raise HistoryMismatch(
                    f"action {index}: recorded {key} {action[key]}, replay gives {got.get(key)}"
                )
    if state.naiko is not None and "destellos_after" in record:
        after = dict(zip(state.ids, state.naiko.destellos, strict=True))
        if after != record["destellos_after"] or naiko.private(state) != record.get("private"):
            raise HistoryMismatch("the Destellos or private cards differ on replay")
    if "pots" in record:
        if state.result is None:
            raise HistoryMismatch("the history records a settlement but the hand is not over")
        mine = record_settlement(state)
        for key in SETTLEMENT_KEYS:
            if mine[key] != record[key]:
                raise HistoryMismatch(f"{key}: recorded {record[key]}, replay gives {mine[key]}")
    return state


def record_settlement(state: HandState) -> dict[str, Any]:
    assert state.result is not None
    out = {key: state.result[key] for key in SETTLEMENT_KEYS[1:]}
    out["board"] = C.names(state.board)
    return out
