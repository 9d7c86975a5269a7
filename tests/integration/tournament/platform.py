"""The director's integration tests' platform: the real wallet service on PostgreSQL (its
own schema, served on its own port) and director instances on their own schema, served
over gRPC, playing rounds on a table host given by the test; and a table host in this
process on a Kafka command log of its own."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import asyncpg  # type: ignore[import-untyped]
import grpc

from croupier.common.v1 import common_pb2
from croupier.kit.bus.interface import EventBus
from croupier.kit.bus.kafka import KafkaBus
from croupier.kit.server import Service, ServiceHost
from croupier.kit.settings import ServerSettings
from croupier.table.adapters.kafka_log import KafkaCommandLog
from croupier.table.games import load_engines
from croupier.table.service.host import TableHost as HostService
from croupier.tournament import codec
from croupier.tournament.adapters.tables import InProcessTableHost
from croupier.tournament.adapters.wallet import GrpcWallet
from croupier.tournament.bootstrap import Wired, build_director
from croupier.tournament.entrypoints.table_events import CONSUMER_GROUP
from croupier.tournament.service.director import Director
from croupier.tournament.service.model import Status
from croupier.tournament.service.ports import TableHost
from croupier.tournament.v1 import tournament_pb2_grpc
from croupier.wallet.v1 import wallet_pb2, wallet_pb2_grpc
from tests.support.infra import unique_name
from tests.support.table import Seeds
from tests.unit.tournament.director_sample import ManualClock, fixed_seed
from tests.unit.tournament.hosted import Hosted

DEPOSIT = 5_000
USD = "USD"


def serve(service: Service) -> ServiceHost:
    settings = ServerSettings(grpc_host="127.0.0.1", grpc_port=0, metrics_port=0)
    return ServiceHost(settings=settings, services=[service], serve_metrics_endpoint=False)


@dataclass
class Platform:
    """The wallet and one director instance, each served on its own port."""

    wallet: wallet_pb2_grpc.WalletStub
    wallet_address: str
    pool: asyncpg.Pool
    schema: str
    clock: ManualClock
    tables: TableHost
    wired: Wired | None = None
    host: ServiceHost | None = None
    channel: grpc.aio.Channel | None = None
    wallet_client: GrpcWallet | None = None
    accounts: dict[str, str] | None = None

    async def start_director(
        self, bus: EventBus | None = None, table_events_group: str = CONSUMER_GROUP
    ) -> tournament_pb2_grpc.TournamentDirectorStub:
        """A fresh director instance on the same database (what a restarted process does);
        with a bus, its outbox relayed there and the rounds' results read from it."""
        self.wallet_client = GrpcWallet(self.wallet_address)
        seeds = itertools.chain([fixed_seed(7), fixed_seed(8)], iter(Seeds("director"), None))
        self.wired = build_director(
            pool=self.pool,
            schema=self.schema,
            wallet=self.wallet_client,
            tables=self.tables,
            bus=bus,
            table_events_group=table_events_group,
            clock=self.clock,
            seeds=lambda: next(seeds),
            scheduler_seconds=None,
        )
        self.host = serve(self.wired.service())
        await self.host.start()
        self.channel = grpc.aio.insecure_channel(f"127.0.0.1:{self.host.port}")
        return tournament_pb2_grpc.TournamentDirectorStub(self.channel)

    async def stop_director(self) -> None:
        assert self.wired and self.host and self.channel and self.wallet_client
        await self.channel.close()
        await self.host.stop()
        await self.wired.stop()
        await self.wallet_client.close()

    async def open_player(self, player: str) -> None:
        house = await self.wallet.OpenAccount(
            wallet_pb2.OpenAccountRequest(
                kind=wallet_pb2.ACCOUNT_KIND_HOUSE_CLEARING, owner="house", currency=USD
            )
        )
        account = await self.wallet.OpenAccount(
            wallet_pb2.OpenAccountRequest(
                kind=wallet_pb2.ACCOUNT_KIND_PLAYER_CASH, owner=player, currency=USD
            )
        )
        await self.wallet.Transfer(
            wallet_pb2.TransferRequest(
                transfer=wallet_pb2.NewTransfer(
                    transfer_id=f"deposit-{player}",
                    debit_account_id=house.account.account_id,
                    credit_account_id=account.account.account_id,
                    amount=common_pb2.Money(amount_minor=DEPOSIT, currency=USD),
                    kind=wallet_pb2.TRANSFER_KIND_DEPOSIT,
                )
            )
        )
        assert self.accounts is not None
        self.accounts[player] = account.account.account_id

    async def balance(self, player: str) -> int:
        assert self.accounts is not None
        response = await self.wallet.GetBalance(
            wallet_pb2.GetBalanceRequest(account_id=self.accounts[player])
        )
        return response.balance.amount_minor

    async def outbox_events(self) -> int:
        count: int = await self.pool.fetchval(
            f'SELECT count(*) FROM "{self.schema}".outbox WHERE topic = $1', codec.EVENTS_TOPIC
        )
        return count


@asynccontextmanager
async def kafka_tables(kafka_bootstrap: str, seeds: str) -> AsyncIterator[Hosted]:
    """The table host in this process on a Kafka command log of its own, publishing its
    events on the broker (the bots read its rounds' state, the director drives it)."""
    bus = KafkaBus(bootstrap_servers=kafka_bootstrap)
    await bus.start()
    host = HostService(
        engines=load_engines(),
        command_log=KafkaCommandLog(kafka_bootstrap, unique_name("table_commands")),
        publisher=bus,
        seeds=Seeds(seeds),
    )
    await host.start()
    try:
        yield Hosted(host, bus, InProcessTableHost(host), [])
    finally:
        await host.stop()
        await bus.stop()


async def hand_applied(director: Director, tid: str, table_id: str, seconds: float = 60) -> None:
    """Wait until the director has applied the poker hand played at `table_id` (its
    result travels over the broker)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while True:
        record = await director.get(tid)
        if record.status is not Status.RUNNING or all(h.table_id != table_id for h in record.hands):
            return
        assert loop.time() < deadline, "the director did not apply the hand's result"
        await asyncio.sleep(0.01)
