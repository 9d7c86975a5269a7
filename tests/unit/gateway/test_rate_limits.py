"""Rate limits (croupier.gateway.core.rate_limits, service/limits.py): token buckets per
player and per address; a call over a limit is RESOURCE_EXHAUSTED with a
`google.rpc.RetryInfo` saying when to retry, over gRPC and over Connect, and reaches no
service; refusals carry `google.rpc` details a frontend reads (ErrorInfo, BadRequest)."""

from __future__ import annotations

import asyncio
import base64
from collections.abc import AsyncIterator

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2

from croupier.gateway.bootstrap import GatewaySettings
from croupier.gateway.core.rate_limits import RateLimit, RateLimiter
from croupier.gateway.service.limits import GatewayLimits, host_of
from croupier.gateway.v1 import gateway_pb2 as pb
from croupier.kit.errors import DETAILS_HEADER
from croupier.kit.settings import SettingsError, load
from croupier.table.bootstrap import table_service
from tests.support.gateway import ServedGateway, bearer, connect_call, served_gateway, token
from tests.unit.gateway.conftest import NOW, World
from tests.unit.gateway.memory import MemoryTournaments, MemoryWallet

BALANCE = pb.GetBalanceRequest(currency="CHIP")


def test_a_bucket_allows_its_burst_then_says_how_long_to_wait() -> None:
    limiter = RateLimiter(RateLimit(rate=2, burst=3))
    assert [limiter.wait("ana", 100.0) for _ in range(3)] == [0.0, 0.0, 0.0]
    assert limiter.wait("ana", 100.0) == pytest.approx(0.5)  # one token every 0.5 s
    assert limiter.wait("bob", 100.0) == 0.0  # each key its own bucket
    assert limiter.wait("ana", 100.25) == pytest.approx(0.25)  # half a token refilled
    assert limiter.wait("ana", 100.5) == 0.0
    assert limiter.wait("ana", 110.0) == 0.0  # refilled, never beyond the burst
    assert [limiter.wait("ana", 110.0) for _ in range(3)][-1] == pytest.approx(0.5)


def test_a_clock_stepping_back_refills_nothing() -> None:
    limiter = RateLimiter(RateLimit(rate=1, burst=1))
    assert limiter.wait("ana", 50.0) == 0.0
    assert limiter.wait("ana", 10.0) > 0  # earlier than the last call: no tokens gained
    assert limiter.wait("ana", 50.5) == pytest.approx(0.5)


def test_the_buckets_kept_are_bounded_and_a_dropped_one_comes_back_full() -> None:
    limiter = RateLimiter(RateLimit(rate=1, burst=1), max_keys=2)
    for key in ("a", "b", "c"):
        assert limiter.wait(key, 0.0) == 0.0
    assert limiter.wait("c", 0.0) > 0  # kept: still empty
    assert limiter.wait("a", 0.0) == 0.0  # dropped as least recently used: full again


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("CROUPIER_GATEWAY_PLAYER_RATE", "0"),
        ("CROUPIER_GATEWAY_PLAYER_RATE", "1e9"),
        ("CROUPIER_GATEWAY_ADDRESS_BURST", "0"),
        ("CROUPIER_GATEWAY_PLAYER_BURST", "many"),
    ],
)
def test_limits_out_of_bounds_stop_the_gateway_at_start(variable: str, value: str) -> None:
    environ = {"CROUPIER_AUTH_KEYS": "k1=" + "k" * 40, variable: value}
    with pytest.raises(SettingsError, match=variable):
        load(GatewaySettings, environ)


def test_the_limits_settings_default_and_read() -> None:
    environ = {"CROUPIER_AUTH_KEYS": "k1=" + "k" * 40, "CROUPIER_GATEWAY_PLAYER_RATE": "2.5"}
    limits = load(GatewaySettings, environ).limits()
    assert limits.per_player == RateLimit(rate=2.5, burst=100)
    assert limits.per_address == RateLimit(rate=500, burst=1000)


@pytest.mark.parametrize(
    ("peer", "host"),
    [("ipv4:10.0.0.7:5123", "10.0.0.7"), ("ipv6:[::1]:5123", "::1"), ("10.0.0.7:80", "10.0.0.7")],
)
def test_an_address_is_its_peers_host(peer: str, host: str) -> None:
    assert host_of(peer) == host


class _Clock:
    def __call__(self) -> float:
        return NOW


@pytest.fixture
async def tight() -> AsyncIterator[tuple[ServedGateway, MemoryWallet]]:
    """A gateway allowing a player 2 calls at once (then 1 a second), an address 5."""
    wallet = MemoryWallet({("p0", "CHIP"): 500, ("p1", "CHIP"): 500})
    limits = GatewayLimits(
        per_player=RateLimit(rate=1, burst=2), per_address=RateLimit(rate=0.01, burst=5)
    )
    async with served_gateway(
        beside=[], wallet=wallet, tournaments=MemoryTournaments(), clock=_Clock(), limits=limits
    ) as gateway:
        yield gateway, wallet


def _details(trailers: object) -> list[object]:
    status = status_pb2.Status.FromString(dict(trailers or ())[DETAILS_HEADER])  # type: ignore[call-overload]
    found = []
    for packed in status.details:
        for kind in (
            error_details_pb2.ErrorInfo,
            error_details_pb2.RetryInfo,
            error_details_pb2.BadRequest,
        ):
            if packed.Is(kind.DESCRIPTOR):
                detail = kind()
                packed.Unpack(detail)
                found.append(detail)
    return found


async def test_a_player_over_his_limit_is_resource_exhausted_with_retry_info(
    tight: tuple[ServedGateway, MemoryWallet],
) -> None:
    gateway, wallet = tight
    for _ in range(2):
        await gateway.stub.GetBalance(BALANCE, metadata=bearer("p0", now=NOW))
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await gateway.stub.GetBalance(BALANCE, metadata=bearer("p0", now=NOW))
    assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "retry in" in (refused.value.details() or "")
    info, retry = _details(refused.value.trailing_metadata())
    assert isinstance(info, error_details_pb2.ErrorInfo)
    assert (info.reason, info.domain) == ("rate_limited_player", "croupier")
    assert isinstance(retry, error_details_pb2.RetryInfo)
    assert 0 < retry.retry_delay.ToNanoseconds() <= 1_000_000_000
    assert len(wallet.calls) == 2  # the refused call reached no service
    # Another player is not held back by p0's calls.
    await gateway.stub.GetBalance(BALANCE, metadata=bearer("p1", now=NOW))


async def test_an_address_over_its_limit_is_refused_before_its_token_is_read(
    tight: tuple[ServedGateway, MemoryWallet],
) -> None:
    gateway, _ = tight
    for player in ("a1", "a2", "a3", "a4", "a5"):  # new players, one address
        with pytest.raises(grpc.aio.AioRpcError):  # they have no account: NOT_FOUND
            await gateway.stub.GetBalance(BALANCE, metadata=bearer(player, now=NOW))
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await gateway.stub.GetBalance(BALANCE, metadata=(("authorization", "Bearer forged"),))
    assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    info, _ = _details(refused.value.trailing_metadata())
    assert info.reason == "rate_limited_address"  # type: ignore[attr-defined]


async def test_connect_answers_the_limit_with_its_retry_info(
    tight: tuple[ServedGateway, MemoryWallet],
) -> None:
    gateway, _ = tight
    bearer_p0 = "Bearer " + token("p0", now=NOW)
    for _ in range(2):
        status, _ = await connect_call(gateway.http, "GetBalance", BALANCE, bearer_p0)
        assert status == 200
    status, body = await connect_call(gateway.http, "GetBalance", BALANCE, bearer_p0)
    assert (status, body["code"]) == (429, "resource_exhausted")
    kinds = {detail["type"]: detail["value"] for detail in body["details"]}
    retry = error_details_pb2.RetryInfo.FromString(_b64(kinds["google.rpc.RetryInfo"]))
    assert retry.retry_delay.ToNanoseconds() > 0


async def test_a_malformed_field_is_named_in_a_bad_request_detail(
    tight: tuple[ServedGateway, MemoryWallet],
) -> None:
    gateway, _ = tight
    request = pb.GetBalanceRequest(currency="dollars")
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await gateway.stub.GetBalance(request, metadata=bearer("p0", now=NOW))
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    info, bad_request = _details(refused.value.trailing_metadata())
    assert info.reason == "invalid_request"  # type: ignore[attr-defined]
    assert isinstance(bad_request, error_details_pb2.BadRequest)
    (violation,) = bad_request.field_violations
    assert violation.field == "currency" and "not a currency code" in violation.description
    status, body = await connect_call(
        gateway.http, "GetBalance", request, "Bearer " + token("p1", now=NOW)
    )
    assert (status, body["code"]) == (400, "invalid_argument")
    kinds = {detail["type"]: detail["value"] for detail in body["details"]}
    answer = error_details_pb2.BadRequest.FromString(_b64(kinds["google.rpc.BadRequest"]))
    assert answer.field_violations[0].field == "currency"


async def test_an_unknown_view_format_is_named_in_a_bad_request_detail(
    tight: tuple[ServedGateway, MemoryWallet],
) -> None:
    gateway, _ = tight
    request = pb.GetTableViewRequest(table_id="t1", view_format=7)  # type: ignore[arg-type]
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await gateway.stub.GetTableView(request, metadata=bearer("p0", now=NOW))
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    info, bad_request = _details(refused.value.trailing_metadata())
    assert info.reason == "invalid_request"  # type: ignore[attr-defined]
    assert isinstance(bad_request, error_details_pb2.BadRequest)
    assert bad_request.field_violations[0].field == "view_format"


async def test_a_player_holds_at_most_his_streams_and_gets_one_back_when_one_ends(
    world: World,
) -> None:
    limits = GatewayLimits(
        per_player=RateLimit(rate=1000, burst=1000),
        per_address=RateLimit(rate=1000, burst=1000),
        streams_per_player=2,
    )
    watch = pb.WatchTableRequest(table_id=world.table_id)
    async with served_gateway(
        beside=[table_service(world.host)],
        wallet=world.wallet,
        tournaments=world.tournaments,
        clock=world.clock,
        limits=limits,
    ) as gateway:
        held = [gateway.stub.WatchTable(watch, metadata=bearer("p0", now=NOW)) for _ in "ab"]
        for stream in held:
            await stream.read()  # both open, each with its first view
        third = gateway.stub.WatchTable(watch, metadata=bearer("p0", now=NOW))
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await third.read()
        assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert dict(refused.value.trailing_metadata() or ())["x-error-reason"] == (
            "too_many_streams"
        )
        another = gateway.stub.WatchTable(watch, metadata=bearer("p1", now=NOW))
        await another.read()  # another player's count is his own
        held[0].cancel()
        for _ in range(100):  # the gateway sees the cancelled stream end
            reopened = gateway.stub.WatchTable(watch, metadata=bearer("p0", now=NOW))
            try:
                await reopened.read()
                break
            except grpc.aio.AioRpcError:
                await asyncio.sleep(0.02)
        else:
            raise AssertionError("the ended stream's place was never given back")
        for stream in (held[1], another, reopened):
            stream.cancel()


def _b64(text: str) -> bytes:
    return base64.b64decode(text + "=" * (-len(text) % 4))
