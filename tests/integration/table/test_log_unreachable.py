"""A command log whose broker cannot be reached: Act answers UNAVAILABLE fast, and the
append is retried in the background.

The real broker is made unreachable for this test's producer alone: the producer talks
to it through a TCP proxy the test cuts (the shared broker keeps serving everybody else).
Kafka clients connect to the address the broker advertises in its metadata answers, not
to the bootstrap address, so the proxy rewrites the broker's port in those answers to its
own: every connection of the producer goes through the proxy.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import struct
import time
from typing import Any

import grpc
import pytest

from croupier.kit.bus.memory import InMemoryBus
from croupier.kit.kafka_producer import AckedProducer
from croupier.kit.server import ServiceHost
from croupier.kit.settings import ServerSettings
from croupier.table.adapters.kafka_log import KafkaCommandLog
from croupier.table.bootstrap import table_service
from croupier.table.games import load_engines
from croupier.table.service.deadlines import ANSWER_WITHIN_SECONDS
from croupier.table.service.host import TableHost
from croupier.table.v1 import table_pb2, table_pb2_grpc
from tests.support.infra import unique_name
from tests.support.table import Seeds, random_joker_action

pytestmark = pytest.mark.timeout(90)

PLAYERS = ["giorgi", "nika", "ana", "levan"]


class BrokerProxy:
    """A TCP proxy to one broker that the test can cut and restore (same port)."""

    def __init__(self, bootstrap: str) -> None:
        host, port = bootstrap.rsplit(":", 1)
        self._broker = (host, int(port))
        self.port = 0
        self._server: asyncio.Server | None = None
        self._links: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", self.port)
        self.port = self._server.sockets[0].getsockname()[1]

    async def cut(self) -> None:
        """Refuse new connections and drop the open ones."""
        assert self._server is not None
        self._server.close()
        for link in list(self._links):
            link.cancel()
        await asyncio.gather(*self._links, return_exceptions=True)
        await self._server.wait_closed()

    async def _serve(
        self, client_in: asyncio.StreamReader, client_out: asyncio.StreamWriter
    ) -> None:
        link = asyncio.current_task()
        assert link is not None
        self._links.add(link)
        broker_in, broker_out = await asyncio.open_connection(*self._broker)
        host = self._broker[0].encode()
        # The broker's address as a metadata answer writes it (host, then port as int32),
        # and the proxy's: same length, so the frame's size does not change.
        advertised = host + struct.pack(">i", self._broker[1])
        ours = host + struct.pack(">i", self.port)

        async def upstream() -> None:
            while data := await client_in.read(65536):
                broker_out.write(data)
                await broker_out.drain()

        async def downstream() -> None:
            while True:
                size = await broker_in.readexactly(4)
                frame = await broker_in.readexactly(struct.unpack(">i", size)[0])
                client_out.write(size + frame.replace(advertised, ours))
                await client_out.drain()

        try:
            await asyncio.gather(upstream(), downstream())
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            self._links.discard(link)
            for writer in (client_out, broker_out):
                writer.close()


async def test_act_answers_unavailable_within_the_bound_while_the_broker_is_away(
    kafka_bootstrap: str,
) -> None:
    """With the broker unreachable, Act waited out the producer's 40 s delivery timeout.
    Now: UNAVAILABLE by the caller's deadline (less a tenth), or within
    ANSWER_WITHIN_SECONDS without one; the table is unchanged; once the broker is back
    the background retry confirms the fenced command and play goes on."""
    proxy = BrokerProxy(kafka_bootstrap)
    await proxy.start()
    # Reconnect quickly once the proxy is back (librdkafka's backoff grows to 10 s).
    producer = AckedProducer(f"127.0.0.1:{proxy.port}", {"reconnect.backoff.max.ms": 500})
    log = KafkaCommandLog(
        kafka_bootstrap, unique_name("table_commands"), unique_name("owners"), producer=producer
    )
    bus = InMemoryBus()
    await bus.start()
    host = TableHost(engines=load_engines(), command_log=log, publisher=bus, seeds=Seeds("away"))
    await host.start()
    server = ServiceHost(
        settings=ServerSettings(grpc_host="127.0.0.1", grpc_port=0, metrics_port=0),
        services=[table_service(host)],
        on_stop=[host.stop, bus.stop],
        serve_metrics_endpoint=False,
    )
    await server.start()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
            stub: Any = table_pb2_grpc.TableEngineStub(channel)
            opened = await stub.OpenTable(
                table_pb2.OpenTableRequest(
                    game="joker", clock=table_pb2.TableClock(turn_seconds=3600)
                )
            )
            table_id = opened.table_id
            for seat, player in enumerate(PLAYERS):
                await stub.SeatPlayer(
                    table_pb2.SeatPlayerRequest(table_id=table_id, player_id=player, seat=seat)
                )
            before = (await stub.GetView(table_pb2.GetViewRequest(table_id=table_id))).view
            to_act = json.loads(before.view_json)["hand"]["to_act"]
            legal = host.view(table_id, to_act).view["legal"]
            action = json.dumps(random_joker_action(legal, random.Random(3)))
            digest = host.digest(table_id)

            def act(command_id: str, timeout: float | None) -> Any:
                request = table_pb2.ActRequest(
                    table_id=table_id, player_id=to_act, command_id=command_id, action_json=action
                )
                return stub.Act(request, timeout=timeout)

            await proxy.cut()
            for timeout, bound in ((2.0, 2.0), (None, ANSWER_WITHIN_SECONDS + 1)):
                started = time.monotonic()
                with pytest.raises(grpc.aio.AioRpcError) as caught:
                    await act("c1", timeout)
                elapsed = time.monotonic() - started
                assert caught.value.code() == grpc.StatusCode.UNAVAILABLE, caught.value.details()
                assert "retry with the same command id" in (caught.value.details() or "")
                assert elapsed < bound
                assert host.digest(table_id) == digest
                now = (await stub.GetView(table_pb2.GetViewRequest(table_id=table_id))).view
                assert (now.version, now.view_json) == (before.version, before.view_json)

            await proxy.start()  # the broker is back: the fenced command is confirmed
            for _ in range(100):
                if host.view(table_id, "").version > before.version:
                    break
                await asyncio.sleep(0.2)
            assert host.view(table_id, "").version > before.version
            again = await act("c1", 10.0)  # the retried id: applied once, answered OK
            assert again.view.version >= before.version + 1
    finally:
        await server.stop()
        with contextlib.suppress(Exception):
            await proxy.cut()
        await producer.close(flush_seconds=1)
