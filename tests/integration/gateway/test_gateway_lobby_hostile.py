"""Hostile requests to every gateway method the lobby serves (hypothesis), over gRPC and
Connect, against the lobby on the real PostgreSQL: never INTERNAL or UNKNOWN, never
UNAVAILABLE either (the lobby is up, so that could only be a failure behind the gateway
passed on as "retry"), and a refused request changes nothing the lobby holds (every row
of its schema but the listing's counters, the outbox and closed tables) and leaves no
table open."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable

import asyncpg
import grpc
import pytest
from hypothesis import HealthCheck, given, settings

from croupier.gateway.v1 import gateway_pb2 as pb
from croupier.poker.v1 import poker_pb2
from croupier.table.v1 import table_pb2
from tests.support.gateway import bearer, connect_call, token
from tests.support.gateway_hostile import Call, call_over_grpc, gateway_calls, gateway_request
from tests.support.lobby_gateway import LobbyPlatform, lobby_gateway

# The gateway's methods that call the lobby (account limits included).
LOBBY_METHODS = frozenset(
    {
        "ListTables",
        "WatchTables",
        "OpenTable",
        "JoinTable",
        "InvitePlayers",
        "AddBots",
        "FindGame",
        "GetTicket",
        "CancelTicket",
        "JoinWaitingList",
        "LeaveWaitingList",
        "ListQueues",
        "JoinQueue",
        "LeaveQueue",
        "GetRating",
        "GetAccountLimits",
        "SetAccountLimits",
    }
)
POKER = table_pb2.GameOptions(
    poker=poker_pb2.Options(variant=poker_pb2.VARIANT_NLHE, small_blind=1, big_blind=2, seats=2)
)
REFUSED_AS_BUGS = (grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN, grpc.StatusCode.UNAVAILABLE)
HOSTILE = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


# A join holds its seat before the host is asked (so two joiners never race for it) and
# gives it back if the host refuses (a buy-in under the table's least, say: the game's rule,
# which only the host knows): the listing's version and change counter move and the hold
# and its release are published (the outbox), while what the lobby lists does not change.
# Likewise an opener's buy-in is the host's to refuse once it has opened the table: the
# lobby then closes that table (unlisted; the host retires it). Closed tables are left out.
_COUNTERS = frozenset({("lobby_tables", "version"), ("lobby_tables", "change")})
_PUBLISHED = "outbox"


class Lobby:
    """The platform, a table the lobby lists (its id is what `__table__` draws become) and
    a connection reading the lobby's schema."""

    def __init__(self, platform: LobbyPlatform, table_id: str, rows: asyncpg.Connection) -> None:
        self.platform, self.table_id, self._rows = platform, table_id, rows

    async def state(self) -> tuple[object, ...]:
        """The lobby's rows (but its outbox, listing counters and closed tables, above),
        and the open tables the host serves."""
        names = await self._rows.fetch(
            "SELECT table_name FROM information_schema.tables"
            " WHERE table_schema = current_schema() ORDER BY table_name"
        )
        everything: list[object] = []
        for (name,) in names:
            if name == _PUBLISHED:
                continue
            rows = await self._rows.fetch(f'SELECT * FROM "{name}"')
            kept = [
                {k: v for k, v in row.items() if (name, k) not in _COUNTERS}
                for row in rows
                if not row.get("closed", False)
            ]
            everything.append((name, sorted(repr(sorted(row.items())) for row in kept)))
        host = self.platform.host
        serving = [t for t in host.table_ids() if not host.view(t, "").closed]
        return (*everything, tuple(serving))


@pytest.fixture
async def lobby(
    kafka_bootstrap: str, postgres_dsn: str, unique: Callable[[str], str]
) -> AsyncIterator[Lobby]:
    schema = unique("lobby_hostile")
    async with lobby_gateway(kafka_bootstrap, postgres_dsn, schema) as platform:
        opened = await platform.gateway.stub.OpenTable(
            pb.OpenTableRequest(request_key="owner-1", options=POKER, stack=100),
            metadata=bearer("owner", now=time.time()),
        )
        rows = await asyncpg.connect(postgres_dsn, server_settings={"search_path": schema})
        try:
            yield Lobby(platform, opened.table.table_id, rows)
        finally:
            await rows.close()


@HOSTILE
@given(call=gateway_calls(only=LOBBY_METHODS))
async def test_no_grpc_request_to_the_lobby_gets_a_bugs_status_or_changes_anything_when_refused(
    lobby: Lobby, call: Call
) -> None:
    name, streaming, values = call
    request = gateway_request(name, values, lobby.table_id)
    before = await lobby.state()
    metadata = bearer("p0", now=time.time())
    code = await call_over_grpc(lobby.platform.gateway.stub, name, streaming, request, metadata)
    assert code not in REFUSED_AS_BUGS, (name, values, code)
    if code != grpc.StatusCode.OK:
        assert await lobby.state() == before, f"{name} refused but changed something"


@settings(HOSTILE, max_examples=60)
@given(call=gateway_calls(unary_only=True, only=LOBBY_METHODS))
async def test_no_connect_request_to_the_lobby_gets_a_bugs_status_or_changes_anything(
    lobby: Lobby, call: Call
) -> None:
    name, _, values = call
    request = gateway_request(name, values, lobby.table_id)
    before = await lobby.state()
    status, body = await connect_call(
        lobby.platform.gateway.http, name, request, "Bearer " + token("p0", now=time.time())
    )
    assert status < 500 and body.get("code") not in ("internal", "unknown"), (name, body)
    if status != 200:
        assert await lobby.state() == before, f"{name} refused but changed something"
