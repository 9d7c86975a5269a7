"""The event bus: Envelopes on topics, keyed by subject, consumed once per group.

`EventBus` is the interface; `KafkaBus` and `InMemoryBus` implement it with the same
semantics (see `interface`). Consumers deduplicate by envelope id (`Deduplicator`).
"""

from croupier.kit.bus.dedup import Deduplicator, InMemoryDeduplicator, PostgresDeduplicator
from croupier.kit.bus.delivery import (
    DLQ_GROUP_HEADER,
    DLQ_POSITION_HEADER,
    DLQ_REASON_HEADER,
    DLQ_TOPIC_HEADER,
    TYPE_HEADER,
)
from croupier.kit.bus.envelope import (
    Envelope,
    EnvelopeDecodeError,
    SubjectSequencer,
    decode_envelope,
    make_envelope,
)
from croupier.kit.bus.interface import EventBus, Handler, Subscription, dead_letter_topic
from croupier.kit.bus.kafka import KafkaBus
from croupier.kit.bus.memory import InMemoryBus

__all__ = [
    "DLQ_GROUP_HEADER",
    "DLQ_POSITION_HEADER",
    "DLQ_REASON_HEADER",
    "DLQ_TOPIC_HEADER",
    "TYPE_HEADER",
    "Deduplicator",
    "Envelope",
    "EnvelopeDecodeError",
    "EventBus",
    "Handler",
    "InMemoryBus",
    "InMemoryDeduplicator",
    "KafkaBus",
    "PostgresDeduplicator",
    "SubjectSequencer",
    "Subscription",
    "dead_letter_topic",
    "decode_envelope",
    "make_envelope",
]
