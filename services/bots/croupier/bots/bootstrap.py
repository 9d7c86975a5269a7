"""Wire the bots: settings → the lobby's and the table host's gRPC clients, the fleet, a
consumer of `croupier.lobby.events` and the fill ticker.

`croupier serve bots` calls `create_services()`; tests and the embedded platform call
`build_bots` with their own bus and addresses, so every configuration is wired the same
way. The service has no gRPC API of its own (its server answers health and metrics);
it joins Kafka in the background, retrying until the broker answers.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from croupier.bots.adapters.host_grpc import GrpcSeatHost
from croupier.bots.adapters.lobby_grpc import GrpcLobby
from croupier.bots.entrypoints.lobby_events import EVENTS_TOPIC, LobbyEvents
from croupier.bots.service.fleet import BOT_PREFIX, Fleet, FleetSettings
from croupier.bots.service.ports import Clock, Lobby, Names, SeatHost
from croupier.bots.service.seat import Pacing
from croupier.kit.bus.interface import EventBus
from croupier.kit.server import Service, StopHook
from croupier.kit.service_auth import credential_from_environment
from croupier.kit.settings import choice, env, load, positive_float
from croupier.kit.tasks import Periodic, cancel, keep_trying
from croupier.kit.wiring import bus_from_settings

__all__ = ["BotsSettings", "WiredBots", "build_bots", "create_services"]

_log = logging.getLogger(__name__)
CONSUMER_GROUP = "croupier-bots"


@dataclass(frozen=True)
class BotsSettings:
    lobby_address: str = env(
        "CROUPIER_LOBBY_ADDRESS", str, "127.0.0.1:50051", doc="the lobby's gRPC address"
    )
    table_address: str = env(
        "CROUPIER_TABLE_ADDRESS", str, "127.0.0.1:50051", doc="the table host's gRPC address"
    )
    bus: str = env("CROUPIER_BOTS_BUS", choice("kafka", "memory"), "kafka", doc="event bus")
    kafka_bootstrap: str = env(
        "CROUPIER_KAFKA_BOOTSTRAP", str, "127.0.0.1:9092", doc="Kafka bootstrap servers"
    )
    fill_after_seconds: float = env(
        "CROUPIER_BOTS_FILL_AFTER_SECONDS",
        positive_float,
        20.0,
        doc="how long players wait at a table that allows bots before bots take its seats",
    )
    think_min_seconds: float = env(
        "CROUPIER_BOTS_THINK_MIN_SECONDS", positive_float, 1.0, doc="a bot's shortest decision"
    )
    think_max_seconds: float = env(
        "CROUPIER_BOTS_THINK_MAX_SECONDS", positive_float, 4.0, doc="a bot's longest decision"
    )
    tick_seconds: float = env(
        "CROUPIER_BOTS_TICK_SECONDS", positive_float, 1.0, doc="how often due seats are filled"
    )


def utc_now() -> datetime:
    return datetime.now(UTC)


def new_bot_name() -> str:
    return f"{BOT_PREFIX}{secrets.token_hex(6)}"


@dataclass
class WiredBots:
    fleet: Fleet
    ticker: Periodic | None
    stop_hooks: list[StopHook] = field(default_factory=list)
    connecting: asyncio.Task[None] | None = None

    async def stop(self) -> None:
        """Stop the ticker, the consumer and every bot. Safe to call twice."""
        if self.ticker is not None:
            await self.ticker.stop()
        connecting, self.connecting = self.connecting, None
        await cancel(connecting)
        hooks, self.stop_hooks = self.stop_hooks, []
        for hook in hooks:
            await hook()
        await self.fleet.stop()


def build_bots(
    *,
    lobby: Lobby,
    host: SeatHost,
    bus: EventBus | None,
    settings: FleetSettings | None = None,
    clock: Clock = utc_now,
    names: Names = new_bot_name,
    tick_seconds: float | None = 1.0,
    consumer_group: str = CONSUMER_GROUP,
) -> WiredBots:
    """The fleet seating bots through `lobby` and playing them on `host`; with a bus, the
    lobby's events followed (joined in the background); with `tick_seconds`, due seats
    filled on the clock."""
    fleet = Fleet(
        lobby=lobby,
        host=host,
        clock=clock,
        sleep=asyncio.sleep,
        names=names,
        settings=settings or FleetSettings(),
    )
    ticker = None
    if tick_seconds is not None:
        ticker = Periodic(
            fleet.tick, tick_seconds, name="bots:fill", failure="bots: fill failed", log=_log
        )
        ticker.start()
    wired = WiredBots(fleet, ticker)
    if bus is not None:
        events = LobbyEvents(fleet)

        async def subscribe() -> None:
            await bus.start()
            subscription = await bus.subscribe(
                EVENTS_TOPIC, group=consumer_group, handler=events.handle, max_attempts=None
            )
            wired.stop_hooks.insert(0, subscription.stop)

        wired.connecting = asyncio.create_task(
            keep_trying(subscribe, failure="bots: Kafka not reachable", log=_log),
            name="bots:kafka",
        )
    return wired


async def create_services() -> tuple[list[Service], list[StopHook]]:
    settings = load(BotsSettings)
    bus = bus_from_settings(
        settings.bus, bootstrap_servers=settings.kafka_bootstrap, client_id="croupier-bots"
    )
    credential = credential_from_environment("bots")
    host = GrpcSeatHost(settings.table_address, credential)
    lobby = GrpcLobby(settings.lobby_address, credential)
    wired = build_bots(
        lobby=lobby,
        host=host,
        bus=bus,
        settings=FleetSettings(
            fill_after=timedelta(seconds=settings.fill_after_seconds),
            pacing=Pacing(settings.think_min_seconds, settings.think_max_seconds),
        ),
        tick_seconds=settings.tick_seconds,
    )
    return [], [wired.stop, host.close, lobby.close, bus.stop]
