"""The bots service's use cases on the lobby and the table host in this process: bots are
seated through the lobby where the owner asks for them or, at a public table that allows
them, after the players waited; each plays from its own seat's view, labelled BOT."""

from __future__ import annotations

import asyncio
import itertools
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import timedelta

import pytest

from croupier.bots.adapters.local import LocalLobby, LocalSeatHost
from croupier.bots.core.fill import Listing
from croupier.bots.entrypoints.lobby_events import listing_from_proto
from croupier.bots.service.fleet import BOT_PREFIX, Fleet, FleetSettings
from croupier.bots.service.policies import JokerPolicy
from croupier.bots.service.seat import Pacing, SeatedBot
from croupier.game import Malformed, NotYours, RuleBroken
from croupier.lobby import codec
from croupier.lobby.service.records import TableRecord
from tests.unit.lobby.lobby_setup import Lobby, lobby

FILL_AFTER = timedelta(seconds=20)
THINK = Pacing(1.0, 3.0)


async def no_pause(seconds: float) -> None:
    await asyncio.sleep(0)


@dataclass
class Setup:
    lobby: Lobby
    fleet: Fleet
    thought: list[float]

    async def listed(self, table_id: str) -> Listing:
        """Hand the table's listing to the fleet, as its lobby event would."""
        record: TableRecord = await self.lobby.tables.get(table_id)
        listing = listing_from_proto(codec.listing(record), record.version)
        await self.fleet.listed(listing)
        return listing


@asynccontextmanager
async def bots() -> AsyncIterator[Setup]:
    async with lobby() as setup:
        thought: list[float] = []

        async def think(seconds: float) -> None:
            thought.append(seconds)
            await asyncio.sleep(0)

        names = (f"{BOT_PREFIX}{n}" for n in itertools.count(1))
        fleet = Fleet(
            lobby=LocalLobby(setup.tables),
            host=LocalSeatHost(setup.host),
            clock=setup.clock,
            sleep=think,
            names=lambda: next(names),
            settings=FleetSettings(fill_after=FILL_AFTER, pacing=THINK, seed="test"),
        )
        try:
            yield Setup(setup, fleet, thought)
        finally:
            await fleet.stop()


async def test_a_private_joker_table_refuses_the_uninvited_and_its_bots_play_it_out() -> None:
    async with bots() as setup:
        tables = setup.lobby.tables
        record = await tables.open(
            player="giorgi", request_key="friends", game="joker", options={}, invited=["nika"]
        )
        table_id = record.table.table_id
        with pytest.raises(NotYours):
            await tables.join(table_id, "eve", 0)
        with pytest.raises(NotYours):  # only the owner adds bots
            await tables.add_bots(table_id, "nika", 2)
        await tables.join(table_id, "nika", 0)
        await tables.add_bots(table_id, "giorgi", 2)
        await setup.listed(table_id)
        listed = await tables.get(table_id)
        assert listed.table.bots == {"bot:1", "bot:2"} and listed.table.bots_wanted == 0
        assert listed.table.free_seats() == 0
        # The people at the table are played by the same policy, from their own views.
        people = [
            SeatedBot(
                table_id=table_id,
                player=player,
                policy=JokerPolicy(random.Random(player)),
                host=LocalSeatHost(setup.lobby.host),
                pacing=THINK,
                rng=random.Random(player),
                sleep=no_pause,
            )
            for player in ("giorgi", "nika")
        ]
        playing = [asyncio.ensure_future(p.play()) for p in people]
        try:
            async with asyncio.timeout(120):
                async for snapshot in setup.lobby.host.watch(table_id, "giorgi"):
                    if snapshot.view.get("over"):
                        break
        finally:
            for task in playing:
                task.cancel()
            await asyncio.gather(*playing, return_exceptions=True)
        bots_acted = {bot: seated.actions for bot, seated in setup.fleet.seated.items()}
        assert set(bots_acted) == {"bot:1", "bot:2"} and min(bots_acted.values()) > 100
        assert all(THINK.low <= t <= THINK.high for t in setup.thought)  # paced like people


async def test_bots_take_the_free_seats_of_a_public_table_only_after_the_wait() -> None:
    async with bots() as setup:
        tables = setup.lobby.tables
        record = await tables.open(
            player="ann", request_key="t", game="poker",
            options={"small_blind": 5, "big_blind": 10, "seats": 3}, stack=1000,
            bots_allowed=True,
        )  # fmt: skip
        table_id = record.table.table_id
        await setup.listed(table_id)
        await setup.fleet.tick()
        assert (await tables.get(table_id)).table.bots == frozenset()
        setup.lobby.clock.step(FILL_AFTER.total_seconds())
        await setup.fleet.tick()
        seated = (await tables.get(table_id)).table
        assert seated.bots == {"bot:1", "bot:2"} and seated.free_seats() == 0
        view = setup.lobby.host.view(table_id, "ann").view
        labels = {seat["player"]: seat["bot"] for seat in view["table"]}
        assert labels == {"ann": False, "bot:1": True, "bot:2": True}  # rule 59: BOT


async def test_a_table_that_does_not_allow_bots_gets_none() -> None:
    async with bots() as setup:
        tables = setup.lobby.tables
        record = await tables.open(player="ann", request_key="t", game="joker", options={})
        table_id = record.table.table_id
        await setup.listed(table_id)
        setup.lobby.clock.step(3600)
        await setup.fleet.tick()
        assert (await tables.get(table_id)).table.bots == frozenset()
        with pytest.raises(RuleBroken) as refused:  # the lobby is the gate
            await LocalLobby(tables).seat_bot(table_id=table_id, bot="bot:x", stack=0)
        assert refused.value.reason == "bots_not_allowed"
        assert (await tables.get(table_id)).table.holds == ()


async def test_add_bots_refuses_another_than_the_owner_and_more_bots_than_free_seats() -> None:
    async with bots() as setup:
        tables = setup.lobby.tables
        record = await tables.open(player="ann", request_key="t", game="joker", options={})
        table_id = record.table.table_id
        with pytest.raises(NotYours):
            await tables.add_bots(table_id, "bob", 1)
        with pytest.raises(Malformed) as refused:
            await tables.add_bots(table_id, "ann", 4)
        assert refused.value.reason == "out_of_bounds"
        after = (await tables.add_bots(table_id, "ann", 3)).table
        assert after.bots_wanted == 3 and after.holds == ()
