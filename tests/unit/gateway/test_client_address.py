"""The client's real address behind the ingress (croupier.gateway.core.client_address):
`Forwarded` / `X-Forwarded-For` believed only from the trusted proxies
(CROUPIER_GATEWAY_TRUSTED_PROXIES), walked from the right; the per-address rate limit
counts that address, over gRPC and over Connect."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Awaitable, Callable

import grpc
import pytest

from croupier.gateway.bootstrap import GatewaySettings
from croupier.gateway.core.client_address import client_address, forwarded_chain, parse_networks
from croupier.gateway.core.rate_limits import RateLimit
from croupier.gateway.service.limits import GatewayLimits
from croupier.gateway.v1 import gateway_pb2 as pb
from croupier.kit.settings import SettingsError, load
from tests.support.gateway import SERVICE_PATH, ServedGateway, served_gateway, token
from tests.unit.gateway.conftest import NOW
from tests.unit.gateway.memory import MemoryTournaments, MemoryWallet

PROXIES = parse_networks("10.0.0.0/8, fd00::/8, 192.168.1.7")
AUTH_KEYS = "k1=" + "k" * 40


def test_trusted_proxies_are_networks_or_addresses() -> None:
    assert [str(n) for n in PROXIES] == ["10.0.0.0/8", "fd00::/8", "192.168.1.7/32"]
    assert parse_networks("") == ()
    with pytest.raises(ValueError, match=r"'proxy\.local' is not an address"):
        parse_networks("10.0.0.0/8,proxy.local")


def test_the_setting_is_read_and_a_bad_one_stops_the_gateway() -> None:
    environ = {"CROUPIER_AUTH_KEYS": AUTH_KEYS}
    assert load(GatewaySettings, environ).limits().trusted_proxies == ()
    environ["CROUPIER_GATEWAY_TRUSTED_PROXIES"] = "10.1.0.0/16"
    assert [str(n) for n in load(GatewaySettings, environ).limits().trusted_proxies] == [
        "10.1.0.0/16"
    ]
    environ["CROUPIER_GATEWAY_TRUSTED_PROXIES"] = "10.1.0.0/99"
    with pytest.raises(SettingsError, match="CROUPIER_GATEWAY_TRUSTED_PROXIES"):
        load(GatewaySettings, environ)


@pytest.mark.parametrize(
    ("peer", "forwarded_for", "client"),
    [
        # A peer that is not a trusted proxy: its headers are the client's own words.
        ("203.0.113.9", "198.51.100.1", "203.0.113.9"),
        # A trusted proxy names the address it received from.
        ("10.0.0.2", "198.51.100.1", "198.51.100.1"),
        # What the client wrote itself lies left of what the proxy appended: never read.
        ("10.0.0.2", "1.2.3.4, 198.51.100.1", "198.51.100.1"),
        # Through two trusted proxies: the first address that is not one.
        ("10.0.0.2", "1.2.3.4, 198.51.100.1, 192.168.1.7", "198.51.100.1"),
        # A proxy without a header: the proxy is the client as far as is known.
        ("10.0.0.2", "", "10.0.0.2"),
        # Garbage from the client's side ends the walk at the proxy that wrote it.
        ("10.0.0.2", "1.2.3.4, unknown", "10.0.0.2"),
        # Every hop trusted: the leftmost.
        ("10.0.0.2", "10.9.9.9, 10.0.0.5", "10.9.9.9"),
        ("fd00::1", "2001:db8::5", "2001:db8::5"),
        ("10.0.0.2", "198.51.100.1:4711", "198.51.100.1"),
    ],
)
def test_x_forwarded_for_is_believed_only_from_trusted_proxies(
    peer: str, forwarded_for: str, client: str
) -> None:
    chain = forwarded_chain((), (forwarded_for,) if forwarded_for else ())
    assert client_address(peer, chain, PROXIES) == client


def test_forwarded_is_read_and_wins_over_x_forwarded_for() -> None:
    forwarded = ('for=1.2.3.4;proto=https, for="[2001:db8:cafe::17]:4711";by=10.0.0.2',)
    chain = forwarded_chain(forwarded, ("198.51.100.1",))
    assert chain == ["1.2.3.4", '"[2001:db8:cafe::17]:4711"']
    assert client_address("10.0.0.2", chain, PROXIES) == "2001:db8:cafe::17"
    # Several header lines are one list, in order.
    lines = forwarded_chain((), ("1.2.3.4", "198.51.100.1, 10.0.0.3"))
    assert client_address("10.0.0.2", lines, PROXIES) == "198.51.100.1"
    assert client_address("10.0.0.2", [], ()) == "10.0.0.2"  # nothing trusted by default


@pytest.fixture
async def behind_proxy() -> AsyncIterator[ServedGateway]:
    """A gateway whose tests call from 127.0.0.1, trusted as a proxy; an address may make 2
    calls at once."""
    limits = GatewayLimits(
        per_player=RateLimit(rate=100, burst=100),
        per_address=RateLimit(rate=0.01, burst=2),
        trusted_proxies=parse_networks("127.0.0.1"),
    )
    wallet = MemoryWallet({(f"p{i}", "CHIP"): 5 for i in range(9)})
    async with served_gateway(
        beside=[], wallet=wallet, tournaments=MemoryTournaments(), clock=lambda: NOW, limits=limits
    ) as gateway:
        yield gateway


async def _grpc_balance(gateway: ServedGateway, player: str, headers: dict[str, str]) -> str:
    metadata = (("authorization", "Bearer " + token(player, now=NOW)), *headers.items())
    try:
        await gateway.stub.GetBalance(pb.GetBalanceRequest(currency="CHIP"), metadata=metadata)
    except grpc.aio.AioRpcError as error:
        return error.code().name
    return "OK"


def _post(url: str, body: bytes, headers: dict[str, str]) -> int:
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return error.code


async def _connect_balance(gateway: ServedGateway, player: str, headers: dict[str, str]) -> str:
    all_headers = {
        "Content-Type": "application/json",
        "Authorization": "Bearer " + token(player, now=NOW),
        **headers,
    }
    url = f"{gateway.http}{SERVICE_PATH}/GetBalance"
    status = await asyncio.to_thread(
        _post, url, json.dumps({"currency": "CHIP"}).encode(), all_headers
    )
    return {200: "OK", 429: "RESOURCE_EXHAUSTED"}.get(status, str(status))


Balance = Callable[[ServedGateway, str, dict[str, str]], Awaitable[str]]


@pytest.mark.parametrize("balance", [_grpc_balance, _connect_balance], ids=["grpc", "connect"])
async def test_the_address_limit_counts_the_client_a_trusted_proxy_names(
    behind_proxy: ServedGateway, balance: Balance
) -> None:
    first = {"x-forwarded-for": "198.51.100.1"}
    second = {"forwarded": "for=198.51.100.2"}
    assert [await balance(behind_proxy, f"p{i}", first) for i in range(3)] == [
        "OK",
        "OK",
        "RESOURCE_EXHAUSTED",
    ]
    # Another client behind the same proxy has its own bucket.
    assert await balance(behind_proxy, "p3", second) == "OK"
    # A client spoofing a left-hand entry is still counted as the address the proxy saw.
    spoofed = {"x-forwarded-for": "7.7.7.7, 198.51.100.1"}
    assert await balance(behind_proxy, "p4", spoofed) == "RESOURCE_EXHAUSTED"


async def test_headers_from_an_untrusted_peer_are_ignored() -> None:
    limits = GatewayLimits(
        per_player=RateLimit(rate=100, burst=100), per_address=RateLimit(rate=0.01, burst=2)
    )
    wallet = MemoryWallet({(f"p{i}", "CHIP"): 5 for i in range(9)})
    async with served_gateway(
        beside=[], wallet=wallet, tournaments=MemoryTournaments(), clock=lambda: NOW, limits=limits
    ) as gateway:
        answers = [
            await _grpc_balance(gateway, f"p{i}", {"x-forwarded-for": f"198.51.100.{i}"})
            for i in range(3)
        ]
    # Each call claimed another address; all were counted as the peer's.
    assert answers == ["OK", "OK", "RESOURCE_EXHAUSTED"]
