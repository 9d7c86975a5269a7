"""The gateway in front of real services: a table host logging to the real Kafka broker and
the wallet on the real PostgreSQL, all called over gRPC. A token acts at its player's seat
over gRPC and over Connect; another seat, a bad token, another's money are refused."""

from __future__ import annotations

import json
import random
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg  # type: ignore[import-untyped]
import grpc
import jwt
import pytest
from google.protobuf.timestamp_pb2 import Timestamp
from prometheus_client import CollectorRegistry

from croupier.common.v1 import common_pb2
from croupier.game import ClockSettings
from croupier.gateway.v1 import gateway_pb2 as pb
from croupier.kit.auth import MAX_CLOCK_SKEW_SECONDS
from croupier.kit.bus.kafka import KafkaBus
from croupier.table.adapters.kafka_log import KafkaCommandLog
from croupier.table.bootstrap import table_service
from croupier.table.games import load_engines
from croupier.table.service.host import TableHost
from croupier.wallet.bootstrap import build_wallet
from croupier.wallet.v1 import wallet_pb2, wallet_pb2_grpc
from tests.support.games import GAMES
from tests.support.gateway import ServedGateway, bearer, connect_call, served_gateway, token
from tests.support.infra import unique_name
from tests.support.services import service_stub
from tests.support.table import Seeds, status_of

POKER = GAMES["poker"]
HOUR = ClockSettings(turn_ms=3_600_000, reconnect_ms=3_600_000)


@dataclass
class Platform:
    gateway: ServedGateway
    host: TableHost
    table_id: str
    wallet: Any

    def to_act(self) -> str:
        player = POKER.to_act(dict(self.host.view(self.table_id, "").view))
        assert player is not None
        return player

    def act_request(self, player: str, command_id: str) -> pb.ActRequest:
        own = dict(self.host.view(self.table_id, player).view)
        action = POKER.legal_action(own, random.Random(command_id))
        return pb.ActRequest(
            table_id=self.table_id, command_id=command_id, action_json=json.dumps(action)
        )


@pytest.fixture
async def platform(
    kafka_bootstrap: str, wallet_pool: tuple[asyncpg.Pool, str]
) -> AsyncIterator[Platform]:
    bus = KafkaBus(bootstrap_servers=kafka_bootstrap)
    await bus.start()
    host = TableHost(
        engines=load_engines(),
        command_log=KafkaCommandLog(kafka_bootstrap, unique_name("table_commands")),
        publisher=bus,
        seeds=Seeds("gateway-kafka"),
    )
    await host.start()
    pool, schema = wallet_pool
    wallet = await build_wallet(pool=pool, schema=schema, bus=None, registry=CollectorRegistry())
    try:
        table_id = await host.open_table("poker", dict(POKER.options), HOUR)
        for seat, player in enumerate(POKER.players):
            await host.seat(table_id, player, seat, POKER.stack)
        async with served_gateway(
            beside=[table_service(host), wallet.service()], clock=time.time
        ) as gateway:
            yield Platform(gateway, host, table_id, wallet)
    finally:
        await wallet.stop()
        await host.stop()
        await bus.stop()


async def test_a_token_acts_at_a_kafka_table_over_grpc_and_over_connect(
    platform: Platform,
) -> None:
    now = time.time()
    first = platform.to_act()
    answer = await platform.gateway.stub.Act(
        platform.act_request(first, "g1"), metadata=bearer(first, now=now)
    )
    assert answer.view.version == platform.host.view(platform.table_id, "").version
    second = platform.to_act()
    status, body = await connect_call(
        platform.gateway.http,
        "Act",
        platform.act_request(second, "g2"),
        "Bearer " + token(second, now=now),
    )
    assert status == 200, body
    assert int(body["view"]["version"]) == platform.host.view(platform.table_id, "").version


async def test_acting_for_another_players_seat_is_permission_denied(platform: Platform) -> None:
    player = platform.to_act()
    request = platform.act_request(player, "g3")
    before = platform.host.digest(platform.table_id)
    code, _ = await status_of(
        platform.gateway.stub.Act(request, metadata=bearer("mallory", now=time.time()))
    )
    assert code is grpc.StatusCode.PERMISSION_DENIED
    status, body = await connect_call(
        platform.gateway.http, "Act", request, "Bearer " + token("mallory", now=time.time())
    )
    assert (status, body["code"]) == (403, "permission_denied")
    assert platform.host.digest(platform.table_id) == before


def _wrong_alg() -> str:
    now = int(time.time())
    claims: dict[str, object] = {"sub": "p0", "iss": "croupier", "aud": "croupier-gateway"}
    return jwt.encode(claims | {"iat": now, "exp": now + 600}, None, "none", {"kid": "test-1"})


@pytest.mark.parametrize(
    "authorization",
    [
        None,
        "Bearer " + _wrong_alg(),
        "Bearer " + token("p0", now=time.time() - 3600 - MAX_CLOCK_SKEW_SECONDS),
        "Bearer " + token("p0", now=time.time())[:-4] + "AAAA",
    ],
    ids=["missing", "wrong-alg", "expired", "bad-signature"],
)
async def test_a_bad_token_is_unauthenticated_and_acts_nowhere(
    platform: Platform, authorization: str | None
) -> None:
    request = platform.act_request(platform.to_act(), "g4")
    before = platform.host.digest(platform.table_id)
    metadata = () if authorization is None else (("authorization", authorization),)
    code, _ = await status_of(platform.gateway.stub.Act(request, metadata=metadata))
    assert code is grpc.StatusCode.UNAUTHENTICATED
    status, body = await connect_call(platform.gateway.http, "Act", request, authorization)
    assert (status, body["code"]) == (401, "unauthenticated")
    assert platform.host.digest(platform.table_id) == before


async def test_the_balance_is_the_callers_own_account(platform: Platform) -> None:
    async with service_stub(platform.gateway.address, wallet_pb2_grpc.WalletStub) as wallet:
        await wallet.OpenAccount(
            wallet_pb2.OpenAccountRequest(
                kind=wallet_pb2.ACCOUNT_KIND_PLAYER_CHIPS, owner="p0", currency="CHIP"
            )
        )
    stub, now = platform.gateway.stub, time.time()
    chips = await stub.GetBalance(
        pb.GetBalanceRequest(currency="CHIP"), metadata=bearer("p0", now=now)
    )
    assert (chips.balance.amount_minor, chips.balance.currency) == (0, "CHIP")
    code, details = await status_of(
        stub.GetBalance(pb.GetBalanceRequest(currency="CHIP"), metadata=bearer("p1", now=now))
    )
    assert code is grpc.StatusCode.NOT_FOUND
    assert "you have no account in CHIP" in details


async def test_my_coupons_are_the_callers_own(platform: Platform) -> None:
    """Rule 48's "My coupons": the token's player's coupons, nobody else's."""
    expires = Timestamp()
    expires.FromDatetime(datetime.now(UTC) + timedelta(days=7))
    async with service_stub(platform.gateway.address, wallet_pb2_grpc.WalletStub) as wallet:
        await wallet.IssueCoupon(
            wallet_pb2.IssueCouponRequest(
                coupon_id="welcome-p0",
                player_id="p0",
                game=common_pb2.GAME_POKER,
                value=common_pb2.Money(amount_minor=500, currency="USD"),
                expires_at=expires,
            )
        )
    stub, now = platform.gateway.stub, time.time()
    mine = await stub.ListCoupons(pb.ListCouponsRequest(), metadata=bearer("p0", now=now))
    assert [(c.coupon_id, c.status) for c in mine.coupons] == [
        ("welcome-p0", wallet_pb2.COUPON_STATUS_HELD)
    ]
    theirs = await stub.ListCoupons(pb.ListCouponsRequest(), metadata=bearer("p1", now=now))
    assert list(theirs.coupons) == []
