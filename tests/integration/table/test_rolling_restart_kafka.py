"""A rolling restart of one game's table service on the real broker (issue #21): two
`croupier serve table` processes of poker share a command topic; bots play every table
through `TableHostClient` (both replicas behind one target, UNAVAILABLE tried again for
the failover window); one replica is rolled like a StatefulSet pod (SIGTERM, it drains
and exits, a new process starts with the same identity and address). No call fails, none
waits longer than the window, and every table is still there and plays on afterwards.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import socket
import sys
from dataclasses import dataclass, field
from pathlib import Path

import grpc

from croupier.game import RuleBroken
from croupier.kit.errors import Unavailable
from croupier.table.adapters.kafka_topics import create_topics, snapshots_topic_for
from croupier.table.client import TableHostClient
from croupier.table.v1 import table_pb2, table_pb2_grpc
from tests.support.cli import serving_port
from tests.support.games import GAMES
from tests.support.infra import unique_name
from tests.support.services import credential, service_stub

CROUPIER = Path(sys.executable).parent / "croupier"
POKER = GAMES["poker"]
PARTITIONS = 4
TABLES = 6
STACK = 1_000_000  # nobody busts while the test plays: every table waits for an action
DRAIN_SECONDS = 2.0  # the processes' CROUPIER_SHUTDOWN_GRACE_SECONDS
# How long a caller tries UNAVAILABLE again: the drain, the new process's start and its
# rebuild of the partitions it takes back. On a quiet machine that is about 10 s; with the
# suite loading both cores the new process can start after its static membership's session
# (10 s) ran out, and then the partitions go to the survivor and come back (two
# rebalances, two rebuilds): a clean-clone run saw two calls still refused after 20 s.
FAILOVER_SECONDS = 40.0
PLAY_SECONDS = 3.0  # before the roll, and after the new process serves


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Replica:
    """One `croupier serve table` process of poker, named like a StatefulSet's pod."""

    def __init__(self, kafka_bootstrap: str, topic: str, name: str, port: int) -> None:
        self.port = port
        self._env = dict(os.environ)
        self._env.update(
            CROUPIER_GRPC_HOST="127.0.0.1",
            CROUPIER_GRPC_PORT=str(port),
            CROUPIER_METRICS_PORT="0",
            CROUPIER_KAFKA_BOOTSTRAP=kafka_bootstrap,
            CROUPIER_TABLE_COMMANDS_TOPIC=topic,
            CROUPIER_TABLE_PARTITIONS=str(PARTITIONS),
            CROUPIER_TABLE_GAMES="poker",
            CROUPIER_TABLE_INSTANCE_ID=name,
            CROUPIER_SHUTDOWN_GRACE_SECONDS=str(DRAIN_SECONDS),
        )
        self._process: asyncio.subprocess.Process | None = None
        self._reader: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self._process = await asyncio.create_subprocess_exec(
            str(CROUPIER), "serve", "table", env=self._env, stderr=asyncio.subprocess.PIPE
        )
        assert await serving_port(self._process, "croupier serve table") == self.port
        self._reader = asyncio.create_task(self._read_logs())  # a full pipe would block it

    async def _read_logs(self) -> None:
        assert self._process is not None and self._process.stderr is not None
        while await self._process.stderr.readline():
            pass

    async def terminate(self) -> int:
        """SIGTERM, as the kubelet sends it; the exit code once it drained."""
        assert self._process is not None
        self._process.send_signal(signal.SIGTERM)
        async with asyncio.timeout(DRAIN_SECONDS + 20):
            return await self._process.wait()

    async def kill(self) -> None:
        if self._process is not None and self._process.returncode is None:
            self._process.kill()
            await self._process.wait()
        if self._reader is not None:
            await self._reader


@dataclass
class Play:
    """What the bots saw: actions per table, the longest call, the calls that failed."""

    actions: dict[str, int] = field(default_factory=dict)
    longest_call: float = 0.0
    failures: list[str] = field(default_factory=list)


async def timed(play: Play, client: TableHostClient, method: str, request: object) -> object:
    loop = asyncio.get_running_loop()
    started = loop.time()
    try:
        return await client.call(method, request)
    finally:
        play.longest_call = max(play.longest_call, loop.time() - started)


async def bot(client: TableHostClient, table_id: str, play: Play, stop: asyncio.Event) -> None:
    """Acts for whoever the table waits for until `stop`; the first failure ends it."""
    rng = random.Random(table_id)
    view = table_pb2.GetViewRequest
    try:
        while not stop.is_set():
            public = await timed(play, client, "GetView", view(table_id=table_id))
            to_act = POKER.to_act(json.loads(public.view.view_json))  # type: ignore[attr-defined]
            assert to_act is not None, f"table {table_id} waits for nobody"
            own = await timed(play, client, "GetView", view(table_id=table_id, player_id=to_act))
            action = POKER.legal_action(json.loads(own.view.view_json), rng)  # type: ignore[attr-defined]
            request = table_pb2.ActRequest(
                table_id=table_id,
                player_id=to_act,
                command_id=f"c{rng.getrandbits(64)}",
                action_json=json.dumps(action),
            )
            await timed(play, client, "Act", request)
            play.actions[table_id] = play.actions.get(table_id, 0) + 1
    except (Unavailable, RuleBroken, AssertionError) as exc:  # reported by the test
        play.failures.append(f"{table_id}: {type(exc).__name__}: {exc}")


async def open_table(client: TableHostClient, index: int) -> str:
    request = table_pb2.OpenTableRequest(
        game="poker", options_json=json.dumps(POKER.options), request_key=f"roll-{index}"
    )
    request.clock.turn_seconds = 3600  # no clock plays for the bots
    table_id = str((await client.call("OpenTable", request)).table_id)
    for seat, player in enumerate(POKER.players):
        await client.seat(table_id=table_id, player=player, seat=seat, stack=STACK)
    return table_id


async def served_here(port: int, table_ids: list[str]) -> set[str]:
    """The tables the replica at `port` answers for itself (no failover)."""
    here = set()
    async with service_stub(f"127.0.0.1:{port}", table_pb2_grpc.TableEngineStub) as stub:
        for table_id in table_ids:
            try:
                await stub.GetView(table_pb2.GetViewRequest(table_id=table_id))
            except grpc.aio.AioRpcError as error:
                assert error.code() == grpc.StatusCode.UNAVAILABLE, error.details()
                continue  # another replica's table
            here.add(table_id)
    return here


async def test_a_rolled_replica_hands_its_tables_back_without_failing_a_call(
    kafka_bootstrap: str,
) -> None:
    topic = unique_name("table_poker_commands")
    await create_topics(kafka_bootstrap, topic, snapshots_topic_for(topic), PARTITIONS)
    replicas = [Replica(kafka_bootstrap, topic, f"table-poker-{n}", free_port()) for n in range(2)]
    target = "ipv4:" + ",".join(f"127.0.0.1:{r.port}" for r in replicas)
    client = TableHostClient(target, credential=credential(), failover_seconds=FAILOVER_SECONDS)
    play, stop = Play(), asyncio.Event()
    bots: list[asyncio.Task[None]] = []
    try:
        await asyncio.gather(*(replica.start() for replica in replicas))
        table_ids = [await open_table(client, n) for n in range(TABLES)]
        rolled = await served_here(replicas[0].port, table_ids)
        assert rolled and len(rolled) < TABLES, "both replicas serve tables before the roll"
        bots = [asyncio.create_task(bot(client, t, play, stop)) for t in table_ids]
        await asyncio.sleep(PLAY_SECONDS)
        before = dict(play.actions)

        assert await replicas[0].terminate() == 0, "the drained replica exits cleanly"
        await replicas[0].start()  # same name, same address: the pod recreated
        await asyncio.sleep(PLAY_SECONDS)
        stop.set()
        await asyncio.gather(*bots)

        assert play.failures == []
        assert play.longest_call < FAILOVER_SECONDS
        played_on = {t for t in table_ids if play.actions.get(t, 0) > before.get(t, 0)}
        assert played_on == set(table_ids), "every table plays on after the roll"
        assert await served_here(replicas[0].port, table_ids) == rolled, (
            "the new process of the same name took its tables back"
        )
    finally:
        stop.set()
        for task in bots:
            task.cancel()
        await asyncio.gather(*bots, return_exceptions=True)
        await client.close()
        await asyncio.gather(*(replica.kill() for replica in replicas))
