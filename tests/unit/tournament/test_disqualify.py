"""Rule 49: an operator disqualifies a player (breach of the chat rules or terms of use):
out at once for good, ranked last, no prize, no rebuy; chips conserved; the last player
left wins. The core (`Disqualify`), its stored notation, and the director's call."""

from __future__ import annotations

import pytest

from croupier.tournament.conformance import action_to_json, read_action
from croupier.tournament.core.actions import (
    Disqualify,
    PlayerDisqualified,
    TournamentFinished,
)
from croupier.tournament.core.errors import NotAllowed, NotFound, Refused
from croupier.tournament.core.ranking import Place, prizes, ranking
from croupier.tournament.core.standings import apply
from croupier.tournament.core.state import can_rebuy, players_in

from .play import begin, chips, finish, rebuy, run, tournament


def test_rule_49_a_disqualified_player_is_out_for_good_and_ranked_last() -> None:
    state = tournament(("ann", "bob", "cat"), rebuys=(3, 9))
    state, events = apply(state, Disqualify("bob"))
    assert events == (PlayerDisqualified("bob"),)
    assert players_in(state) == ("ann", "cat") and state.eliminated == ("bob",)
    assert ranking(state)[-1] == Place(3, ("bob",))
    assert not can_rebuy(state, "bob")
    with pytest.raises(NotAllowed) as refused:
        apply(state, rebuy("bob"))
    assert refused.value.reason == "disqualified"
    assert sum(chips(state).values()) == 3 * 1000  # his chips stay with him, out of play


def test_rule_49_the_last_player_left_after_a_disqualification_wins() -> None:
    state, events = apply(tournament(("ann", "bob")), Disqualify("bob"))
    assert events == (PlayerDisqualified("bob"), TournamentFinished("ann"))
    assert state.finished and ranking(state) == (Place(1, ("ann",)), Place(2, ("bob",)))


def test_rule_49_a_disqualified_player_wins_no_prize_the_winner_takes_it() -> None:
    # Three places paid: bob, disqualified, would have been 3rd; his 200 goes to the winner.
    state = tournament(("ann", "bob", "cat"), start=100, prizes=(500, 300, 200))
    state = run(state, Disqualify("bob"), begin("r1", "ann", "cat"), finish("r1", "ann", cat=100))
    assert state.finished
    assert prizes(state) == {"ann": 700, "bob": 0, "cat": 300}


def test_rule_49_a_round_he_plays_settles_as_played_and_he_stays_out() -> None:
    state = tournament(("ann", "bob", "cat"), start=100)
    state = run(state, begin("r1", "ann", "bob"), Disqualify("bob"))
    state = run(state, finish("r1", "bob", ann=5))  # he wins the round he was in
    assert state.entrants["bob"].out is not None and state.eliminated == ("bob",)
    assert players_in(state) == ("ann", "cat")
    assert sum(chips(state).values()) == 3 * 100  # every chip accounted for
    assert ranking(state)[-1] == Place(3, ("bob",))


@pytest.mark.parametrize(
    ("name", "kind", "reason"),
    [("bob", NotAllowed, "already_disqualified"), ("zed", NotFound, "unknown_player")],
)
def test_rule_49_disqualifying_twice_or_an_unknown_player_is_refused(
    name: str, kind: type[Refused], reason: str
) -> None:
    state = run(tournament(), Disqualify("bob"))
    with pytest.raises(kind) as refused:
        apply(state, Disqualify(name))
    assert refused.value.reason == reason


def test_a_disqualification_is_stored_in_the_replayed_notation() -> None:
    stored = action_to_json(Disqualify("bob"))
    assert stored == {"action": "disqualify", "player": "bob"}
    assert read_action(stored, "actions[0]") == Disqualify("bob")
