"""What both adapters do with one consumed message: decode, deduplicate, handle, retry, dead-letter.

Kept apart from the transports so that the in-memory bus and the Kafka bus cannot disagree.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from croupier.kit.bus.dedup import Deduplicator
from croupier.kit.bus.envelope import EnvelopeDecodeError, decode_envelope
from croupier.kit.bus.interface import Handler, dead_letter_topic
from croupier.kit.metrics import KAFKA_DEAD_LETTERED

__all__ = [
    "DLQ_GROUP_HEADER",
    "DLQ_POSITION_HEADER",
    "DLQ_REASON_HEADER",
    "DLQ_TOPIC_HEADER",
    "TYPE_HEADER",
    "DeadLetter",
    "Delivery",
    "RawMessage",
    "dead_letter_headers",
    "header_of",
]

_log = logging.getLogger(__name__)

DLQ_REASON_HEADER = "croupier-dlq-reason"
DLQ_TOPIC_HEADER = "croupier-dlq-topic"
DLQ_GROUP_HEADER = "croupier-dlq-group"
DLQ_POSITION_HEADER = "croupier-dlq-position"
TYPE_HEADER = "croupier-type"

FIRST_RETRY_SECONDS = 0.05
LONGEST_RETRY_SECONDS = 5.0


@dataclass(frozen=True, slots=True, kw_only=True)
class RawMessage:
    """One message as the transport gave it."""

    topic: str
    key: bytes | None
    value: bytes | None
    position: str
    """Where it came from, for the dead-letter headers ("partition 2 offset 17")."""
    headers: Sequence[tuple[str, bytes]] = ()

    def header(self, name: str) -> bytes | None:
        return header_of(self.headers, name)


def header_of(headers: Iterable[tuple[str, bytes]], name: str) -> bytes | None:
    """The first of `headers` called `name`, if any."""
    return next((value for key, value in headers if key == name), None)


DeadLetter = Callable[[RawMessage, str], Awaitable[None]]
"""Sends a raw message to the dead-letter topic with a reason."""


def dead_letter_headers(message: RawMessage, *, group: str, reason: str) -> list[tuple[str, bytes]]:
    return [
        (DLQ_REASON_HEADER, reason.encode()),
        (DLQ_TOPIC_HEADER, message.topic.encode()),
        (DLQ_GROUP_HEADER, group.encode()),
        (DLQ_POSITION_HEADER, message.position.encode()),
    ]


class Delivery:
    """Hands messages of one topic to one group's handler, with the bus's guarantees."""

    def __init__(
        self,
        *,
        group: str,
        handler: Handler,
        dead_letter: DeadLetter,
        deduplicator: Deduplicator | None,
        max_attempts: int | None,
        types: Iterable[str] | None = None,
    ) -> None:
        if max_attempts is not None and max_attempts < 1:
            raise ValueError("max_attempts must be at least 1 (or None: retry for ever)")
        self._types = None if types is None else frozenset(t.encode() for t in types)
        self._group = group
        self._handler = handler
        self._dead_letter = dead_letter
        self._deduplicator = deduplicator
        self._max_attempts = max_attempts

    async def deliver(self, message: RawMessage) -> None:
        """Return once the message is dealt with: handled, skipped as a duplicate, or dead-lettered.

        Only then may the transport save its position past this message. A message whose
        type header names a type the subscription does not take is passed over undecoded
        (a message without the header is decoded and handled: the handler decides).
        """
        if self._types is not None:
            named = message.header(TYPE_HEADER)
            if named is not None and named not in self._types:
                return
        try:
            envelope = decode_envelope(message.value)
        except EnvelopeDecodeError as error:
            _log.warning(
                "dead-lettering an undecodable message from %s (%s): %s",
                message.topic,
                message.position,
                error.reason,
            )
            await self._dead_letter(message, error.reason)
            return
        if self._deduplicator is not None and await self._deduplicator.seen(
            self._group, envelope.id
        ):
            _log.debug("skipping duplicate envelope %s for %s", envelope.id, self._group)
            return
        attempt = 0
        delay = FIRST_RETRY_SECONDS
        while True:
            attempt += 1
            try:
                await self._handler(envelope)
                break
            except asyncio.CancelledError:
                raise
            except Exception as error:  # noqa: BLE001 - any handler failure is retried, then dead-lettered
                reason = f"handler failed {attempt} time(s): {type(error).__name__}: {error}"
                if self._max_attempts is not None and attempt >= self._max_attempts:
                    _log.error("dead-lettering envelope %s: %s", envelope.id, reason)
                    await self._dead_letter(message, reason)
                    return
                _log.warning("retrying envelope %s in %.2f s: %s", envelope.id, delay, reason)
                await asyncio.sleep(delay)
                delay = min(delay * 2, LONGEST_RETRY_SECONDS)
        if self._deduplicator is not None:
            await self._deduplicator.remember(self._group, envelope.id)


class RawPublisher(Protocol):
    """What a bus adapter offers to send a message's bytes as they are (dead letters)."""

    async def publish_raw(
        self,
        topic: str,
        *,
        key: bytes | None,
        value: bytes | None,
        headers: Sequence[tuple[str, bytes]] = (),
    ) -> None: ...


def delivery_for(
    bus: RawPublisher,
    *,
    group: str,
    handler: Handler,
    deduplicator: Deduplicator | None,
    max_attempts: int | None,
    types: Iterable[str] | None = None,
) -> Delivery:
    """The delivery rules of one subscription, dead-lettering through `bus` (both adapters)."""

    async def dead_letter(message: RawMessage, reason: str) -> None:
        await bus.publish_raw(
            dead_letter_topic(message.topic),
            key=message.key,
            value=message.value,
            headers=dead_letter_headers(message, group=group, reason=reason),
        )
        KAFKA_DEAD_LETTERED.labels(group, message.topic).inc()

    return Delivery(
        group=group,
        handler=handler,
        dead_letter=dead_letter,
        deduplicator=deduplicator,
        max_attempts=max_attempts,
        types=types,
    )
