"""`GetHandHistory` through the gateway (in process: the `world` fixture's poker table on
an in-memory table host): once a hand has finished, its history comes back as the table
host holds it, the seed revealed against the commitment the caller's view showed while
the hand was played, for the hand's players only; a hand that has not finished, or a
table that does not exist, is NOT_FOUND with the host's words."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

import grpc
import pytest

from croupier.gateway.v1 import gateway_pb2 as pb
from croupier.table.core.history import verify
from croupier.table.games import load_engines
from croupier.table.v1 import table_pb2
from tests.support.gateway import bearer
from tests.unit.gateway.conftest import NOW, POKER, World


async def _view(world: World, player: str) -> table_pb2.TableView:
    request = pb.GetTableViewRequest(
        table_id=world.table_id, view_format=table_pb2.VIEW_FORMAT_JSON
    )
    answer = await world.gateway.stub.GetTableView(request, metadata=bearer(player, now=NOW))
    view: table_pb2.TableView = answer.view
    return view


@dataclass(frozen=True)
class HandOne:
    commitment: str
    """The seed's SHA-256 that p0's view showed while hand 1 was played."""
    hole_cards: set[str]
    """p0's cards in hand 1, as his own view showed them."""
    folder: str
    """Who folded hand 1 (the small blind, first to act heads-up)."""


async def _finish_hand_one(world: World) -> HandOne:
    """The player to act folds hand 1 through the gateway."""
    dealt = await _view(world, "p0")
    assert (dealt.hand_number, dealt.last_finished_hand) == (1, 0)
    assert len(dealt.hand_seed_sha256) == 64
    hole_cards = POKER.secrets("p0", json.loads(dealt.view_json))
    assert len(hole_cards) == 2
    folds = pb.ActRequest(
        table_id=world.table_id, command_id="fold-1", action_json=json.dumps({"action": "fold"})
    )
    folder = world.to_act()
    await world.gateway.stub.Act(folds, metadata=bearer(folder, now=NOW))
    assert (await _view(world, "p0")).last_finished_hand == 1
    return HandOne(dealt.hand_seed_sha256, hole_cards, folder)


async def _history(world: World, player: str, hand_number: int) -> dict[str, Any]:
    request = pb.GetHandHistoryRequest(table_id=world.table_id, hand_number=hand_number)
    answer = await world.gateway.stub.GetHandHistory(request, metadata=bearer(player, now=NOW))
    history: dict[str, Any] = json.loads(answer.history_json)
    return history


async def _refused(
    world: World, table_id: str, hand_number: int
) -> tuple[grpc.StatusCode, str, str]:
    """The status, the `x-error-reason` trailer and the details of a refused call."""
    request = pb.GetHandHistoryRequest(table_id=table_id, hand_number=hand_number)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await world.gateway.stub.GetHandHistory(request, metadata=bearer("p0", now=NOW))
    trailers = dict(caught.value.trailing_metadata() or ())
    reason = str(trailers.get("x-error-reason", ""))
    return caught.value.code(), reason, caught.value.details() or ""


async def test_a_seated_player_gets_a_finished_hands_history_as_the_table_host_holds_it(
    world: World,
) -> None:
    hand = await _finish_hand_one(world)
    history = await _history(world, "p0", 1)
    own = json.loads(json.dumps(world.host.hand_history(world.table_id, 1)))
    assert history == own  # the host's own history, unaltered by the gateway
    assert (history["table_id"], history["game"], history["hand_number"]) == (
        world.table_id,
        "poker",
        1,
    )
    # The seed revealed is the one committed to while the hand was played, and it deals
    # what the history says was dealt; the commands replay to the recorded result.
    assert history["seed_sha256"] == hand.commitment
    assert hashlib.sha256(bytes.fromhex(history["seed"])).hexdigest() == hand.commitment
    assert hand.hole_cards <= set(history["dealt"])
    assert verify(load_engines(), history) == []
    # Its commands end with the fold the gateway forwarded, and the result is that fold's:
    # the small blind lost to the big blind.
    last = history["commands"][-1]
    command = ("act", hand.folder, f"act:{hand.folder}:fold-1")  # the host's own id for it
    assert (last["kind"], last["player"], last["command_id"]) == command
    winner = next(p for p in POKER.players if p != hand.folder)
    assert history["result"]["deltas"] == {hand.folder: -1, winner: 1}


async def test_both_players_of_the_hand_get_the_same_history(world: World) -> None:
    await _finish_hand_one(world)
    assert await _history(world, "p0", 1) == await _history(world, "p1", 1)


async def test_nobody_but_the_hands_players_gets_its_history(world: World) -> None:
    """The seed re-derives every card dealt, folded hands included: a spectator, or a
    player who sits down after the hand, is refused it, and learns nothing of it."""
    await _finish_hand_one(world)
    assert "eve" not in world.host.view(world.table_id, "").seated
    request = pb.GetHandHistoryRequest(table_id=world.table_id, hand_number=1)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await world.gateway.stub.GetHandHistory(request, metadata=bearer("eve", now=NOW))
    assert caught.value.code() is grpc.StatusCode.PERMISSION_DENIED
    trailers = dict(caught.value.trailing_metadata() or ())
    assert trailers.get("x-error-reason") == "not_in_hand"
    details = caught.value.details() or ""
    seed = world.host.hand_history(world.table_id, 1)["seed"]
    assert "players only" in details and seed not in details


async def test_the_hand_being_played_has_no_history_yet_and_is_not_found(world: World) -> None:
    await _finish_hand_one(world)
    playing = await _view(world, "p0")
    assert playing.hand_number == 2 and playing.last_finished_hand == 1  # hand 2 dealt
    before = world.host.digest(world.table_id)
    code, _, details = await _refused(world, world.table_id, 2)
    assert code is grpc.StatusCode.NOT_FOUND
    assert "hand 2 of this table has not finished" in details
    assert world.host.digest(world.table_id) == before
    code, _, details = await _refused(world, world.table_id, 99)  # never dealt
    assert code is grpc.StatusCode.NOT_FOUND
    assert "hand 99" in details


async def test_no_hand_has_a_history_before_the_first_one_finishes(world: World) -> None:
    code, _, details = await _refused(world, world.table_id, 1)
    assert code is grpc.StatusCode.NOT_FOUND
    assert "has not finished" in details


async def test_the_history_of_a_table_that_does_not_exist_is_not_found(world: World) -> None:
    code, _, _ = await _refused(world, "no-such-table", 1)
    assert code is grpc.StatusCode.NOT_FOUND


async def test_a_history_request_without_a_table_id_reaches_no_table_host(world: World) -> None:
    code, reason, _ = await _refused(world, "", 1)
    assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "invalid_request")
