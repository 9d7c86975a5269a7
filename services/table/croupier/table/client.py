"""The table host as other services call it over gRPC (`croupier.table.v1.TableEngine`):
one lazily opened channel, one answer to a refusal, one answer to silence.

The lobby (tables it opens and seats) and the tournament director (its rounds) drive the
host through a `TableHostClient`. The host's refusals come back as the `croupier.game`
kinds the kit's error table maps to those statuses (`REFUSALS`), so the caller's own
client sees the host's status and message; any other status means the host did not
answer (`Unavailable`, or the caller's subclass of it): the caller may retry.

The replicas of one game's host sit behind one address (a headless Service's name): the
channel balances calls over them (`round_robin`), and with `failover_seconds` a call the
host did not answer (a replica that does not serve the table's partition, one draining in
a rolling restart) is tried again, on the next replica, for that long.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import AsyncIterator, Mapping
from typing import Any, NoReturn

import grpc

from croupier.game import Malformed, RuleBroken
from croupier.game.limits import echo
from croupier.kit.channels import ServiceChannel, Target
from croupier.kit.errors import STATUS_BY_ROOT, Unavailable
from croupier.kit.service_auth import ServiceCredential

__all__ = [
    "REFUSALS",
    "TABLE_FAILOVER_SECONDS",
    "TABLE_TIMEOUT_SECONDS",
    "TableHostClient",
    "game_targets",
]

TABLE_TIMEOUT_SECONDS = 10.0
# How long a call the host did not answer is tried again: a rolling restart's window (the
# chart's CROUPIER_SHUTDOWN_GRACE_SECONDS), and a replica serving no partition of the table.
TABLE_FAILOVER_SECONDS = 15.0
# Between the tries of a failover after the first (which goes at once to the next replica).
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

# Tables whose game's service is remembered (the others are looked up again).
REMEMBERED_TABLES = 65_536

REFUSALS: Mapping[grpc.StatusCode, type[RuleBroken]] = {
    status: kind for kind, status in STATUS_BY_ROOT.items() if issubclass(kind, RuleBroken)
}


def game_targets(target: Target) -> dict[str, str]:
    """The per-game addresses `target` names (`game=address,...`); {} for one address
    serving every game."""
    if not isinstance(target, str) or "=" not in target:
        return {}
    pairs = [item.partition("=") for item in target.split(",") if item.strip()]
    if any(not game.strip() or not address.strip() for game, _, address in pairs):
        raise ValueError(f"table host addresses must read game=host:port,...: {target!r}")
    return {game.strip(): address.strip() for game, _, address in pairs}


class TableHostClient:
    """Lazily opened channels to the table host (one per game's service) and its stubs."""

    def __init__(
        self,
        target: Target,
        timeout: float = TABLE_TIMEOUT_SECONDS,
        *,
        credential: ServiceCredential | None = None,
        refusals: Mapping[grpc.StatusCode, type[RuleBroken]] = REFUSALS,
        unavailable: type[Unavailable] = Unavailable,
        details: bool = False,
        retry: str = "retry",
        failover_seconds: float = TABLE_FAILOVER_SECONDS,
    ) -> None:
        """`target`: the host's address, or how to find it once known (the embedded
        platform's own port). `refusals`: the statuses passed on as refusals (the others
        raise `unavailable`). `details`: the host's status details in an unavailability's
        message, for operators' logs; off where the message reaches a player, since it
        may name internal addresses. `retry`: how the caller's client tries again when the
        host did not answer. `credential`: the calling service's (the host answers services
        only). `failover_seconds`: how long UNAVAILABLE answers are tried again (the
        drain window of a rolling restart); 0: not at all."""
        per_game: dict[str, Target] = dict(game_targets(target))
        self._channels = {
            game: ServiceChannel(address, credential, options=CHANNEL_OPTIONS)
            for game, address in (per_game or {"": target}).items()
        }
        self._game_of_table: OrderedDict[str, str] = OrderedDict()
        self._timeout = timeout
        self._refusals = refusals
        self._unavailable = unavailable
        self._details = details
        self._retry = retry
        self._failover_seconds = failover_seconds

    def _stub(self, game: str) -> Any:
        from croupier.table.v1 import table_pb2_grpc

        return self._channels[game].stub(table_pb2_grpc.TableEngineStub)

    async def call(self, method: str, request: Any) -> Any:
        """`TableEngine/<method>(request)`, tried again for `failover_seconds` while the
        host does not answer: safe for commands, since the host applies a command id or a
        request key once."""
        try:
            return await self._answer(await self._service_for(request), method, request)
        except grpc.aio.AioRpcError as error:
            self._raise(method, error)

    async def _answer(self, game: str, method: str, request: Any) -> Any:
        """The answer of `game`'s service, with the failover; its last error raised."""
        loop = asyncio.get_running_loop()
        give_up = loop.time() + self._failover_seconds
        tries = 0
        while True:
            try:
                return await getattr(self._stub(game), method)(request, timeout=self._timeout)
            except grpc.aio.AioRpcError as error:
                if error.code() not in FAILOVER_STATUSES or loop.time() >= give_up:
                    raise
            tries += 1
            await asyncio.sleep(0 if tries == 1 else FAILOVER_PAUSE_SECONDS)

    async def _service_for(self, request: Any) -> str:
        """The game whose service answers `request` ("" with one address for all)."""
        if "" in self._channels:
            return ""
        game = getattr(request, "game", "")
        if game:
            if game not in self._channels:
                raise Malformed(f"no table service runs {echo(game)}")
            return str(game)
        table_id = str(request.table_id)
        known = self._game_of_table.get(table_id)
        if known is None:
            known = await self._look_up(table_id)
            if len(self._game_of_table) >= REMEMBERED_TABLES:
                self._game_of_table.popitem(last=False)
        self._game_of_table[table_id] = known
        self._game_of_table.move_to_end(table_id)
        return known

    async def _look_up(self, table_id: str) -> str:
        """The game whose service knows `table_id`: every one is asked at once."""
        from croupier.table.v1 import table_pb2

        request = table_pb2.GetViewRequest(table_id=table_id)
        games = list(self._channels)
        answers = await asyncio.gather(
            *(self._answer(game, "GetView", request) for game in games), return_exceptions=True
        )
        errors = []
        for game, answer in zip(games, answers, strict=True):
            if not isinstance(answer, BaseException):
                return game
            if not isinstance(answer, grpc.aio.AioRpcError):
                raise answer
            if answer.code() in self._refusals and answer.code() != grpc.StatusCode.NOT_FOUND:
                return game  # it knows the table (voided, say): the call hears why
            errors.append(answer)
        # No service knows it: NOT_FOUND if every one said so, else one that did not answer.
        raise next((e for e in errors if e.code() != grpc.StatusCode.NOT_FOUND), errors[0])

    def _raise(self, method: str, error: grpc.aio.AioRpcError) -> NoReturn:
        """The host's refusal as its `croupier.game` kind; anything else `unavailable`."""
        refusal = self._refusals.get(error.code())
        if refusal is not None:
            raise refusal(f"the table host refused: {error.details()}") from error
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
        async for message in getattr(self._stub(await self._service_for(request)), method)(request):
            yield message

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
        for channel in self._channels.values():
            await channel.close()
