"""The in-memory event bus: the embedded dev mode and unit tests.

Same semantics as `KafkaBus`, inside one process: messages are stored serialized, per topic,
in publication order; each consumer group has its own position; within a group a message goes
to one member, chosen by its key (so one subject's messages go to one member, in order);
the position moves only after the handler returned; undecodable messages go to `<topic>.dlq`.
Nothing survives the process.
"""

from __future__ import annotations

import asyncio
import logging
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from types import TracebackType

from croupier.events.v1.envelope_pb2 import Envelope
from croupier.kit.bus.dedup import Deduplicator
from croupier.kit.bus.delivery import (
    TYPE_HEADER,
    Delivery,
    RawMessage,
    delivery_for,
    header_of,
)
from croupier.kit.bus.interface import Handler

__all__ = ["InMemoryBus", "StoredMessage"]

_log = logging.getLogger(__name__)

_ERROR_BACKOFF_SECONDS = 0.5


@dataclass(frozen=True, slots=True, kw_only=True)
class StoredMessage:
    key: bytes | None
    value: bytes | None
    headers: tuple[tuple[str, bytes], ...] = ()

    def header(self, name: str) -> bytes | None:
        return header_of(self.headers, name)


@dataclass(slots=True)
class _Group:
    topic: str
    name: str
    position: int = 0
    members: list[_MemorySubscription] = field(default_factory=list)
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    task: asyncio.Task[None] | None = None


class _MemorySubscription:
    def __init__(self, bus: InMemoryBus, group: _Group, delivery: Delivery) -> None:
        self._bus = bus
        self._group = group
        self.delivery = delivery
        self._stopped = False

    @property
    def topic(self) -> str:
        return self._group.topic

    @property
    def group(self) -> str:
        return self._group.name

    async def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        group = self._group
        async with group.lock:  # waits for the message in hand
            group.members.remove(self)
        group.wake.set()
        if not group.members and group.task is not None:
            await group.task


class InMemoryBus:
    """An `EventBus` in one process. Use `async with InMemoryBus() as bus:` or start/stop."""

    def __init__(self) -> None:
        self._topics: dict[str, list[StoredMessage]] = {}
        self._groups: dict[tuple[str, str], _Group] = {}
        self._subscriptions: list[_MemorySubscription] = []
        self._running = False

    async def start(self) -> None:
        self._running = True

    async def stop(self) -> None:
        subscriptions, self._subscriptions = self._subscriptions, []
        for subscription in subscriptions:
            await subscription.stop()
        self._running = False

    async def __aenter__(self) -> InMemoryBus:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.stop()

    def messages(self, topic: str) -> list[StoredMessage]:
        """Everything published to `topic` so far (a copy), for tests and inspection."""
        return list(self._topics.get(topic, ()))

    async def publish(self, topic: str, envelope: Envelope) -> None:
        await self.publish_raw(
            topic,
            key=envelope.subject.encode(),
            value=envelope.SerializeToString(),
            headers=((TYPE_HEADER, envelope.type.encode()),),
        )

    async def publish_many(self, messages: Sequence[tuple[str, Envelope]]) -> None:
        for topic, envelope in messages:
            await self.publish(topic, envelope)

    async def publish_raw(
        self,
        topic: str,
        *,
        key: bytes | None,
        value: bytes | None,
        headers: Sequence[tuple[str, bytes]] = (),
    ) -> None:
        """Append arbitrary bytes (tests use it to put an undecodable message on a topic)."""
        self._require_running()
        self._topics.setdefault(topic, []).append(
            StoredMessage(key=key, value=value, headers=tuple(headers))
        )
        for (group_topic, _), group in self._groups.items():
            if group_topic == topic:
                group.wake.set()

    async def subscribe(
        self,
        topic: str,
        *,
        group: str,
        handler: Handler,
        deduplicator: Deduplicator | None = None,
        max_attempts: int | None = None,
        types: Iterable[str] | None = None,
    ) -> _MemorySubscription:
        self._require_running()
        state = self._groups.get((topic, group))
        if state is None:
            state = self._groups[(topic, group)] = _Group(topic=topic, name=group)

        delivery = delivery_for(
            self,
            group=group,
            handler=handler,
            deduplicator=deduplicator,
            max_attempts=max_attempts,
            types=types,
        )
        subscription = _MemorySubscription(self, state, delivery)
        async with state.lock:
            state.members.append(subscription)
        self._subscriptions.append(subscription)
        if state.task is None or state.task.done():
            state.task = asyncio.create_task(self._dispatch(state), name=f"bus:{topic}:{group}")
        state.wake.set()
        return subscription

    async def _dispatch(self, group: _Group) -> None:
        log = self._topics.setdefault(group.topic, [])
        while group.members:
            if group.position >= len(log):
                group.wake.clear()
                await group.wake.wait()
                continue
            async with group.lock:
                if not group.members:
                    break
                stored = log[group.position]
                index = zlib.crc32(stored.key or b"") % len(group.members)
                member = group.members[index]
                try:
                    await member.delivery.deliver(
                        RawMessage(
                            topic=group.topic,
                            key=stored.key,
                            value=stored.value,
                            position=f"offset {group.position}",
                            headers=stored.headers,
                        )
                    )
                except Exception:  # noqa: BLE001 - e.g. the deduplicator failed: retry, never skip
                    _log.exception(
                        "delivery on %s at %d failed; retrying", group.topic, group.position
                    )
                    await asyncio.sleep(_ERROR_BACKOFF_SECONDS)
                    continue
                group.position += 1

    def _require_running(self) -> None:
        if not self._running:
            raise RuntimeError("the bus is not started (call start() or use `async with`)")
