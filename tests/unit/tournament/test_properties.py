"""Properties over random valid tournaments: chips are conserved, no stack goes negative,
the tournament ends with one player holding every chip (rule 2), the ranking lists every
player once, prizes add up (rules 40, 47, OQ 18), and without rebuys an eliminated
player's place never worsens (rule 39)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from croupier.game.limits import MAX_AMOUNT
from croupier.tournament.core.actions import (
    Action,
    CancelRound,
    RaiseLevel,
    Rebuy,
    StartRound,
    end_round,
)
from croupier.tournament.core.options import Level, Options, RebuyPolicy
from croupier.tournament.core.ranking import prizes, ranking
from croupier.tournament.core.standings import apply
from croupier.tournament.core.state import (
    Tournament,
    can_rebuy,
    idle_players,
    new_tournament,
    players_in,
)

NAMES = ("p0", "p1", "p2", "p3", "p4", "p5")


@st.composite
def tournaments(draw: st.DrawFn) -> Tournament:
    levels = draw(st.lists(st.tuples(st.integers(0, 150), st.integers(0, 5)), max_size=2))
    # The last level has a ratio ≥ 1 so that the finishing phase can always end it.
    levels.append((draw(st.integers(0, 150)), draw(st.integers(1, 5))))
    policy = draw(st.none() | st.builds(RebuyPolicy, st.integers(0, 3), st.integers(1, 4)))
    options = Options(
        starting_chips=draw(st.integers(1, 500)),
        table_size=draw(st.integers(2, 4)),
        levels=tuple(Level(fee, ratio) for fee, ratio in levels),
        rebuys=policy,
        winner_risk_limit=draw(st.booleans()),
        prizes=tuple(draw(st.lists(st.integers(0, 1000), max_size=6))),
    )
    return new_tournament(options, NAMES[: draw(st.integers(2, len(NAMES)))])


def _random_action(data: st.DataObject, state: Tournament, number: int) -> Action:
    idle = idle_players(state)
    kinds = ["level"]
    if len(idle) >= 2:
        kinds += ["start", "start"]
    if state.running:
        kinds += ["end", "end", "end", "cancel"]
    rebuyers = [name for name in state.entrants if can_rebuy(state, name)]
    if rebuyers:
        kinds.append("rebuy")
    kind = data.draw(st.sampled_from(kinds))
    if kind == "start":
        size = data.draw(st.integers(2, min(len(idle), state.options.table_size)))
        return StartRound(f"r{number}", tuple(data.draw(st.permutations(idle))[:size]))
    if kind in ("end", "cancel"):
        running = data.draw(st.sampled_from(state.running))
        if kind == "cancel":
            return CancelRound(running.round_id)
        winner = data.draw(st.sampled_from(running.table))
        losers = {p: data.draw(st.integers(0, 400)) for p in running.table if p != winner}
        return end_round(running.round_id, winner, losers)
    if kind == "rebuy":
        return Rebuy(data.draw(st.sampled_from(rebuyers)))
    return RaiseLevel()


def _finish(state: Tournament) -> Tournament:
    """Play on until one player is left: the biggest stack beats every other (rule 2)."""
    for running in state.running:
        state, _ = apply(state, CancelRound(running.round_id))
    for _ in state.options.levels:
        state, _ = apply(state, RaiseLevel())  # past the listed levels: ratio ≥ 1
    number = 0
    while not state.finished:
        number += 1
        still_in = players_in(state)
        winner = max(still_in, key=lambda name: state.entrants[name].chips)
        others = [name for name in still_in if name != winner]
        table = (winner, *others[: state.options.table_size - 1])
        state, _ = apply(state, StartRound(f"end{number}", table))
        losers = {name: MAX_AMOUNT for name in table[1:]}
        state, _ = apply(state, end_round(f"end{number}", winner, losers))
        assert number <= len(NAMES)
    return state


def _check(state: Tournament, places_before: dict[str, int]) -> dict[str, int]:
    """Check every property of `state`; return the places of the players out in it."""
    start = state.options.starting_chips
    players = state.entrants.values()
    credited = sum(p.rebuys - p.pending for p in players)
    in_pots = sum(sum(r.paid) for r in state.running)
    assert sum(p.chips for p in players) + in_pots == (len(players) + credited) * start
    assert all(p.chips >= 0 for p in players)
    places = {name: entry.place for entry in ranking(state) for name in entry.players}
    assert sorted(places) == sorted(state.entrants)
    if state.options.rebuys is None:  # rule 39
        for name, before in places_before.items():
            assert places[name] <= before, name
    if state.finished:
        holders = [p.name for p in players if p.chips]
        assert holders == list(players_in(state)) and len(holders) == 1
        assert state.entrants[holders[0]].chips == (len(players) + credited) * start
        assert state.running == ()
        won = prizes(state)
        assert won is not None and sum(won.values()) == sum(state.options.prizes[: len(players)])
    return {name: places[name] for name in state.eliminated}


@settings(max_examples=300, deadline=None)
@given(tournaments(), st.data())
def test_random_tournaments_conserve_chips_and_end_with_one_player_holding_all(
    state: Tournament, data: st.DataObject
) -> None:
    places = _check(state, {})
    for number in range(data.draw(st.integers(0, 40))):
        if state.finished:
            break
        state, _ = apply(state, _random_action(data, state, number))
        places = _check(state, places)
    if not state.finished:
        state = _finish(state)
        _check(state, places)
    assert state.finished
