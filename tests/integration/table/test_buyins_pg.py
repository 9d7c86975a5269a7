"""A USD poker cash table against the real wallet (PostgreSQL, gRPC BuyIn, the requests
consumer): buy-in and top-up move money from the player to his seat before the table logs
them, a refused buy-in changes nothing, hands settle between the seats, leaving gives the
stack back (and so does closing the table), and the books balance (seed 002 §6,
rule 50; docs/architecture.md §4)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import asyncpg  # type: ignore[import-untyped]
import grpc
import pytest
from prometheus_client import CollectorRegistry

from croupier.kit.bus.interface import dead_letter_topic
from croupier.kit.bus.memory import InMemoryBus
from croupier.kit.server import ServiceHost
from croupier.kit.settings import ServerSettings
from croupier.table.adapters.memory_log import InMemoryCommandLog
from croupier.table.adapters.sink import WALLET_REQUESTS_TOPIC
from croupier.table.adapters.wallets import GrpcWallet
from croupier.table.bootstrap import table_service
from croupier.table.games import load_engines
from croupier.table.service.host import TableHost
from croupier.table.service.money import Buyins
from croupier.table.v1 import table_pb2, table_pb2_grpc
from croupier.wallet.adapters.audit import audit_ledger
from croupier.wallet.bootstrap import Wallet, build_wallet, open_database
from croupier.wallet.core.model import AccountKind, TransferKind, TransferSpec
from tests.support.table import Seeds

pytestmark = pytest.mark.timeout(60)
Stub = Any
OPTIONS = {"variant": "nlhe", "blinds": [5, 10], "currency": "USD", "min_buy_in": 200,
           "max_buy_in": 1000}  # fmt: skip


def _server(*services: Any) -> ServiceHost:
    return ServiceHost(
        settings=ServerSettings(grpc_host="127.0.0.1", grpc_port=0, metrics_port=0),
        services=list(services),
        serve_metrics_endpoint=False,
    )


@dataclass
class Platform:
    stub: Stub
    wallet: Wallet
    pool: asyncpg.Pool
    host: TableHost
    bus: InMemoryBus

    async def balance(self, account_id: str) -> int:
        return (await self.wallet.ledger.account(account_id)).posted


@pytest.fixture
async def platform(postgres_dsn: str, unique: Callable[[str], str]) -> AsyncIterator[Platform]:
    schema = unique("buyins")
    pool = await open_database(postgres_dsn, schema, pool_size=4)
    bus = InMemoryBus()
    await bus.start()
    wallet = await build_wallet(pool=pool, schema=schema, bus=bus, registry=CollectorRegistry())
    wallet_server = _server(wallet.service())
    await wallet_server.start()
    cashier = GrpcWallet(f"127.0.0.1:{wallet_server.port}")
    host = TableHost(
        engines=load_engines(),
        command_log=InMemoryCommandLog(),
        publisher=bus,
        seeds=Seeds("buyins-pg"),
        buyins=Buyins(cashier),
    )
    await host.start()
    table_server = _server(table_service(host))
    await table_server.start()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{table_server.port}") as channel:
            yield Platform(table_pb2_grpc.TableEngineStub(channel), wallet, pool, host, bus)
    finally:
        await table_server.stop()
        await host.stop()
        await cashier.close()
        await wallet_server.stop()
        await wallet.stop()
        await bus.stop()
        await pool.close()
        connection = await asyncpg.connect(postgres_dsn)
        try:
            await connection.execute(f'DROP SCHEMA "{schema}" CASCADE')
        finally:
            await connection.close()


async def fund(wallet: Wallet, player: str, amount: int) -> None:
    house = await wallet.ledger.open_account(AccountKind.HOUSE_CLEARING, "house", "USD")
    account = await wallet.ledger.open_account(AccountKind.PLAYER_CASH, player, "USD")
    await wallet.ledger.transfer(
        TransferSpec(
            transfer_id=f"deposit-{player}",
            debit_account_id=house.account_id,
            credit_account_id=account.account_id,
            amount=amount,
            currency="USD",
            kind=TransferKind.DEPOSIT,
        )
    )


async def view(stub: Stub, table_id: str, player: str = "") -> table_pb2.TableView:
    request = table_pb2.GetViewRequest(table_id=table_id, player_id=player)
    result: table_pb2.TableView = (await stub.GetView(request)).view
    return result


async def act(stub: Stub, table_id: str, player: str, action: dict[str, Any], cid: str) -> None:
    await stub.Act(
        table_pb2.ActRequest(
            table_id=table_id, player_id=player, command_id=cid, action_json=json.dumps(action)
        )
    )


async def play_hand(stub: Stub, table_id: str, count: list[int]) -> None:
    """Check or call until the running hand ends (a showdown: money changes seats)."""
    number = json.loads((await view(stub, table_id)).view_json)["hand_number"]
    while True:
        public = json.loads((await view(stub, table_id)).view_json)
        hand = public.get("hand") or {}
        actor = hand.get("to_act")
        if public["hand_number"] != number or hand.get("status") == "complete" or not actor:
            return
        legal = json.loads((await view(stub, table_id, actor)).view_json)["hand"]["legal"]
        kind = "check" if "check" in legal["actions"] else "call"
        count[0] += 1
        await act(stub, table_id, actor, {"action": kind}, f"c{count[0]}")


async def settled(platform: Platform, accounts: dict[str, int]) -> None:
    """Wait until the wallet's consumer has applied the table's requests."""
    for _ in range(600):  # up to 30 s: the consumer shares a loaded machine in CI
        got = {a: await platform.balance(a) for a in accounts}
        if got == accounts:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"wallet balances {got}, expected {accounts}")


async def test_rule_50_cash_table_money_goes_through_the_wallet(platform: Platform) -> None:
    stub, wallet = platform.stub, platform.wallet
    for player, amount in (("ann", 2000), ("bob", 2000), ("cat", 100)):
        await fund(wallet, player, amount)
    request = table_pb2.OpenTableRequest(game="poker", options_json=json.dumps(OPTIONS))
    request.clock.turn_seconds = 3600
    table_id = (await stub.OpenTable(request)).table_id
    seat = f"table_escrow:{table_id}/%s:USD"
    cash = "player_cash:%s:USD"

    await stub.SeatPlayer(
        table_pb2.SeatPlayerRequest(table_id=table_id, player_id="ann", seat=0, stack=500)
    )
    assert await platform.balance(cash % "ann") == 1500
    assert await platform.balance(seat % "ann") == 500
    before = await view(stub, table_id)
    with pytest.raises(grpc.aio.AioRpcError) as poor:
        await stub.SeatPlayer(
            table_pb2.SeatPlayerRequest(table_id=table_id, player_id="cat", seat=1, stack=500)
        )
    assert poor.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert poor.value.details() == (
        "the wallet refused the buy-in: account 'player_cash:cat:USD' has 100 available "
        "(USD minor units), 500 needed"
    )
    assert (await view(stub, table_id)).version == before.version
    assert await platform.balance(cash % "cat") == 100

    await stub.SeatPlayer(
        table_pb2.SeatPlayerRequest(table_id=table_id, player_id="bob", seat=1, stack=500)
    )  # hand 1 starts
    count = [0]
    await act(stub, table_id, "ann", {"action": "top_up", "amount": 300}, "top")
    assert await platform.balance(cash % "ann") == 1200  # moved at once, stacked after the hand
    for _ in range(3):
        await play_hand(stub, table_id, count)
    await stub.UnseatPlayer(table_pb2.UnseatPlayerRequest(table_id=table_id, player_id="ann"))
    await play_hand(stub, table_id, count)  # ann leaves when the hand she is in ends
    stacks = {s.player_id: s.stack for s in (await view(stub, table_id)).game.poker.table}
    assert list(stacks) == ["bob"]
    await stub.CloseTable(table_pb2.CloseTableRequest(table_id=table_id))  # bob still sits
    await platform.host.flush()
    # Hands settled between the seats; both stacks went back (ann leaving, bob when the
    # table closed); ann + bob = 4000.
    await settled(platform, {seat % "ann": 0, seat % "bob": 0, f"table_escrow:{table_id}:USD": 0})
    ann, bob = await platform.balance(cash % "ann"), await platform.balance(cash % "bob")
    assert ann + bob == 4000 and ann != 2000
    kinds = {t.kind for t in await wallet.ledger.find_transfers(table_id=table_id)}
    assert {TransferKind.BUY_IN, TransferKind.STAKE, TransferKind.WINNINGS} <= kinds
    assert TransferKind.CASH_OUT in kinds
    dlq = dead_letter_topic(WALLET_REQUESTS_TOPIC)
    assert platform.bus.messages(dlq) == []  # every request applied, none dead-lettered
    async with platform.pool.acquire() as connection:
        report = await audit_ledger(connection)
    assert report.ok, report  # per currency the accounts sum to 0; no negative balance
