"""Bad input to the TableEngine gRPC service: the right status, a clear message, no change."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest

from croupier.game.limits import MAX_AMOUNT, MAX_CLOCK_SECONDS, MAX_ECHO
from croupier.joker.v1 import joker_pb2
from croupier.kit.bus.memory import InMemoryBus
from croupier.kit.server import ServiceHost
from croupier.kit.settings import ServerSettings
from croupier.table.adapters.memory_log import InMemoryCommandLog
from croupier.table.bootstrap import build_host, table_service
from croupier.table.v1 import table_pb2, table_pb2_grpc
from tests.support.table import served_table_host, status_of

PLAYERS = ["giorgi", "nika", "ana", "levan"]


@pytest.fixture
async def stub() -> AsyncIterator[Any]:
    async with served_table_host() as client:
        yield client


async def open_table(stub: table_pb2_grpc.TableEngineStub) -> str:
    response = await stub.OpenTable(table_pb2.OpenTableRequest(game="joker", options_json="{}"))
    for seat, player in enumerate(PLAYERS):
        await stub.SeatPlayer(
            table_pb2.SeatPlayerRequest(table_id=response.table_id, player_id=player, seat=seat)
        )
    return response.table_id


async def test_an_error_carries_the_request_id_back(stub: table_pb2_grpc.TableEngineStub) -> None:
    call = stub.GetView(
        table_pb2.GetViewRequest(table_id="missing"), metadata=(("x-request-id", "req-7"),)
    )
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    assert ("x-request-id", "req-7") in list(caught.value.trailing_metadata() or ())


async def test_unknown_game_is_invalid_argument(stub: table_pb2_grpc.TableEngineStub) -> None:
    code, details = await status_of(stub.OpenTable(table_pb2.OpenTableRequest(game="chess")))
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert "unknown game 'chess'" in details


async def test_seat_taken_and_seat_out_of_range(stub: table_pb2_grpc.TableEngineStub) -> None:
    table_id = (
        await stub.OpenTable(table_pb2.OpenTableRequest(game="joker", options_json="{}"))
    ).table_id
    await stub.SeatPlayer(table_pb2.SeatPlayerRequest(table_id=table_id, player_id="a", seat=1))
    code, details = await status_of(
        stub.SeatPlayer(table_pb2.SeatPlayerRequest(table_id=table_id, player_id="b", seat=1))
    )
    assert (code, details) == (grpc.StatusCode.FAILED_PRECONDITION, "seat 1 is taken")
    code, details = await status_of(
        stub.SeatPlayer(table_pb2.SeatPlayerRequest(table_id=table_id, player_id="b", seat=9))
    )
    assert (code, details) == (grpc.StatusCode.INVALID_ARGUMENT, "a Joker table has seats 0 to 3")


async def test_unreadable_values_are_invalid_argument_never_internal(
    stub: table_pb2_grpc.TableEngineStub,
) -> None:
    cases = [
        table_pb2.OpenTableRequest(game="joker", options_json='{"turn_seconds": "abc"}'),
        table_pb2.OpenTableRequest(game="joker", options_json="[" * 100_000),
        table_pb2.OpenTableRequest(game="joker", options_json="{}", request_key="k" * 1000),
    ]
    for request in cases:
        code, details = await status_of(stub.OpenTable(request))
        assert code == grpc.StatusCode.INVALID_ARGUMENT, details
    table_id = await open_table(stub)
    code, _ = await status_of(
        stub.Act(
            table_pb2.ActRequest(
                table_id=table_id,
                player_id="giorgi",
                command_id="c",
                action_json='{"action": "timeout"}',
            )
        )
    )
    assert code == grpc.StatusCode.INVALID_ARGUMENT


async def test_shutdown_ends_view_streams_instead_of_waiting_out_the_grace() -> None:
    import asyncio
    import time

    bus = InMemoryBus()
    await bus.start()
    host = build_host(InMemoryCommandLog(), bus)
    await host.start()
    server = ServiceHost(
        settings=ServerSettings(
            grpc_host="127.0.0.1", grpc_port=0, metrics_port=0, shutdown_grace_seconds=20
        ),
        services=[table_service(host)],
        on_stop=[host.stop, bus.stop],
        serve_metrics_endpoint=False,
    )
    await server.start()
    async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
        stub = table_pb2_grpc.TableEngineStub(channel)
        table_id = await open_table(stub)
        stream = stub.WatchView(table_pb2.WatchViewRequest(table_id=table_id, player_id="ana"))
        await stream.read()
        started = time.monotonic()
        await server.stop()
        assert time.monotonic() - started < 5
        await asyncio.sleep(0)


async def test_errors_cut_the_values_they_echo(stub: table_pb2_grpc.TableEngineStub) -> None:
    """A 60 KB value in an error message overflowed gRPC's metadata (RESOURCE_EXHAUSTED
    instead of the error): echoes are cut to `croupier.game.limits.MAX_ECHO`."""
    huge = "x" * 60_000
    options = table_pb2.GameOptions(joker=joker_pb2.Options())
    cases = [
        (stub.OpenTable(table_pb2.OpenTableRequest(game=huge)), "unknown game 'xxx"),
        (
            stub.OpenTable(table_pb2.OpenTableRequest(game=huge, options=options)),
            "does not match options.joker",
        ),
    ]
    table_id = await open_table(stub)
    unseated = table_pb2.ActRequest(
        table_id=table_id, player_id="m" * 128, command_id="c", action_json="{}"
    )
    cases.append((stub.Act(unseated), "is not seated at this table"))
    for call, expected in cases:
        code, details = await status_of(call)
        assert code in (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.NOT_FOUND), details
        assert expected in details and "..." in details
        assert len(details) < 2 * MAX_ECHO


async def test_clock_seconds_beyond_the_documented_bound_are_refused(
    stub: table_pb2_grpc.TableEngineStub,
) -> None:
    """Turn, time-bank and reconnection seconds (TableClock or the game's options) are
    whole numbers up to `MAX_CLOCK_SECONDS`; anything else is INVALID_ARGUMENT."""
    too_long = MAX_CLOCK_SECONDS + 1
    clocks = [
        table_pb2.TableClock(turn_seconds=too_long),
        table_pb2.TableClock(turn_seconds=30, reserve_seconds=too_long),
        table_pb2.TableClock(turn_seconds=30, reconnect_seconds=4_000_000_000),
    ]
    for clock in clocks:
        request = table_pb2.OpenTableRequest(game="joker", options_json="{}", clock=clock)
        code, details = await status_of(stub.OpenTable(request))
        assert code == grpc.StatusCode.INVALID_ARGUMENT, details
        assert f"between 0 and {MAX_CLOCK_SECONDS}" in details
    for options in (
        {"turn_seconds": "\u00b2"},  # a digit to str.isdigit, not to int()
        {"turn_seconds": 30, "reconnect_seconds": too_long},
        {"turn_seconds": "9" * 5000},
        {"turn_seconds": -5},
    ):
        request = table_pb2.OpenTableRequest(game="joker", options_json=json.dumps(options))
        code, details = await status_of(stub.OpenTable(request))
        assert code == grpc.StatusCode.INVALID_ARGUMENT, details
        assert "seconds" in details and len(details) < 2 * MAX_ECHO
    fine = table_pb2.TableClock(turn_seconds=MAX_CLOCK_SECONDS, reconnect_seconds=60)
    opened = await stub.OpenTable(table_pb2.OpenTableRequest(game="joker", clock=fine))
    assert opened.table_id


async def test_a_stack_beyond_max_amount_seats_nobody(
    stub: table_pb2_grpc.TableEngineStub,
) -> None:
    opened = await stub.OpenTable(table_pb2.OpenTableRequest(game="joker", options_json="{}"))
    request = table_pb2.SeatPlayerRequest(
        table_id=opened.table_id, player_id="ana", seat=0, stack=MAX_AMOUNT + 1
    )
    code, details = await status_of(stub.SeatPlayer(request))
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert details == f"stack must be between 0 and {MAX_AMOUNT}, got {MAX_AMOUNT + 1}"
    request.stack = -1
    code, _ = await status_of(stub.SeatPlayer(request))
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    view = await stub.GetView(table_pb2.GetViewRequest(table_id=opened.table_id))
    assert list(view.view.seated) == [] and view.view.version == 1


async def test_a_reused_command_id_with_another_action_is_already_exists(
    stub: table_pb2_grpc.TableEngineStub,
) -> None:
    """The same command id with the same action is an idempotent OK; with another action
    it is ALREADY_EXISTS naming what differs (as the wallet answers a reused transfer id),
    and nothing is applied."""
    table_id = await open_table(stub)
    view = await stub.GetView(table_pb2.GetViewRequest(table_id=table_id))
    to_act = json.loads(view.view.view_json)["hand"]["to_act"]
    mine = await stub.GetView(table_pb2.GetViewRequest(table_id=table_id, player_id=to_act))
    legal = json.loads(mine.view.view_json)["legal"]
    assert legal["actions"] == ["bid"]
    bids = legal["tricks"]
    assert len(bids) >= 2

    def bid(tricks: int) -> object:
        return stub.Act(
            table_pb2.ActRequest(
                table_id=table_id,
                player_id=to_act,
                command_id="bid-1",
                action_json=json.dumps({"action": "bid", "tricks": tricks}),
            )
        )

    first = await bid(bids[0])
    again = await bid(bids[0])
    assert again.view.version == first.view.version
    code, details = await status_of(bid(bids[1]))
    assert code == grpc.StatusCode.ALREADY_EXISTS
    assert details == (
        "command_id 'bid-1' was used for another command (differs in 'tricks'): "
        "use a new command_id for a new command"
    )
    after = await stub.GetView(table_pb2.GetViewRequest(table_id=table_id, player_id=to_act))
    assert after.view.version == first.view.version
    assert after.view.view_json == first.view.view_json
