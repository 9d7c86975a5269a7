"""A disconnected player, the same for every game (each test runs once per game): presence
comes from the player's own calls (`Disconnect`, `Reconnect`, an action of his), never from
somebody watching as him, and only a seated player can be away; others see him away; his
seat is kept for the reconnection window and `Reconnect` gives him back his current view
(his own cards, nobody else's); his clock is not reset by the disconnection and times him
out like anybody; after the window the game decides whether he leaves
(tests/support/games.py `leaves_after_window`).

The host is served over real gRPC in this process on the in-memory log and bus, on the
test's clock (`FakeClock`): the window and the turn clock run out only when the test moves
time.
"""

from __future__ import annotations

import asyncio
import json
import random

import grpc

from croupier.table.adapters.sink import WALLET_REQUESTS_TOPIC
from croupier.table.core.table_state import PRESENCE_KINDS
from croupier.table.v1 import table_pb2
from tests.support.contract import Table, act_at_random, get_view, served_table, to_act
from tests.support.games import GameAtTable, strings_in
from tests.support.table import logged_entries, status_of, until


async def settle() -> None:
    """Let the host's background work run (a timer set, an expiry that just fell due)."""
    await asyncio.sleep(0.05)


async def disconnect(table: Table, player: str) -> None:
    """The player's session ends: his view stream drops and the gateway says so (twice:
    saying it again changes nothing)."""
    stream = table.stub.WatchView(
        table_pb2.WatchViewRequest(table_id=table.table_id, player_id=player)
    )
    await stream.read()
    stream.cancel()
    for _ in range(2):
        await table.stub.Disconnect(
            table_pb2.DisconnectRequest(table_id=table.table_id, player_id=player)
        )
    await settle()  # the window's timer is set (in the background) at this time


async def logged_kinds(table: Table, player: str) -> list[str]:
    entries = await logged_entries(table.served.log)
    # Presence is logged too (a rebuilt table resumes its windows), but the game never
    # sees it: the kinds the game is told.
    return [
        e.kind for e in entries if e.player == player and e.kind not in ("seat", *PRESENCE_KINDS)
    ]


async def test_the_seat_is_kept_for_the_window_and_reconnecting_resumes_the_exact_state(
    game: GameAtTable,
) -> None:
    async with served_table(game, reconnect_seconds=180) as table:
        stub, table_id = table.stub, table.table_id
        leaver = to_act(game, await get_view(stub, table_id))
        others = [p for p in game.players if p != leaver]
        before = await get_view(stub, table_id, leaver)
        await disconnect(table, leaver)
        for viewer in ("", *game.players):
            assert list((await get_view(stub, table_id, viewer)).disconnected) == [leaver]

        table.clock.advance(179_000)  # 2 min 59 s
        await settle()
        assert list((await get_view(stub, table_id)).seated) == list(game.players)
        back = (
            await stub.Reconnect(table_pb2.ReconnectRequest(table_id=table_id, player_id=leaver))
        ).view
        # The same state; two entries later (the disconnection and the return, logged).
        assert (back.version, back.view_json, back.game) == (
            before.version + 2,
            before.view_json,
            before.game,
        )
        assert list((await get_view(stub, table_id, others[0])).disconnected) == []

        table.clock.advance(60_000)  # past the first window: nothing happens
        await settle()
        assert await logged_kinds(table, leaver) == []
        assert (await get_view(stub, table_id, leaver)).view_json == before.view_json
        assert list((await get_view(stub, table_id)).seated) == list(game.players)
        assert table.served.bus.messages(WALLET_REQUESTS_TOPIC) == []


async def test_a_disconnected_players_clock_runs_on_and_times_him_out_like_anybodys(
    game: GameAtTable,
) -> None:
    async with served_table(game, turn_seconds=3, reconnect_seconds=3600) as table:
        stub, table_id = table.stub, table.table_id
        waiting = to_act(game, await get_view(stub, table_id))
        assert (await get_view(stub, table_id, waiting)).turn_seconds_left == 3.0
        table.clock.advance(1_200)
        await disconnect(table, waiting)
        view = await get_view(stub, table_id, waiting)
        assert view.turn_seconds_left == 1.8  # not reset by the disconnection
        table.clock.advance(1_799)
        await settle()
        assert await logged_kinds(table, waiting) == []
        table.clock.advance(1)  # the original deadline
        for _ in range(100):
            if await logged_kinds(table, waiting):
                break
            await settle()
        assert await logged_kinds(table, waiting) == ["timeout"]  # timed out, never unseated
        public = await get_view(stub, table_id)
        assert list(public.seated) == list(game.players)
        assert list(public.disconnected) == [waiting]

        # No clock runs out meanwhile: time stands still until the test moves it.
        back = (
            await stub.Reconnect(table_pb2.ReconnectRequest(table_id=table_id, player_id=waiting))
        ).view
        views = {p: await get_view(stub, table_id, p) for p in game.players}
    assert back.view_json == views[waiting].view_json  # his current view
    assert {v.version for v in views.values()} == {back.version}
    assert list(back.disconnected) == []
    mine = game.secrets(waiting, json.loads(back.view_json))
    assert mine <= strings_in(json.loads(back.view_json)) and mine <= strings_in(back.game)
    seen = strings_in(json.loads(back.view_json)) | strings_in(back.game)
    for other, view in views.items():
        if other != waiting:
            assert not game.secrets(other, json.loads(view.view_json)) & seen


async def test_after_the_window_the_game_decides_whether_he_leaves(game: GameAtTable) -> None:
    async with served_table(game, reconnect_seconds=1) as table:
        stub, table_id = table.stub, table.table_id
        for n in range(4):  # the game is under way
            await act_at_random(table, game, n)
        leaver = game.players[-1]
        await disconnect(table, leaver)
        table.clock.advance(999)
        await settle()
        assert leaver in (await get_view(stub, table_id)).seated  # within the window
        table.clock.advance(1)
        if game.leaves_after_window:
            await until(lambda: leaver not in table.served.host.view(table_id, "").seated)
            assert "unseat" in await logged_kinds(table, leaver)
        else:
            for _ in range(20):
                table.clock.advance(1_000)
                await settle()
            assert leaver in (await get_view(stub, table_id)).seated
            assert "unseat" not in await logged_kinds(table, leaver)


async def test_a_closed_watch_stream_is_no_disconnection(game: GameAtTable) -> None:
    """Anybody may watch as any player (a spectator, a second tab): only `Disconnect`, the
    player's session ending, starts the window."""
    async with served_table(game, reconnect_seconds=1) as table:
        watcher = game.players[-1]
        stream = table.stub.WatchView(
            table_pb2.WatchViewRequest(table_id=table.table_id, player_id=watcher)
        )
        assert list((await stream.read()).view.seated) == list(game.players)
        stream.cancel()  # somebody watching as him goes away
        await settle()
        table.clock.advance(5_000)  # well past his window
        await settle()
        view = await get_view(table.stub, table.table_id)
        assert list(view.seated) == list(game.players) and list(view.disconnected) == []


async def test_reconnecting_or_acting_ends_the_absence(game: GameAtTable) -> None:
    async with served_table(game, reconnect_seconds=1) as table:
        stub, table_id = table.stub, table.table_id
        player = to_act(game, await get_view(stub, table_id))
        other = next(p for p in game.players if p != player)
        for away in (player, other):
            await stub.Disconnect(table_pb2.DisconnectRequest(table_id=table_id, player_id=away))
        await settle()
        await stub.Reconnect(table_pb2.ReconnectRequest(table_id=table_id, player_id=other))
        mine = json.loads((await get_view(stub, table_id, player)).view_json)
        await stub.Act(
            table_pb2.ActRequest(
                table_id=table_id,
                player_id=player,
                command_id="back",
                action_json=json.dumps(game.legal_action(mine, random.Random(1))),
            )
        )
        table.clock.advance(5_000)  # past both windows
        await settle()
        view = await get_view(stub, table_id)
        assert list(view.seated) == list(game.players) and list(view.disconnected) == []
        assert await logged_kinds(table, other) == []


async def test_only_a_seated_player_can_be_away(game: GameAtTable) -> None:
    async with served_table(game) as table:
        code, _ = await status_of(
            table.stub.Disconnect(
                table_pb2.DisconnectRequest(table_id=table.table_id, player_id="mallory")
            )
        )
        assert code == grpc.StatusCode.NOT_FOUND
        assert list((await get_view(table.stub, table.table_id)).disconnected) == []
