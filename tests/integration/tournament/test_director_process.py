"""`croupier serve tournament`: migrations at start-up, settings from the environment,
health SERVING, a tournament created, its event relayed from the outbox to
`croupier.tournament.events` on the real Kafka, SIGTERM drains and exits 0; and `croupier
run` serves the director next to the wallet it pays entries through."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path

import asyncpg  # type: ignore[import-untyped]
import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from croupier.kit.bus.envelope import Envelope
from croupier.kit.bus.kafka import KafkaBus
from croupier.tournament import codec
from croupier.tournament.v1 import tournament_pb2 as pb
from croupier.tournament.v1 import tournament_pb2_grpc
from tests.support.cli import serving_port
from tests.support.services import service_stub
from tests.test_embedded import start_embedded
from tests.unit.tournament.director_sample import sample_settings

CROUPIER = Path(sys.executable).parent / "croupier"


def _create_request(key: str) -> pb.CreateTournamentRequest:
    return pb.CreateTournamentRequest(
        request_key=key, settings=codec.settings_to_proto(sample_settings())
    )


async def test_serve_tournament_serves_relays_its_events_and_drains_on_sigterm(
    postgres_dsn: str, kafka_bootstrap: str, unique: Callable[[str], str]
) -> None:
    schema = unique("tournament")
    env = dict(
        os.environ,
        CROUPIER_GRPC_HOST="127.0.0.1",
        CROUPIER_GRPC_PORT="0",
        CROUPIER_METRICS_PORT="0",
        CROUPIER_POSTGRES_DSN=postgres_dsn,
        CROUPIER_KAFKA_BOOTSTRAP=kafka_bootstrap,
        CROUPIER_TOURNAMENT_SCHEMA=schema,
    )
    process = await asyncio.create_subprocess_exec(
        str(CROUPIER), "serve", "tournament", env=env, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    port = await serving_port(process, "the director")
    received: asyncio.Queue[Envelope] = asyncio.Queue()

    async def handler(envelope: Envelope) -> None:
        await received.put(envelope)

    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            health = await health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service="croupier.tournament.v1.TournamentDirector")
            )
            assert health.status == health_pb2.HealthCheckResponse.SERVING
        director = tournament_pb2_grpc.TournamentDirectorStub
        async with service_stub(f"127.0.0.1:{port}", director) as stub:
            created = await stub.CreateTournament(_create_request(unique("key")))
        async with KafkaBus(bootstrap_servers=kafka_bootstrap) as bus:
            await bus.subscribe(codec.EVENTS_TOPIC, group=unique("group"), handler=handler)
            async with asyncio.timeout(60):
                while True:
                    envelope = await received.get()
                    if envelope.subject == created.tournament_id:
                        break
        assert envelope.type == "tournament.created" and envelope.sequence == 1
    finally:
        process.send_signal(signal.SIGTERM)
        async with asyncio.timeout(30):
            code = await process.wait()
        connection = await asyncpg.connect(postgres_dsn)
        try:
            await connection.execute(f'DROP SCHEMA "{schema}" CASCADE')
        finally:
            await connection.close()
    assert code == 0


async def test_croupier_run_serves_the_director_with_the_embedded_wallet(tmp_path: Path) -> None:
    process, address = start_embedded(tmp_path)
    try:
        async with service_stub(address, tournament_pb2_grpc.TournamentDirectorStub) as stub:
            created = await stub.CreateTournament(_create_request("embedded"))
            # ana has no dollars in the embedded wallet: it refuses her entry, so the
            # director registers nobody.
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await stub.Register(
                    pb.RegisterRequest(tournament_id=created.tournament_id, player_id="ana")
                )
            assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
            assert "the wallet refused the entry" in (refused.value.details() or "")
            lobby = await stub.GetLobbyView(
                pb.GetLobbyViewRequest(tournament_id=created.tournament_id)
            )
            assert lobby.status == pb.TOURNAMENT_STATUS_REGISTERING and not lobby.player_ids
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=30)
    assert process.returncode == 0
