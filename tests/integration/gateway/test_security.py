"""Security of the platform as a player meets it: the wallet on the real PostgreSQL served
guarded beside the gateway (one port, as in the embedded platform and in a cluster whose
network lets a player reach an internal port). A player cannot move another's money or
act at another's seat: through the gateway he is only himself (PERMISSION_DENIED for a
seat that is not his), and straight at the wallet or the table host his token is no
service credential (UNAUTHENTICATED), with nothing moved."""

from __future__ import annotations

import json
import random
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import asyncpg  # type: ignore[import-untyped]
import grpc
import pytest
from prometheus_client import CollectorRegistry

from croupier.common.v1 import common_pb2
from croupier.game import ClockSettings
from croupier.gateway.v1 import gateway_pb2 as pb
from croupier.kit.bus.memory import InMemoryBus
from croupier.table.adapters.memory_log import InMemoryCommandLog
from croupier.table.bootstrap import table_service
from croupier.table.games import load_engines
from croupier.table.service.host import TableHost
from croupier.table.v1 import table_pb2, table_pb2_grpc
from croupier.wallet.bootstrap import build_wallet
from croupier.wallet.v1 import wallet_pb2, wallet_pb2_grpc
from tests.support.games import GAMES
from tests.support.gateway import ServedGateway, bearer, served_gateway
from tests.support.services import service_stub
from tests.support.table import Seeds, status_of

POKER = GAMES["poker"]
HOUR = ClockSettings(turn_ms=3_600_000, reconnect_ms=3_600_000)


@dataclass
class Platform:
    gateway: ServedGateway
    host: TableHost
    table_id: str
    accounts: dict[str, str]

    async def balance(self, player: str) -> int:
        async with service_stub(self.gateway.address, wallet_pb2_grpc.WalletStub) as wallet:
            answer = await wallet.GetBalance(
                wallet_pb2.GetBalanceRequest(account_id=self.accounts[player])
            )
        return int(answer.balance.amount_minor)


@pytest.fixture
async def platform(wallet_pool: tuple[asyncpg.Pool, str]) -> AsyncIterator[Platform]:
    bus = InMemoryBus()
    await bus.start()
    host = TableHost(
        engines=load_engines(),
        command_log=InMemoryCommandLog(),
        publisher=bus,
        seeds=Seeds("security"),
    )
    await host.start()
    pool, schema = wallet_pool
    wallet = await build_wallet(pool=pool, schema=schema, bus=None, registry=CollectorRegistry())
    try:
        table_id = await host.open_table("poker", json.loads(json.dumps(POKER.options)), HOUR)
        for seat, player in enumerate(POKER.players):
            await host.seat(table_id, player, seat, POKER.stack)
        async with served_gateway(
            beside=[table_service(host), wallet.service()], clock=time.time
        ) as gateway:
            accounts = await _fund(gateway.address, {"ana": 1_000, "mallory": 0})
            yield Platform(gateway, host, table_id, accounts)
    finally:
        await wallet.stop()
        await host.stop()
        await bus.stop()


async def _fund(address: str, deposits: dict[str, int]) -> dict[str, str]:
    """Cash accounts with these deposits, opened as a service (the cashier) would."""
    accounts = {}
    async with service_stub(address, wallet_pb2_grpc.WalletStub) as wallet:
        house = await wallet.OpenAccount(
            wallet_pb2.OpenAccountRequest(
                kind=wallet_pb2.ACCOUNT_KIND_HOUSE_CLEARING, owner="house", currency="USD"
            )
        )
        for player, amount in deposits.items():
            opened = await wallet.OpenAccount(
                wallet_pb2.OpenAccountRequest(
                    kind=wallet_pb2.ACCOUNT_KIND_PLAYER_CASH, owner=player, currency="USD"
                )
            )
            accounts[player] = opened.account.account_id
            if amount:
                await wallet.Transfer(_move(f"deposit-{player}", house.account.account_id,
                                            opened.account.account_id, amount))  # fmt: skip
    return accounts


def _move(transfer_id: str, debit: str, credit: str, amount: int) -> wallet_pb2.TransferRequest:
    return wallet_pb2.TransferRequest(
        transfer=wallet_pb2.NewTransfer(
            transfer_id=transfer_id,
            debit_account_id=debit,
            credit_account_id=credit,
            amount=common_pb2.Money(amount_minor=amount, currency="USD"),
            kind=wallet_pb2.TRANSFER_KIND_TRANSFER,
        )
    )


async def test_moving_another_players_money_at_the_wallet_with_a_players_token_is_refused(
    platform: Platform,
) -> None:
    steal = _move("steal-1", platform.accounts["ana"], platform.accounts["mallory"], 1_000)
    for metadata in ((), bearer("mallory", now=time.time())):
        async with grpc.aio.insecure_channel(platform.gateway.address) as channel:
            code, details = await status_of(
                wallet_pb2_grpc.WalletStub(channel).Transfer(steal, metadata=metadata)
            )
        assert code is grpc.StatusCode.UNAUTHENTICATED, details
    assert (await platform.balance("ana"), await platform.balance("mallory")) == (1_000, 0)


async def test_the_gateway_shows_a_player_only_his_own_money(platform: Platform) -> None:
    stub, now = platform.gateway.stub, time.time()
    request = pb.GetBalanceRequest(currency="USD")
    ana = await stub.GetBalance(request, metadata=bearer("ana", now=now))
    mallory = await stub.GetBalance(request, metadata=bearer("mallory", now=now))
    assert (ana.balance.amount_minor, mallory.balance.amount_minor) == (1_000, 0)


async def test_acting_for_another_players_seat_is_refused_through_the_gateway_and_the_host(
    platform: Platform,
) -> None:
    player = POKER.to_act(dict(platform.host.view(platform.table_id, "").view))
    assert player is not None
    own: dict[str, Any] = dict(platform.host.view(platform.table_id, player).view)
    action = json.dumps(POKER.legal_action(own, random.Random(7)))
    before = platform.host.digest(platform.table_id)
    code, _ = await status_of(
        platform.gateway.stub.Act(
            pb.ActRequest(table_id=platform.table_id, command_id="s1", action_json=action),
            metadata=bearer("mallory", now=time.time()),
        )
    )
    assert code is grpc.StatusCode.PERMISSION_DENIED
    as_player = table_pb2.ActRequest(
        table_id=platform.table_id, player_id=player, command_id="s2", action_json=action
    )
    async with grpc.aio.insecure_channel(platform.gateway.address) as channel:
        code, _ = await status_of(
            table_pb2_grpc.TableEngineStub(channel).Act(
                as_player, metadata=bearer("mallory", now=time.time())
            )
        )
    assert code is grpc.StatusCode.UNAUTHENTICATED
    assert platform.host.digest(platform.table_id) == before


async def test_another_players_view_never_reaches_the_caller(platform: Platform) -> None:
    seated = POKER.players[0]
    answer = await platform.gateway.stub.GetTableView(
        pb.GetTableViewRequest(table_id=platform.table_id),
        metadata=bearer("mallory", now=time.time()),
    )
    public = dict(platform.host.view(platform.table_id, "").view)
    own = dict(platform.host.view(platform.table_id, seated).view)
    assert own != public  # the seated player's view holds his hidden cards
    assert answer.view.version == platform.host.view(platform.table_id, "").version
    assert json.loads(answer.view.view_json or "{}") == json.loads(json.dumps(public))
