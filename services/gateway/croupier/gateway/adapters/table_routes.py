"""Which table host replica serves a table, found without the client noticing.

Each table belongs to one replica at a time: the one that owns its command-log partition
(docs/table-host.md). Any other replica answers `UNAVAILABLE` ("not served by this table
host replica ... retry"): it does not know the owner, since partitions are shared out by
the broker's consumer group, not by the replicas. So the gateway asks the replicas it was
given in turn, remembers which one answered for each table, asks that one first next time,
and after a rebalance (the remembered one answers `UNAVAILABLE`) asks the others again.
While every replica answers `UNAVAILABLE` (a rebalance under way, a replica restarting and
rebuilding its tables) it waits a little and asks again, up to a time limit, after which
the client hears `UNAVAILABLE` itself. Retrying is safe: a table call the host refused
`UNAVAILABLE` may be repeated as it was (an action keeps its command id).

The replicas are given one address each (the gateway then remembers the owner), or several
behind one name (a headless Service: calls go round its replicas, a retry reaching the
next). `NOT_FOUND` from one replica is not the end either: with one table-engine service per game,
a table of another game is unknown there. A refusal only counts once no replica serves the
table.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

from croupier.game.errors import Unknown
from croupier.kit.channels import Target
from croupier.kit.errors import Unavailable
from croupier.kit.remote import Remote
from croupier.kit.service_auth import ServiceCredential
from croupier.table.client import CHANNEL_OPTIONS
from croupier.table.v1 import table_pb2_grpc

__all__ = ["TableRoutes"]

# How long a call waits for some replica to serve its table (a rebalance takes seconds; a
# replica restarting also rebuilds its tables from the log).
CALL_RETRY_SECONDS = 15.0
# How long a broken view stream is retried before the client's stream ends UNAVAILABLE.
STREAM_RETRY_SECONDS = 60.0
FIRST_PAUSE_SECONDS = 0.05
LONGEST_PAUSE_SECONDS = 1.0
REMEMBERED_TABLES = 100_000


class TableRoutes:
    """The table host replicas at `targets`, each table's call sent to the one serving it."""

    def __init__(
        self,
        targets: Sequence[Target],
        credential: ServiceCredential | None,
        *,
        call_retry_seconds: float = CALL_RETRY_SECONDS,
        stream_retry_seconds: float = STREAM_RETRY_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not targets:
            raise ValueError("at least one table host address is needed")
        self._replicas = [
            Remote(
                "table host",
                target,
                table_pb2_grpc.TableEngineStub,
                credential,
                options=CHANNEL_OPTIONS,  # the table client's: redial fast, spread calls
            )
            for target in targets
        ]
        self._serving: OrderedDict[str, int] = OrderedDict()  # table id -> replica index
        self._call_retry = call_retry_seconds
        self._stream_retry = stream_retry_seconds
        self._clock = clock

    def _order(self, table_id: str) -> list[int]:
        """The replicas to ask: the one that served the table last, then the others."""
        first = self._serving.get(table_id, 0)
        count = len(self._replicas)
        return [(first + step) % count for step in range(count)]

    def _remember(self, table_id: str, index: int) -> None:
        self._serving[table_id] = index
        self._serving.move_to_end(table_id)
        if len(self._serving) > REMEMBERED_TABLES:
            self._serving.popitem(last=False)

    async def _pause(self, attempt: int, deadline: float, last: Exception) -> None:
        """Wait before asking the replicas again, or give up with `last`."""
        pause = min(FIRST_PAUSE_SECONDS * 2**attempt, LONGEST_PAUSE_SECONDS)
        if self._clock() + pause > deadline:
            raise last
        await asyncio.sleep(pause)

    async def call(self, table_id: str, method: str, request: Any) -> Any:
        """`method(request)` on the replica serving `table_id`."""
        deadline = self._clock() + self._call_retry
        attempt = 0
        while True:
            unknown: Unknown | None = None
            unavailable: Unavailable | None = None
            for index in self._order(table_id):
                try:
                    answer = await self._replicas[index].call(method, request)
                except Unavailable as error:
                    unavailable = error
                    continue
                except Unknown as error:
                    unknown = unknown or error
                    continue
                except Exception:
                    self._remember(table_id, index)  # the owner answered: a refusal
                    raise
                self._remember(table_id, index)
                return answer
            if unavailable is None and unknown is not None:
                raise unknown  # every replica that could serve it said no such table
            await self._pause(attempt, deadline, unavailable or unknown or Unavailable("?"))
            attempt += 1

    async def stream(
        self, table_id: str, method: str, request: Any, finished: Callable[[Any], bool]
    ) -> AsyncIterator[Any]:
        """The messages of server stream `method(request)` on the replica serving
        `table_id`, followed across replicas: when that replica's stream breaks or ends
        before a message that is `finished` (the replica stopped, or lost the table in a
        rebalance), the stream is opened again where the table is served now, whose first
        message is the full current state. The caller's stream stays open meanwhile."""
        deadline = self._clock() + self._stream_retry
        attempt = 0
        while True:
            last: Exception = Unavailable("the table host did not answer (UNAVAILABLE); retry")
            for index in self._order(table_id):
                try:
                    async for message in self._replicas[index].stream(method, request):
                        self._remember(table_id, index)
                        deadline, attempt = self._clock() + self._stream_retry, 0
                        yield message
                        if finished(message):
                            return
                except (Unavailable, Unknown) as error:
                    last = error
            if isinstance(last, Unknown) and table_id not in self._serving:
                raise last
            await self._pause(attempt, deadline, last)
            attempt += 1

    async def close(self) -> None:
        for replica in self._replicas:
            await replica.close()
