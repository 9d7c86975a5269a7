"""USD backgammon money games funded by the platform itself (seed 001 rule 2; issue #23).

The real wallet on PostgreSQL (served over gRPC, consuming its requests from a Kafka topic
of this test's own) and a table host in this process on a Kafka command log of its own,
whose money requests go to that topic. A table is opened and seated the way the lobby
does it (`OpenTable`, `SeatPlayer` without a stack): sitting down buys the player's cover
into his seat before the seat is logged (the most a game can cost him: rule 5 capped by
the table's maximum), the game is played to its end, its result settles between the
seats and each player leaves with his stack. Without the host's buy-in the settlement
finds no seat (`account_not_found`) and is dead-lettered. A table the host cannot rebuild
(its log written by another engine version) is voided and both covers come back.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import asyncpg  # type: ignore[import-untyped]
import grpc
import pytest
from aiokafka import AIOKafkaConsumer, TopicPartition
from prometheus_client import CollectorRegistry

from croupier.backgammon.engine import BackgammonEngine
from croupier.game.commission import backgammon_commission
from croupier.game.money import CURRENCIES
from croupier.kit.bus import KafkaBus, dead_letter_topic
from croupier.kit.server import ServiceHost
from croupier.kit.settings import ServerSettings
from croupier.table.adapters.kafka_log import KafkaCommandLog
from croupier.table.adapters.wallet_requests import wallet_message
from croupier.table.adapters.wallets import GrpcWallet
from croupier.table.games import load_engines
from croupier.table.service.host import TableHost
from croupier.table.service.money import Buyins
from croupier.table.service.requests import MoneyRequest
from croupier.table.v1 import table_pb2
from croupier.wallet.bootstrap import Wallet, build_wallet
from croupier.wallet.core.model import AccountKind, TransferKind, TransferSpec
from tests.support.table import Seeds, serve_host

pytestmark = pytest.mark.timeout(180)

Stub = Any
DEPOSIT = 100_000
STAKE, MAX_WIN = 10, 640  # the e2e harness's money game: 10 cents a point, at most $6.40
OPTIONS = {"mode": "single", "stake": STAKE, "max_win": MAX_WIN, "currency": "USD"}
CASH, POT = "player_cash:%s:USD", "table_escrow:%s:USD"


class RequestsOnTopic:
    """The host's `WalletRequests` port onto this test's own requests topic: the same
    messages as `WalletRequestsOnBus`, which writes the fixed `croupier.wallet.requests`
    that every test on the shared broker (and their wallets) would read."""

    def __init__(self, bus: KafkaBus, topic: str) -> None:
        self._bus, self._topic = bus, topic

    async def send(self, requests: Sequence[MoneyRequest]) -> None:
        messages = [(self._topic, wallet_message(request)[1]) for request in requests]
        await self._bus.publish_many(messages)


@dataclass
class Platform:
    kafka: str
    pool: asyncpg.Pool
    wallet: Wallet
    wallet_address: str
    requests: str  # the wallet's requests topic
    commands: str  # the table host's command log

    async def balance(self, account_id: str) -> int:
        return (await self.wallet.ledger.account(account_id)).posted

    @asynccontextmanager
    async def table_host(self, engines: dict[str, Any] | None = None) -> AsyncIterator[Stub]:
        """A table host on the command log, buying in through the wallet over gRPC."""
        bus = KafkaBus(bootstrap_servers=self.kafka)
        await bus.start()
        cashier = GrpcWallet(self.wallet_address)
        log = KafkaCommandLog(self.kafka, self.commands)
        host = TableHost(
            engines=engines or load_engines(),
            command_log=log,
            publisher=bus,
            seeds=Seeds(f"bg-money/{self.commands}"),
            buyins=Buyins(cashier),
            wallet_requests=RequestsOnTopic(bus, self.requests),
        )
        try:
            async with serve_host(host, log, bus) as served:
                yield served.stub
        finally:
            await cashier.close()


@pytest.fixture
async def platform(
    kafka_bootstrap: str, wallet_pool: tuple[asyncpg.Pool, str], unique: Callable[[str], str]
) -> AsyncIterator[Platform]:
    pool, schema = wallet_pool  # audited when the test ends (every currency sums to 0)
    requests, transfers = unique("bg_wallet_requests"), unique("bg_wallet_transfers")
    async with KafkaBus(bootstrap_servers=kafka_bootstrap) as bus:
        await bus.create_topics([requests, transfers], partitions=3)  # and their .dlq
        wallet = await build_wallet(
            pool=pool,
            schema=schema,
            bus=bus,
            registry=CollectorRegistry(),
            requests_topic=requests,
            transfers_topic=transfers,
            consumer_group=unique("bg_wallet"),
        )
        server = ServiceHost(
            settings=ServerSettings(grpc_host="127.0.0.1", grpc_port=0, metrics_port=0),
            services=[wallet.service()],
            serve_metrics_endpoint=False,
        )
        await server.start()
        try:
            yield Platform(
                kafka_bootstrap,
                pool,
                wallet,
                f"127.0.0.1:{server.port}",
                requests,
                unique("bg_table_commands"),
            )
        finally:
            await server.stop()
            await wallet.stop()


async def deposit(wallet: Wallet, player: str, amount: int) -> None:
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


async def open_and_seat(stub: Stub, players: Sequence[str]) -> str:
    """Open a USD money game and seat `players` as the lobby does (no stack given)."""
    request = table_pb2.OpenTableRequest(game="backgammon", options_json=json.dumps(OPTIONS))
    request.clock.turn_seconds = 3600  # the clocks play no part here
    table_id: str = (await stub.OpenTable(request)).table_id
    for seat, player in enumerate(players):
        await stub.SeatPlayer(
            table_pb2.SeatPlayerRequest(table_id=table_id, player_id=player, seat=seat)
        )
    return table_id


async def view(stub: Stub, table_id: str, player: str = "") -> dict[str, Any]:
    request = table_pb2.GetViewRequest(table_id=table_id, player_id=player)
    found: dict[str, Any] = json.loads((await stub.GetView(request)).view.view_json)
    return found


async def play(stub: Stub, table_id: str, rng: random.Random, moves: int | None) -> None:
    """Random legal play (doubles offered and taken) for `moves` actions, or to the game's
    end (None)."""
    done = 0
    while moves is None or done < moves:
        to_act = (await view(stub, table_id)).get("to_act")
        if to_act is None:
            return
        mine = await view(stub, table_id, to_act)
        legal = mine["legal"]
        if "double" in legal["actions"] and rng.random() < 0.05:
            action: dict[str, Any] = {"action": "double"}
        elif "take" in legal["actions"]:
            action = {"action": "take"}
        elif "move" in legal["actions"]:
            action = {"action": "move", "play": rng.choice(legal["plays"])}
        else:
            action = {"action": "roll"}
        await stub.Act(
            table_pb2.ActRequest(
                table_id=table_id,
                player_id=to_act,
                command_id=f"{to_act}/{done}",
                action_json=json.dumps(action),
            )
        )
        done += 1


async def until_balances(platform: Platform, expected: dict[str, int]) -> None:
    """Wait (up to 60 s) until the wallet's consumer applied the table's requests."""
    got: dict[str, int] = {}
    for _ in range(600):
        got = {account: await platform.balance(account) for account in expected}
        if got == expected:
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"wallet balances {got}, expected {expected}")


async def dead_letters(platform: Platform) -> int:
    """Messages on the wallet's dead-letter topic."""
    topic = dead_letter_topic(platform.requests)
    consumer = AIOKafkaConsumer(bootstrap_servers=platform.kafka)
    await consumer.start()
    try:
        partitions = [TopicPartition(topic, p) for p in consumer.partitions_for_topic(topic) or {0}]
        ends = await consumer.end_offsets(partitions)
        starts = await consumer.beginning_offsets(partitions)
    finally:
        await consumer.stop()
    return sum(ends[tp] - starts[tp] for tp in partitions)


async def trial_balance(platform: Platform) -> dict[str, int]:
    lines = await platform.wallet.reports.trial_balance(datetime.now(UTC), currency="USD")
    return {line.account_id: line.balance for line in lines}


def fee(amount: int) -> int:
    return backgammon_commission(amount, CURRENCIES["USD"]).total


async def test_rule_2_a_usd_money_game_is_funded_by_the_host_and_settles_in_the_wallet(
    platform: Platform,
) -> None:
    for player in ("ann", "bob"):
        await deposit(platform.wallet, player, DEPOSIT)
    await deposit(platform.wallet, "cat", MAX_WIN - 1)  # a cent short of the cover
    async with platform.table_host() as stub:
        table_id = await open_and_seat(stub, ["ann"])
        seat = f"table_escrow:{table_id}/%s:USD"
        # Sitting down holds the cover, the most one game can cost (rule 5 capped: $6.40).
        assert await platform.balance(seat % "ann") == MAX_WIN
        assert await platform.balance(CASH % "ann") == DEPOSIT - MAX_WIN
        with pytest.raises(grpc.aio.AioRpcError) as poor:
            await stub.SeatPlayer(
                table_pb2.SeatPlayerRequest(table_id=table_id, player_id="cat", seat=1)
            )
        assert poor.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert "the wallet refused the buy-in" in (poor.value.details() or "")
        assert (await view(stub, table_id))["players"] == ["ann"]  # nothing dealt, cat not seated
        assert await platform.balance(CASH % "cat") == MAX_WIN - 1

        await stub.SeatPlayer(
            table_pb2.SeatPlayerRequest(table_id=table_id, player_id="bob", seat=1)
        )  # both covers held: the first game is dealt
        await play(stub, table_id, random.Random(23), None)
        over = await view(stub, table_id)
        assert over["phase"] == "game_over", over
        result = over["last_result"]
        for player in ("ann", "bob"):
            await stub.UnseatPlayer(
                table_pb2.UnseatPlayerRequest(table_id=table_id, player_id=player)
            )

    winner = result["winner"]
    loser = "bob" if winner == "ann" else "ann"
    amount = min(STAKE * result["points"], MAX_WIN)  # rule 5
    await until_balances(
        platform,
        {
            CASH % winner: DEPOSIT + amount - fee(amount),  # rules 39-43
            CASH % loser: DEPOSIT - amount,
            seat % "ann": 0,
            seat % "bob": 0,
            POT % table_id: 0,
            "house_commission:backgammon:USD": fee(amount),
        },
    )
    kinds = [t.kind for t in await platform.wallet.ledger.find_transfers(table_id=table_id)]
    assert sorted(kinds).count(TransferKind.BUY_IN) == 2  # one cover each, once
    # Each leaves with his stack; a loser who lost his whole cover has nothing to take.
    assert kinds.count(TransferKind.CASH_OUT) == (2 if amount < MAX_WIN else 1)
    assert await dead_letters(platform) == 0
    balances = await trial_balance(platform)
    assert sum(balances.values()) == 0, balances  # the trial balance balances


async def test_rule_2_a_voided_money_game_gives_both_covers_back(platform: Platform) -> None:
    for player in ("ann", "bob"):
        await deposit(platform.wallet, player, DEPOSIT)
    async with platform.table_host() as stub:
        table_id = await open_and_seat(stub, ["ann", "bob"])
        await play(stub, table_id, random.Random(5), 6)  # under way, a few moves in
        assert (await view(stub, table_id))["phase"] != "game_over"
    seat = f"table_escrow:{table_id}/%s:USD"
    assert [await platform.balance(seat % p) for p in ("ann", "bob")] == [MAX_WIN, MAX_WIN]

    class Upgraded(BackgammonEngine):  # a host whose engine cannot replay the table's log
        version = "upgraded"

    async with platform.table_host({**load_engines(), "backgammon": Upgraded()}) as stub:
        with pytest.raises(grpc.aio.AioRpcError) as voided:
            await view(stub, table_id)
        assert voided.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        await until_balances(
            platform,
            {
                CASH % "ann": DEPOSIT,
                CASH % "bob": DEPOSIT,
                seat % "ann": 0,
                seat % "bob": 0,
            },
        )
    refunds = [
        t
        for t in await platform.wallet.ledger.find_transfers(table_id=table_id)
        if t.kind is TransferKind.CRASH_REFUND
    ]
    assert sorted(t.amount for t in refunds) == [MAX_WIN, MAX_WIN]
    assert await dead_letters(platform) == 0
