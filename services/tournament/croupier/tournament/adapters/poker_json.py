"""A poker tournament's inputs and hands in play as the PostgreSQL record stores them: one
JSON document, `{"inputs": [...], "hands": [...]}` (migration 0003). Each input is a list
naming its kind first; a hand lists its id, table, seats, level and host table id, then
`true` when its small blind is dead (only then: the records of earlier builds stay
readable by them)."""

from __future__ import annotations

import json
from typing import Any

from croupier.tournament.core.blinds import Level
from croupier.tournament.service.model import TournamentRecord
from croupier.tournament.service.poker_model import (
    HandDone,
    HostedHand,
    LateEntry,
    PokerInput,
    Start,
    Tick,
)

__all__ = ["poker_from_json", "poker_to_json"]


def _input_to_json(given: PokerInput) -> list[Any]:
    match given:
        case Start(players, at):
            return ["start", list(players), at]
        case HandDone(table, before, after, at):
            return ["hand", table, [list(s) for s in before], [list(s) for s in after], at]
        case Tick(at):
            return ["tick", at]
        case LateEntry(player, at):
            return ["entry", player, at]


def _input_from_json(raw: list[Any]) -> PokerInput:
    kind = raw[0]
    if kind == "start":
        return Start(tuple(raw[1]), raw[2])
    if kind == "hand":
        before = tuple((p, c) for p, c in raw[2])
        after = tuple((p, c) for p, c in raw[3])
        return HandDone(raw[1], before, after, raw[4])
    if kind == "tick":
        return Tick(raw[1])
    if kind == "entry":
        return LateEntry(raw[1], raw[2])
    raise ValueError(f"a stored poker input of no known kind: {kind!r}")


def _hand_to_json(hand: HostedHand) -> list[Any]:
    level = hand.level
    terms = [level.small_blind, level.big_blind, level.ante, level.ante_kind, level.minutes]
    stored = [hand.hand_id, hand.table, [list(s) for s in hand.seats], terms, hand.table_id]
    return [*stored, True] if hand.dead_small_blind else stored


def _hand_from_json(raw: list[Any]) -> HostedHand:
    hand_id, table, seats, (small, big, ante, kind, minutes), table_id, *dead = raw
    level = Level(small, big, ante, kind, minutes)
    players = tuple((p, c) for p, c in seats)
    return HostedHand(hand_id, table, players, level, table_id, dead == [True])


def poker_to_json(record: TournamentRecord) -> str:
    return json.dumps(
        {
            "inputs": [_input_to_json(given) for given in record.poker_inputs],
            "hands": [_hand_to_json(hand) for hand in record.hands],
        }
    )


def poker_from_json(stored: str) -> tuple[tuple[PokerInput, ...], tuple[HostedHand, ...]]:
    document = json.loads(stored)
    return (
        tuple(_input_from_json(raw) for raw in document.get("inputs", [])),
        tuple(_hand_from_json(raw) for raw in document.get("hands", [])),
    )
