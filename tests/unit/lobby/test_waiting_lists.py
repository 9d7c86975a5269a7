"""Cash-table waiting lists by stake: a player joins the list of a kind of table at a
stake, is seated in the order the list was joined when a seat frees at such a table (not
at another stake), and may leave the list. A join while a seat is free is a quick seat:
the free-seat index hands each join its own seat, the fullest table first, rebuilt from
the store after a restart and told of other replicas' changes."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

import pytest

from croupier.game import Duplicate, RuleBroken, Unknown
from croupier.kit.errors import status_of
from croupier.lobby.adapters.host_local import LocalTableHost
from croupier.lobby.core.errors import AlreadyThere, NotFound
from croupier.lobby.service.tables import Tables
from croupier.lobby.service.waiting import WaitingLists
from tests.unit.lobby.lobby_setup import HOLD, Lobby, lobby

HEADS_UP = {"variant": "nlhe", "small_blind": 1, "big_blind": 2, "min_buy_in": 40,
            "max_buy_in": 200, "seats": 2}  # fmt: skip


def at_stake(big_blind: int) -> dict[str, object]:
    return {**HEADS_UP, "small_blind": big_blind // 2, "big_blind": big_blind}


async def full_table(setup: Lobby, big_blind: int, opener: str, key: str = "") -> str:
    """A heads-up table at `big_blind`: `opener` seated, the other seat held for a player
    whose join never finished (a lobby that died while the host seated him)."""
    opened = await setup.tables.open(
        player=opener, request_key=key or f"t{big_blind}", game="poker",
        options=at_stake(big_blind), stack=100,
    )  # fmt: skip
    held, _ = opened.table.reserve(f"late{big_blind}", setup.clock(), HOLD)
    setup.repository.tables[held.table_id] = replace(opened, table=held)
    return held.table_id


async def free_the_held_seats(setup: Lobby) -> None:
    """The holds run out: a seat frees at each table."""
    setup.clock.step(HOLD.total_seconds())
    assert await setup.tables.expire_holds()


async def wait(setup: Lobby, player: str, big_blind: int) -> int:
    return await setup.waiting.join(
        player=player, game="poker", options=at_stake(big_blind), stack=100
    )


async def test_waiting_players_are_seated_in_order_when_a_seat_frees() -> None:
    async with lobby() as setup:
        table_id = await full_table(setup, 2, "ann")
        assert [await wait(setup, p, 2) for p in ("cid", "dan")] == [1, 2]
        assert await setup.waiting.seat_waiting() == []  # nothing free yet
        await free_the_held_seats(setup)
        assert await setup.waiting.seat_waiting() == [("cid", table_id)]
        assert setup.host.view(table_id, "cid").seated == ("ann", "cid")
        assert (await setup.tables.get(table_id)).table.players() == ("ann", "cid")
        (entry,) = setup.repository.waiting_entries.values()
        assert entry.player == "dan" and await setup.waiting.place(entry.list_key, "dan") == 1


async def test_a_seat_at_another_stake_seats_nobody_from_the_list() -> None:
    async with lobby() as setup:
        await full_table(setup, 2, "ann")
        other = await full_table(setup, 10, "eve")
        assert await wait(setup, "cid", 10) == 1
        assert await wait(setup, "dan", 2) == 1
        setup.clock.step(HOLD.total_seconds())
        await setup.tables.expire_holds()
        seated = await setup.waiting.seat_waiting()
        assert ("cid", other) in seated and len(seated) == 2
        assert setup.host.view(other, "cid").seated == ("eve", "cid")
        # Both tables full again: a player waiting at 2 is not seated at 10.
        assert await wait(setup, "gus", 2) == 1


async def test_a_player_leaves_the_list_and_is_not_seated() -> None:
    async with lobby() as setup:
        table_id = await full_table(setup, 2, "ann")
        await wait(setup, "cid", 2)
        await wait(setup, "dan", 2)
        await setup.waiting.leave(player="cid", game="poker", options=at_stake(2))
        await free_the_held_seats(setup)
        assert await setup.waiting.seat_waiting() == [("dan", table_id)]


async def test_joining_a_list_twice_or_leaving_one_not_joined_is_refused() -> None:
    async with lobby() as setup:
        await full_table(setup, 2, "ann")
        await wait(setup, "cid", 2)
        with pytest.raises(AlreadyThere) as twice:
            await wait(setup, "cid", 2)
        assert twice.value.reason == "already_waiting" and isinstance(twice.value, Duplicate)
        with pytest.raises(NotFound) as absent:
            await setup.waiting.leave(player="dan", game="poker", options=at_stake(2))
        assert absent.value.reason == "not_waiting" and isinstance(absent.value, Unknown)
        assert [e.player for e in setup.repository.waiting_entries.values()] == ["cid"]


async def test_a_waiting_player_whose_buy_in_is_refused_leaves_the_list() -> None:
    async with lobby() as setup:
        table_id = await full_table(setup, 2, "ann")
        await setup.waiting.join(player="cid", game="poker", options=at_stake(2), stack=5_000)
        await wait(setup, "dan", 2)
        await free_the_held_seats(setup)
        # cid's stack is above the buy-in range: refused and dropped; dan takes the seat.
        assert await setup.waiting.seat_waiting() == [("dan", table_id)]
        assert setup.repository.waiting_entries == {}


async def test_passes_at_the_same_time_seat_a_waiting_player_once() -> None:
    async with lobby() as setup:
        first = await full_table(setup, 2, "ann")
        second = await full_table(setup, 2, "bob", key="second")
        await wait(setup, "cid", 2)
        setup.clock.step(HOLD.total_seconds())
        await setup.tables.expire_holds()  # a seat frees at both tables
        seat = setup.host.seat

        async def slow_seat(*args: Any, **kwargs: Any) -> Any:
            await asyncio.sleep(0.01)  # the host takes its time: the passes overlap
            return await seat(*args, **kwargs)

        setup.host.seat = slow_seat  # type: ignore[method-assign]
        passes = await asyncio.gather(*(setup.waiting.seat_waiting() for _ in range(3)))
        seated = [pair for found in passes for pair in found]
        assert len(seated) == 1 and seated[0][0] == "cid" and seated[0][1] in (first, second)
        views = [setup.host.view(t, "cid").seated for t in (first, second)]
        assert sum("cid" in seated for seated in views) == 1


async def joker_tables(setup: Lobby, count: int) -> list[str]:
    """`count` public Joker tables, each with its opener seated: three seats free."""
    opened = [
        await setup.tables.open(player=f"opener{n}", request_key=f"j{n}", game="joker", options={})
        for n in range(count)
    ]
    return [record.table.table_id for record in opened]


async def test_quick_seats_at_the_same_time_each_take_their_own_free_seat() -> None:
    async with lobby() as setup:
        table_ids = await joker_tables(setup, 3)
        joins = [
            setup.waiting.join(player=f"q{n}", game="joker", options={}, stack=0) for n in range(10)
        ]
        places = await asyncio.gather(*joins)
        assert sorted(places) == [0] * 9 + [1]  # nine seats for ten: the last one waits
        for table_id in table_ids:
            seated = (await setup.tables.get(table_id)).table.players()
            assert len(seated) == 4 and setup.host.view(table_id, seated[0]).seated == seated


async def test_a_quick_seat_fills_the_fullest_table_first() -> None:
    async with lobby() as setup:
        emptier, fuller = await joker_tables(setup, 2)
        await setup.tables.join(fuller, "bob", 0)
        assert await setup.waiting.join(player="cid", game="joker", options={}, stack=0) == 0
        assert (await setup.tables.get(fuller)).table.players() == ("opener1", "bob", "cid")
        assert (await setup.tables.get(emptier)).table.players() == ("opener0",)


async def test_a_restarted_lobby_rebuilds_its_free_seats_from_the_store() -> None:
    async with lobby() as setup:
        (table_id,) = await joker_tables(setup, 1)
        restarted = WaitingLists(
            repository=setup.repository,
            tables=Tables(
                repository=setup.repository, host=LocalTableHost(setup.host), clock=setup.clock,
                codes=lambda: "code", hold_for=HOLD,
            ),
            clock=setup.clock,
        )  # fmt: skip
        assert await restarted.join(player="cid", game="joker", options={}, stack=0) == 0
        assert (await setup.tables.get(table_id)).table.players() == ("opener0", "cid")


async def test_a_seat_another_replica_frees_seats_the_waiting_at_the_next_pass() -> None:
    async with lobby() as setup:
        table_id = await full_table(setup, 2, "ann")
        await wait(setup, "cid", 2)
        other = Tables(
            repository=setup.repository, host=LocalTableHost(setup.host), clock=setup.clock,
            codes=lambda: "code", hold_for=HOLD,
        )  # fmt: skip
        setup.clock.step(HOLD.total_seconds())
        assert await other.expire_holds()  # the seat frees on the other replica
        assert await setup.waiting.seat_waiting() == [("cid", table_id)]


async def test_a_quick_seat_refused_by_the_host_is_the_players_refusal() -> None:
    async with lobby() as setup:
        await setup.tables.open(
            player="ann", request_key="t", game="poker", options=at_stake(2), stack=100
        )
        with pytest.raises(RuleBroken) as refused:
            await setup.waiting.join(player="cid", game="poker", options=at_stake(2), stack=5_000)
        assert status_of(refused.value) is not None  # a refusal, not a fault
        assert setup.repository.waiting_entries == {}
        assert await wait(setup, "dan", 2) == 0  # the seat was left free for him
