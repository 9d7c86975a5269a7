"""A poker tournament's settings, its Spin draw event and its stored inputs survive their
encodings (protobuf for the contract and the events, JSON for the PostgreSQL record), and
malformed poker settings are refused as clear invalid arguments."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from croupier.game import RuleBroken
from croupier.tournament import codec
from croupier.tournament.adapters.poker_json import poker_from_json, poker_to_json
from croupier.tournament.core.blinds import BlindStructure, Break, Level
from croupier.tournament.core.payouts import PayoutBracket
from croupier.tournament.service.events import (
    BreakStarted,
    Created,
    HandForHand,
    Recorded,
    SpinDrawn,
)
from croupier.tournament.service.model import Settings, TournamentRecord
from croupier.tournament.service.poker_model import (
    HandDone,
    HostedHand,
    LateEntry,
    PokerTerms,
    Start,
    Tick,
)
from croupier.tournament.v1 import tournament_pb2 as pb
from tests.support.refusals import status_name
from tests.unit.tournament.director_sample import START, sample_settings

LEVELS = BlindStructure(
    (
        Level(10, 20, 0, "none", 5),
        Level(15, 30, 5, "per_player", 5),
        Level(25, 50, 50, "per_player", 5),
    ),
    (Break(2, 5),),
)


def _poker(terms: PokerTerms, **changes: object) -> Settings:
    fields: dict[str, object] = {
        "game": "poker",
        "variant": "plo",
        "min_players": 2,
        "max_players": 9,
        "table_size": 9,
        "levels": (),
        "rebuys": None,
        "payouts": (PayoutBracket(2, 18, (7_000, 3_000)),),
        "poker": terms,
    }
    return replace(sample_settings(), **{**fields, **changes})  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "terms",
    [
        PokerTerms("scheduled", levels=LEVELS, late_registration_level=2, max_reentries=1),
        PokerTerms("sit_and_go", preset="turbo", bots_allowed=True),
    ],
)
def test_poker_settings_survive_the_contract(terms: PokerTerms) -> None:
    settings = _poker(terms)
    settings.check()
    assert codec.settings_from_proto(codec.settings_to_proto(settings)) == settings


def test_the_poker_events_survive_their_encoding() -> None:
    for event in (
        SpinDrawn(5, (15_000,), "ab" * 32, bytes(range(32))),
        HandForHand(True),
        BreakStarted(300),
        Created(_poker(PokerTerms("spin", preset="hyper"), payouts=()), "cd" * 32),
    ):
        recorded = Recorded("t-1", 3, START, event)
        assert codec.event_from_proto(codec.event_to_proto(recorded)) == recorded


def test_the_inputs_and_hands_survive_the_stored_json() -> None:
    record = TournamentRecord(
        "t-1",
        "key",
        _poker(PokerTerms("scheduled", levels=LEVELS)),
        poker_inputs=(
            Start(("a", "b", "c"), 100),
            HandDone(1, (("a", 10), ("b", 20)), (("a", 30), ("b", 0)), 160),
            Tick(400),
            LateEntry("b", 420),
        ),
        hands=(HostedHand("t-1:hand-3-1", 1, (("c", 500), ("a", 30)), LEVELS.levels[1], "x"),),
    )
    assert poker_from_json(poker_to_json(record)) == (record.poker_inputs, record.hands)


def test_a_hand_with_a_dead_small_blind_survives_the_stored_json() -> None:
    """Stored as a sixth item, only when set: a hand stored by an earlier build (five
    items) reads as one with a small blind."""
    hand = HostedHand("t-1:hand-9-1", 1, (("c", 500), ("a", 30), ("b", 70)), LEVELS.levels[0])
    dead = replace(hand, dead_small_blind=True)
    record = TournamentRecord("t-1", "key", _poker(PokerTerms("sit_and_go", levels=LEVELS)))
    stored = json.loads(poker_to_json(replace(record, hands=(hand, dead))))
    assert [len(h) for h in stored["hands"]] == [5, 6]
    assert poker_from_json(json.dumps(stored))[1] == (hand, dead)


@pytest.mark.parametrize(
    ("settings", "reason"),
    [
        (_poker(PokerTerms("scheduled", preset="glacial")), "unknown_structure"),
        (_poker(PokerTerms("scheduled", levels=LEVELS), variant="gin"), "invalid_settings"),
        (_poker(PokerTerms("scheduled", levels=LEVELS), table_size=10), "invalid_settings"),
        (_poker(PokerTerms("spin", levels=LEVELS), payouts=()), "invalid_tournament"),
        (_poker(PokerTerms("sit_and_go", levels=LEVELS, max_reentries=1)), "invalid_tournament"),
        (_poker(PokerTerms("scheduled", levels=LEVELS, bots_allowed=True)), "invalid_tournament"),
        (replace(sample_settings(), poker=PokerTerms("spin", preset="hyper")), "invalid_settings"),
    ],
)
def test_malformed_poker_settings_are_invalid_arguments(settings: Settings, reason: str) -> None:
    with pytest.raises(RuleBroken) as info:
        settings.check()
    assert (status_name(info.value), info.value.reason) == ("invalid_argument", reason)


def test_a_poker_tournament_without_a_blind_structure_is_refused_when_read() -> None:
    message = codec.settings_to_proto(_poker(PokerTerms("scheduled", levels=LEVELS)))
    message.poker.ClearField("levels")
    with pytest.raises(RuleBroken, match="blind structure") as info:
        codec.settings_from_proto(message)
    assert status_name(info.value) == "invalid_argument"
    explicit = pb.BlindLevels(levels=[pb.BlindLevel(small_blind=20, big_blind=10, minutes=1)])
    message.poker.levels.CopyFrom(explicit)
    with pytest.raises(RuleBroken) as info:
        codec.settings_from_proto(message)
    assert info.value.reason == "invalid_structure"
