"""The bots service over gRPC with the lobby on the real PostgreSQL and Kafka, driving a
table host served over gRPC: a private Joker table refuses a player without the invite;
its owner adds two bots, which the bots service learns of from `croupier.lobby.events`,
seats through the lobby's `SeatBot` and plays through the host's `WatchView`/`Act` with
their own seats' views, and the game is played to its end; a bot plays rummy rounds at a
private gin table from its own view."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from croupier.bots.adapters.host_grpc import GrpcSeatHost
from croupier.bots.adapters.lobby_grpc import GrpcLobby
from croupier.bots.bootstrap import WiredBots, build_bots
from croupier.bots.service.fleet import FleetSettings
from croupier.bots.service.policies import JokerPolicy, RummyPolicy
from croupier.bots.service.seat import Pacing, SeatedBot
from croupier.joker.v1 import joker_pb2
from croupier.kit.bus.kafka import KafkaBus
from croupier.lobby.codec import EVENTS_TOPIC
from croupier.lobby.v1 import lobby_pb2 as pb
from croupier.rummy.v1 import rummy_pb2
from croupier.table.v1 import table_pb2
from tests.integration.lobby.test_lobby_pg import (  # noqa: F401 - the fixture
    Platform,
    platform,
    refused,
    until,
)
from tests.support.infra import start_group_at_end

NO_WAIT = Pacing(0.0, 0.0)


@dataclass
class Bots:
    """The lobby's stub, the bots service wired on the broker, and a host client for the
    people at the table (they play with a bot's policy, through the same API)."""

    lobby: Any
    wired: WiredBots
    people_host: GrpcSeatHost


@asynccontextmanager
async def bots_running(
    platform: Platform,  # noqa: F811 - the lobby tests' fixture
    unique: Callable[[str], str],
) -> AsyncIterator[Bots]:
    lobby = await platform.start_lobby()
    assert platform.server is not None
    lobby_address = f"127.0.0.1:{platform.server.port}"
    group = unique("bots")
    await start_group_at_end(platform.kafka_bootstrap, EVENTS_TOPIC, group)
    bus = KafkaBus(bootstrap_servers=platform.kafka_bootstrap)
    host = GrpcSeatHost(platform.host_address, None)
    seats = GrpcLobby(lobby_address, None)
    wired = build_bots(
        lobby=seats,
        host=host,
        bus=bus,
        settings=FleetSettings(pacing=NO_WAIT, seed="it"),
        tick_seconds=None,
        consumer_group=group,
    )
    people_host = GrpcSeatHost(platform.host_address, None)
    try:
        yield Bots(lobby, wired, people_host)
    finally:
        await wired.stop()
        await host.close()
        await seats.close()
        await people_host.close()
        await bus.stop()


async def test_a_private_joker_table_refuses_a_player_without_the_invite_and_bots_play_it_out(
    platform: Platform,  # noqa: F811 - the lobby tests' fixture
    unique: Callable[[str], str],
) -> None:
    async with bots_running(platform, unique) as bots:
        lobby, wired, people_host = bots.lobby, bots.wired, bots.people_host
        opened = await lobby.OpenTable(
            pb.OpenTableRequest(
                player_id="giorgi",
                request_key=unique("friends"),  # a table id of its own on the shared broker
                options=table_pb2.GameOptions(joker=joker_pb2.Options()),
                privacy=pb.Privacy(invited=["nika"]),
            )
        )
        table_id = opened.table.table_id
        join = pb.JoinTableRequest(player_id="eve", table_id=table_id)
        assert await refused(lobby.JoinTable(join)) == ("PERMISSION_DENIED", "not_invited")
        await lobby.JoinTable(pb.JoinTableRequest(player_id="nika", table_id=table_id))
        await lobby.AddBots(pb.AddBotsRequest(player_id="giorgi", table_id=table_id, count=2))

        async def seated() -> list[str]:
            request = table_pb2.GetViewRequest(table_id=table_id, player_id="giorgi")
            return list((await platform.host.GetView(request)).view.seated)

        async def all_seated() -> bool:
            return len(await seated()) == 4

        async def listing() -> pb.TableListing:
            listed = await lobby.ListTables(
                pb.ListTablesRequest(
                    player_id="giorgi", filter=pb.TableFilter(include_private=True)
                )
            )
            (table,) = [t for t in listed.tables if t.table_id == table_id]
            return table

        async def both_bots_listed() -> bool:
            # The lobby records a bot once the host has seated it: the listing may trail
            # the host's view by a moment.
            return len((await listing()).bots) == 2

        await until(all_seated, 60)
        await until(both_bots_listed, 10)
        table = await listing()
        assert len(table.bots) == 2 and table.bots_wanted == 0
        assert set(table.bots) == set(await seated()) - {"giorgi", "nika"}
        people = [
            SeatedBot(
                table_id=table_id,
                player=player,
                policy=JokerPolicy(random.Random(player)),
                host=people_host,
                pacing=NO_WAIT,
                rng=random.Random(player),
                sleep=asyncio.sleep,
            )
            for player in ("giorgi", "nika")
        ]
        playing = [asyncio.ensure_future(person.play()) for person in people]
        try:
            async with asyncio.timeout(240):
                async for update in people_host.watch(table_id, "giorgi"):
                    if update.view.get("over"):
                        break
        finally:
            for task in playing:
                task.cancel()
            await asyncio.gather(*playing, return_exceptions=True)
        # The broker is shared: other tests' tables may be followed too.
        seated_here = wired.fleet.seated.items()
        acted = {bot: s.actions for bot, s in seated_here if s.table_id == table_id}
        assert set(acted) == set(table.bots) and min(acted.values()) > 100


async def test_a_bot_plays_rummy_rounds_at_a_private_gin_table_from_its_own_view(
    platform: Platform,  # noqa: F811 - the lobby tests' fixture
    unique: Callable[[str], str],
) -> None:
    async with bots_running(platform, unique) as bots:
        gin = rummy_pb2.Options(variant=rummy_pb2.VARIANT_GIN, players=2, round_fee=10)
        opened = await bots.lobby.OpenTable(
            pb.OpenTableRequest(
                player_id="giorgi",
                request_key=unique("gin"),
                options=table_pb2.GameOptions(rummy=gin),
                privacy=pb.Privacy(invited=[]),
                stack=1_000,
            )
        )
        table_id = opened.table.table_id
        await bots.lobby.AddBots(pb.AddBotsRequest(player_id="giorgi", table_id=table_id, count=1))
        person = SeatedBot(
            table_id=table_id,
            player="giorgi",
            policy=RummyPolicy("giorgi", random.Random(1)),
            host=bots.people_host,
            pacing=NO_WAIT,
            rng=random.Random(1),
            sleep=asyncio.sleep,
        )
        playing = asyncio.ensure_future(person.play())
        try:
            async with asyncio.timeout(120):
                async for update in bots.people_host.watch(table_id, "giorgi"):
                    last = update.view.get("last_round") or {}
                    if int(last.get("round") or 0) >= 3:
                        break
        finally:
            playing.cancel()
            await asyncio.gather(playing, return_exceptions=True)
        seated = {b: s for b, s in bots.wired.fleet.seated.items() if s.table_id == table_id}
        assert len(seated) == 1 and next(iter(seated.values())).actions > 5
