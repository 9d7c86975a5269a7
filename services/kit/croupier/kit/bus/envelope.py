"""Building and reading `croupier.events.v1.Envelope`, the one message type on every topic."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from google.protobuf import any_pb2
from google.protobuf.message import DecodeError, Message

from croupier.events.v1.envelope_pb2 import Envelope

__all__ = [
    "Envelope",
    "EnvelopeDecodeError",
    "SubjectSequencer",
    "decode_envelope",
    "make_envelope",
]


class EnvelopeDecodeError(ValueError):
    """Bytes that are not a usable Envelope; `reason` says why (it goes into the DLQ header)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def make_envelope(
    *,
    type: str,
    source: str,
    subject: str,
    sequence: int,
    payload: Message,
    request_id: str = "",
    envelope_id: str | None = None,
    now: datetime | None = None,
) -> Envelope:
    """An envelope around `payload` with a fresh UUID id (unless `envelope_id` is given).

    `sequence` is the per-subject number (from 1) that the producer of `subject` assigns, for
    example with a `SubjectSequencer`. `now` defaults to the current UTC time.
    """
    if not type or not source or not subject:
        raise ValueError("an envelope needs a type, a source and a subject")
    if sequence < 1:
        raise ValueError(f"sequence numbers start at 1, got {sequence}")
    envelope = Envelope(
        id=envelope_id or str(uuid.uuid4()),
        type=type,
        source=source,
        subject=subject,
        sequence=sequence,
        request_id=request_id,
    )
    envelope.time.FromDatetime(now or datetime.now(UTC))
    packed = any_pb2.Any()
    packed.Pack(payload)
    envelope.payload.CopyFrom(packed)
    return envelope


def decode_envelope(raw: bytes | None) -> Envelope:
    """Parse and check one message value; raise `EnvelopeDecodeError` with the reason if unusable.

    An envelope must parse and carry an id, a type and a subject: consumers deduplicate on the id
    and the subject is the partition key.
    """
    if not raw:
        raise EnvelopeDecodeError("empty message value")
    envelope = Envelope()
    try:
        envelope.ParseFromString(raw)
    except DecodeError as error:
        raise EnvelopeDecodeError(f"not a protobuf Envelope: {error}") from error
    missing = [name for name in ("id", "type", "subject") if not getattr(envelope, name)]
    if missing:
        raise EnvelopeDecodeError(f"envelope without {', '.join(missing)}")
    return envelope


class SubjectSequencer:
    """Hands out per-subject sequence numbers 1, 2, 3, … in memory.

    A producer that restarts must seed it from its store (`start_after`), e.g. the table host
    from the last command in the table's log.
    """

    def __init__(self) -> None:
        self._last: dict[str, int] = {}

    def start_after(self, subject: str, sequence: int) -> None:
        """Continue `subject` after `sequence` (the last number already used)."""
        self._last[subject] = sequence

    def next(self, subject: str) -> int:
        number = self._last.get(subject, 0) + 1
        self._last[subject] = number
        return number
