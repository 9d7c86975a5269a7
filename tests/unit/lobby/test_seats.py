"""Seats held and taken, private tables, the account policy and the terms a table is
listed by."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from croupier.game import Duplicate, Malformed, NotYours, RuleBroken
from croupier.lobby.core.errors import NotAllowed
from croupier.lobby.core.policy import AccountLimits, check_player, check_stake_allowed
from croupier.lobby.core.seats import LobbyTable
from croupier.lobby.core.terms import terms_of

NOW = datetime(2026, 1, 1, tzinfo=UTC)
HOLD = timedelta(seconds=30)


def backgammon(**fields: object) -> LobbyTable:
    options = {"mode": "single", "stake": 100}
    return LobbyTable("tbl", "{}", terms_of("backgammon", options), owner="ann", **fields)  # type: ignore[arg-type]


def test_joining_holds_the_lowest_free_seat_and_the_host_confirms_it() -> None:
    table, hold = backgammon().reserve("ann", NOW, HOLD)
    assert hold.seat == 0 and table.free_seats() == 1 and table.players() == ()
    table = table.confirm("ann")
    assert table.players() == ("ann",) and table.holds == ()


def test_a_refused_or_expired_hold_frees_the_seat() -> None:
    table, _ = backgammon().reserve("ann", NOW, HOLD)
    assert table.release("ann").free_seats() == 2
    still, released = table.expire(NOW + HOLD - timedelta(seconds=1))
    assert released == () and still.free_seats() == 1
    freed, released = table.expire(NOW + HOLD)
    assert released == ("ann",) and freed.free_seats() == 2


def test_joining_a_full_table_is_refused() -> None:
    table, _ = backgammon().reserve("ann", NOW, HOLD)
    table, _ = table.reserve("bob", NOW, HOLD)
    with pytest.raises(NotAllowed) as refused:
        table.reserve("cid", NOW, HOLD)
    assert refused.value.reason == "table_full"


def test_one_seat_per_account_per_table() -> None:
    table, _ = backgammon().reserve("ann", NOW, HOLD)
    with pytest.raises(Duplicate):
        table.reserve("ann", NOW, HOLD)
    with pytest.raises(Duplicate):
        table.confirm("ann").reserve("ann", NOW, HOLD)


def test_a_private_table_seats_only_its_owner_invitees_and_code_holders() -> None:
    table = backgammon(private=True, invited=frozenset({"bob"}), invite_code="c0de")
    with pytest.raises(NotYours):
        table.reserve("eve", NOW, HOLD)
    with pytest.raises(NotYours):
        table.reserve("eve", NOW, HOLD, invite_code="wrong")
    assert table.reserve("eve", NOW, HOLD, invite_code="c0de")[1].seat == 0
    assert table.reserve("bob", NOW, HOLD)[1].seat == 0
    assert table.invite("ann", ["eve"]).reserve("eve", NOW, HOLD)[1].seat == 0
    with pytest.raises(NotYours):
        table.invite("bob", ["eve"])


def test_the_host_events_free_a_seat_and_close_the_table() -> None:
    table = backgammon().reserve("ann", NOW, HOLD)[0].confirm("ann")
    assert table.left("ann").free_seats() == 2
    with pytest.raises(RuleBroken):
        table.close().reserve("bob", NOW, HOLD)


def test_terms_read_the_stake_of_each_game() -> None:
    assert terms_of("backgammon", {"stake": "250", "max_win": 1000}).stake == 250
    assert terms_of("poker", {"big_blind": 20, "seats": 6}).seats == 6
    assert terms_of("rummy", {"variant": "gin", "round_fee": 5}).stake == 5
    joker = terms_of("joker", {})
    assert (joker.stake, joker.seats, joker.currency) == (0, 4, "CHIP")


def test_an_unknown_game_or_a_negative_stake_is_malformed() -> None:
    with pytest.raises(Malformed) as unknown:
        terms_of("chess", {})
    assert unknown.value.reason == "unknown_game"
    with pytest.raises(Malformed):
        terms_of("backgammon", {"stake": "-5"})
    with pytest.raises(Malformed):
        terms_of("poker", {"seats": 12})


def test_stake_limits_and_self_exclusion() -> None:
    limits = AccountLimits(max_stakes=(("USD", 500),))
    check_stake_allowed("ann", limits, "USD", 500)
    check_stake_allowed("ann", limits, "EUR", 10_000)
    with pytest.raises(NotAllowed) as above:
        check_stake_allowed("ann", limits, "USD", 501)
    assert above.value.reason == "stake_above_limit"
    with pytest.raises(NotAllowed) as excluded:
        check_stake_allowed("ann", AccountLimits(self_excluded=True), "CHIP", 0)
    assert excluded.value.reason == "self_excluded"


def test_player_ids_are_checked() -> None:
    assert check_player("ann-1") == "ann-1"
    for bad in ("", "a" * 101, "ann bob", "ann\n"):
        with pytest.raises(Malformed):
            check_player(bad)
