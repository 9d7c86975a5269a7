"""The table host as other services call it over gRPC (`croupier.table.v1.TableEngine`):
lazily opened channels, one answer to a refusal, one answer to silence, and each table's
calls sent to the replica serving it.

The lobby (tables it opens and seats), the tournament director (its rounds), the bots and
the gateway (players' calls) drive the host through a `TableHostClient`. The host's refusals
come back as the `croupier.game` kinds the kit's error table maps to those statuses
(`REFUSALS`), with the host's message and reason, so the caller's own client sees the
host's status; any other status means the host did not answer (`Unavailable`, or the
caller's subclass of it): the caller may retry.

Where the host is (`CROUPIER_TABLE_ADDRESS`, `table_services`):
- one gRPC target serving every game, such as a headless Service's name whose replicas
  the channel balances calls over (`round_robin`);
- `host:port,host:port,...`: the replicas of one host serving every game, one channel
  each; the replica that answered for a table is remembered and asked first next time;
- `game=target,...`: one table-engine service per game; a call naming its game goes to
  that game's service, a call naming a table to the service that knows the table (every
  one asked once, the answer remembered). A game's target may list its replicas,
  `game=host:port|host:port`, one channel each (as the replicas of one host above).

Each table is served by one replica at a time, the owner of its command-log partition
(docs/table-host.md); another replica answers `UNAVAILABLE`, as does one draining in a
rolling restart. With `failover_seconds`, such a call is tried again on the next replica
for that long (safe: the host applies a command id or a request key once). `follow` keeps
a view stream open across replicas: broken or ended early, it is opened again where the
table is served now, whose first message is the full current state.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from typing import Any, NoReturn

import grpc

from croupier.game import Malformed, RuleBroken
from croupier.game.limits import echo
from croupier.kit.channels import ServiceChannel, Target
from croupier.kit.errors import REASON_HEADER, STATUS_BY_ROOT, Unavailable
from croupier.kit.service_auth import ServiceCredential

__all__ = [
    "REFUSALS",
    "STREAM_RETRY_SECONDS",
    "TABLE_FAILOVER_SECONDS",
    "TABLE_TIMEOUT_SECONDS",
    "TableHostClient",
    "TableTarget",
    "game_targets",
    "table_services",
]

TableTarget = Target | Sequence[Target]
"""One target, the replicas of one host (a sequence), or the text of
`CROUPIER_TABLE_ADDRESS` (see the module's docstring)."""

TABLE_TIMEOUT_SECONDS = 10.0
# How long a call the host did not answer is tried again: a rolling restart's window (the
# chart's CROUPIER_SHUTDOWN_GRACE_SECONDS), and a replica serving no partition of the table.
TABLE_FAILOVER_SECONDS = 15.0
# How long a broken view stream is opened again before its reader hears UNAVAILABLE (a
# replica restarting also rebuilds its tables from the log).
STREAM_RETRY_SECONDS = 60.0
# Between the rounds of a failover after the first (which goes at once to the next replica).
FAILOVER_PAUSE_SECONDS = 0.1
# The statuses of a host that did not answer a call: a replica not serving the table's
# partition, a draining or stopped one (CANCELLED: a call it had received but not begun
# when it stopped). A failover tries them again.
FAILOVER_STATUSES = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED})
# The channel balances calls over every replica behind its address, finds a restarted one
# within a second, and asks the DNS again as soon as a replica went (a new pod, a new IP).
CHANNEL_OPTIONS = [
    ("grpc.lb_policy_name", "round_robin"),
    ("grpc.max_reconnect_backoff_ms", 1000),
    ("grpc.dns_min_time_between_resolutions_ms", 1000),
]
# gRPC's own target schemes, whose text may hold commas (`ipv4:a:1,b:2`): one target.
GRPC_SCHEMES = ("dns:", "ipv4:", "ipv6:", "unix:", "unix-abstract:", "vsock:")

# Tables whose service and replica are remembered (the others are looked up again).
REMEMBERED_TABLES = 65_536

REFUSALS: Mapping[grpc.StatusCode, type[RuleBroken]] = {
    status: kind for kind, status in STATUS_BY_ROOT.items() if issubclass(kind, RuleBroken)
}


def game_targets(target: Target) -> dict[str, str]:
    """The per-game addresses `target` names (`game=address,...`, an address listing the
    game's replicas as `host:port|host:port`); {} for one address serving every game."""
    if not isinstance(target, str) or "=" not in target:
        return {}
    pairs = [item.partition("=") for item in target.split(",") if item.strip()]
    per_game = {game.strip(): address.strip() for game, _, address in pairs}
    if any(not game or not all(_replicas(address)) for game, address in per_game.items()):
        raise ValueError(
            f"table host addresses must read game=host:port[|host:port...],...: {target!r}"
        )
    return per_game


def _replicas(address: str) -> list[str]:
    """A game's address text as its replicas' addresses (`host:port|host:port`)."""
    return [replica.strip() for replica in address.split("|")]


def table_services(target: TableTarget) -> dict[str, list[Target]]:
    """The replicas of each game's service `target` names ("": one service for every
    game); a bad setting raises ValueError with the reason."""
    per_game = game_targets(target) if isinstance(target, str) else {}
    if per_game:
        return {game: list[Target](_replicas(address)) for game, address in per_game.items()}
    if isinstance(target, str):
        one_target = target.startswith(GRPC_SCHEMES)
        replicas: list[Target] = (
            [target] if one_target else [item.strip() for item in target.split(",")]
        )
    elif callable(target):
        replicas = [target]
    else:
        replicas = list(target)
    if not replicas or any(isinstance(r, str) and not r.strip() for r in replicas):
        raise ValueError(f"an empty table host address in {target!r}")
    return {"": replicas}


class TableHostClient:
    """Lazily opened channels to the table host's replicas (of each game's service) and
    their stubs."""

    def __init__(
        self,
        target: TableTarget,
        timeout: float = TABLE_TIMEOUT_SECONDS,
        *,
        credential: ServiceCredential | None = None,
        refusals: Mapping[grpc.StatusCode, type[RuleBroken]] = REFUSALS,
        unavailable: type[Unavailable] = Unavailable,
        details: bool = False,
        retry: str = "retry",
        refused: str = "the table host refused: ",
        failover_seconds: float = TABLE_FAILOVER_SECONDS,
    ) -> None:
        """`target`: where the host is (`TableTarget`); an address may be how to find it
        once known (the embedded platform's own port). `refusals`: the statuses passed on
        as refusals (the others raise `unavailable`). `details`: the host's status details
        in an unavailability's message, for operators' logs; off where the message reaches
        a player, since it may name internal addresses. `retry`: how the caller's client
        tries again when the host did not answer. `refused`: what precedes the host's
        message in a refusal. `credential`: the calling service's (the host answers
        services only). `failover_seconds`: how long UNAVAILABLE answers are tried again
        (the drain window of a rolling restart); 0: not at all."""
        self._replicas = {
            game: [
                ServiceChannel(address, credential, options=CHANNEL_OPTIONS) for address in targets
            ]
            for game, targets in table_services(target).items()
        }
        # table id -> (its game's service, the replica that answered for it last)
        self._routes: OrderedDict[str, tuple[str, int]] = OrderedDict()
        self._timeout = timeout
        self._refusals = refusals
        self._unavailable = unavailable
        self._details = details
        self._retry = retry
        self._refused = refused
        self._failover_seconds = failover_seconds

    def _stub(self, game: str, replica: int) -> Any:
        from croupier.table.v1 import table_pb2_grpc

        return self._replicas[game][replica].stub(table_pb2_grpc.TableEngineStub)

    def _remember(self, table_id: str, game: str, replica: int) -> None:
        if not table_id:
            return
        self._routes[table_id] = (game, replica)
        self._routes.move_to_end(table_id)
        if len(self._routes) > REMEMBERED_TABLES:
            self._routes.popitem(last=False)

    def _first_replica(self, table_id: str, game: str) -> int:
        route = self._routes.get(table_id)
        return route[1] if route is not None and route[0] == game else 0

    async def call(self, method: str, request: Any) -> Any:
        """`TableEngine/<method>(request)`, tried again for `failover_seconds` while the
        host does not answer: safe for commands, since the host applies a command id or a
        request key once."""
        try:
            return await self._answer(await self._service_for(request), method, request)
        except grpc.aio.AioRpcError as error:
            self._raise(method, error)

    async def _answer(self, game: str, method: str, request: Any) -> Any:
        """The answer of `game`'s service, the table's replica asked first, with the
        failover over its replicas; its last error raised."""
        table_id = str(getattr(request, "table_id", ""))
        count = len(self._replicas[game])
        replica = self._first_replica(table_id, game)
        loop = asyncio.get_running_loop()
        give_up = loop.time() + self._failover_seconds
        tries = 0
        while True:
            try:
                stub = self._stub(game, replica)
                answer = await getattr(stub, method)(request, timeout=self._timeout)
            except grpc.aio.AioRpcError as error:
                if error.code() not in FAILOVER_STATUSES:
                    self._remember(table_id, game, replica)  # its owner refused
                    raise
                if loop.time() >= give_up:
                    raise
            else:
                self._remember(table_id, game, replica)
                return answer
            tries += 1
            replica = (replica + 1) % count
            await asyncio.sleep(self._pause(tries, count))

    @staticmethod
    def _pause(tries: int, count: int) -> float:
        """None between the replicas of one round (and before the first retry, which a
        balanced channel sends to its next replica), a short one between rounds."""
        return 0 if tries == 1 or tries % count else FAILOVER_PAUSE_SECONDS

    async def _service_for(self, request: Any) -> str:
        """The game whose service answers `request` ("" with one service for all)."""
        if "" in self._replicas:
            return ""
        game = getattr(request, "game", "")
        if game:
            if game not in self._replicas:
                raise Malformed(f"no table service runs {echo(game)}")
            return str(game)
        table_id = str(request.table_id)
        route = self._routes.get(table_id)
        return route[0] if route is not None else await self._look_up(table_id)

    async def _look_up(self, table_id: str) -> str:
        """The game whose service knows `table_id`: every one is asked at once, the first
        that knows it is the answer (one not answering holds up only a table nobody
        knows)."""
        from croupier.table.v1 import table_pb2

        request = table_pb2.GetViewRequest(table_id=table_id)
        asking = {
            asyncio.ensure_future(self._answer(game, "GetView", request)): game
            for game in self._replicas
        }
        errors: list[grpc.aio.AioRpcError] = []
        try:
            while asking:
                done, _ = await asyncio.wait(asking, return_when=asyncio.FIRST_COMPLETED)
                for task in done:
                    game = asking.pop(task)
                    error = task.exception()
                    if error is None:
                        return game
                    if not isinstance(error, grpc.aio.AioRpcError):
                        raise error
                    if error.code() in self._refusals and error.code() != grpc.StatusCode.NOT_FOUND:
                        return game  # it knows the table (voided, say): the call hears why
                    errors.append(error)
        finally:
            for task in asking:
                task.cancel()
        # No service knows it: NOT_FOUND if every one said so, else one that did not answer.
        raise next((e for e in errors if e.code() != grpc.StatusCode.NOT_FOUND), errors[0])

    def _raise(self, method: str, error: grpc.aio.AioRpcError) -> NoReturn:
        """The host's refusal as its `croupier.game` kind (message and reason); anything
        else `unavailable`."""
        refusal = self._refusals.get(error.code())
        if refusal is not None:
            reasons = [v for k, v in error.trailing_metadata() or () if k == REASON_HEADER]
            reason = str(reasons[0]) if reasons and reasons[0] else None
            raise refusal(f"{self._refused}{error.details()}", reason) from error
        status = error.code().name
        if self._details:
            status = f"{status}: {error.details()}"
        raise self._unavailable(
            f"the table host did not answer {method} ({status}); {self._retry}"
        ) from error

    async def stream(self, method: str, request: Any) -> AsyncIterator[Any]:
        """`TableEngine/<method>(request)`, a server stream (`WatchView`), without a
        deadline: it lasts as long as the table. Its errors (gRPC's) are the caller's to
        read."""
        game = await self._service_for(request)
        replica = self._first_replica(str(request.table_id), game)
        async for message in getattr(self._stub(game, replica), method)(request):
            yield message

    async def follow(
        self,
        method: str,
        request: Any,
        finished: Callable[[Any], bool],
        retry_seconds: float = STREAM_RETRY_SECONDS,
    ) -> AsyncIterator[Any]:
        """The messages of server stream `method(request)` on the replica serving its
        table, followed across replicas: when that stream breaks or ends before a message
        that is `finished` (the replica stopped, or lost the table in a rebalance), it is
        opened again where the table is served now, for up to `retry_seconds` after the
        last message; the reader's stream stays open meanwhile. A refusal ends it (as
        `call`'s do), as does NOT_FOUND before a first message."""
        table_id = str(request.table_id)
        loop = asyncio.get_running_loop()
        give_up, tries, seen = loop.time() + retry_seconds, 0, False
        while True:
            game = await self._guarded_service_for(method, request)
            count = len(self._replicas[game])
            replica = self._first_replica(table_id, game)
            call = getattr(self._stub(game, replica), method)(request)
            try:
                async for message in call:
                    self._remember(table_id, game, replica)
                    give_up, tries, seen = loop.time() + retry_seconds, 0, True
                    yield message
                    if finished(message):
                        return
                last: grpc.aio.AioRpcError | None = None
            except grpc.aio.AioRpcError as error:
                if error.code() not in FAILOVER_STATUSES and not (
                    seen and error.code() == grpc.StatusCode.NOT_FOUND  # rebuilding it
                ):
                    self._raise(method, error)
                last = error
            finally:
                call.cancel()
            if loop.time() >= give_up:
                if last is not None:
                    self._raise(method, last)
                raise self._unavailable(f"the table host ended {method}; {self._retry}")
            tries += 1
            self._remember(table_id, game, (replica + 1) % count)  # the next one first
            await asyncio.sleep(self._pause(tries, count))

    async def _guarded_service_for(self, method: str, request: Any) -> str:
        try:
            return await self._service_for(request)
        except grpc.aio.AioRpcError as error:
            self._raise(method, error)

    async def seat(
        self, *, table_id: str, player: str, seat: int, stack: int, is_bot: bool = False
    ) -> None:
        """Seat `player` at `seat` with `stack` chips (the views in JSON); `is_bot`
        labels the seat BOT (rule 59)."""
        from croupier.table.v1 import table_pb2

        await self.call(
            "SeatPlayer",
            table_pb2.SeatPlayerRequest(
                table_id=table_id,
                player_id=player,
                seat=seat,
                stack=stack,
                is_bot=is_bot,
                view_format=table_pb2.VIEW_FORMAT_JSON,
            ),
        )

    async def close_table(self, table_id: str) -> None:
        from croupier.table.v1 import table_pb2

        await self.call("CloseTable", table_pb2.CloseTableRequest(table_id=table_id))

    async def close(self) -> None:
        for replicas in self._replicas.values():
            for channel in replicas:
                await channel.close()
