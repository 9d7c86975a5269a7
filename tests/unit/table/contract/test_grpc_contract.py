"""The TableEngine gRPC service's contract, the same for every game (each test runs once per
game): a bad `Act` (malformed, another game's, out of turn, for an unknown table or player)
answers its status with a clear message and changes nothing; a view comes in the asked
format (the game's protobuf message, JSON, or both) with the same content; nobody,
spectator or other player, sees a player's hidden cards; `CloseTable` lets the hand in
play end, deals no other and ends the view streams.

The host is served over real gRPC in this process on the in-memory log and bus, on the
test's clock (`FakeClock`: no clock runs out unless the test moves it).
"""

from __future__ import annotations

import hashlib
import json
import random

import grpc

from croupier.events.v1.envelope_pb2 import Envelope
from croupier.table.adapters.sink import EVENTS_TOPIC
from croupier.table.v1 import table_pb2
from tests.support.contract import BOTH, act_at_random, get_view, served_table, to_act
from tests.support.games import GameAtTable, strings_in
from tests.support.table import ServedHost, logged_entries, status_of

PROTO = table_pb2.VIEW_FORMAT_PROTO
JSON_ONLY = table_pb2.VIEW_FORMAT_JSON


async def test_a_bad_act_answers_its_status_with_a_clear_message_and_changes_nothing(
    game: GameAtTable,
) -> None:
    async with served_table(game) as table:
        served, table_id = table.served, table.table_id
        stub = served.stub
        viewers = ["", *game.players]
        before = [await get_view(stub, table_id, p) for p in viewers]
        logged = len(await logged_entries(served.log))
        player = to_act(game, before[0])
        other = next(p for p in game.players if p != player)
        own = json.loads(before[viewers.index(player)].view_json)
        legal = json.dumps(game.legal_action(own, random.Random(1)))
        codes = grpc.StatusCode
        cases = [
            (table_id, other, legal, "c1", codes.FAILED_PRECONDITION),  # not his turn
            (table_id, player, "{not json", "c1", codes.INVALID_ARGUMENT),
            (table_id, player, "[1, 2]", "c1", codes.INVALID_ARGUMENT),
            (table_id, player, '{"action": "juggle"}', "c1", codes.INVALID_ARGUMENT),
            (table_id, player, "", "", codes.INVALID_ARGUMENT),  # no action, no command id
            (table_id, "mallory", legal, "c1", codes.NOT_FOUND),
            ("missing", player, legal, "c1", codes.NOT_FOUND),
        ]
        for table, who, action_json, command_id, expected in cases:
            request = table_pb2.ActRequest(
                table_id=table, player_id=who, command_id=command_id, action_json=action_json
            )
            code, details = await status_of(stub.Act(request))
            assert code == expected, (action_json, code, details)
            assert details and len(details) < 300, details
            if table == "missing":
                assert details == "no table with id 'missing'"
        after = [await get_view(stub, table_id, p) for p in viewers]
        assert after == before
        assert len(await logged_entries(served.log)) == logged


async def test_another_games_action_is_invalid_argument(game: GameAtTable) -> None:
    other = "joker" if game.name == "poker" else "poker"
    async with served_table(game) as table:
        before = await get_view(table.stub, table.table_id)
        request = table_pb2.ActRequest(
            table_id=table.table_id, player_id=to_act(game, before), command_id="c"
        )
        getattr(request.action, other).SetInParent()
        code, details = await status_of(table.stub.Act(request))
        assert code == grpc.StatusCode.INVALID_ARGUMENT
        assert details == f"this is a {game.name} table; got a {other} action"
        assert await get_view(table.stub, table.table_id) == before


async def test_each_view_format_carries_its_form_only_and_the_same_content(
    game: GameAtTable,
) -> None:
    async with served_table(game) as table:
        served, table_id = table.served, table.table_id
        for viewer in ("", *game.players):
            formats = [await get_view(served.stub, table_id, viewer, f) for f in (BOTH, PROTO)]
            both, proto = formats
            json_only = await get_view(served.stub, table_id, viewer, JSON_ONLY)
            assert both.game.WhichOneof("game") == game.name and both.view_json
            assert proto.game == both.game and proto.view_json == ""
            assert json_only.view_json == both.view_json
            assert json_only.game.WhichOneof("game") is None
            for view in (proto, json_only):  # the rest of the view is the same
                assert (view.table_id, view.version, list(view.seated)) == (
                    both.table_id,
                    both.version,
                    list(both.seated),
                )


async def test_seat_watch_act_and_reconnect_answer_in_the_asked_format(
    game: GameAtTable,
) -> None:
    async with served_table(game, seated=len(game.players) - 1) as table:
        served, table_id = table.served, table.table_id
        stub = served.stub
        last = len(game.players) - 1
        seated = await stub.SeatPlayer(
            table_pb2.SeatPlayerRequest(
                table_id=table_id,
                player_id=game.players[last],
                seat=last,
                stack=game.stack,
                view_format=JSON_ONLY,
            )
        )
        assert seated.view.view_json and seated.view.game.WhichOneof("game") is None
        stream = stub.WatchView(
            table_pb2.WatchViewRequest(
                table_id=table_id, player_id=game.players[0], view_format=PROTO
            )
        )
        watched = await stream.read()
        stream.cancel()
        assert watched.view.game.WhichOneof("game") == game.name
        assert watched.view.view_json == ""

        player = to_act(game, await get_view(stub, table_id))
        mine = json.loads((await get_view(stub, table_id, player)).view_json)
        acted = await stub.Act(
            table_pb2.ActRequest(
                table_id=table_id,
                player_id=player,
                command_id="c1",
                action_json=json.dumps(game.legal_action(mine, random.Random(1))),
                view_format=PROTO,
            )
        )
        assert acted.view.game.WhichOneof("game") == game.name and acted.view.view_json == ""
        back = await stub.Reconnect(
            table_pb2.ReconnectRequest(
                table_id=table_id, player_id=game.players[1], view_format=JSON_ONLY
            )
        )
        assert back.view.view_json and back.view.game.WhichOneof("game") is None


async def test_an_unknown_view_format_is_invalid_argument_and_changes_nothing(
    game: GameAtTable,
) -> None:
    async with served_table(game) as table:
        served, table_id = table.served, table.table_id
        stub = served.stub
        before = await get_view(stub, table_id)
        player = to_act(game, before)
        mine = json.loads((await get_view(stub, table_id, player)).view_json)
        code, details = await status_of(
            stub.Act(
                table_pb2.ActRequest(
                    table_id=table_id,
                    player_id=player,
                    command_id="c1",
                    action_json=json.dumps(game.legal_action(mine, random.Random(1))),
                    view_format=table_pb2.ViewFormat.ValueType(7),
                )
            )
        )
        assert code == grpc.StatusCode.INVALID_ARGUMENT
        assert details == (
            "view_format 7 is not one of VIEW_FORMAT_UNSPECIFIED, VIEW_FORMAT_PROTO, "
            "VIEW_FORMAT_JSON"
        )
        assert await get_view(stub, table_id) == before


async def test_no_spectator_or_other_player_sees_a_players_hidden_cards(
    game: GameAtTable,
) -> None:
    async with served_table(game) as table:
        served, table_id = table.served, table.table_id
        stub = served.stub
        for n in range(6):  # at the deal, then after each of a few actions
            own = {p: await get_view(stub, table_id, p) for p in game.players}
            secrets = {p: game.secrets(p, json.loads(v.view_json)) for p, v in own.items()}
            for player, view in own.items():  # his own views, JSON and protobuf, show them
                assert secrets[player] <= strings_in(json.loads(view.view_json))
                assert secrets[player] <= strings_in(view.game)
            if n == 0 and game.name != "backgammon":  # a game of hidden cards deals them
                assert all(secrets.values()), secrets
            for viewer in ("", *game.players):
                view = await get_view(stub, table_id, viewer)
                seen = strings_in(json.loads(view.view_json)) | strings_in(view.game)
                for other in game.players:
                    if other != viewer:
                        leaked = secrets[other] & seen
                        assert not leaked, f"{viewer or 'a spectator'} sees {other}'s {leaked}"
            await act_at_random(table, game, n)


def published(served: ServedHost, event_type: str) -> int:
    envelopes = [Envelope.FromString(m.value or b"") for m in served.bus.messages(EVENTS_TOPIC)]
    return sum(1 for e in envelopes if e.type == event_type)


async def test_a_table_closed_with_no_hand_in_play_closes_at_once_and_ends_streams(
    game: GameAtTable,
) -> None:
    async with served_table(game, seated=1) as table:
        stub, table_id = table.stub, table.table_id
        await stub.CloseTable(table_pb2.CloseTableRequest(table_id=table_id))
        stream = stub.WatchView(
            table_pb2.WatchViewRequest(table_id=table_id, player_id=game.players[0])
        )
        views = [message.view async for message in stream]
        assert len(views) == 1 and views[0].closed
        code, details = await status_of(
            stub.SeatPlayer(
                table_pb2.SeatPlayerRequest(
                    table_id=table_id, player_id=game.players[1], seat=1, stack=game.stack
                )
            )
        )
        assert code == grpc.StatusCode.FAILED_PRECONDITION and "closed" in details


async def test_close_table_lets_the_hand_in_play_end_and_deals_no_other(
    game: GameAtTable,
) -> None:
    async with served_table(game) as table:
        stub, table_id = table.stub, table.table_id
        await stub.CloseTable(table_pb2.CloseTableRequest(table_id=table_id))
        assert not (await get_view(stub, table_id)).closed  # the hand in play goes on
        n = 0
        while not (view := await get_view(stub, table_id)).closed:
            await act_at_random(table, game, n)
            n += 1
            assert n < 5_000, f"the {game.name} hand never ended"
        assert view.last_finished_hand >= 1  # a Joker game settles after its last deal
        assert game.to_act(json.loads(view.view_json)) is None  # no other hand is dealt
        await table.served.host.flush()
        assert published(table.served, "table.hand_ended") == 1  # one settlement, then closed
        assert published(table.served, "table.table_closing") == 1
        assert published(table.served, "table.table_closed") == 1
        code, details = await status_of(
            stub.Act(
                table_pb2.ActRequest(
                    table_id=table_id,
                    player_id=game.players[0],
                    command_id="late",
                    action_json='{"action": "late"}',
                )
            )
        )
        assert code == grpc.StatusCode.FAILED_PRECONDITION and "closed" in details
        table.clock.advance(60_000)
        assert await get_view(stub, table_id) == view


async def test_the_commitment_shown_at_the_deal_is_the_one_the_history_reveals(
    game: GameAtTable,
) -> None:
    async with served_table(game) as table:
        stub, table_id = table.stub, table.table_id
        shown: dict[int, str] = {}  # hand number -> the commitment shown while it was played
        n = 0
        while (view := await get_view(stub, table_id, game.players[0])).last_finished_hand < 1:
            assert view.hand_number >= 1 and len(view.hand_seed_sha256) == 64
            assert shown.setdefault(view.hand_number, view.hand_seed_sha256) == (
                view.hand_seed_sha256
            ), "a hand's commitment never changes"
            await act_at_random(table, game, n)
            n += 1
            assert n < 5_000, f"the {game.name} hand never ended"
        finished = view.last_finished_hand  # Joker: the game's last deal settles it
        answer = await stub.GetHandHistory(
            table_pb2.GetHandHistoryRequest(table_id=table_id, hand_number=finished)
        )
        history = json.loads(answer.history_json)
        assert history["seed_sha256"] == shown[finished]
        assert hashlib.sha256(bytes.fromhex(history["seed"])).hexdigest() == shown[finished]
