"""Ratings: the FIBS formula against worked examples, openskill for Joker, both moved once
per result by the host's events, and the matchmaker's rating range and its rule of not
pairing the same two accounts again while others wait."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest

from croupier.game.events import Event
from croupier.game.limits import OutOfBounds
from croupier.lobby.core.matchmaker import MatchmakerSettings, Ticket, counts_for, process
from croupier.lobby.core.ratings import Rating, RatingRange, fibs_favourite_wins, fibs_match
from croupier.lobby.core.terms import terms_of
from croupier.lobby.entrypoints.table_events import TableEvents
from croupier.lobby.service.records import TicketStatus
from croupier.table.adapters.sink import public_events
from tests.unit.lobby.lobby_setup import Lobby, lobby

T0 = datetime(2026, 1, 1, tzinfo=UTC)
SETTINGS = MatchmakerSettings(widen_after=timedelta(seconds=10), ttl=timedelta(minutes=5))
SEASONED = 400  # FIBS experience from which K is 1


# ---- the FIBS formula ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("difference", "length", "favourite"),
    # The "batting average the favourite must achieve to maintain his rating" table
    # (rec.games.backgammon, the FIBS formula's own P_upset): 1 - P_upset.
    [(0, 1, 0.500), (100, 1, 0.529), (100, 7, 0.576), (200, 5, 0.626), (300, 3, 0.645),
     (400, 11, 0.822), (700, 3, 0.802), (600, 9, 0.888)],
)  # fmt: skip
def test_fibs_probability_of_the_favourite_matches_the_published_table(
    difference: int, length: int, favourite: float
) -> None:
    assert round(fibs_favourite_wins(difference, length), 3) == favourite
    assert fibs_favourite_wins(-difference, length) == fibs_favourite_wins(difference, length)


def test_fibs_equal_seasoned_players_one_point_match_move_two_points() -> None:
    # D = 0: P_upset = 1/2; the change is 4 * K * sqrt(1) * 1/2 with K = 1.
    winner, loser = fibs_match(Rating(1500, SEASONED), Rating(1500, SEASONED), 1)
    assert (winner.value, loser.value) == (1502.0, 1498.0)
    assert (winner.experience, loser.experience) == (SEASONED + 1, SEASONED + 1)


def test_fibs_new_players_move_five_times_faster() -> None:
    # Experience 0: K = max(1, 5 - 0/100) = 5, so 4 * 5 * sqrt(1) * 1/2 = 10.
    winner, loser = fibs_match(Rating(), Rating(), 1)
    assert (winner.value, loser.value) == (1510.0, 1490.0)


def test_fibs_worked_example_1850_against_1750_over_seven_points() -> None:
    # The FIBS help's own pair: D = 100; n = 7; P_upset = 1 / (10^(100 * sqrt 7 / 2000) + 1)
    # = 0.42443; the favourite who wins gains 4 * sqrt 7 * 0.42443 = 4.4918, the underdog
    # who wins gains 4 * sqrt 7 * (1 - 0.42443) = 6.0916.
    favourite, underdog = Rating(1850, SEASONED), Rating(1750, SEASONED)
    won, lost = fibs_match(favourite, underdog, 7)
    assert won.value == pytest.approx(1854.4918, abs=1e-3)
    assert lost.value == pytest.approx(1745.5082, abs=1e-3)
    won, lost = fibs_match(underdog, favourite, 7)
    assert won.value == pytest.approx(1756.0916, abs=1e-3)
    assert lost.value == pytest.approx(1843.9084, abs=1e-3)
    assert won.experience == SEASONED + 7


def test_fibs_each_player_has_his_own_experience_factor() -> None:
    # The winner's K = 5 - 250/100 = 2.5, the loser's is 1: 4 * 2.5 * 1/2 = 5 and 4 * 1/2 = 2.
    winner, loser = fibs_match(Rating(1500, 250), Rating(1500, 1000), 1)
    assert (winner.value, loser.value) == (1505.0, 1498.0)


def test_fibs_a_match_is_at_least_one_point() -> None:
    with pytest.raises(OutOfBounds):
        fibs_match(Rating(), Rating(), 0)


def test_a_rating_range_is_ordered_and_finite() -> None:
    with pytest.raises(OutOfBounds):
        RatingRange(1600, 1400)
    with pytest.raises(OutOfBounds):
        RatingRange(0, math.inf)
    assert RatingRange(1400, 1600).accepts(1600) and not RatingRange(1400, 1600).accepts(1601)


# ---- the matchmaker ------------------------------------------------------------------


def ticket(
    n: int,
    player: str,
    rating: float = 1500,
    rating_range: RatingRange | None = None,
    avoid: frozenset[str] = frozenset(),
) -> Ticket:
    terms = terms_of("backgammon", {"mode": "single"})
    low, high = counts_for(terms, 100, 100)
    return Ticket(
        f"t{n:03d}", player, "backgammon", terms.shape, terms.currency, 100, 100, low, high,
        T0 + timedelta(seconds=n), rating, rating_range, avoid,
    )  # fmt: skip


def test_a_rating_range_keeps_out_the_players_rated_outside_it() -> None:
    picky = ticket(1, "ann", 1700, RatingRange(1600, 1800))
    tickets = [picky, ticket(2, "bob", 1500), ticket(3, "cid", 1650)]
    (match,) = process(tickets, T0 + timedelta(seconds=5), SETTINGS).matches
    assert [t.player for t in match.tickets] == ["ann", "cid"]


def test_a_rating_range_is_kept_both_ways() -> None:
    # ann (oldest, no range) would take bob, but bob's range leaves ann out.
    tickets = [ticket(1, "ann", 1500), ticket(2, "bob", 1420, RatingRange(1300, 1450))]
    assert process(tickets, T0 + timedelta(seconds=5), SETTINGS).matches == ()
    tickets = [ticket(1, "ann", 1500), ticket(2, "bob", 1420, RatingRange(1490, 1510))]
    assert len(process(tickets, T0 + timedelta(seconds=5), SETTINGS).matches) == 1


def test_the_same_two_accounts_are_not_paired_again_while_another_waits() -> None:
    tickets = [
        ticket(1, "ann", avoid=frozenset({"bob"})),
        ticket(2, "bob", avoid=frozenset({"ann"})),
        ticket(3, "cid"),
    ]
    (match,) = process(tickets, T0 + timedelta(seconds=5), SETTINGS).matches
    assert [t.player for t in match.tickets] == ["ann", "cid"]


def test_the_same_two_accounts_are_paired_again_when_nobody_else_waits() -> None:
    tickets = [ticket(1, "ann", avoid=frozenset({"bob"})), ticket(2, "bob")]
    (match,) = process(tickets, T0 + timedelta(seconds=5), SETTINGS).matches
    assert [t.player for t in match.tickets] == ["ann", "bob"]


# ---- ratings from the host's events ---------------------------------------------------


async def _table_of(setup: Lobby, game: str, options: dict[str, object], *players: str) -> str:
    opened = await setup.tables.open(player=players[0], request_key="k", game=game, options=options)
    table_id = opened.table.table_id
    for player in players[1:]:
        await setup.tables.join(table_id, player, 0)
    return table_id


async def _ended(
    setup: Lobby, table_id: str, game: str, kind: str, data: dict[str, object]
) -> None:
    """What the host publishes when a game or match ends, handled by the lobby."""
    ((_, envelope),) = public_events(table_id, game, 7, [Event(kind, data)])
    await TableEvents(setup.tables, setup.ratings).handle(envelope)


async def test_a_backgammon_game_moves_both_ratings_once_by_fibs() -> None:
    async with lobby() as setup:
        table_id = await _table_of(setup, "backgammon", {"mode": "single"}, "ann", "bob")
        result = {"winner": "bob", "result": "single", "cube": 1, "points": 1, "how": "bear_off"}
        await _ended(setup, table_id, "backgammon", "game_ended", result)
        await _ended(setup, table_id, "backgammon", "game_ended", result)  # delivered twice
        bob = await setup.matchmaking.rating("bob", "backgammon")
        ann = await setup.matchmaking.rating("ann", "backgammon")
        assert (bob.value, bob.experience, ann.value, ann.experience) == (1510, 1, 1490, 1)


async def test_backgammon_match_play_is_rated_by_the_match_not_its_games() -> None:
    async with lobby() as setup:
        options = {"mode": "match", "points": 5}
        table_id = await _table_of(setup, "backgammon", options, "ann", "bob")
        await _ended(setup, table_id, "backgammon", "game_ended", {"winner": "ann"})
        assert (await setup.matchmaking.rating("ann", "backgammon")).value == 1500
        await _ended(setup, table_id, "backgammon", "match_ended", {"winner": "ann"})
        ann = await setup.matchmaking.rating("ann", "backgammon")
        # 4 * K * sqrt(5) * 1/2 with K = 5.
        assert ann.value == pytest.approx(1500 + 10 * math.sqrt(5))
        assert ann.experience == 5


async def test_a_joker_game_is_rated_by_openskill_from_the_totals() -> None:
    async with lobby() as setup:
        players = ("ann", "bob", "cid", "dan")
        table_id = await _table_of(setup, "joker", {}, *players)
        totals = {"ann": 120, "bob": 300, "cid": -50, "dan": 80}
        await _ended(setup, table_id, "joker", "game_ended", {"totals": totals})
        rated = {p: await setup.matchmaking.rating(p, "joker") for p in players}
        assert sorted(players, key=lambda p: -rated[p].value) == ["bob", "ann", "dan", "cid"]
        assert all(r.experience == 1 for r in rated.values())
        unrated = await setup.matchmaking.rating("eve", "joker")
        assert rated["cid"].value < unrated.value == 0 < rated["bob"].value


async def test_results_of_tables_the_lobby_did_not_open_rate_nobody() -> None:
    async with lobby() as setup:
        await _ended(setup, "elsewhere", "backgammon", "game_ended", {"winner": "ann"})
        assert setup.repository.player_ratings == {} and setup.repository.rated == set()


async def test_tickets_carry_the_rating_and_the_last_match_is_not_repeated() -> None:
    async with lobby() as setup:

        async def find(player: str, key: str) -> str:
            record = await setup.matchmaking.find(
                player=player,
                request_key=key,
                game="backgammon",
                options={"mode": "single"},
                min_stake=0,
                max_stake=0,
            )
            setup.clock.step(1)  # the tickets' order is the order they were asked in
            return record.ticket.ticket_id

        await find("ann", "1")
        await find("bob", "1")
        (first_table,) = await setup.matchmaking.process()
        await _ended(setup, first_table, "backgammon", "game_ended", {"winner": "ann"})
        again = [await find(p, "2") for p in ("bob", "ann", "cid")]
        tickets = [await setup.repository.ticket(t) for t in again]
        assert [t.ticket.rating for t in tickets if t] == [1490, 1510, 1500]
        await setup.matchmaking.process()
        placed = [await setup.repository.ticket(t) for t in again]
        assert [t.status for t in placed if t] == [
            TicketStatus.SEATED,
            TicketStatus.WAITING,
            TicketStatus.SEATED,
        ]
