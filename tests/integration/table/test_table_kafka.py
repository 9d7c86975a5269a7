"""The table host against the real Kafka broker: a process killed and restarted (every
game), hidden cards (Joker; a host rebuilt from the log, for every game:
contract/test_kafka_contract.py).

An integration test: the command log is `croupier.table.commands`-style topic of its
own per test on the broker that `deploy/local/with-infra.sh` started.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest

from croupier.table.v1 import table_pb2, table_pb2_grpc
from tests.support.games import GameAtTable
from tests.support.infra import unique_name
from tests.support.kafka_table import kafka_service, play_random_over_grpc, serve_table
from tests.support.table import random_joker_action

PLAYERS = ["giorgi", "nika", "ana", "levan"]


async def all_views(
    stub: table_pb2_grpc.TableEngineStub, table_id: str, players: tuple[str, ...]
) -> dict[str, str]:
    views = {}
    for player in ["", *players]:
        response = await stub.GetView(table_pb2.GetViewRequest(table_id=table_id, player_id=player))
        views[player] = f"{response.view.version}:{response.view.view_json}"
    return views


async def test_sigkill_at_a_random_point_then_a_new_process_resumes(
    kafka_bootstrap: str, game: GameAtTable
) -> None:
    rng = random.Random()
    topic = unique_name("table_commands")
    async with serve_table(kafka_bootstrap, topic) as stub:
        request = table_pb2.OpenTableRequest(
            game=game.name, options_json=json.dumps(game.options), request_key="t"
        )
        request.clock.turn_seconds = 3600  # no clock runs out while the test plays
        table_id = (await stub.OpenTable(request)).table_id
        for seat, player in enumerate(game.players):
            await stub.SeatPlayer(
                table_pb2.SeatPlayerRequest(
                    table_id=table_id, player_id=player, seat=seat, stack=game.stack
                )
            )
        await play_random_over_grpc(stub, game, table_id, rng.randrange(5, 60), rng)
        before = await all_views(stub, table_id, game.players)

    async with serve_table(kafka_bootstrap, topic) as stub:
        assert await all_views(stub, table_id, game.players) == before
        await play_random_over_grpc(stub, game, table_id, 10, rng)
        after = await all_views(stub, table_id, game.players)
        assert after[""] != before[""]


CARD_CODES = {f"{r}{s}" for r in "6789TJQKA" for s in "cdhs"} | {"X1", "X2"}


def cards_in(value: Any) -> set[str]:
    """Every card code anywhere in a decoded JSON value."""
    if isinstance(value, str):
        return {value} & CARD_CODES
    if isinstance(value, dict):
        return set().union(*(cards_in(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(cards_in(v) for v in value)) if value else set()
    return set()


@pytest.fixture
async def table_server(kafka_bootstrap: str) -> AsyncIterator[table_pb2_grpc.TableEngineStub]:
    async with kafka_service(kafka_bootstrap, "hidden-cards") as stub:
        yield stub


async def test_no_player_ever_receives_another_players_cards(
    table_server: table_pb2_grpc.TableEngineStub,
) -> None:
    stub = table_server
    rng = random.Random(5)
    table_id = (
        await stub.OpenTable(table_pb2.OpenTableRequest(game="joker", options_json="{}"))
    ).table_id
    for seat, player in enumerate(PLAYERS):
        await stub.SeatPlayer(
            table_pb2.SeatPlayerRequest(table_id=table_id, player_id=player, seat=seat)
        )
    received: dict[str, list[tuple[int, Any]]] = {p: [] for p in PLAYERS}

    async def watch(player: str) -> None:
        stream = stub.WatchView(table_pb2.WatchViewRequest(table_id=table_id, player_id=player))
        async for message in stream:
            received[player].append((message.view.version, json.loads(message.view.view_json)))

    watchers = [asyncio.ensure_future(watch(p)) for p in PLAYERS]
    await asyncio.sleep(0.2)
    errors: dict[str, list[str]] = {p: [] for p in PLAYERS}
    for n in range(300):
        public = json.loads(
            (await stub.GetView(table_pb2.GetViewRequest(table_id=table_id))).view.view_json
        )
        to_act = public["hand"]["to_act"]
        mine = await stub.GetView(table_pb2.GetViewRequest(table_id=table_id, player_id=to_act))
        received[to_act].append((mine.view.version, json.loads(mine.view.view_json)))
        legal = json.loads(mine.view.view_json)["legal"]
        if legal["actions"] == ["play"] and rng.random() < 0.2:
            # Try a card somebody else holds: the refusal must not say whose it is.
            own = set(json.loads(mine.view.view_json)["hand"]["own_cards"])
            bogus = rng.choice(sorted(CARD_CODES - own))
            try:
                await stub.Act(
                    table_pb2.ActRequest(
                        table_id=table_id,
                        player_id=to_act,
                        command_id=f"bad{n}",
                        action_json=json.dumps({"action": "play", "card": bogus}),
                    )
                )
            except grpc.aio.AioRpcError as exc:
                errors[to_act].append(exc.details() or "")
        action = random_joker_action(legal, rng)
        response = await stub.Act(
            table_pb2.ActRequest(
                table_id=table_id,
                player_id=to_act,
                command_id=f"ok{n}",
                action_json=json.dumps(action),
            )
        )
        received[to_act].append((response.view.version, json.loads(response.view.view_json)))
    await asyncio.sleep(0.3)
    for task in watchers:
        task.cancel()

    # Each player's own hand at each version, as their own views showed it.
    hands: dict[tuple[str, int], set[str]] = {}
    for player, messages in received.items():
        for version, view in messages:
            if view.get("hand") and "own_cards" in view["hand"]:
                hands[(player, version)] = set(view["hand"]["own_cards"])
    checked = 0
    for player, messages in received.items():
        for version, view in messages:
            for other in PLAYERS:
                held = hands.get((other, version))
                if other == player or held is None:
                    continue
                assert not (cards_in(view) & held), f"{player} saw {other}'s cards at {version}"
                checked += 1
        for details in errors[player]:
            for other in PLAYERS:
                if other != player:
                    assert other not in details
    assert checked > 500
