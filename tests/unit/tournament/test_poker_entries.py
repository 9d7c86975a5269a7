"""Who may enter a poker tournament, and when (issue 25, rules 52, 54, 59): registration
before the start, late registration closing at its level, re-entry allowed or refused,
each refusal with its reason and the state unchanged."""

from __future__ import annotations

from typing import Any

import pytest

from croupier.tournament.core.errors import InvalidInput, NotAllowed
from croupier.tournament.core.poker_decisions import Deal, Entered
from croupier.tournament.core.poker_entries import (
    enter,
    entry_refusal,
    is_full,
    late_registration_open,
    registration_refusal,
)
from croupier.tournament.core.poker_tournament import players_left, standings, start
from croupier.tournament.core.seating import between
from tests.unit.tournament.poker_play import (
    SEED,
    STACK,
    bust,
    config,
    names,
    of_type,
    report,
    structure_with_break,
)

LATE: dict[str, Any] = {
    "structure": structure_with_break(),
    "late_registration_level": 2,
    "players": 20,
}


def reason(refusal: object) -> str | None:
    return getattr(refusal, "reason", None)


def test_rule_52_registration_fills_the_seats_then_refuses() -> None:
    terms = config("sit_and_go", players=3, table_size=6)
    assert reason(registration_refusal(terms, names(2), "p3", 0)) is None
    assert not is_full(terms, names(2)) and is_full(terms, names(3))
    assert reason(registration_refusal(terms, names(3), "p4", 0)) == "tournament_full"
    assert reason(registration_refusal(terms, names(2), "p1", 0)) == "already_registered"


def test_rule_59_bots_register_only_where_the_tournament_allows_them() -> None:
    plain = config("sit_and_go", players=3, table_size=6)
    with_bots = config("sit_and_go", players=3, table_size=6, bots_allowed=True)
    assert reason(registration_refusal(plain, [], "bot1", 0, bot=True)) == "bots_not_allowed"
    assert reason(registration_refusal(with_bots, [], "bot1", 0, bot=True)) is None
    with pytest.raises(InvalidInput) as refused:
        config(bots_allowed=True)
    assert "Sit & Go or a Spin" in refused.value.message


def test_rule_54_registration_opens_at_its_announced_time() -> None:
    terms = config(registration_opens_at=100, starts_at=200)
    assert reason(registration_refusal(terms, [], "p1", 99)) == "registration_not_open"
    assert reason(registration_refusal(terms, [], "p1", 100)) is None


def test_tda_late_registration_closes_when_its_level_ends() -> None:
    state = start(config(**LATE), names(9), SEED, 1_000).state
    # Level 2 ends at 1,200 s of play; the break after it is closed already.
    for at, opened in ((0, True), (1_199, True), (1_200, False), (1_500, False)):
        assert late_registration_open(state, 1_000 + at) is opened
    assert entry_refusal(state, "late", 2_199) is None
    before = state
    with pytest.raises(NotAllowed) as refused:
        enter(state, "late", 2_200)
    assert refused.value.reason == "late_registration_closed"
    assert "level 2" in refused.value.message
    assert state == before


def test_tda_a_late_entry_gets_the_starting_stack_at_the_shortest_table() -> None:
    state = start(config(**LATE), names(9), SEED, 0).state
    state = bust(state, 2, 0, state.in_hand[2][0]).state
    step = enter(state, "late", 60)
    (entered,) = of_type(step.decisions, Entered)
    assert (entered.player, entered.table, entered.entry) == ("late", 2, 1)
    assert dict(step.state.tables[1].seats)[entered.seat] == "late"
    assert step.state.chips["late"] == STACK and players_left(step.state) == 9
    # Table 2 is in its next hand already: he is dealt in from the one after, unless he
    # sits between its button and small blind (TDA: he waits for the button to pass).
    assert "late" not in step.state.in_hand[2]
    (deal,) = of_type(report(step.state, 2, 90).decisions, Deal)
    waits = between(deal.blinds.button, entered.seat, deal.blinds.small_blind)
    assert deal.table == 2 and ("late" in deal.players) is not waits


def test_tda_a_late_entry_opens_a_table_when_every_seat_is_taken() -> None:
    state = start(config(**LATE), names(9), SEED, 0).state
    step = enter(state, "late", 60)
    (entered,) = of_type(step.decisions, Entered)
    assert entered.table == 4 and len(step.state.tables) == 4
    assert step.state.tables[3].players == ("late",)
    assert step.state.seated == (1, 2, 3, 4)


def test_tda_re_entry_is_allowed_for_a_player_out_up_to_the_limit() -> None:
    state = start(config(**LATE, max_entries=2), names(9), SEED, 0).state
    player = state.in_hand[1][0]
    assert reason(entry_refusal(state, player, 0)) == "still_playing"
    state = bust(state, 1, 0, player).state
    assert [p for place in standings(state) for p in place.players][-1] == player
    step = enter(state, player, 30)
    (entered,) = of_type(step.decisions, Entered)
    assert entered.entry == 2 and step.state.chips[player] == STACK
    assert not any(player in group for group in step.state.out)
    state = step.state
    while player not in state.in_hand[entered.table]:  # he waits for the button to pass
        state = report(state, entered.table, 60).state
    state = bust(state, entered.table, 60, player).state
    assert reason(entry_refusal(state, player, 90)) == "reentry_limit"


def test_tda_re_entry_is_refused_in_a_freezeout() -> None:
    state = start(config(**LATE), names(9), SEED, 0).state
    player = state.in_hand[1][0]
    state = bust(state, 1, 0, player).state
    before = state
    with pytest.raises(NotAllowed) as refused:
        enter(state, player, 30)
    assert refused.value.reason == "reentry_not_allowed"
    assert state == before


def test_late_entries_stop_at_max_players_and_after_the_end() -> None:
    terms: dict[str, Any] = {**LATE, "players": 9}
    state = start(config(**terms), names(9), SEED, 0).state
    assert reason(entry_refusal(state, "late", 0)) == "tournament_full"
    sit_and_go = start(config("sit_and_go", players=3, table_size=3), names(3), SEED, 0).state
    assert reason(entry_refusal(sit_and_go, "late", 0)) == "late_registration_closed"


def test_late_entry_terms_are_for_scheduled_tournaments_only() -> None:
    with pytest.raises(InvalidInput) as refused:
        config("sit_and_go", players=3, table_size=3, max_entries=2)
    assert refused.value.reason == "invalid_tournament"
