"""The lobby's use cases against a real table host in process: matchmaking opens a table
on the host and seats the matched players there, private tables, seats held and released,
the listing kept current from the host's events, and refusals that reserve nothing."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace

import pytest

from croupier.events.v1.envelope_pb2 import Envelope
from croupier.game import Duplicate, Malformed, NotYours, RuleBroken, Unknown
from croupier.kit.errors import status_of
from croupier.lobby.adapters.host_local import LocalTableHost
from croupier.lobby.codec import listing
from croupier.lobby.core.ratings import RatingRange
from croupier.lobby.core.seats import LobbyTable
from croupier.lobby.core.terms import terms_of
from croupier.lobby.entrypoints.table_events import TABLE_EVENTS_TOPIC, TableEvents
from croupier.lobby.service.listing import TableFilter
from croupier.lobby.service.records import TableRecord, TicketRecord, TicketStatus
from croupier.lobby.service.tables import NO_CLOCK
from tests.support.games import GAMES
from tests.unit.lobby.lobby_setup import HOLD, Lobby, lobby

BACKGAMMON = {"mode": "single"}
POKER = GAMES["poker"]


async def find(
    setup: Lobby, player: str, low: int = 100, high: int = 100, **more: object
) -> TicketRecord:
    return await setup.matchmaking.find(
        player=player, request_key=f"{player}-1", game="backgammon",
        options={**BACKGAMMON, **more}, min_stake=low, max_stake=high,
    )  # fmt: skip


async def test_two_players_asking_for_the_same_backgammon_stake_are_matched_on_the_host() -> None:
    async with lobby() as setup:
        tickets = {}
        for player, stake in (("ann", 100), ("bob", 100), ("cid", 100), ("dan", 500)):
            tickets[player] = await find(setup, player, stake, stake)
            setup.clock.step(1)  # in this order: the oldest tickets are served first
        setup.clock.step(1)
        (table_id,) = await setup.matchmaking.process()
        ann, bob = [
            await setup.matchmaking.get(tickets[p].ticket.ticket_id, p) for p in ("ann", "bob")
        ]
        assert (ann.status, bob.status) == (TicketStatus.SEATED, TicketStatus.SEATED)
        assert ann.table_id == bob.table_id == table_id and {ann.seat, bob.seat} == {0, 1}
        assert ann.stake == 100
        view = setup.host.view(table_id, "ann")
        assert set(view.seated) == {"ann", "bob"}
        assert setup.host.engine_of(table_id).name == "backgammon"
        # The third waits; the fourth, at another stake, is not matched with him.
        setup.clock.step(60)
        assert await setup.matchmaking.process() == []
        for player in ("cid", "dan"):
            waiting = await setup.matchmaking.get(tickets[player].ticket.ticket_id, player)
            assert waiting.status is TicketStatus.WAITING
        listed = await setup.tables.listed("", TableFilter(game="backgammon"))
        assert [r.table.players() for r in listed] == [("ann", "bob")]
        assert await setup.tables.listed("", TableFilter(min_free_seats=1)) == []


async def test_a_private_joker_table_refuses_a_player_without_the_invite() -> None:
    async with lobby() as setup:
        record = await setup.tables.open(
            player="giorgi", request_key="friends", game="joker", options={},
            invited=["nika"], with_code=True,
        )  # fmt: skip
        table_id = record.table.table_id
        with pytest.raises(NotYours) as refused:
            await setup.tables.join(table_id, "eve", 0)
        assert refused.value.reason == "not_invited"
        with pytest.raises(NotYours):
            await setup.tables.join(table_id, "eve", 0, invite_code="guess")
        after = await setup.tables.get(table_id)
        assert after.table.free_seats() == 3 and after.table.holds == ()
        assert (await setup.tables.join(table_id, "nika", 0))[0] == 1
        assert (await setup.tables.join(table_id, "ana", 0, invite_code="code1"))[0] == 2
        assert set(setup.host.view(table_id, "giorgi").seated) == {"giorgi", "nika", "ana"}
        # Not listed for strangers; listed for an invitee who asks for private tables.
        assert await setup.tables.listed("eve", TableFilter(include_private=True)) == []
        shown = await setup.tables.listed("nika", TableFilter(include_private=True))
        assert [r.table.table_id for r in shown] == [table_id]


async def test_opening_is_idempotent_by_request_key() -> None:
    async with lobby() as setup:
        first = await setup.tables.open(
            player="ann", request_key="k1", game="backgammon", options={**BACKGAMMON, "stake": 50}
        )
        again = await setup.tables.open(
            player="ann", request_key="k1", game="backgammon", options={**BACKGAMMON, "stake": 50}
        )
        assert again.table.table_id == first.table.table_id
        assert len(setup.repository.tables) == 1 and setup.host.table_ids() == [
            first.table.table_id
        ]


async def test_bad_input_is_refused_with_its_status_and_reserves_nothing() -> None:
    async with lobby() as setup:
        opened = await setup.tables.open(
            player="ann", request_key="k", game="backgammon", options={**BACKGAMMON, "stake": 100}
        )
        table_id = opened.table.table_id
        await setup.tables.join(table_id, "bob", 0)
        before = (dict(setup.repository.tables), dict(setup.repository.tickets_by_id))
        hosted = setup.host.table_ids()
        refusals = {
            "unknown game": setup.matchmaking.find(
                player="ann", request_key="x", game="chess", options={}, min_stake=1, max_stake=1
            ),
            "stakes out of range": find(setup, "cid", 300, 100),
            "negative stake": find(setup, "cid", -5, 100),
            "negative stake in options": setup.tables.open(
                player="cid", request_key="n", game="backgammon", options={"stake": "-5"}
            ),
            "a full table": setup.tables.join(table_id, "cid", 0),
            "twice": setup.tables.join(table_id, "bob", 0),
            "an unknown table": setup.tables.join("no-such-table", "cid", 0),
        }
        statuses = {}
        for name, call in refusals.items():
            with pytest.raises(RuleBroken) as refused:
                await call
            statuses[name] = status_of(refused.value).name  # type: ignore[union-attr]
        assert statuses == {
            "unknown game": "INVALID_ARGUMENT",
            "stakes out of range": "INVALID_ARGUMENT",
            "negative stake": "INVALID_ARGUMENT",
            "negative stake in options": "INVALID_ARGUMENT",
            "a full table": "FAILED_PRECONDITION",
            "twice": "ALREADY_EXISTS",
            "an unknown table": "NOT_FOUND",
        }
        assert (dict(setup.repository.tables), dict(setup.repository.tickets_by_id)) == before
        assert setup.host.table_ids() == hosted


async def test_one_waiting_ticket_per_account_and_the_same_key_answers_it() -> None:
    async with lobby() as setup:
        first = await find(setup, "ann")
        assert (await find(setup, "ann")).ticket == first.ticket
        with pytest.raises(Duplicate):
            await setup.matchmaking.find(
                player="ann", request_key="other", game="backgammon", options=BACKGAMMON,
                min_stake=100, max_stake=100,
            )  # fmt: skip
        cancelled = await setup.matchmaking.cancel(first.ticket.ticket_id, "ann")
        assert cancelled.status is TicketStatus.CANCELLED
        with pytest.raises(Unknown):
            await setup.matchmaking.get(first.ticket.ticket_id, "bob")


async def test_stake_limits_and_self_exclusion_are_checked_before_a_seat_or_a_ticket() -> None:
    async with lobby() as setup:
        await setup.accounts.set_limits("ann", {"CHIP": 200}, False)
        with pytest.raises(RuleBroken) as above:
            await find(setup, "ann", 100, 300)
        assert above.value.reason == "stake_above_limit"
        await find(setup, "ann", 100, 200)
        await setup.accounts.set_limits("bob", {}, True)
        opened = await setup.tables.open(
            player="cid", request_key="k", game="backgammon", options={**BACKGAMMON, "stake": 10}
        )
        with pytest.raises(RuleBroken) as excluded:
            await setup.tables.join(opened.table.table_id, "bob", 0)
        assert excluded.value.reason == "self_excluded"
        assert (await setup.tables.get(opened.table.table_id)).table.free_seats() == 1
        with pytest.raises(Malformed):
            await setup.accounts.set_limits("bob", {"CHIP": -1}, False)


async def test_a_seat_the_host_refuses_is_released() -> None:
    async with lobby() as setup:
        options = {"variant": "nlhe", "small_blind": 1, "big_blind": 2, "min_buy_in": 40,
                   "max_buy_in": 200, "seats": 6}  # fmt: skip
        opened = await setup.tables.open(
            player="ann", request_key="k", game="poker", options=options, stack=100
        )
        table_id = opened.table.table_id
        with pytest.raises(RuleBroken):
            await setup.tables.join(table_id, "bob", 5_000)  # above the buy-in range
        record = await setup.tables.get(table_id)
        assert record.table.holds == () and record.table.players() == ("ann",)
        assert (await setup.tables.join(table_id, "bob", 100))[0] == 1


async def test_a_hold_whose_player_never_sat_runs_out() -> None:
    async with lobby() as setup:
        opened = await setup.tables.open(
            player="ann", request_key="k", game="backgammon", options={**BACKGAMMON, "stake": 10}
        )
        # A lobby that died between holding a seat and hearing from the host left this.
        held, _ = opened.table.reserve("bob", setup.clock(), HOLD)
        setup.repository.tables[held.table_id] = replace(opened, table=held)
        setup.clock.step(HOLD.total_seconds() - 1)
        assert await setup.tables.expire_holds() == []
        setup.clock.step(1)
        assert await setup.tables.expire_holds() == ["bob"]
        assert (await setup.tables.get(held.table_id)).table.free_seats() == 1


async def test_the_listing_follows_the_host_events() -> None:
    async with lobby() as setup:
        await setup.bus.subscribe(
            TABLE_EVENTS_TOPIC,
            group="lobby",
            handler=TableEvents(setup.tables, setup.ratings).handle,
        )
        opened = await setup.tables.open(
            player="ann", request_key="k", game="backgammon", options={**BACKGAMMON, "stake": 10}
        )
        table_id = opened.table.table_id
        await setup.tables.join(table_id, "bob", 0)
        await setup.host.unseat(table_id, "bob")
        await _until(setup, lambda t: t.table.players() == ("ann",), table_id)
        await setup.host.close(table_id)
        await _until(setup, lambda t: t.table.closed, table_id)
        assert await setup.tables.listed("", TableFilter()) == []


async def test_watch_streams_the_listing_and_its_changes() -> None:
    async with lobby() as setup:
        first = await setup.tables.open(
            player="ann", request_key="k1", game="backgammon", options={**BACKGAMMON, "stake": 10}
        )
        stream = setup.tables.watch("", TableFilter(game="backgammon", min_free_seats=1))
        seen = await anext(stream)
        assert seen.table.table_id == first.table.table_id
        await setup.tables.join(first.table.table_id, "bob", 0)
        full = await asyncio.wait_for(anext(stream), 5)
        assert full.table.table_id == first.table.table_id and full.table.free_seats() == 0
        second = await setup.tables.open(
            player="cid", request_key="k2", game="backgammon", options={**BACKGAMMON, "stake": 10}
        )
        assert (await asyncio.wait_for(anext(stream), 5)).table.table_id == second.table.table_id
        await stream.aclose()


async def _until(setup: Lobby, condition: Callable[[TableRecord], bool], table_id: str) -> None:
    for _ in range(500):
        if condition(await setup.tables.get(table_id)):
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the listing did not follow the host's events")


async def test_an_opener_whose_seat_is_refused_leaves_no_table_behind() -> None:
    async with lobby() as setup:
        options = {"variant": "nlhe", "small_blind": 1, "big_blind": 2, "min_buy_in": 40,
                   "max_buy_in": 200}  # fmt: skip
        with pytest.raises(RuleBroken):
            await setup.tables.open(
                player="ann", request_key="k", game="poker", options=options, stack=5_000
            )
        (record,) = setup.repository.tables.values()
        assert record.table.closed and record.table.holds == ()
        assert setup.host.view(record.table.table_id, "").closed
        assert await setup.tables.listed("", TableFilter()) == []
        # The same request again, with a stack the table takes: the key's table is closed,
        # so it is refused, not answered as if a table had been opened.
        with pytest.raises(RuleBroken) as again:
            await setup.tables.open(
                player="ann", request_key="k", game="poker", options=options, stack=100
            )
        assert again.value.reason == "table_closed" and "new request_key" in str(again.value)
        assert len(setup.repository.tables) == 1


async def test_a_retried_open_seats_an_opener_a_dead_lobby_never_seated() -> None:
    async with lobby() as setup:
        options = {**BACKGAMMON, "stake": 10}
        # What a lobby that died after storing the table, before seating its opener, left.
        table_id = await LocalTableHost(setup.host).open_table(
            game="backgammon", options=options, clock=NO_CLOCK, request_key="lobby:ann/k"
        )
        terms = terms_of("backgammon", options)
        await setup.repository.add_table(
            TableRecord(LobbyTable(table_id, "{}", terms, owner="ann"), "ann/k")
        )
        record = await setup.tables.open(
            player="ann", request_key="k", game="backgammon", options=options
        )
        assert record.table.table_id == table_id and record.table.players() == ("ann",)
        assert list(setup.host.view(table_id, "ann").seated) == ["ann"]


async def test_a_ticket_is_seated_at_a_compatible_open_table_before_matching() -> None:
    async with lobby() as setup:
        opened = await setup.tables.open(
            player="ann", request_key="g", game="backgammon", options={**BACKGAMMON, "stake": 100}
        )
        table_id = opened.table.table_id
        eve = await find(setup, "eve", 100, 200)  # ann's 100 is in her range
        fay = await find(setup, "fay", 150, 150)  # no table at 150: she waits
        own = await find(setup, "ann", 100, 100)  # not at her own table
        setup.clock.step(1)
        assert await setup.matchmaking.process() == [table_id]
        seated = await setup.matchmaking.get(eve.ticket.ticket_id, "eve")
        assert (seated.status, seated.table_id, seated.stake) == (
            TicketStatus.SEATED,
            table_id,
            100,
        )
        assert set(setup.host.view(table_id, "ann").seated) == {"ann", "eve"}
        for player, ticket in (("fay", fay), ("ann", own)):
            waiting = await setup.matchmaking.get(ticket.ticket.ticket_id, player)
            assert waiting.status is TicketStatus.WAITING
        # The table is full now: the next pass leaves the others waiting still.
        assert await setup.matchmaking.process() == []


async def test_a_ticket_with_a_rating_range_waits_for_a_match_not_an_open_table() -> None:
    async with lobby() as setup:
        await setup.tables.open(
            player="ann", request_key="g", game="backgammon", options={**BACKGAMMON, "stake": 100}
        )
        ranged = await setup.matchmaking.find(
            player="eve", request_key="eve-1", game="backgammon", options=BACKGAMMON,
            min_stake=100, max_stake=100, rating_range=RatingRange(1400, 1600),
        )  # fmt: skip
        setup.clock.step(1)
        assert await setup.matchmaking.process() == []
        waiting = await setup.matchmaking.get(ranged.ticket.ticket_id, "eve")
        assert waiting.status is TicketStatus.WAITING


async def test_a_poker_tables_listing_shows_the_average_pot_of_its_last_hands() -> None:
    async with lobby() as setup:
        await setup.bus.subscribe(
            TABLE_EVENTS_TOPIC,
            group="lobby",
            handler=TableEvents(setup.tables, setup.ratings).handle,
        )
        options = {"variant": "nlhe", "small_blind": 1, "big_blind": 2, "seats": 2}
        opened = await setup.tables.open(
            player="ann", request_key="k", game="poker", options=options, stack=100
        )
        table_id = opened.table.table_id
        assert opened.table.average_pot() == 0  # no hand ended yet
        await setup.tables.join(table_id, "bob", 100)
        for hand in range(1, 4):  # whoever acts first folds: a pot of the blinds each hand
            for _ in range(200):
                public = dict(setup.host.view(table_id, "").view)
                player = POKER.to_act(public)
                if player is not None:
                    break
                await asyncio.sleep(0.01)
            assert player is not None
            await setup.host.act(table_id, player, f"fold-{hand}", {"action": "fold"})
            await _until(setup, lambda t, n=hand: len(t.table.recent_pots) == n, table_id)
        record = await setup.tables.get(table_id)
        assert len(record.table.recent_pots) == 3 and 0 < record.table.average_pot() <= 4
        assert listing(record).average_pot.amount_minor == record.table.average_pot()
        # The bus delivers at least once: a hand's end delivered again is counted once.
        ends = [
            Envelope.FromString(m.value or b"")
            for m in setup.bus.messages(TABLE_EVENTS_TOPIC)
            if Envelope.FromString(m.value or b"").type == "table.hand_end"
        ]
        for again in ends:
            await TableEvents(setup.tables, setup.ratings).handle(again)
        assert (await setup.tables.get(table_id)).table.recent_pots == record.table.recent_pots
