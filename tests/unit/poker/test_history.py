"""The hand history: complete, JSON-serialisable, and replayed to the same result."""

from __future__ import annotations

import json

import pytest

from croupier.poker.adapters.evaluator import RANKS
from croupier.poker.core import history
from croupier.poker.core.hand import apply
from croupier.poker.tools.conformance import run_scenario
from tests.support.poker import state_after

FOUR = [("a", 100), ("b", 60), ("c", 100), ("d", 30)]


def test_history_records_everything_and_replays() -> None:
    s = state_after(
        FOUR, "a", [("d", "allin"), ("a", "call"), ("b", "raise", 60), ("c", "fold"), ("a", "call")]
    )
    assert s.is_complete
    record = json.loads(json.dumps(history.record(s)))  # plain JSON
    for key in (
        "players",
        "button",
        "hole_cards",
        "deck",
        "actions",
        "board",
        "pots",
        "returned",
        "winnings",
        "stacks",
        "shown",
    ):
        assert key in record
    assert record["actions"][0] == {
        "player": "d",
        "action": "allin",
        "to": 30,
        "amount": 30,
        "all_in": True,
    }
    again = history.replay(record, RANKS)
    assert again.result == s.result
    # a history is also a conformance document
    out = run_scenario(record)
    assert out["stacks"] == record["stacks"] and out["pots"] == record["pots"]


def test_tampered_history_is_detected() -> None:
    s = state_after(FOUR, "a", [("d", "allin"), ("a", "call"), ("b", "call"), ("c", "call")])
    while (p := s.player_to_act) is not None:
        s, _ = apply(s, p, {"action": "check"})
    assert s.is_complete
    record = history.record(s)
    record["winnings"] = {"a": 1}
    with pytest.raises(history.HistoryMismatch):
        history.replay(record, RANKS)


def test_naiko_history_with_swap_anchor_and_seal_replays() -> None:
    actions = [
        ("d", "power", "swap", "2d"),
        ("d", "call"),
        ("a", "call"),
        ("b", "call"),
        ("c", "check"),
        ("b", "power", "anchor", "c"),
        ("c", "seal"),
        ("b", "bet", 4),
        ("c", "call"),
        ("d", "fold"),
        ("a", "fold"),
    ]
    s = state_after(
        FOUR,
        "a",
        actions,
        hole={"d": ["7c", "2d"]},
        variant="naiko",
        destellos={"b": 1, "c": 0, "d": 1},
        carousel=["swap", "anchor", "seal"],
    )
    record = json.loads(json.dumps(history.record(s)))
    assert record["hole_cards"]["d"] == ["7c", "2d"]  # as dealt
    assert record["private"]["d"]["swapped_in"]
    assert record["destellos"] == {"a": 0, "b": 1, "c": 0, "d": 1}  # carried in
    again = history.replay(record, RANKS)
    assert again.hole == s.hole and again.naiko == s.naiko
