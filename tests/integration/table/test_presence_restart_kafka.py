"""Presence survives a crash (real broker, `croupier serve table` processes; issue 22).

A disconnection is logged, so a table rebuilt after a SIGKILL resumes its reconnection
window where it stood (not a fresh one from the restart) and ends it by the game's rule:
the player goes (poker, backgammon) or keeps the seat, the clock playing for him (rummy,
Joker).
"""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

import pytest

from croupier.table.v1 import table_pb2
from tests.support.games import GameAtTable, open_over_grpc
from tests.support.infra import unique_name
from tests.support.kafka_table import play_random_over_grpc, serve_table

pytestmark = pytest.mark.timeout(120)

WINDOW_SECONDS = 6
KILLED_AFTER_SECONDS = 3  # into the window
# How late after its end a window's rule may show (the unseat command, an evaluation):
# a fresh window from the restart would end at least `KILLED_AFTER_SECONDS` later.
LATE_SECONDS = 2.5


async def public_view(stub: Any, table_id: str) -> table_pb2.TableView:
    return (await stub.GetView(table_pb2.GetViewRequest(table_id=table_id))).view


async def test_sigkill_during_a_reconnection_window_then_it_runs_on_and_ends_by_the_rule(
    kafka_bootstrap: str, game: GameAtTable
) -> None:
    topic = unique_name("table_commands")
    leaver = game.players[-1]
    async with serve_table(kafka_bootstrap, topic) as stub:
        table_id = await open_over_grpc(stub, game, reconnect_seconds=WINDOW_SECONDS)
        await play_random_over_grpc(stub, game, table_id, 2, random.Random(22))
        await stub.Disconnect(table_pb2.DisconnectRequest(table_id=table_id, player_id=leaver))
        window_ends = time.monotonic() + WINDOW_SECONDS
        before = await public_view(stub, table_id)
        assert list(before.disconnected) == [leaver]
        await asyncio.sleep(KILLED_AFTER_SECONDS)
    # SIGKILLed: nothing was flushed or handed over.

    async with serve_table(kafka_bootstrap, topic) as stub:
        served_at = time.monotonic()
        rebuilt = await public_view(stub, table_id)
        if served_at < window_ends:
            # Within the window still: the same table, the player away, his seat kept.
            assert (rebuilt.version, rebuilt.view_json) == (before.version, before.view_json)
            assert list(rebuilt.disconnected) == [leaver]
            assert leaver in rebuilt.seated
        while leaver in (await public_view(stub, table_id)).seated:
            if time.monotonic() > max(window_ends, served_at) + LATE_SECONDS:
                break
            await asyncio.sleep(0.1)
        decided_at = time.monotonic()
        after = await public_view(stub, table_id)

    if game.leaves_after_window:
        assert leaver not in after.seated, f"{leaver} kept his {game.name} seat"
        assert decided_at >= window_ends - 0.5, "unseated before the window ended"
        assert list(after.disconnected) == []
    else:  # the game cannot lose him: the seat stays, the clock plays his turns
        assert leaver in after.seated and list(after.disconnected) == [leaver]
