"""Poker table options and table actions through the gRPC host (in-memory log and bus):
`bots_allowed` with field presence (rule 51, 59), top-up (rule 50) and posting to enter
(OQ 22) as protobuf actions; refusals leave the table unchanged."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest

from croupier.poker.v1 import poker_pb2
from croupier.table.v1 import table_pb2
from tests.support.table import served_table_host

pytestmark = pytest.mark.timeout(60)
Stub = Any  # the generated aio stub is typed as the sync one


@pytest.fixture
async def stub() -> AsyncIterator[Any]:
    async with served_table_host() as client:
        yield client


async def open_table(stub: Stub, options: poker_pb2.Options) -> str:
    request = table_pb2.OpenTableRequest(options=table_pb2.GameOptions(poker=options))
    request.clock.turn_seconds = 3600
    return (await stub.OpenTable(request)).table_id


async def seat(stub: Stub, table_id: str, player: str, number: int, **extra: object) -> None:
    await stub.SeatPlayer(
        table_pb2.SeatPlayerRequest(
            table_id=table_id, player_id=player, seat=number, stack=100, **extra
        )
    )


async def bot_refused(stub: Stub, table_id: str) -> bool:
    try:
        await seat(stub, table_id, "bot1", 5, is_bot=True)
    except grpc.aio.AioRpcError as error:
        assert error.code() == grpc.StatusCode.PERMISSION_DENIED
        assert error.details() == "bots are not enabled at this table"
        return True
    return False


async def test_rule_51_bots_allowed_false_is_told_apart_from_unset(stub: Stub) -> None:
    public = poker_pb2.Options(variant=poker_pb2.VARIANT_NLHE, small_blind=1, big_blind=2)
    assert not await bot_refused(stub, await open_table(stub, public))  # unset: public, bots
    public.bots_allowed = False
    assert await bot_refused(stub, await open_table(stub, public))  # explicit false
    private = poker_pb2.Options(variant=poker_pb2.VARIANT_NAIKO, invite_code="K9")
    assert await bot_refused(stub, await open_table(stub, private))  # unset: private, none
    private.bots_allowed = True
    assert not await bot_refused(stub, await open_table(stub, private))


async def act(stub: Stub, table_id: str, player: str, action: poker_pb2.Action, cid: str) -> None:
    await stub.Act(
        table_pb2.ActRequest(
            table_id=table_id,
            player_id=player,
            command_id=cid,
            action=table_pb2.GameAction(poker=action),
        )
    )


async def table_seat(stub: Stub, table_id: str, player: str) -> poker_pb2.TableSeat:
    view = (await stub.GetView(table_pb2.GetViewRequest(table_id=table_id))).view
    return next(s for s in view.game.poker.table if s.player_id == player)


async def test_rule_50_top_up_and_oq_22_post_blind_as_protobuf_actions(stub: Stub) -> None:
    options = poker_pb2.Options(
        variant=poker_pb2.VARIANT_NLHE, small_blind=1, big_blind=2, max_buy_in=150
    )
    table_id = await open_table(stub, options)
    for number, player in enumerate(("ann", "bob", "cat")):
        await seat(stub, table_id, player, number)
    top_up = poker_pb2.Action(kind=poker_pb2.ACTION_KIND_TOP_UP, amount=30)
    await act(stub, table_id, "ann", top_up, "t1")  # in the running hand: pending
    assert (await table_seat(stub, table_id, "ann")).pending_top_up == 30
    before = (await stub.GetView(table_pb2.GetViewRequest(table_id=table_id))).view
    too_much = poker_pb2.Action(kind=poker_pb2.ACTION_KIND_TOP_UP, amount=21)
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await act(stub, table_id, "ann", too_much, "t2")
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert refused.value.details() == (
        "a top-up may bring the stack to at most 150: at most 20 more"
    )
    after = (await stub.GetView(table_pb2.GetViewRequest(table_id=table_id))).view
    assert after.version == before.version  # nothing logged
    await act(stub, table_id, "ann", top_up, "t1")  # the same command id: applied once
    assert (await table_seat(stub, table_id, "ann")).pending_top_up == 30
    await seat(stub, table_id, "dan", 5)
    assert (await table_seat(stub, table_id, "dan")).waiting_for_big_blind
    post = poker_pb2.Action(kind=poker_pb2.ACTION_KIND_POST_BLIND)
    await act(stub, table_id, "dan", post, "p1")
    assert (await table_seat(stub, table_id, "dan")).posting_blind
    with pytest.raises(grpc.aio.AioRpcError) as twice:
        await act(stub, table_id, "dan", post, "p2")
    assert twice.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert twice.value.details() == "you already chose to post"
    zero = poker_pb2.Action(kind=poker_pb2.ACTION_KIND_TOP_UP)
    with pytest.raises(grpc.aio.AioRpcError) as empty:
        await act(stub, table_id, "bob", zero, "z1")
    assert empty.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert empty.value.details() == "a top-up needs a positive integer amount, got 0"


async def test_rules_50_55_a_naiko_table_in_a_real_currency_is_refused(stub: Stub) -> None:
    options = poker_pb2.Options(
        variant=poker_pb2.VARIANT_NAIKO, small_blind=1, big_blind=2, currency="USD"
    )
    with pytest.raises(grpc.aio.AioRpcError) as money:
        await open_table(stub, options)
    assert money.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "a Naiko table plays for virtual chips that are never money" in (
        money.value.details() or ""
    )
    options.currency = "CHIP"
    assert await open_table(stub, options)


async def fold_hand(stub: Stub, table_id: str) -> None:
    """Fold the running hand away (the host deals the next one)."""
    request = table_pb2.GetViewRequest(table_id=table_id)
    finished = (await stub.GetView(request)).view.last_finished_hand
    while (view := (await stub.GetView(request)).view).last_finished_hand == finished:
        player = view.game.poker.to_act
        fold = poker_pb2.Action(kind=poker_pb2.ACTION_KIND_FOLD)
        await act(stub, table_id, player, fold, f"fold-{view.version}")


async def test_oq_22_sit_in_with_post_and_the_table_actions_as_protobuf(stub: Stub) -> None:
    """SIT_IN carries `post` (post what is owed at once, instead of waiting for the big
    blind), and the viewer's protobuf view lists the table actions he may take now."""
    options = poker_pb2.Options(
        variant=poker_pb2.VARIANT_NLHE, small_blind=1, big_blind=2, max_buy_in=100
    )
    table_id = await open_table(stub, options)
    for number, player in enumerate(("ann", "bob", "cat", "dan")):
        await seat(stub, table_id, player, number)
    sit_out = poker_pb2.Action(kind=poker_pb2.ACTION_KIND_SIT_OUT)
    await act(stub, table_id, "dan", sit_out, "out")
    for _ in range(8):
        dan = await table_seat(stub, table_id, "dan")
        if dan.owes_big_blind:
            break
        await fold_hand(stub, table_id)
    else:
        raise AssertionError("dan never missed his big blind")
    view = (await stub.GetView(table_pb2.GetViewRequest(table_id=table_id, player_id="dan"))).view
    assert list(view.game.poker.table_actions) == [poker_pb2.ACTION_KIND_SIT_IN]
    sit_in = poker_pb2.Action(kind=poker_pb2.ACTION_KIND_SIT_IN, post=True)
    await act(stub, table_id, "dan", sit_in, "in")
    dan = await table_seat(stub, table_id, "dan")
    assert not dan.sitting_out and dan.waiting_for_big_blind and dan.posting_blind
    view = (await stub.GetView(table_pb2.GetViewRequest(table_id=table_id, player_id="dan"))).view
    assert list(view.game.poker.table_actions) == [poker_pb2.ACTION_KIND_SIT_OUT]  # 100: full
