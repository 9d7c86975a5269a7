"""The event bus as services see it: publish envelopes, subscribe a handler with a group.

Two adapters implement it: `KafkaBus` (production, integration tests) and `InMemoryBus` (the
embedded dev mode and unit tests). Both give the same guarantees:

- `publish` returns once the message is durably on the topic (Kafka: `acks=all`, idempotent
  producer). The key is the envelope's subject, so one subject's messages stay in order.
- Each consumer group receives each message; within a group one member handles it. The
  position is saved only after the handler returned, so a crash means redelivery, never loss.
- Redelivery is made harmless by deduplicating on the envelope id (`Deduplicator`).
- A message that is not a valid Envelope goes to `<topic>.dlq` with the reason in the
  `croupier-dlq-reason` header, and the messages after it are still delivered.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Protocol

from croupier.events.v1.envelope_pb2 import Envelope
from croupier.kit.bus.dedup import Deduplicator

__all__ = ["DLQ_SUFFIX", "EventBus", "Handler", "Subscription", "dead_letter_topic"]

Handler = Callable[[Envelope], Awaitable[None]]
"""Handles one envelope. Raising means "not handled": it is retried (see `max_attempts`)."""

DLQ_SUFFIX = ".dlq"


def dead_letter_topic(topic: str) -> str:
    return topic + DLQ_SUFFIX


class Subscription(Protocol):
    """A running consumer of one topic for one group."""

    @property
    def topic(self) -> str: ...

    @property
    def group(self) -> str: ...

    async def stop(self) -> None:
        """Finish the message in hand, save the position, leave the group. Safe to call twice."""


class EventBus(Protocol):
    async def start(self) -> None: ...

    async def stop(self) -> None:
        """Stop every subscription, then flush and close the producer. Safe to call twice."""

    async def publish(self, topic: str, envelope: Envelope) -> None:
        """Append `envelope` to `topic`, keyed by its subject; return once it is stored."""

    async def publish_many(self, messages: Sequence[tuple[str, Envelope]]) -> None:
        """Publish several (topic, envelope) pairs, in order per key; return once all are stored."""

    async def subscribe(
        self,
        topic: str,
        *,
        group: str,
        handler: Handler,
        deduplicator: Deduplicator | None = None,
        max_attempts: int | None = None,
        types: Iterable[str] | None = None,
    ) -> Subscription:
        """Deliver every message of `topic` to `handler`, once per `group`.

        A new group starts from the earliest message. `deduplicator` (keyed by `group`) skips
        envelope ids already handled. A handler that raises is retried with backoff; after
        `max_attempts` failures (never, if None) the message goes to the dead-letter topic.
        `types`: the envelope types the handler wants; the others are passed over without
        being decoded (a consumer of a busy topic that wants few of its types pays little
        for the rest).
        """
        ...
