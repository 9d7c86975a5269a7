"""The record's seats kept from hand to hand (`poker_play.seats_after`) are the core's
tables' seats after every step of a multi-table tournament: hands that move nobody,
balancing moves, broken tables, busts and breaks."""

from __future__ import annotations

import random
from itertools import pairwise

import pytest

from croupier.tournament.core.poker_tournament import start
from croupier.tournament.service.model import SeatAt
from croupier.tournament.service.poker_play import all_seats, seats_after
from tests.unit.tournament.poker_play import SEED, config, names, run_to_end


@pytest.mark.parametrize("seed", range(5))
def test_the_seats_kept_from_step_to_step_are_the_cores_after_every_step(seed: int) -> None:
    first = start(config(players=27, table_size=9), names(27), SEED, 0)
    steps = run_to_end(first.state, first, random.Random(seed))
    seats = all_seats(first.state)
    moved = 0
    for before, after in pairwise(steps):
        kept = seats_after(seats, before.state, after.state)
        assert kept == all_seats(after.state)
        moved += kept is not seats
        seats = kept
    assert moved  # some steps moved or busted players: not only the unchanged path ran


def test_seats_that_do_not_follow_the_state_before_are_all_rebuilt() -> None:
    first = start(config(players=27, table_size=9), names(27), SEED, 0)
    stale = (SeatAt(1, 1, "somebody"),)
    assert seats_after(stale, first.state, first.state) == all_seats(first.state)
    assert seats_after(stale, None, first.state) == all_seats(first.state)
