"""The event bus side of a service's wiring: the bus its settings choose
(`bus_from_settings`), and the bus started with the outbox relayed to it and,
optionally, a consumer joined (`start_relaying`), which `croupier.kit.tasks.keep_trying`
repeats in the background until the broker answers."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from croupier.kit.bus.interface import EventBus, Subscription
from croupier.kit.bus.kafka import KafkaBus
from croupier.kit.bus.memory import InMemoryBus
from croupier.kit.outbox import Outbox, OutboxRelay

__all__ = ["RELAY_POLL_SECONDS", "Relaying", "bus_from_settings", "start_relaying"]

#: How often the relay looks for committed outbox rows (services do not NOTIFY per row).
RELAY_POLL_SECONDS = 0.1


def bus_from_settings(kind: str, *, bootstrap_servers: str, client_id: str, **kafka: Any) -> Any:
    """`InMemoryBus()` for `kind` "memory", else a `KafkaBus` on `bootstrap_servers`
    (`kafka`: its other options). Typed `Any`: callers also hand it to ports narrower
    than `EventBus` (dead letters)."""
    if kind == "memory":
        return InMemoryBus()
    return KafkaBus(bootstrap_servers=bootstrap_servers, client_id=client_id, **kafka)


@dataclass(frozen=True)
class Relaying:
    """The started relay and the joined consumer (if one was asked for)."""

    relay: OutboxRelay
    subscription: Subscription | None

    def stop_hooks(self) -> list[Callable[[], Awaitable[None]]]:
        """In stopping order: the consumer first, then the relay (which flushes)."""
        if self.subscription is None:
            return [self.relay.stop]
        return [self.subscription.stop, self.relay.stop]


async def start_relaying(
    bus: EventBus,
    *,
    pool: Any,
    schema: str,
    subscribe: Callable[[], Awaitable[Subscription]] | None = None,
    poll_interval_seconds: float = RELAY_POLL_SECONDS,
) -> Relaying:
    """Start `bus` (a started bus is left as is), relay `schema`'s outbox to it, then join
    the consumer `subscribe` returns. If any step fails or is cancelled (a stop while
    connecting), the relay started here is stopped again before the error propagates."""
    relay = OutboxRelay(
        pool=pool,
        outbox=Outbox(schema=schema),
        bus=bus,
        poll_interval_seconds=poll_interval_seconds,
    )
    try:
        await bus.start()
        await relay.start()
        subscription = None if subscribe is None else await subscribe()
    except BaseException:
        await relay.stop()
        raise
    return Relaying(relay, subscription)
