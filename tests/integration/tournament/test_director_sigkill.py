"""Rule 44's other half: a director process killed (SIGKILL) at three random points of a
tournament and started again over the same PostgreSQL schema and Kafka consumer group
finishes it with the same money movements as an uninterrupted run with the same seed (the
tournament's seed, the host's deals and the bots are the same): no round, rebuy or payment
lost or repeated. The points are drawn from a printed seed (`CROUPIER_TEST_SEED` replays
one). The director runs as
`croupier serve tournament`; the table host (a Kafka command log, served over gRPC) and
the wallet service run in the test process, the bots play the rounds."""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import signal
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from croupier.kit.channels import ServiceChannel
from croupier.kit.server import ServiceHost
from croupier.kit.settings import ServerSettings
from croupier.table.bootstrap import table_service
from croupier.tournament import codec
from croupier.tournament.adapters.postgres import PostgresRepository
from croupier.tournament.core.options import Level
from croupier.tournament.core.payouts import PayoutBracket
from croupier.tournament.service.events import Finished
from croupier.tournament.service.model import RebuyTerms, Status, TournamentRecord
from croupier.tournament.v1 import tournament_pb2 as pb
from croupier.tournament.v1 import tournament_pb2_grpc
from croupier.wallet.v1 import wallet_pb2
from tests.integration.tournament.platform import DEPOSIT, USD, Platform, kafka_tables
from tests.support.cli import serving_port
from tests.support.infra import unique_name
from tests.support.services import credential
from tests.unit.tournament.director_sample import BUY_IN, FEE, sample_settings
from tests.unit.tournament.hosted import Hosted

CROUPIER = Path(sys.executable).parent / "croupier"
PLAYERS = 8
KILLS = 3
"""Each kill comes right after a round was played, its result on its way to the director."""
REBUYS_SOLD = 2
WAIT_SECONDS = 60.0
WINDOW = 30
"""The longest rebuy window the rules allow (REBUY_WINDOW_SECONDS)."""


class Director:
    """`croupier serve tournament` over the test's schema, wallet, table host and group."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = env
        self.process: asyncio.subprocess.Process | None = None
        self.channel: ServiceChannel | None = None
        self._drain: asyncio.Task[None] | None = None

    async def start(self) -> Any:
        """Start the process; a stub of its gRPC service (typed Any: the generated aio
        stub is typed as the sync one)."""
        self.process = await asyncio.create_subprocess_exec(
            str(CROUPIER), "serve", "tournament", env=self.env,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        port = await serving_port(self.process, "the director")
        self._drain = asyncio.create_task(self._drain_output(self.process))
        self.channel = ServiceChannel(f"127.0.0.1:{port}", credential())
        return self.channel.stub(tournament_pb2_grpc.TournamentDirectorStub)

    @staticmethod
    async def _drain_output(process: asyncio.subprocess.Process) -> None:
        """Read the logs, so that a full pipe never blocks the process."""
        assert process.stdout is not None and process.stderr is not None
        await asyncio.gather(process.stdout.read(), process.stderr.read())

    async def stop(self, sig: signal.Signals) -> None:
        assert self.process is not None and self.channel is not None
        self.process.send_signal(sig)
        async with asyncio.timeout(30):
            await self.process.wait()
        await self.channel.close()
        if self._drain is not None:
            with contextlib.suppress(Exception):
                await self._drain


@asynccontextmanager
async def served(hosted: Hosted) -> AsyncIterator[str]:
    """The table host's gRPC API in this process; its address."""
    server = ServiceHost(
        settings=ServerSettings(grpc_host="127.0.0.1", grpc_port=0, metrics_port=0),
        services=[table_service(hosted.host)],
        serve_metrics_endpoint=False,
    )
    await server.start()
    try:
        yield f"127.0.0.1:{server.port}"
    finally:
        await server.stop()


async def _record(repository: PostgresRepository, tid: str) -> TournamentRecord:
    record = await repository.get(tid)
    assert record is not None
    return record


async def _until(
    repository: PostgresRepository, tid: str, done: Callable[[TournamentRecord], object]
) -> TournamentRecord:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT_SECONDS
    while True:
        record = await _record(repository, tid)
        if done(record):
            return record
        assert loop.time() < deadline, "the director did not get there in time"
        await asyncio.sleep(0.05)


async def _quiet(repository: PostgresRepository, tid: str) -> TournamentRecord:
    """The record once the director has done what is due (every saved round's table open,
    nothing saved for a while): the bots then play the rounds in the same order in every
    run, so the host deals them the same cards (its seeds go by the order of the deals)."""
    last = await _record(repository, tid)
    quiet = 0
    while quiet < 3:
        await asyncio.sleep(0.2)
        record = await _record(repository, tid)
        settled = all(h.table_id for h in record.hosted)
        quiet = quiet + 1 if record.version == last.version and settled else 0
        last = record
    return last


def _settled(table_id: str) -> Callable[[TournamentRecord], bool]:
    """Whether the director applied the round played at `table_id`."""
    return lambda record: all(h.table_id != table_id for h in record.hosted)


@dataclass(frozen=True)
class Run:
    rounds: int
    money: dict[int, tuple[int, int, int]]
    """Per player number: rebuys paid, prize won, balance change."""


async def _run(
    platform: Platform, kafka_bootstrap: str, postgres_dsn: str, seed: bytes, kills: set[int]
) -> Run:
    """One tournament of PLAYERS gin players on a host of its own, the director killed
    right after each round numbered in `kills` was played."""
    label = "killed" if kills else "whole"
    players = [f"{label}{number}" for number in range(PLAYERS)]
    for player in players:
        await platform.open_player(player)
    repository = PostgresRepository(platform.pool, platform.schema)
    async with kafka_tables(kafka_bootstrap, "sigkill") as hosted, served(hosted) as tables:
        director = Director(
            dict(
                os.environ,
                CROUPIER_GRPC_HOST="127.0.0.1",
                CROUPIER_GRPC_PORT="0",
                CROUPIER_METRICS_PORT="0",
                CROUPIER_POSTGRES_DSN=postgres_dsn,
                CROUPIER_KAFKA_BOOTSTRAP=kafka_bootstrap,
                CROUPIER_TOURNAMENT_SCHEMA=platform.schema,
                CROUPIER_WALLET_ADDRESS=platform.wallet_address,
                CROUPIER_TABLE_ADDRESS=tables,
                CROUPIER_TOURNAMENT_TABLE_EVENTS_GROUP=unique_name("director"),
                CROUPIER_TOURNAMENT_SCHEDULER_SECONDS="0.2",
            )
        )
        stub = await director.start()
        settings = sample_settings(
            variant="gin",
            start_time=datetime.now(UTC) + timedelta(seconds=4),
            min_players=2,
            max_players=PLAYERS,
            table_size=2,
            starting_chips=20,
            levels=(Level(10, 5),),
            # The table clocks and rebuy windows run on the wall clock, which the kills
            # slow down: no turn may time out in either run (a timed-out turn plays
            # another move, and the runs differ); offers stay open as long as allowed.
            turn_seconds=3_600,
            rebuys=RebuyTerms(
                max_per_player=1, max_level=5, price=BUY_IN, fee=FEE, window_seconds=WINDOW
            ),
            payouts=(PayoutBracket(2, 3, (10_000,)), PayoutBracket(4, 8, (7_000, 3_000))),
        )
        created = await stub.CreateTournament(
            pb.CreateTournamentRequest(
                request_key=unique_name("sigkill"),
                settings=codec.settings_to_proto(settings),
                seed=seed,
            )
        )
        tid = created.tournament_id
        for player in players:
            await stub.Register(pb.RegisterRequest(tournament_id=tid, player_id=player))
        await _until(repository, tid, lambda r: r.status is Status.RUNNING)
        played = sold = 0
        try:
            for _ in range(300):
                record = await _until(
                    repository,
                    tid,
                    lambda r: (
                        r.status is not Status.RUNNING
                        or r.offers
                        or any(h.table_id for h in r.hosted)
                    ),
                )
                if record.status is not Status.RUNNING:
                    break
                record = await _quiet(repository, tid)
                for offer in record.offers:
                    accept = sold < REBUYS_SOLD
                    await stub.Rebuy(
                        pb.RebuyRequest(tournament_id=tid, player_id=offer.player, accept=accept)
                    )
                    sold += accept
                table_id = next((h.table_id for h in record.hosted if h.table_id), "")
                if not table_id:
                    continue
                await hosted.play(table_id)
                played += 1
                if played in kills:
                    await director.stop(signal.SIGKILL)
                    stub = await director.start()
                await _until(repository, tid, _settled(table_id))
            record = await _until(repository, tid, lambda r: r.status is Status.FINISHED)
        finally:
            await director.stop(signal.SIGTERM)
    assert played > max(kills, default=0)
    state = record.standings()
    assert state is not None and state.finished
    rebuys = {name: p.rebuys for name, p in state.entrants.items()}
    assert sum(rebuys.values()) == sold  # each accepted rebuy counted once
    events = [e.event for e in await repository.events_after(tid, 0)]
    finished = [event for event in events if isinstance(event, Finished)]
    assert len(finished) == 1  # the prizes were paid once
    prizes = dict(finished[0].prizes)
    assert sum(prizes.values()) == BUY_IN * (PLAYERS + sold)
    money = {}
    for number, player in enumerate(players):
        change = await platform.balance(player) - DEPOSIT
        paid = (1 + rebuys[player]) * (BUY_IN + FEE)
        assert change == prizes.get(player, 0) - paid
        money[number] = (rebuys[player], prizes.get(player, 0), change)
    return Run(played, money)


async def test_a_director_killed_at_three_random_points_moves_the_money_of_a_whole_run(
    platform: Platform, kafka_bootstrap: str, postgres_dsn: str
) -> None:
    test_seed = int(os.environ.get("CROUPIER_TEST_SEED") or random.randrange(2**32))
    print(f"CROUPIER_TEST_SEED={test_seed}")  # replays this test's draws
    draw = random.Random(test_seed)
    seed = draw.randbytes(32)
    whole = await _run(platform, kafka_bootstrap, postgres_dsn, seed, set())
    kills = set(draw.sample(range(1, whole.rounds), KILLS))
    print(f"killed after rounds {sorted(kills)} of {whole.rounds}")
    killed = await _run(platform, kafka_bootstrap, postgres_dsn, seed, kills)
    assert killed == whole
    trial = await platform.wallet.GetTrialBalance(wallet_pb2.GetTrialBalanceRequest(currency=USD))
    assert trial.balanced
