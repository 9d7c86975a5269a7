"""The matchmaker's rules, driven by hand with `process(now)` (no ticker)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from croupier.lobby.core.errors import InvalidInput
from croupier.lobby.core.matchmaker import MatchmakerSettings, Ticket, counts_for, process
from croupier.lobby.core.terms import terms_of

T0 = datetime(2026, 1, 1, tzinfo=UTC)
SETTINGS = MatchmakerSettings(widen_after=timedelta(seconds=10), ttl=timedelta(minutes=5))


def ticket(n: int, player: str, game: str = "backgammon", low: int = 100, high: int = 100,
           seconds: int = 0, **options: object) -> Ticket:  # fmt: skip
    terms = terms_of(game, {"mode": "single", **options} if game == "backgammon" else options)
    min_count, max_count = counts_for(terms, low, high)
    return Ticket(
        f"t{n:03d}", player, game, terms.shape, terms.currency, low, high, min_count,
        max_count, T0 + timedelta(seconds=seconds),
    )  # fmt: skip


def test_two_tickets_for_the_same_backgammon_stake_are_matched_a_third_waits() -> None:
    tickets = [ticket(1, "ann"), ticket(2, "bob", seconds=1), ticket(3, "cid", seconds=2)]
    processed = process(tickets, T0 + timedelta(seconds=3), SETTINGS)
    (match,) = processed.matches
    assert [t.player for t in match.tickets] == ["ann", "bob"] and match.stake == 100
    assert not processed.expired


def test_another_stake_is_not_matched() -> None:
    tickets = [ticket(1, "ann"), ticket(2, "dan", low=500, high=500)]
    assert process(tickets, T0 + timedelta(minutes=1), SETTINGS).matches == ()


def test_overlapping_ranges_play_the_lowest_stake_both_accept() -> None:
    tickets = [ticket(1, "ann", low=50, high=200), ticket(2, "bob", low=100, high=400)]
    (match,) = process(tickets, T0, SETTINGS).matches
    assert match.stake == 100


def test_one_account_is_never_matched_with_itself() -> None:
    assert process([ticket(1, "ann"), ticket(2, "ann")], T0, SETTINGS).matches == ()


def test_other_options_are_another_game() -> None:
    tickets = [ticket(1, "ann", max_win=1000), ticket(2, "bob")]
    assert process(tickets, T0, SETTINGS).matches == ()


def test_the_count_bound_widens_after_waiting() -> None:
    tickets = [ticket(1, "ann", "poker", seats=6), ticket(2, "bob", "poker", seats=6)]
    assert process(tickets, T0 + timedelta(seconds=9), SETTINGS).matches == ()
    (match,) = process(tickets, T0 + timedelta(seconds=10), SETTINGS).matches
    assert len(match.tickets) == 2


def test_a_full_group_is_matched_at_once() -> None:
    tickets = [ticket(n, f"p{n}", "joker") for n in range(5)]
    (match,) = process(tickets, T0, SETTINGS).matches
    assert [t.player for t in match.tickets] == ["p0", "p1", "p2", "p3"]


def test_old_tickets_expire_and_are_not_matched() -> None:
    tickets = [ticket(1, "ann"), ticket(2, "bob", seconds=400)]
    processed = process(tickets, T0 + timedelta(minutes=5), SETTINGS)
    assert [t.player for t in processed.expired] == ["ann"] and processed.matches == ()


def test_the_oldest_ticket_is_served_first() -> None:
    tickets = [ticket(3, "cid", seconds=2), ticket(2, "bob", seconds=1), ticket(1, "ann")]
    (match,) = process(tickets, T0 + timedelta(seconds=3), SETTINGS).matches
    assert [t.player for t in match.tickets] == ["ann", "bob"]


def test_an_inverted_stake_range_is_malformed() -> None:
    with pytest.raises(InvalidInput) as refused:
        ticket(1, "ann", low=200, high=100)
    assert refused.value.reason == "stake_range_inverted"
