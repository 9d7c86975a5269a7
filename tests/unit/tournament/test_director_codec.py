"""The director's protobuf: settings and events survive a round trip (the PostgreSQL
adapter stores them encoded), and a proto without the winner-risk flag means on (OQ 9)."""

from __future__ import annotations

from datetime import UTC, datetime

from croupier.tournament import codec
from croupier.tournament.service.events import (
    Cancelled,
    Created,
    Event,
    Finished,
    LevelRaised,
    PlayerEliminated,
    PlayerRebought,
    Recorded,
    Registered,
    RoundEnded,
    RoundHosted,
    RoundStarted,
    Started,
    Unregistered,
    Voided,
)
from croupier.tournament.service.model import SeatAt
from tests.unit.tournament.director_sample import fixed_seed, sample_settings

AT = datetime(2026, 12, 24, 18, 0, 1, tzinfo=UTC)


def test_settings_round_trip() -> None:
    for settings in (sample_settings(), sample_settings(rebuys=None, winner_risk_limit=False)):
        assert codec.settings_from_proto(codec.settings_to_proto(settings)) == settings


def test_oq_9_an_absent_winner_risk_flag_means_on() -> None:
    message = codec.settings_to_proto(sample_settings())
    message.ClearField("winner_risk_limit")
    assert codec.settings_from_proto(message).winner_risk_limit is True


def test_events_round_trip_and_their_envelope_is_keyed_by_tournament_and_sequence() -> None:
    events: list[Event] = [
        Created(sample_settings()),
        Registered("a", "t-1:a:entry-1"),
        Unregistered("a"),
        Started((SeatAt(1, 2, "a"), SeatAt(1, 4, "b")), fixed_seed(), 1_500),
        Cancelled("below_min_players", ("a", "b")),
        Voided("crash"),
        RoundStarted("t-1/round-1", ("a", "b"), (10, 5), 10, 2, final_table=True),
        RoundHosted("t-1/round-1", "table-9"),
        RoundEnded("t-1/round-1", "a", 15, (("b", 40),), (("a", 3), ("b", 1))),
        RoundEnded("t-1/round-2", "", 0, (), ()),
        LevelRaised(2, ("a", "b")),
        PlayerEliminated("b", AT),
        PlayerEliminated("c", None),
        PlayerRebought("b", 1),
        Finished("a", (("a", 2_400), ("b", 600))),
    ]
    for sequence, event in enumerate(events, start=1):
        recorded = Recorded("t-1", sequence, AT, event)
        assert codec.event_from_proto(codec.event_to_proto(recorded)) == recorded
        envelope = codec.envelope(recorded)
        assert (envelope.subject, envelope.sequence) == ("t-1", sequence)
        assert envelope.id == codec.envelope(recorded).id
