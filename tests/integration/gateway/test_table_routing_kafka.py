"""The gateway in front of table host replicas that are real processes (`croupier serve
table`) on the real broker: after a rebalance moves a table to another replica, its calls
and its view streams go on there without the client noticing; a view stream outlives its
host being SIGKILLed and started again (it resumes with the full view, then the play)."""

from __future__ import annotations

import asyncio
import json
import os
import random
import socket
import sys
import time
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import grpc
import pytest

from croupier.gateway.adapters.tables import GrpcTables
from croupier.gateway.core.rate_limits import RateLimit
from croupier.gateway.service.limits import GatewayLimits
from croupier.gateway.v1 import gateway_pb2 as pb
from croupier.table.adapters.kafka_topics import create_topics, snapshots_topic_for
from croupier.table.v1 import table_pb2, table_pb2_grpc
from tests.support.cli import serving_port
from tests.support.games import GAMES
from tests.support.gateway import ServedGateway, bearer, served_gateway
from tests.support.infra import unique_name
from tests.support.services import credential, service_stub

pytestmark = pytest.mark.timeout(150)

CROUPIER = Path(sys.executable).parent / "croupier"
POKER = GAMES["poker"]
PARTITIONS = 4
TABLES = 6
UNLIMITED = GatewayLimits(
    per_player=RateLimit(rate=100_000, burst=100_000),
    per_address=RateLimit(rate=100_000, burst=100_000),
)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@asynccontextmanager
async def replica(kafka_bootstrap: str, topic: str, port: int, name: str) -> AsyncIterator[None]:
    """`croupier serve table` on `port`, one replica of `topic`'s group (static member
    `name`: started again under that name, it takes its partitions back at once);
    SIGKILLed at the end."""
    env = dict(os.environ)
    env.update(
        CROUPIER_GRPC_HOST="127.0.0.1",
        CROUPIER_GRPC_PORT=str(port),
        CROUPIER_METRICS_PORT="0",
        CROUPIER_KAFKA_BOOTSTRAP=kafka_bootstrap,
        CROUPIER_TABLE_COMMANDS_TOPIC=topic,
        CROUPIER_TABLE_INSTANCE_ID=name,
        CROUPIER_TABLE_PARTITIONS=str(PARTITIONS),
    )
    process = await asyncio.create_subprocess_exec(
        str(CROUPIER), "serve", "table", env=env, stderr=asyncio.subprocess.PIPE
    )
    drain: asyncio.Task[None] | None = None
    try:
        assert await serving_port(process, "croupier serve table") == port
        assert process.stderr is not None
        drain = asyncio.create_task(_drain(process.stderr))  # its logs never fill the pipe
        yield
    finally:
        if process.returncode is None:
            process.kill()
        await process.wait()
        if drain is not None:
            await drain


async def _drain(stream: asyncio.StreamReader) -> None:
    while await stream.readline():
        pass


class Watcher:
    """One player's `WatchTable` stream through the gateway, read into `views` in a task."""

    def __init__(self, gateway: ServedGateway, table_id: str, player: str) -> None:
        request = pb.WatchTableRequest(table_id=table_id)
        self.call = gateway.stub.WatchTable(request, metadata=bearer(player, now=time.time()))
        self.views: list[table_pb2.TableView] = []
        self.task = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for response in self.call:
            self.views.append(response.view)

    async def reaches(self, version: int, *, after: int = 0) -> None:
        """Until a view of `version` or later came, the `after`th or later."""
        for _ in range(1200):
            if len(self.views) > after and self.views[-1].version >= version:
                return
            assert not self.task.done(), f"the stream ended: {self.task}"
            await asyncio.sleep(0.05)
        raise AssertionError(f"no view {version} within a minute: {self.views[-1:]}")

    def close(self) -> None:
        self.call.cancel()


async def open_tables(stub: Any, count: int) -> list[str]:
    tables = []
    for number in range(count):
        request = table_pb2.OpenTableRequest(
            game="poker", options_json=json.dumps(POKER.options), request_key=f"t{number}"
        )
        request.clock.turn_seconds = 3600
        table_id = (await stub.OpenTable(request)).table_id
        for seat, player in enumerate(POKER.players):
            await stub.SeatPlayer(
                table_pb2.SeatPlayerRequest(
                    table_id=table_id, player_id=player, seat=seat, stack=POKER.stack
                )
            )
        tables.append(table_id)
    return tables


async def act(gateway: ServedGateway, table_id: str, rng: random.Random) -> int:
    """One legal action at `table_id` by the player to act, through the gateway; the
    table's version after it."""
    public = await gateway.stub.GetTableView(
        pb.GetTableViewRequest(table_id=table_id), metadata=bearer("spectator", now=time.time())
    )
    player = POKER.to_act(json.loads(public.view.view_json))
    assert player is not None
    metadata = bearer(player, now=time.time())
    own = await gateway.stub.GetTableView(
        pb.GetTableViewRequest(table_id=table_id), metadata=metadata
    )
    action = POKER.legal_action(json.loads(own.view.view_json), rng)
    request = pb.ActRequest(
        table_id=table_id, command_id=f"c{rng.getrandbits(64)}", action_json=json.dumps(action)
    )
    answer = await gateway.stub.Act(request, metadata=metadata)
    return int(answer.view.version)


async def served_by(address: str, table_ids: list[str]) -> set[str]:
    """The tables the replica at `address` serves now."""
    served = set()
    async with service_stub(address, table_pb2_grpc.TableEngineStub) as stub:
        for table_id in table_ids:
            try:
                await stub.GetView(table_pb2.GetViewRequest(table_id=table_id), timeout=5)
            except grpc.aio.AioRpcError as error:
                assert error.code() == grpc.StatusCode.UNAVAILABLE, error
                continue
            served.add(table_id)
    return served


async def test_calls_and_streams_follow_a_table_to_its_new_replica_and_through_a_restart(
    kafka_bootstrap: str,
) -> None:
    topic = unique_name("table_commands")
    await create_topics(kafka_bootstrap, topic, snapshots_topic_for(topic), PARTITIONS)
    first, second = f"127.0.0.1:{free_port()}", f"127.0.0.1:{free_port()}"
    rng = random.Random(20)
    tables = GrpcTables([first, second], credential("gateway"))
    async with AsyncExitStack() as stack:
        await stack.enter_async_context(
            replica(kafka_bootstrap, topic, int(first.rpartition(":")[2]), f"{topic}-0")
        )
        stub = await stack.enter_async_context(service_stub(first, table_pb2_grpc.TableEngineStub))
        table_ids = await open_tables(stub, TABLES)
        gateway = await stack.enter_async_context(
            served_gateway(beside=[], tables=tables, clock=time.time, limits=UNLIMITED)
        )
        # The second replica is not running yet: the gateway finds the first anyway.
        versions = {table_id: await act(gateway, table_id, rng) for table_id in table_ids}
        watchers = {
            table_id: Watcher(gateway, table_id, POKER.players[0]) for table_id in table_ids
        }
        for watcher in watchers.values():
            stack.callback(watcher.close)
        for table_id, watcher in watchers.items():
            await watcher.reaches(versions[table_id])

        # The second replica joins: the group gives it some of the partitions, and their
        # tables (rebuilt there from the log); the first replica ends their streams.
        restartable = replica(kafka_bootstrap, topic, int(second.rpartition(":")[2]), f"{topic}-1")
        await restartable.__aenter__()
        try:
            moved: set[str] = set()
            for _ in range(300):  # until the rebalance gave the second replica its share
                if moved := await served_by(second, table_ids):
                    break
                await asyncio.sleep(0.2)
            assert moved != set(table_ids), "every partition went to the second replica"
            for table_id in table_ids:  # the client never hears of it
                versions[table_id] = await act(gateway, table_id, rng)
            for table_id, watcher in watchers.items():
                await watcher.reaches(versions[table_id])
        finally:
            await restartable.__aexit__(None, None, None)  # SIGKILL

        # The second replica killed under its streams, then started again at its address:
        # it takes its partitions back (static membership) and rebuilds their tables.
        killed_at = {table_id: len(watchers[table_id].views) for table_id in moved}
        async with replica(kafka_bootstrap, topic, int(second.rpartition(":")[2]), f"{topic}-1"):
            for table_id in moved:  # resynced: the full view as the restarted host has it
                watcher = watchers[table_id]
                await watcher.reaches(versions[table_id], after=killed_at[table_id])
                resynced = watcher.views[killed_at[table_id]]
                assert resynced.version == versions[table_id]
                assert resynced.view_json and list(resynced.seated) == list(POKER.players)
            for table_id in table_ids:
                versions[table_id] = await act(gateway, table_id, rng)
            for table_id, watcher in watchers.items():
                await watcher.reaches(versions[table_id])
                assert not watcher.task.done()  # the client's stream stayed open
