"""The free-seat index: per waiting list, the fullest public table with a seat left, the
seats handed out counted until their hold is saved, a newer version of a table only, and
closed, full and private tables never handed out."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from croupier.lobby.core.free_seats import FreeSeats, list_key, seat_count
from croupier.lobby.core.seats import LobbyTable
from croupier.lobby.core.terms import terms_of

NOW = datetime(2026, 1, 1, tzinfo=UTC)
HOLD = timedelta(seconds=30)
JOKER = list_key(terms_of("joker", {}))


def joker(table_id: str, seated: int = 0, **fields: object) -> LobbyTable:
    table = LobbyTable(table_id, "{}", terms_of("joker", {}), owner="", **fields)  # type: ignore[arg-type]
    for n in range(seated):
        table = table.reserve(f"{table_id}-p{n}", NOW, HOLD)[0].confirm(f"{table_id}-p{n}")
    return table


def poker(table_id: str, big_blind: int) -> LobbyTable:
    terms = terms_of("poker", {"variant": "nlhe", "big_blind": big_blind, "seats": 6})
    return LobbyTable(table_id, "{}", terms, owner="")


def test_the_fullest_table_of_the_list_is_handed_out_first_then_the_oldest() -> None:
    seats = FreeSeats()
    seats.note(seat_count(joker("empty"), 1))
    seats.note(seat_count(joker("three", seated=3), 1))
    seats.note(seat_count(joker("two-old", seated=2), 1))
    seats.note(seat_count(joker("two-new", seated=2), 1))
    assert seats.claim(JOKER) == "three"
    assert [seats.claim(JOKER) for _ in range(4)] == ["two-old", "two-old", "two-new", "two-new"]
    assert [seats.claim(JOKER) for _ in range(4)] == ["empty"] * 4
    assert seats.claim(JOKER) is None and not seats.has_seat(JOKER)


def test_a_seat_handed_out_is_not_handed_out_again_until_it_is_given_back() -> None:
    seats = FreeSeats()
    seats.note(seat_count(joker("t", seated=3), 1))
    assert seats.claim(JOKER) == "t"
    assert seats.claim(JOKER) is None  # a join at the same time gets another table
    seats.unclaim("t")  # that join failed: the seat is free again
    assert seats.claim(JOKER) == "t"


def test_the_saved_hold_takes_the_place_of_the_claim() -> None:
    seats = FreeSeats()
    table = joker("t", seated=2)
    seats.note(seat_count(table, 1))
    assert seats.claim(JOKER) == "t"
    held, _ = table.reserve("ann", NOW, HOLD)
    seats.note(seat_count(held, 2))
    seats.unclaim("t")
    assert seats.claim(JOKER) == "t" and seats.claim(JOKER) is None


def test_only_a_newer_version_of_a_table_changes_it() -> None:
    seats = FreeSeats()
    seats.note(seat_count(joker("t", seated=4), 5))
    seats.note(seat_count(joker("t"), 4))  # an older read, arriving late
    assert seats.claim(JOKER) is None
    seats.note(seat_count(joker("t", seated=3), 6))
    assert seats.claim(JOKER) == "t"


def test_closed_full_and_private_tables_are_never_handed_out() -> None:
    seats = FreeSeats()
    seats.note(seat_count(joker("private", private=True), 1))
    seats.note(seat_count(joker("full", seated=4), 1))
    seats.note(seat_count(joker("closing"), 1))
    seats.note(seat_count(joker("closing").close(), 2))
    seats.note(seat_count(joker("closed", closed=True), 1))
    assert seats.claim(JOKER) is None and len(seats) == 2  # the closed ones forgotten


def test_each_list_hands_out_its_own_tables_only() -> None:
    seats = FreeSeats()
    seats.note(seat_count(poker("p2", 2), 1))
    seats.note(seat_count(poker("p10", 10), 1))
    assert seats.lists_with_seats() == [
        list_key(poker("p2", 2).terms),
        list_key(poker("p10", 10).terms),
    ]
    assert seats.claim(list_key(poker("x", 10).terms)) == "p10"
    assert seats.claim(JOKER) is None


def test_tables_the_player_sits_at_are_passed_over_and_kept() -> None:
    seats = FreeSeats()
    seats.note(seat_count(joker("his", seated=3), 1))
    seats.note(seat_count(joker("other"), 1))
    assert seats.claim(JOKER, passed={"his"}) == "other"
    assert seats.claim(JOKER) == "his"


def test_many_changes_to_few_tables_keep_the_index_small_and_right() -> None:
    seats = FreeSeats()
    tables = [joker(f"t{n}") for n in range(3)]
    for version in range(1, 500):
        for table in tables:
            seats.note(seat_count(replace(table, seated=((0, f"p{version % 4}"),)), version))
    heap = seats._heaps[JOKER]  # its size is the point: stale entries are dropped
    assert len(heap) <= 64 or len(heap) <= 2 * len(tables)
    assert (
        sorted(seats.claim(JOKER) or "" for _ in range(9)) == ["t0"] * 3 + ["t1"] * 3 + ["t2"] * 3
    )
    assert seats.claim(JOKER) is None
