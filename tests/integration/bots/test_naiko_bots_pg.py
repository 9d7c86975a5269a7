"""A bot-filled 6-max Naiko table over gRPC (the lobby on the real PostgreSQL and Kafka,
the host served over gRPC): its opener waits, the bots service fills the five free seats
once the wait is over, and the table plays 200 hands; a scan of every message the bots
received finds no hidden information of another seat (rule 59: a bot sees only its own
seat's view)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Callable
from datetime import timedelta
from typing import Any

from croupier.bots.adapters.host_grpc import GrpcSeatHost
from croupier.bots.adapters.lobby_grpc import GrpcLobby
from croupier.bots.bootstrap import build_bots
from croupier.bots.service.fleet import FleetSettings
from croupier.bots.service.policies import PokerPolicy
from croupier.bots.service.ports import SeatUpdate
from croupier.bots.service.seat import Pacing, SeatedBot
from croupier.kit.bus.kafka import KafkaBus
from croupier.lobby.codec import EVENTS_TOPIC
from croupier.lobby.v1 import lobby_pb2 as pb
from croupier.poker.v1 import poker_pb2
from croupier.table.v1 import table_pb2
from tests.integration.lobby.test_lobby_pg import (  # noqa: F401 - the fixture
    Platform,
    platform,
    start_group_at_end,
    until,
)

HANDS = 200
NO_WAIT = Pacing(0.0, 0.0)
FILL_AFTER = timedelta(seconds=20)


class Recording:
    """The host as the bots see it, keeping every view they were sent."""

    def __init__(self, host: GrpcSeatHost) -> None:
        self._host = host
        self.received: list[tuple[str, dict[str, Any]]] = []

    async def watch(self, table_id: str, player: str) -> AsyncIterator[SeatUpdate]:
        async for update in self._host.watch(table_id, player):
            self.received.append((player, update.view))
            yield update

    async def act(self, table_id: str, player: str, command_id: str, action: Any) -> None:
        await self._host.act(table_id, player, command_id, action)


def hidden_of_others(player: str, view: dict[str, Any]) -> list[str]:
    """What `view` shows `player` of another seat that only that seat may see."""
    hand = view.get("hand") or {}
    shown = (hand.get("result") or {}).get("shown", {})
    leaks = [
        f"{seat['player']}'s hole cards"
        for seat in hand.get("seats", [])
        if seat["player"] != player and "hole_cards" in seat and seat["player"] not in shown
    ]
    private = hand.get("private") or {}
    leaks += [f"private {key}" for key in private if key in {s["player"] for s in hand["seats"]}]
    return leaks


async def test_a_bot_filled_6_max_naiko_table_plays_200_hands_and_no_bot_sees_another_seat(
    platform: Platform,  # noqa: F811 - the lobby tests' fixture
    unique: Callable[[str], str],
) -> None:
    lobby = await platform.start_lobby()
    assert platform.server is not None
    group = unique("bots")
    await start_group_at_end(platform.kafka_bootstrap, EVENTS_TOPIC, group)
    bus = KafkaBus(bootstrap_servers=platform.kafka_bootstrap)
    host = GrpcSeatHost(platform.host_address, None)
    recording = Recording(host)
    seats = GrpcLobby(f"127.0.0.1:{platform.server.port}", None)
    wired = build_bots(
        lobby=seats,
        host=recording,
        bus=bus,
        settings=FleetSettings(fill_after=FILL_AFTER, pacing=NO_WAIT, seed="naiko"),
        clock=platform.clock,
        tick_seconds=None,
        consumer_group=group,
    )
    opener_host = GrpcSeatHost(platform.host_address, None)
    try:
        options = poker_pb2.Options(
            variant=poker_pb2.VARIANT_NAIKO, small_blind=5, big_blind=10, seats=6
        )
        opened = await lobby.OpenTable(
            pb.OpenTableRequest(
                player_id="ann",
                request_key=unique("naiko"),
                options=table_pb2.GameOptions(poker=options),
                stack=1000,
                bots_allowed=True,
            )
        )
        table_id = opened.table.table_id

        def bots_here() -> set[str]:
            return {bot for bot, s in wired.fleet.seated.items() if s.table_id == table_id}

        await asyncio.sleep(1)  # the listing's event reaches the bots service
        await wired.fleet.tick()
        assert bots_here() == set()  # the opener waits first
        platform.clock.now += FILL_AFTER

        async def filled() -> bool:
            await wired.fleet.tick()
            return len(bots_here()) == 5

        await until(filled, 60)
        bots = bots_here()
        ann = SeatedBot(
            table_id=table_id,
            player="ann",
            policy=PokerPolicy("ann", random.Random(7), 1000),
            host=opener_host,
            pacing=NO_WAIT,
            rng=random.Random(7),
            sleep=asyncio.sleep,
        )
        playing = asyncio.ensure_future(ann.play())
        try:
            async with asyncio.timeout(400):
                async for update in opener_host.watch(table_id, "ann"):
                    if int(update.view.get("hand_number", 0)) > HANDS:
                        break
        finally:
            playing.cancel()
            await asyncio.gather(playing, return_exceptions=True)
        seen = [(p, v) for p, v in recording.received if p in bots]
        assert {p for p, _ in seen} == bots and len(seen) > HANDS * 5
        labels = {s["player"]: s["bot"] for s in seen[-1][1]["table"]}
        assert labels == {"ann": False, **dict.fromkeys(bots, True)}  # labelled BOT
        assert [leak for p, v in seen for leak in hidden_of_others(p, v)] == []
        own = [  # the scan reads real hands: each bot saw its own cards
            p
            for p, v in seen
            for seat in (v.get("hand") or {}).get("seats", [])
            if seat["player"] == p and seat.get("hole_cards")
        ]
        assert set(own) == bots
    finally:
        await wired.stop()
        await host.close()
        await seats.close()
        await opener_host.close()
        await bus.stop()
